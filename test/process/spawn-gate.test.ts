/**
 * The spawn gate's order and bookkeeping (runtime/process/spawn-gate.ts; spec/host-runtime.md
 * §"Bounds", "Spawns in a burst"), with spawn functions that record their turn instead of forking
 * (the real spawns are test/invoker/spawn-burst.test.ts): first in, first out; the first of a
 * burst at once; the rest on later turns with the timers running in between; a cancelled spawn
 * leaves the queue at once and never runs, and so does one whose deadline has passed; a sliced
 * job that asks for the front of every turn (a serializer listing one large object after another)
 * does not keep the drain, whose spawns cost more than a slice, from the front for as long as it runs.
 */
import { describe, expect, it } from "vitest";
import { queuedSpawns, requestSpawn, spawnsStarted } from "../../runtime/process/spawn-gate.js";
import { deferToNextTurn, nextTurn, runInSlices } from "../../runtime/process/slices.js";

/** Busy the main thread for `ms` (what a fork costs it). */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("spawn gate", () => {
  it("runs a burst in arrival order, the first at once, the others on later turns", async () => {
    await nextTurn();
    const N = 40;
    const order: number[] = [];
    /** The value of `ticks` when each spawn ran: a timer that ticks between spawns proves they were spread. */
    const atTick: number[] = [];
    let ticks = 0;
    const tick = setInterval(() => ticks++, 1);
    const all = new Promise<void>((resolve) => {
      for (let i = 0; i < N; i++) {
        requestSpawn(() => {
          order.push(i);
          atTick.push(ticks);
          hold(2);
          if (order.length === N) resolve();
        });
      }
    });
    expect(order).toEqual([0]);
    expect(queuedSpawns()).toBe(N - 1);
    await all;
    clearInterval(tick);
    expect(order).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(queuedSpawns()).toBe(0);
    // 40 spawns of 2 ms cannot share one turn of about 10 ms: the timer ticked between them.
    expect(new Set(atTick).size).toBeGreaterThanOrEqual(3);
  });

  it("a cancelled spawn leaves the queue at once and never runs; the others keep their order", async () => {
    await nextTurn();
    const ran: number[] = [];
    const base = spawnsStarted();
    const first = requestSpawn(() => ran.push(0));
    expect(first).toBeNull(); // ran at once
    const tickets = Array.from({ length: 9 }, (_, i) => requestSpawn(() => ran.push(i + 1)));
    expect(queuedSpawns()).toBe(9);
    tickets[2]?.cancel();
    tickets[5]?.cancel();
    tickets[5]?.cancel(); // twice: still one removal
    expect(queuedSpawns()).toBe(7);
    while (queuedSpawns() > 0) await nextTurn();
    expect(ran).toEqual([0, 1, 2, 4, 5, 7, 8, 9]);
    expect(spawnsStarted() - base).toBe(8);
    tickets[0]?.cancel(); // after it ran: nothing happens
    expect(queuedSpawns()).toBe(0);
  });

  it("a spawn whose deadline has passed is never run, at once or from the queue", async () => {
    await nextTurn();
    const ran: string[] = [];
    expect(requestSpawn(() => ran.push("late"), performance.now() - 1)).not.toBeNull();
    expect(queuedSpawns()).toBe(0);
    requestSpawn(() => ran.push("first")); // at once
    // Not yet due when it is queued, even on a loaded machine; due before the gate's next turn.
    const deadlineAt = performance.now() + 50;
    requestSpawn(() => ran.push("expired in the queue"), deadlineAt);
    requestSpawn(() => ran.push("wanted"));
    expect(queuedSpawns()).toBe(2);
    hold(52); // past the deadline before the gate's next turn
    while (queuedSpawns() > 0) await nextTurn();
    expect(ran).toEqual(["first", "wanted"]);
  });

  it("a spawn function that throws does not stall the queue", async () => {
    await nextTurn();
    const ran: string[] = [];
    requestSpawn(() => ran.push("a"));
    requestSpawn(() => {
      throw new Error("boom");
    });
    requestSpawn(() => ran.push("c"));
    while (queuedSpawns() > 0) await nextTurn();
    expect(ran).toEqual(["a", "c"]);
  });

  it("a job that defers to the next turn on every go does not starve spawns that cost more than a slice", async () => {
    await nextTurn();
    // Spawns of 8 ms (more than a slice, as on a loaded machine): the drain spawns only at the front of a turn.
    requestSpawn(() => hold(8)); // at once, and sets the estimate
    let jobDone = false;
    const ranWhileJobRan: boolean[] = [];
    for (let i = 0; i < 5; i++)
      requestSpawn(() => {
        ranWhileJobRan.push(!jobDone);
        hold(8);
      });
    // The job asks for the front of the next turn on every go and works a slice each time, until
    // the spawns have all run (a watchdog of 3 s ends it otherwise: the starvation this test catches).
    const t0 = performance.now();
    const job = runInSlices((budgetMs) => {
      deferToNextTurn();
      hold(budgetMs);
      jobDone = ranWhileJobRan.length === 5 || performance.now() - t0 > 3000;
      return jobDone;
    });
    await job;
    while (queuedSpawns() > 0) await nextTurn();
    expect(ranWhileJobRan.length).toBe(5);
    expect(ranWhileJobRan.filter(Boolean).length, "spawns that ran while the job was running").toBe(5);
  });
});
