/**
 * The stream (v2) client runners of every binding as real processes, driven over their pipes the
 * way a host drives them (spec/stream-protocol.md §Shutdown, §Framing): the Go SDK (go-echo), the
 * Python SDK (python-echo) and the TypeScript runner (node/stream-actions.mjs), each started with
 * `--stream` in its own process group.
 *
 * - stdout is reserved for frames: a handler that prints, writes to fd 1 and runs a child that
 *   inherits stdout still yields exactly one line on stdout, its reply.
 * - A client exits within limits.stream_client_exit_ms of stdin EOF, and of SIGTERM, SIGINT and
 *   SIGHUP, even while a handler is still running (status 0).
 *
 * Barrier: a hanging event is followed by an echo event; the echo's reply proves both frames were
 * read and the hanging handler is running. Every process is killed (group) and reaped at the end.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS, STREAM_V2 } from "../../generated/ts/spec.js";
import { callbackRequest, dispatchEnvelope } from "../support/dispatch.js";
import { sdkRunnerClients } from "../support/fixture-clients.js";

const EXIT_BOUND_MS = LIMITS.stream_client_exit_ms;
/** Watchdog of one wait (ms): a failure, never a pacing sleep. */
const WATCHDOG_MS = 20_000;
/** Events of the flood test: more than the Python runner's old thread-per-event design survived. */
const FLOOD = 30_000;
/** How long the flood's first handlers hold (ms): long enough for many frames to be read meanwhile. */
const HOLD_MS = 3_000;

// The TS fixture runs the compiled package (dist/, built by npm test's pretest step).
const sdk = sdkRunnerClients("stream-runners", "stream-actions.mjs");
const CLIENTS = sdk.clients;
beforeAll(sdk.build, 600_000);

const live = new Set<ChildProcessWithoutNullStreams>();
afterAll(() => {
  for (const child of live) {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // already gone
    }
  }
  sdk.remove();
});

/** A client process with a line reader on its stdout (test side) and its exit as a promise. */
function start(program: string): {
  child: ChildProcessWithoutNullStreams;
  nextLine: () => Promise<string>;
  lines: string[];
  exited: Promise<{ code: number | null; signal: string | null; at: number }>;
} {
  const child = spawn(program, [STREAM_V2.launch.flag], { stdio: ["pipe", "pipe", "pipe"], detached: true });
  live.add(child);
  child.stderr.resume();
  const lines: string[] = [];
  let buffered = "";
  let waiter: (() => void) | null = null;
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    for (let lf = buffered.indexOf("\n"); lf >= 0; lf = buffered.indexOf("\n")) {
      lines.push(buffered.slice(0, lf));
      buffered = buffered.slice(lf + 1);
    }
    waiter?.();
  });
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) => {
    child.on("exit", (code, signal) => {
      live.delete(child);
      resolve({ code, signal, at: performance.now() });
    });
  });
  let taken = 0;
  const nextLine = async (): Promise<string> => {
    const deadline = performance.now() + WATCHDOG_MS;
    while (lines.length <= taken) {
      if (performance.now() > deadline) throw new Error(`no line on stdout within ${WATCHDOG_MS} ms`);
      await new Promise<void>((resolve) => {
        waiter = resolve;
        setTimeout(resolve, 250);
      });
    }
    return lines[taken++] as string;
  };
  return { child, nextLine, lines, exited };
}

