/**
 * The stream host's writes (spec/host-runtime.md §"Stream invoker (v2)", Write step; runtime/stream/connection.ts)
 * against real /bin/sh and Node clients that stop reading, close stdin or ignore SIGTERM: how an
 * event pending at the end is classified, and that frames reach the client whole and in order.
 * Barriers, not sleeps: each test waits on the invoker's own outcomes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ConnectionEnd, StreamConnection } from "../../runtime/stream/connection.js";
import type { StreamInvoker } from "../../runtime/stream/invoker.js";
import { resolveStreamLimits, type StreamInvokerLimits } from "../../runtime/stream/limits.js";
import { alive, envelope, logLines, RAW_CLIENT, scratch, Sessions } from "./support.js";

const sessions = new Sessions();

/** Resolves once `inv` has a live child (its queued frames are written in the step that spawns it); remembers the pid. */
async function spawned(inv: StreamInvoker): Promise<number> {
  for (;;) {
    const pid = sessions.see(inv);
    if (pid !== null) return pid;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
afterEach(async () => {
  const left = await sessions.closeAll();
  expect(left.alive, "processes left running").toEqual([]);
  expect(left.tracked, "process groups still tracked").toEqual([]);
});

const GRACE = { stream_close_grace_ms: 200, stream_term_grace_ms: 300 } as const;

/**
 * A leader that exits at SIGTERM (so close()'s SIGKILL step finds it reaped and only destroys the
 * pipes) and a descendant that holds stdin without reading it and stdout open, ignoring SIGTERM:
 * the teardown is then deterministic (pipes destroyed while the write is in flight, the exit long known).
 */
const HELD = ["-c", "exec 3<&0; (trap '' TERM; exec sleep 60 <&3 3<&-) & exec 3<&-; trap 'exit 0' TERM; wait"];
/** kill_grace_ms above the term grace: close()'s SIGKILL step comes before the kill grace that follows the leader's exit. */
const HELD_GRACE = {
  stream_close_grace_ms: 200,
  stream_term_grace_ms: 300,
  kill_grace_ms: 2000,
  settle_margin_ms: 3000,
} as const;

/**
 * A /bin/sh client (`args`) with a 1 MiB event frame written to it: resolves once the child is
 * spawned, when the frame was handed to stdin in the same step (the pipe took its first 64 KiB).
 */
async function bigFrameInFlight(
  args: string[],
  limits: Partial<StreamInvokerLimits>,
): Promise<{ inv: StreamInvoker; pending: ReturnType<StreamInvoker["invoke"]> }> {
  const inv = sessions.open({ program: "/bin/sh", args, timeoutMs: 30_000, limits });
  const big = envelope("session.started", 1);
  big.request.metadata = { blob: "x".repeat(1024 * 1024) };
  const pending = inv.invoke(big);
  await spawned(inv);
  return { inv, pending };
}

/** The variant of a settled invocation ("ok" when it succeeded). */
const variant = (r: Awaited<ReturnType<StreamInvoker["invoke"]>>): string =>
  r.ok ? "ok" : `${r.failure.variant}: ${r.failure.detail}`;

describe("StreamConnection: the host's own pipe teardown is not a client's write error", () => {
  it("close() while a frame larger than the pipe is still in flight to a client that does not read: the pending event fails stream_exit (closed), not write_request", async () => {
    const { inv, pending } = await bigFrameInFlight(HELD, HELD_GRACE);
    const closed = inv.close();
    const result = await pending;
    await closed;
    expect(variant(result)).toMatch(/^stream_exit: the stream was closed before the client answered/);
  });

  it("the same with a frame queued behind the one in flight: both pending events fail stream_exit (closed)", async () => {
    const { inv, pending } = await bigFrameInFlight(HELD, HELD_GRACE);
    // Waits in the host's queue behind the frame the pipe holds in part.
    const queued = inv.invoke(envelope("session.started", 2));
    const closed = inv.close();
    const results = await Promise.all([pending, queued]);
    await closed;
    for (const r of results)
      expect(variant(r)).toMatch(/^stream_exit: the stream was closed before the client answered/);
  });
});

describe("StreamConnection: a client that exits mid-frame", () => {
  it("a client that reads 1000 bytes of a 1 MiB frame and exits 3: the event fails stream_exit with exit code 3 (the broken pipe announces the exit, it is not a write error)", async () => {
    const { pending } = await bigFrameInFlight(["-c", "head -c 1000 >/dev/null; exit 3"], GRACE);
    const r = await pending;
    expect(r.ok ? "ok" : r.failure.variant).toBe("stream_exit");
    if (!r.ok) expect(r.failure.exit_code).toBe(3);
  });
});

describe("StreamConnection: a write that fails at once", () => {
  it("a client that closed its stdin: a small frame (written without callback) fails at once with EPIPE and the stream ends as write_error", async () => {
    // Barrier: the client closes stdin, then writes a notification; once the host read it, stdin is closed.
    const script = `exec 0<&-; printf '%s\\n' '{"jsonrpc":"2.0","method":"ready"}'; trap '' TERM; exec sleep 60`;
    let ready!: () => void;
    const readySeen = new Promise<void>((resolve) => (ready = resolve));
    let ended!: (end: ConnectionEnd) => void;
    const end = new Promise<ConnectionEnd>((resolve) => (ended = resolve));
    const conn = new StreamConnection("/bin/sh", ["-c", script], resolveStreamLimits(GRACE), {
      onFrame: () => ready(),
      onEnd: (e) => ended(e),
    });
    conn.start();
    await readySeen;
    const pid = conn.pid;
    const written: (Error | null)[] = [];
    conn.write('{"jsonrpc":"2.0","method":"lifeloop/cancel","params":{"id":"1","reason":"timeout"}}\n');
    conn.write("{}\n", (error) => written.push(error));
    const e = await end;
    expect(e.cause).toBe("write_error");
    expect(e.writeError?.code).toBe("EPIPE");
    // The frame behind the failed one is never written: its callback reports the error.
    expect(written.length).toBe(1);
    expect(written[0]).not.toBeNull();
    expect(alive(pid)).toBe(false);
  });
});

describe("StreamConnection: frames are written whole and in order", () => {
  it("40 concurrent events, every third one larger than the pipe (written in part, then completed): all answered, and the client read every frame whole in the order they were queued", async () => {
    const s = scratch();
    try {
      const inv = sessions.open({ program: RAW_CLIENT, args: ["--log", s.log], timeoutMs: 60_000, limits: GRACE });
      const envelopes = Array.from({ length: 40 }, (_, i) => {
        const e = envelope("session.started", i + 1);
        if (i % 3 === 0) e.request.metadata = { blob: `${i}`.padEnd(200 * 1024, "x") };
        return e;
      });
      // The large envelopes are serialized in slices, so the host queues (and numbers) the frames in its own order.
      const results = await Promise.all(envelopes.map((e) => inv.invoke(e)));
      sessions.see(inv);
      expect(results.map((r) => (r.ok ? "ok" : r.failure.variant))).toEqual(envelopes.map(() => "ok"));
      for (const [i, r] of results.entries()) if (r.ok) expect(r.response.metadata?.event_id).toBe(`e${i + 1}`);
      const frames = logLines(s.log).map(
        (l) => l.frame as { id: string; params: { request: { event_id: string; metadata?: { blob?: string } } } },
      );
      // Each frame arrived whole (its blob intact) and the ids are the order the host queued them in.
      expect(frames.map((f) => Number(f.id))).toEqual([...frames.map((f) => Number(f.id))].sort((a, b) => a - b));
      expect(frames.length).toBe(40);
      for (const f of frames) {
        const i = Number(f.params.request.event_id.slice(1)) - 1;
        if (i % 3 === 0) expect(f.params.request.metadata?.blob).toBe(`${i}`.padEnd(200 * 1024, "x"));
      }
    } finally {
      s.cleanup();
    }
  });
});
