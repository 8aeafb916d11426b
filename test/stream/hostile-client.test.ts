/**
 * The stream host (StreamInvoker) against a hostile client, the raw NDJSON client (real
 * processes); each case has a test that failed before its fix:
 *
 * - a flood of small frames queued behind a large one (judged in slices) was then judged in one
 *   synchronous loop with an O(n) dequeue: the event loop was held for seconds and another
 *   invocation's settle bound broke. Now the small frames are judged in slices of the shared
 *   scheduler (spec/host-runtime.md §Bounds);
 * - an event settled by a reply to an id the client guessed, while the client did not read, kept
 *   its queued frame: host memory grew with every such event, and the frame was written later.
 *   Now a frame not yet written is dropped when its event settles (§"Backpressure and memory");
 * - close() resolved while an older connection, ending after its event's timeout, still ran beside
 *   the newer live one. Now it waits for every connection not yet ended (§"close()").
 *
 * Barriers, never sleeps: an event's settling, the client's ready line in its log, SIGUSR1.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { alive, checkNothingLeftAfterEach, envelope, logLines, RAW_CLIENT, scratch, Sessions } from "./support.js";

const sessions = new Sessions();
const scratches = checkNothingLeftAfterEach(sessions);

function dir(): { dir: string; log: string } {
  const s = scratch();
  scratches.push(s.cleanup);
  return s;
}

/**
 * Run v1 invocations one after another (timeoutMs 200, a client that hangs, each a timeout) until
 * `until` settles; returns `until`'s value and each invocation's settle time (ms), at least one.
 */
