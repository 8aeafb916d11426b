/**
 * The stream host's writes (spec/host-runtime.md §"Stream invoker (v2)", Write step; runtime/stream/connection.ts)
 * against real /bin/sh and Node clients that stop reading, close stdin or ignore SIGTERM: how an
 * event pending at the end is classified, and that frames reach the client whole and in order.
 * Barriers, not sleeps: each test waits on the invoker's own outcomes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ConnectionEnd, StreamConnection } from "../../runtime/stream/connection.js";
import type { StreamInvoker } from "../../runtime/stream/invoker.js";
import { resolveStreamLimits } from "../../runtime/stream/limits.js";
import { alive, envelope, Sessions } from "./support.js";

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
const HELD_GRACE = { stream_close_grace_ms: 200, stream_term_grace_ms: 300, kill_grace_ms: 2000, settle_margin_ms: 3000 } as const;

/** The variant of a settled invocation ("ok" when it succeeded). */
const variant = (r: Awaited<ReturnType<StreamInvoker["invoke"]>>): string => (r.ok ? "ok" : `${r.failure.variant}: ${r.failure.detail}`);

describe("StreamConnection: the host's own pipe teardown is not a client's write error", () => {
  it("close() while a frame larger than the pipe is still in flight to a client that does not read: the pending event fails stream_exit (closed), not write_request", async () => {
    const inv = sessions.open({ program: "/bin/sh", args: HELD, timeoutMs: 30_000, limits: HELD_GRACE });
    const big = envelope("session.started", 1);
    big.request.metadata = { blob: "x".repeat(1024 * 1024) };
    const pending = inv.invoke(big);
    // Barrier: the child is spawned, and its frame was handed to stdin in the same step (the pipe took its first 64 KiB).
    await spawned(inv);
    const closed = inv.close();
    const result = await pending;
    await closed;
    expect(variant(result)).toMatch(/^stream_exit: the stream was closed before the client answered/);
  });

  it("the same with a frame queued behind the one in flight: both pending events fail stream_exit (closed)", async () => {
    const inv = sessions.open({ program: "/bin/sh", args: HELD, timeoutMs: 30_000, limits: HELD_GRACE });
    const big = envelope("session.started", 1);
    big.request.metadata = { blob: "x".repeat(1024 * 1024) };
    const pending = inv.invoke(big);
    await spawned(inv);
    // Waits in the host's queue behind the frame the pipe holds in part.
    const queued = inv.invoke(envelope("session.started", 2));
    const closed = inv.close();
    const results = await Promise.all([pending, queued]);
    await closed;
    for (const r of results) expect(variant(r)).toMatch(/^stream_exit: the stream was closed before the client answered/);
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
    const conn = new StreamConnection("/bin/sh", ["-c", script], resolveStreamLimits(GRACE), { onFrame: () => ready(), onEnd: (e) => ended(e) });
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
