/**
 * The cooperative scheduler (runtime/process/slices.ts): a long step that follows an I/O callback's
 * own work never runs before the timers that are due (one setImmediate from the poll phase runs in
 * the same iteration of the loop, before them), and jobs take turns until they finish.
 */
import { readFile } from "node:fs";
import { describe, expect, it } from "vitest";
import { nextTurn, runInSlices } from "../../runtime/process/slices.js";

/** Run `body` inside a real I/O callback (the poll phase of the loop), after a timer fell due. */
function inIoCallback(body: (order: string[]) => Promise<void>): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const order: string[] = [];
    readFile(new URL(import.meta.url), () => {
      setTimeout(() => order.push("timer"), 1);
      // The I/O callback's own long work: the timer is due when it ends.
      const until = performance.now() + 5;
      while (performance.now() < until);
      body(order).then(() => resolve(order), reject);
    });
  });
}

describe("slices scheduler", () => {
  it("from an I/O callback, a due timer runs before the first slice of runInSlices", async () => {
    const order = await inIoCallback(async (order) => {
      await runInSlices(() => {
        order.push("slice");
        return true;
      });
    });
    expect(order).toEqual(["timer", "slice"]);
  });

  it("from an I/O callback, a due timer runs before nextTurn resolves", async () => {
    const order = await inIoCallback(async (order) => {
      await nextTurn();
      order.push("next turn");
    });
    expect(order).toEqual(["timer", "next turn"]);
  });

  it("jobs take turns round-robin until each reports that it is finished", async () => {
    const seen: string[] = [];
    const job = (name: string, steps: number) => {
      let left = steps;
      return runInSlices(() => {
        seen.push(name);
        return --left === 0;
      });
    };
    const results = await Promise.all([job("a", 3), job("b", 2)]);
    expect(results).toEqual([true, true]);
    expect(seen).toEqual(["a", "b", "a", "b", "a"]);
  });

  it("a job past its deadline is not called again and resolves false", async () => {
    let calls = 0;
    const finished = await runInSlices(() => {
      calls++;
      const until = performance.now() + 2;
      while (performance.now() < until);
      return false;
    }, performance.now() + 20);
    expect(finished).toBe(false);
    const after = calls;
    await nextTurn();
    await nextTurn();
    expect(calls).toBe(after);
  });
});