async function v1Beside<T>(scratchDir: string, until: Promise<T>): Promise<{ value: T; settles: number[] }> {
  const hang = join(scratchDir, "hang.sh");
  writeFileSync(hang, "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 });
  const v1 = new SubprocessInvoker({ program: hang, timeoutMs: 200 });
  let done = false;
  const watched = until.finally(() => (done = true));
  const settles: number[] = [];
  for (let i = 0; settles.length === 0 || !done; i++) {
    const started = performance.now();
    const r = await v1.invoke(envelope("session.started", i));
    settles.push(performance.now() - started);
    expect(r.ok ? "ok" : r.failure.variant).toBe("timeout");
  }
  return { value: await watched, settles };
}

/** The settle bound of every v1 invocation beside: timeoutMs + settle_margin_ms. */
function expectSettleBound(settles: readonly number[], beside: string): void {
  expect(
    Math.max(...settles),
    `settle times (ms) of the v1 calls beside ${beside}: ${settles.map((ms) => ms.toFixed(0)).join(" ")}`,
  ).toBeLessThanOrEqual(200 + LIMITS.settle_margin_ms);
}

/** Wait (watchdog 10 s) until the raw client's log says it handles SIGUSR1, then send it. */
async function releaseGuessingClient(log: string, pid: number): Promise<void> {
  const watchdog = performance.now() + 10_000;
  while (!logLines(log).some((l) => l.ready === "SIGUSR1")) {
    if (performance.now() > watchdog) throw new Error("the client never said it was ready");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  process.kill(pid, "SIGUSR1");
}

describe("StreamInvoker under a hostile client", () => {
  it("200,000 small frames behind a 16 MB one are judged in slices: a v1 invocation beside them keeps its settle bound", {
    timeout: 120_000,
  }, async () => {
    const small = 200_000;
    const inv = sessions.open({ program: RAW_CLIENT, args: ["--behave", `flood:${small}`], timeoutMs: 90_000 });
    const { value: r, settles } = await v1Beside(dir().dir, inv.invoke(envelope("session.started", 1)));
    sessions.see(inv);
    expect(r.ok, JSON.stringify(r).slice(0, 500)).toBe(true);
    expect(inv.stats.discardedFrames).toBe(small + 1);
    expectSettleBound(settles, "the flood");
  });

  it("events settled by replies to guessed ids while the client does not read: their queued frames are dropped, never written", async () => {
    const d = dir();
    const events = 100;
    const inv = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", `guess:${events}:${WIRE_VERSION}`, "--log", d.log],
      timeoutMs: 30_000,
    });
    // 10 KB each (serialized at once, within invoke's first slice): 1 MB in all, more than the
    // socket buffer holds (net.core.wmem_default, 208 KiB by default), so the first frames are
    // written (one stays in flight) and the rest queue in the host.
    const big = (i: number) => {
      const e = envelope("session.started", i);
      return { ...e, request: { ...e.request, metadata: { pad: "x".repeat(10_000) } } };
    };
    const results = Array.from({ length: events }, (_, i) => inv.invoke(big(i + 1)));
    // Barrier: the client has installed its SIGUSR1 handler (its ready line), then it guesses.
    await releaseGuessingClient(d.log, sessions.see(inv) as number);
    for (const r of await Promise.all(results))
      expect(r.ok ? r.response.metadata?.guessed : r.failure.variant).toBe(true);
    // The client now reads: the next event is answered, and of the settled ones it has read only
    // the frames written before they settled (the first ones, in order), none of the queued rest.
    const next = await inv.invoke(envelope("session.started", events + 1));
    expect(next.ok ? next.response.metadata?.event_id : next.failure.variant).toBe(`e${events + 1}`);
    const received = logLines(d.log)
      .map((l) => l.frame as { id?: string; method?: string } | undefined)
      .filter((f) => f?.method?.startsWith("event/") === true)
      .map((f) => f?.id);
    const written = received.length - 1;
    expect(written).toBeGreaterThan(0);
    expect(written, "every queued frame was written after its event had settled").toBeLessThan(events);
    expect(received).toEqual([...Array.from({ length: written }, (_, i) => String(i + 1)), String(events + 1)]);
  });

  it("60,000 frames queued for a client that reads only later are written with an O(1) dequeue: a v1 invocation beside them keeps its settle bound", {
    timeout: 120_000,
  }, async () => {
    const d = dir();
    // The client reads nothing until SIGUSR1 (guessing no id), then reads everything and answers
    // nothing: every write completes at once, so the whole queue is written in one go.
    const inv = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", `guess:0:${WIRE_VERSION}:silent`, "--log", d.log],
      timeoutMs: 3000,
    });
    const events = Array.from({ length: 60_000 }, (_, i) => inv.invoke(envelope("session.started", i + 1)));
    await releaseGuessingClient(d.log, sessions.see(inv) as number);
    const { value: answered, settles } = await v1Beside(d.dir, Promise.all(events));
    // Unanswered: the first time out, then the stream ends (stream_max_consecutive_timeouts).
    expect(new Set(answered.map((r) => (r.ok ? "ok" : r.failure.variant)))).toEqual(
      new Set(["timeout", "stream_exit"]),
    );
    expectSettleBound(settles, "the queue");
  });

  it("a client that exits right after 200,000 frames behind a 16 MB one: the frames still in the pipe while the host paused it are read, the reply is delivered", {
    timeout: 60_000,
  }, async () => {
    const inv = sessions.open({ program: RAW_CLIENT, args: ["--behave", "flood-exit:200000"], timeoutMs: 30_000 });
    const r = await inv.invoke(envelope("session.started", 1));
    sessions.see(inv);
    expect(r.ok ? "ok" : `${r.failure.variant}: ${r.failure.detail}`).toBe("ok");
    expect(inv.stats.discardedFrames).toBe(200_001);
  });

  it("an event invoked after the child exited, while its last frames are still being judged, goes to a new child", {
    timeout: 60_000,
  }, async () => {
    const d = dir();
    // A 16 MB frame (judged in slices for a few hundred ms), the reply, then the exit.
    const inv = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", "flood-exit:0", "--once", join(d.dir, "once")],
      timeoutMs: 30_000,
    });
    const first = inv.invoke(envelope("session.started", 1));
    const pid = sessions.see(inv) as number;
    // Barrier: the first child wrote everything and exited; the host is still judging its frames.
    const watchdog = performance.now() + 20_000;
    while (alive(pid)) {
      if (performance.now() > watchdog) throw new Error("the first child never exited");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const second = await inv.invoke(envelope("session.started", 2));
    expect(second.ok ? "ok" : `${second.failure.variant}: ${second.failure.detail}`).toBe("ok");
    const one = await first;
    expect(one.ok ? "ok" : `${one.failure.variant}: ${one.failure.detail}`).toBe("ok");
    expect(inv.stats.spawns).toBe(2);
  });

  it("close() waits for an older stream still ending (its event timed out) while a newer one is live", async () => {
    const d = dir();
    // After a's timeout the first child has kill_grace_ms (4 s) before SIGKILL: the window in which
    // the second starts and answers (a Node start-up, slow on a loaded machine; timeoutMs 2 s covers it).
    const limits = { stream_max_consecutive_timeouts: 1, kill_grace_ms: 4000, settle_margin_ms: 8000 };
    // The first child answers nothing and ignores SIGTERM; the second (the once file exists) echoes.
    const inv = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", "silent-stay", "--once", join(d.dir, "once")],
      timeoutMs: 2000,
      limits,
    });
    const a = inv.invoke(envelope("session.started", 1));
    const first = sessions.see(inv) as number;
    expect(first).not.toBeNull();
    // Barrier: a timed out, so the first stream is ending (SIGTERM sent; SIGKILL after kill_grace_ms).
    expect((await a).ok ? "ok" : "timeout").toBe("timeout");
    const b = await inv.invoke(envelope("session.started", 2));
    expect(b.ok, JSON.stringify(b).slice(0, 300)).toBe(true);
    const second = sessions.see(inv) as number;
    expect(second).not.toBe(first);
    await inv.close();
    expect(alive(first), "the first child still runs after close() resolved").toBe(false);
    expect(alive(second)).toBe(false);
  });
});