let n = 0;
/** Write one event request (a fresh envelope; its own id unless `rpcId` is given) and return its id. */
function send(child: ChildProcessWithoutNullStreams, action?: string, rpcId?: string): string {
  const seq = ++n;
  const id = rpcId ?? String(seq);
  const envelope = dispatchEnvelope(
    callbackRequest("session.started", {
      event_id: `evt-${seq}`,
      invocation_id: `inv-${seq}`,
      ...(action === undefined ? {} : { metadata: { matrix_action: action } }),
    }),
  );
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id, method: `${STREAM_V2.host_to_client.event_method_prefix}session.started`, params: envelope })}\n`,
  );
  return id;
}

describe.each(CLIENTS)("%s stream runner", (_lang, program) => {
  it("keeps stdout for frames: stray prints and a child's output go elsewhere", async () => {
    const c = start(program);
    const id = send(c.child, "print");
    const reply = JSON.parse(await c.nextLine()) as { id: string; result: { status: string } };
    expect(reply.id).toBe(id);
    expect(reply.result.status).toBe("delivered");
    const echoId = send(c.child);
    expect((JSON.parse(await c.nextLine()) as { id: string }).id).toBe(echoId);
    c.child.stdin.end();
    await c.exited;
    expect(c.lines.length, c.lines.join("\n")).toBe(2);
  }, 60_000);

  it("answers a request whose id is still in use with -32600 (stream.duplicate-request-id); the first keeps running", async () => {
    const c = start(program);
    const first = send(c.child, "hang");
    // Barrier: the echo's reply proves the hanging request was read and its handler runs.
    const echoId = send(c.child);
    expect((JSON.parse(await c.nextLine()) as { id: string }).id).toBe(echoId);
    send(c.child, undefined, first);
    expect(JSON.parse(await c.nextLine())).toEqual({
      jsonrpc: "2.0",
      id: first,
      error: { code: -32600, message: expect.any(String) },
    });
    // The first is cancelled: its handler returns and, cancelled, is never answered.
    c.child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: STREAM_V2.cancel.method, params: { id: first, reason: "timeout" } })}\n`,
    );
    const after = send(c.child);
    expect((JSON.parse(await c.nextLine()) as { id: string }).id).toBe(after);
    c.child.stdin.end();
    await c.exited;
    expect(c.lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual([echoId, first, after]);
  }, 60_000);

  it(`answers a flood of ${FLOOD} events written at once, running at most limits.client_handler_concurrency handlers at a time (issue 25)`, async () => {
    const c = start(program);
    // Every handler holds until one wall-clock time: the first ones read all wait together (the
    // peak), the rest run at once after it. A runner that started a handler per frame read would
    // hold all of them at once (the Python runner died at about 22,000 threads).
    const until = Date.now() + HOLD_MS;
    const ids = new Set<string>();
    for (let i = 0; i < FLOOD; i++) ids.add(send(c.child, `until:${until}`));
    let seen = 0;
    let progress = performance.now();
    while (c.lines.length < FLOOD) {
      if (c.lines.length > seen) [seen, progress] = [c.lines.length, performance.now()];
      if (performance.now() - progress > WATCHDOG_MS)
        throw new Error(`${c.lines.length} of ${FLOOD} replies; none for ${WATCHDOG_MS} ms`);
      if (c.child.exitCode !== null || c.child.signalCode !== null)
        throw new Error(`the runner exited after ${c.lines.length} of ${FLOOD} replies`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const replies = c.lines.map(
      (l) => JSON.parse(l) as { id: string; result: { status: string; metadata: { running_at_start: number } } },
    );
    expect(new Set(replies.map((r) => r.id))).toEqual(ids);
    expect(replies.every((r) => r.result.status === "delivered")).toBe(true);
    const peak = Math.max(...replies.map((r) => r.result.metadata.running_at_start));
    expect(peak).toBe(LIMITS.client_handler_concurrency);
    c.child.stdin.end();
    expect((await c.exited).code).toBe(0);
  }, 600_000);

  it(`exits within ${EXIT_BOUND_MS} ms of stdin EOF with a handler still running`, async () => {
    const c = start(program);
    send(c.child, "hang");
    const echoId = send(c.child);
    expect((JSON.parse(await c.nextLine()) as { id: string }).id).toBe(echoId);
    const ended = performance.now();
    c.child.stdin.end();
    const exit = await c.exited;
    expect(exit.at - ended).toBeLessThan(EXIT_BOUND_MS);
    expect(exit.code).toBe(0);
  }, 60_000);

  it.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)(
    `exits within ${EXIT_BOUND_MS} ms of %s with a handler still running`,
    async (signal) => {
      const c = start(program);
      send(c.child, "hang");
      const echoId = send(c.child);
      expect((JSON.parse(await c.nextLine()) as { id: string }).id).toBe(echoId);
      const sent = performance.now();
      c.child.kill(signal);
      const exit = await c.exited;
      expect(exit.at - sent).toBeLessThan(EXIT_BOUND_MS);
      expect(exit.code).toBe(0);
      c.child.stdin.destroy();
    },
    60_000,
  );
});
