/**
 * StreamInvoker against real clients (spec/host-runtime.md §"Stream invoker (v2)"): the TypeScript
 * client runner (runner-echo.mjs on the package's `serve`) and the hand-written raw NDJSON client
 * (raw-client.mjs). Each misbehaviour of issue 10 item 6 ends in its named outcome within the
 * per-event bound, and after each test nothing is left running.
 *
 * Ordering uses barriers, never sleeps: a frame the host writes before request N is read by the
 * client before request N, so once event N is answered the client has seen (and logged) it; the
 * raw client holds replies until a later request arrives. Watchdogs: each test's own timeout, and
 * the settle bound asserted on every timed outcome.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { ReverseRequestError } from "../../runtime/stream/reverse.js";
import {
  checkNothingLeftAfterEach,
  envelope,
  logLines,
  RAW_CLIENT,
  scratch,
  SESSION_EVENTS,
  Sessions,
  TS_RUNNER,
} from "./support.js";

const sessions = new Sessions();
const scratches = checkNothingLeftAfterEach(sessions);

function logFile(): string {
  const s = scratch();
  scratches.push(s.cleanup);
  return s.log;
}

const FAST = { stream_close_grace_ms: 1000, stream_term_grace_ms: 500 } as const;
const CLIENTS = [
  { name: "raw client", program: RAW_CLIENT, cancelBehave: "ignore-first" },
  { name: "TS runner", program: TS_RUNNER, cancelBehave: "hang-first" },
] as const;

describe.each(CLIENTS)("StreamInvoker with the $name", ({ program, cancelBehave }) => {
  it("delivers a whole session of every dispatchable event over one child, correlated by id", async () => {
    const inv = sessions.open({ program, timeoutMs: 10_000, limits: FAST });
    const results = [];
    for (const [i, event] of SESSION_EVENTS.entries()) results.push(await inv.invoke(envelope(event, i + 1)));
    sessions.see(inv);
    results.forEach((r, i) => {
      expect(r.ok, JSON.stringify(r)).toBe(true);
      if (r.ok) expect(r.response.metadata).toMatchObject({ event: SESSION_EVENTS[i], event_id: `e${i + 1}` });
    });
    expect(inv.stats).toMatchObject({ events: SESSION_EVENTS.length, spawns: 1, discardedFrames: 0 });
  });

  it("cancel before a reply: timeout within the bound, lifeloop/cancel reaches the client, the stream goes on", async () => {
    const log = logFile();
    const timeoutMs = 800;
    const inv = sessions.open({ program, args: ["--behave", cancelBehave, "--log", log], timeoutMs, limits: FAST });
    const first = await inv.invoke(envelope("session.started", 1));
    expect(first.ok).toBe(false);
    if (!first.ok) {
      expect(first.failure.variant).toBe("timeout");
      expect(first.elapsedMs).toBeGreaterThanOrEqual(timeoutMs - 1);
      expect(first.elapsedMs).toBeLessThan(timeoutMs + LIMITS.settle_margin_ms);
    }
    // Barrier: the cancel was written before request 2, so the client handled it before answering 2.
    const second = await inv.invoke(envelope("frame.opening", 2));
    sessions.see(inv);
    expect(second.ok && second.response.metadata?.event_id).toBe("e2");
    const lines = logLines(log);
    const cancelled =
      program === RAW_CLIENT
        ? lines
            .filter((l) => (l.frame as { method?: string }).method === "lifeloop/cancel")
            .map((l) => (l.frame as { params: unknown }).params)
        : lines.map((l) => l.cancelled);
    expect(cancelled).toEqual(program === RAW_CLIENT ? [{ id: "1", reason: "timeout" }] : ["e1"]);
    expect(inv.stats).toMatchObject({ spawns: 1, cancels: 1 });
  });

  it("serves a client request while an event is pending: not_available until a handler is plugged in", async () => {
    const inv = sessions.open({ program, args: ["--behave", "reverse"], timeoutMs: 10_000, limits: FAST });
    const before = await inv.invoke(envelope("session.started", 1));
    expect(before.ok && (before.response.metadata?.reverse as Record<string, unknown>)).toMatchObject(
      program === RAW_CLIENT
        ? { error_code: -32000, error_name: "not_available" }
        : { error_name: "not_available", code: -32000 },
    );
    inv.setReverseHandler("continuation/get", (req) => {
      if (req.params.key !== "k1") throw new ReverseRequestError("not_found", "no such key");
      return { result: { client_id: "c", ttl_s: null, written_at_epoch_s: 7 }, blob: Buffer.from("hello") };
    });
    const after = await inv.invoke(envelope("session.started", 2));
    sessions.see(inv);
    expect(after.ok && (after.response.metadata?.reverse as Record<string, unknown>)).toMatchObject({
      result:
        program === RAW_CLIENT
          ? { blob_base64: "aGVsbG8=", client_id: "c", ttl_s: null, written_at_epoch_s: 7 }
          : { client_id: "c", ttl_s: null, written_at_epoch_s: 7 },
    });
    expect(inv.stats.reverseRequests).toBe(2);
  });

  it("a crash mid-session fails the pending event with stream_exit and the next event respawns", async () => {
    const inv = sessions.open({ program, args: ["--behave", "crash-at:2"], timeoutMs: 10_000, limits: FAST });
    const one = await inv.invoke(envelope("session.started", 1));
    const pid = sessions.see(inv);
    const two = await inv.invoke(envelope("frame.opening", 2));
    const three = await inv.invoke(envelope("frame.opened", 3));
    sessions.see(inv);
    expect(one.ok).toBe(true);
    expect(
      two.ok
        ? null
        : { variant: two.failure.variant, exit_code: two.failure.exit_code, failure_class: two.failure.failure_class },
    ).toEqual({ variant: "stream_exit", exit_code: 3, failure_class: "transport_error" });
    expect(three.ok).toBe(true);
    expect(inv.stats.spawns).toBe(2);
    expect(inv.pid).not.toBe(pid);
  });

  it("never writes receipt.emitted: refused before anything is spawned or written", async () => {
    const log = logFile();
    const inv = sessions.open({ program, args: ["--log", log], timeoutMs: 10_000, limits: FAST });
    const emitted = await inv.invoke(envelope("receipt.emitted", 1));
    expect(emitted.ok ? null : emitted.failure.variant).toBe("receipt_emitted_rejected");
    expect(inv.stats.spawns).toBe(0);
    const next = await inv.invoke(envelope("session.started", 2));
    sessions.see(inv);
    expect(next.ok).toBe(true);
    if (program === RAW_CLIENT)
      expect(logLines(log).map((l) => (l.frame as { method?: string }).method)).toEqual(["event/session.started"]);
  });

  it("shutdown by EOF: close() ends the stream well within the grace and the child exits by itself", async () => {
    const inv = sessions.open({
      program,
      args: ["--behave", "timer"].slice(program === TS_RUNNER ? 0 : 2),
      timeoutMs: 10_000,
      limits: { stream_close_grace_ms: 5000, stream_term_grace_ms: 1000 },
    });
    expect((await inv.invoke(envelope("session.started", 1))).ok).toBe(true);
    sessions.see(inv);
    const t0 = performance.now();
    await inv.close();
    const took = performance.now() - t0;
    expect(took).toBeLessThan(LIMITS.stream_client_exit_ms + LIMITS.settle_margin_ms);
    const after = await inv.invoke(envelope("session.started", 2));
    expect(after.ok ? null : after.failure.variant).toBe("stream_closed");
  });
});

describe("StreamInvoker misbehaviours (raw client)", () => {
  const raw = (behave: string, extra: Record<string, unknown> = {}, args: string[] = []) =>
    sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", behave, ...args],
      timeoutMs: 10_000,
      limits: { ...FAST, ...(extra as object) },
    });

  it("a late old reply while the next request is pending is discarded and never consumes it", async () => {
    const inv = sessions.open({ program: RAW_CLIENT, args: ["--behave", "late-reply"], timeoutMs: 700, limits: FAST });
    const one = await inv.invoke(envelope("session.started", 1));
    expect(one.ok ? null : one.failure.variant).toBe("timeout");
    const two = await inv.invoke(envelope("frame.opening", 2));
    sessions.see(inv);
    expect(two.ok && two.response.metadata).toMatchObject({ event_id: "e2" });
    expect(two.ok && two.response.metadata?.late).toBeUndefined();
    expect(inv.stats.discardedFrames).toBe(1);
  });

  it("duplicate replies with different contents: the first wins, the second is discarded and counted", async () => {
    const inv = raw("duplicate");
    const results = [await inv.invoke(envelope("session.started", 1)), await inv.invoke(envelope("frame.opening", 2))];
    // Barrier: close() returns once the client's stdout reached EOF, so the second reply's
    // duplicate (written after the reply that settled the invoke) has been read and judged.
    await inv.close();
    sessions.see(inv);
    for (const r of results) expect(r.ok && r.response).toMatchObject({ status: "delivered", metadata: { copy: 1 } });
    expect(inv.stats.discardedFrames).toBe(2);
  });

  it('unsolicited and unknown-id frames (an integer 7 for "7" included) are discarded without consuming the live request', async () => {
    const inv = raw("unsolicited");
    const r = await inv.invoke(envelope("session.started", 1));
    sessions.see(inv);
    expect(r.ok && r.response.metadata).toMatchObject({ event_id: "e1" });
    expect(r.ok && r.response.metadata?.unsolicited).toBeUndefined();
    expect(r.ok && r.response.metadata?.integer_id).toBeUndefined();
    expect(inv.stats.discardedFrames).toBe(4);
  });

  it("client requests the host refuses: -32601 unknown method, -32602 bad params, -32023 bad identifier, -32000 not available, -32600 a duplicate unanswered id", async () => {
    const inv = raw("probe");
    const r = await inv.invoke(envelope("session.started", 1));
    sessions.see(inv);
    expect(r.ok && r.response.metadata?.probe).toEqual([-32601, -32602, -32602, -32023, -32000, -32600]);
    expect(inv.stats.reverseRequests).toBe(5);
  });

  it("a frame written one byte at a time", async () => {
    const inv = raw("bytewise");
    const r = await inv.invoke(envelope("session.started", 1));
    sessions.see(inv);
    expect(r.ok && r.response.metadata?.event_id).toBe("e1");
  });

  it("two frames in one write answer two pending requests, each by its id", async () => {
    const inv = raw("two-in-one");
    const [a, b] = await Promise.all([
      inv.invoke(envelope("session.started", 1)),
      inv.invoke(envelope("frame.opening", 2)),
    ]);
    sessions.see(inv);
    expect([a.ok && a.response.metadata?.event_id, b.ok && b.response.metadata?.event_id]).toEqual(["e1", "e2"]);
  });

  it("a frame of exactly max_frame_bytes passes; one byte over fails with stream_frame_too_large", async () => {
    const limit = 4096;
    const at = raw("pad", { max_frame_bytes: limit }, ["--frame-bytes", String(limit)]);
    const ok = await at.invoke(envelope("session.started", 1));
    sessions.see(at);
    expect(ok.ok && typeof ok.response.metadata?.pad).toBe("string");
    const over = raw("pad", { max_frame_bytes: limit }, ["--frame-bytes", String(limit + 1)]);
    const bad = await over.invoke(envelope("session.started", 1));
    sessions.see(over);
    expect(bad.ok ? null : { variant: bad.failure.variant, rule: bad.failure.issues?.[0]?.rule }).toEqual({
      variant: "stream_frame_too_large",
      rule: "stream.frame-too-large",
    });
  });

  it("a client that closes stdout: stream_stdout_closed, then a respawn", async () => {
    const inv = raw("close-stdout");
    const r = await inv.invoke(envelope("session.started", 1));
    expect(r.ok ? null : r.failure.variant).toBe("stream_stdout_closed");
    const again = await inv.invoke(envelope("session.started", 2));
    expect(again.ok ? null : again.failure.variant).toBe("stream_stdout_closed");
    expect(inv.stats.spawns).toBe(2);
  });

  it("an empty line on stdout is a framing violation (stream.empty-frame, invalid_request), not an oversized frame", async () => {
    const r = await raw("empty-line").invoke(envelope("session.started", 1));
    expect(
      r.ok
        ? null
        : {
            variant: r.failure.variant,
            class: r.failure.failure_class,
            retry: r.failure.retry_class,
            rule: r.failure.issues?.[0]?.rule,
          },
    ).toEqual({
      variant: "stream_framing",
      class: "invalid_request",
      retry: "do_not_retry",
      rule: "stream.empty-frame",
    });
  });

  it("a client that writes half a frame and exits: stream_exit, saying it wrote bytes but no complete frame (not that it wrote none)", async () => {
    const r = await raw("half-exit").invoke(envelope("session.started", 1));
    expect(r.ok ? null : r.failure.variant).toBe("stream_exit");
    expect(r.ok ? "" : r.failure.detail).toMatch(/the client wrote \d+ bytes but no complete frame/);
    expect(r.ok ? "" : r.failure.detail).not.toContain("does it implement --stream");
  });

  it("a start-up banner on stdout is a framing violation (json.syntax), never skipped", async () => {
    const inv = raw("banner");
    const r = await inv.invoke(envelope("session.started", 1));
    expect(r.ok ? null : { variant: r.failure.variant, rule: r.failure.issues?.[0]?.rule }).toEqual({
      variant: "stream_framing",
      rule: "json.syntax",
    });
    expect(r.ok ? "" : r.failure.detail).toContain("raw-client 1.0 starting up");
  });

  it("an error reply maps its code to the failure class of the error-code table", async () => {
    const inv = raw("error-reply:-32601");
    const r = await inv.invoke(envelope("session.started", 1));
    sessions.see(inv);
    expect(
      r.ok
        ? null
        : { variant: r.failure.variant, failure_class: r.failure.failure_class, retry_class: r.failure.retry_class },
    ).toEqual({ variant: "error_reply", failure_class: "capability_unsupported", retry_class: "do_not_retry" });
  });

  it("a client that dies at start-up cannot cause a respawn storm", async () => {
    const inv = raw("exit-at-start", { stream_max_failed_spawns: 2, stream_respawn_cooldown_ms: 60_000 });
    const outcomes = [];
    for (let i = 1; i <= 4; i++) {
      const r = await inv.invoke(envelope("session.started", i));
      outcomes.push(r.ok ? "ok" : r.failure.variant);
    }
    expect(outcomes).toEqual(["stream_exit", "stream_exit", "stream_respawn_limited", "stream_respawn_limited"]);
    expect(inv.stats.spawns).toBe(2);
  });

  it("consecutive timeouts end a stuck stream; the next event respawns", async () => {
    const inv = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", "silent"],
      timeoutMs: 300,
      limits: { ...FAST, stream_max_consecutive_timeouts: 2 },
    });
    const a = await inv.invoke(envelope("session.started", 1));
    const first = sessions.see(inv);
    const b = await inv.invoke(envelope("session.started", 2));
    expect([a.ok ? "ok" : a.failure.variant, b.ok ? "ok" : b.failure.variant]).toEqual(["timeout", "timeout"]);
    await inv.invoke(envelope("session.started", 3));
    sessions.see(inv);
    expect(inv.stats.spawns).toBe(2);
    expect(inv.pid).not.toBe(first);
  });

  it("a client that stops reading cannot make the host buffer without bound: queued frames are dropped at their deadline", async () => {
    const inv = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", "no-read"],
      timeoutMs: 600,
      limits: { ...FAST, stream_max_consecutive_timeouts: 10 },
    });
    const big = envelope("session.started", 1);
    big.request.metadata = { blob: "x".repeat(1024 * 1024) };
    const results = await Promise.all([1, 2, 3].map(() => inv.invoke(big)));
    sessions.see(inv);
    expect(results.map((r) => (r.ok ? "ok" : r.failure.variant))).toEqual(["timeout", "timeout", "timeout"]);
    const dropped = results.filter((r) => !r.ok && r.failure.detail.includes("dropped"));
    expect(dropped.length).toBe(2);
  });

  it("shutdown by SIGTERM within the grace when the client ignores EOF; SIGKILL when it ignores both", async () => {
    const grace = { stream_close_grace_ms: 300, stream_term_grace_ms: 700 };
    const eof = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", "ignore-eof"],
      timeoutMs: 5000,
      limits: grace,
    });
    expect((await eof.invoke(envelope("session.started", 1))).ok).toBe(true);
    sessions.see(eof);
    let t0 = performance.now();
    await eof.close();
    let took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(grace.stream_close_grace_ms - 1);
    expect(took).toBeLessThan(grace.stream_close_grace_ms + grace.stream_term_grace_ms);

    const stubborn = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", "ignore-term"],
      timeoutMs: 5000,
      limits: grace,
    });
    expect((await stubborn.invoke(envelope("session.started", 1))).ok).toBe(true);
    sessions.see(stubborn);
    t0 = performance.now();
    await stubborn.close();
    took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(grace.stream_close_grace_ms + grace.stream_term_grace_ms - 1);
    expect(took).toBeLessThan(
      grace.stream_close_grace_ms + grace.stream_term_grace_ms + LIMITS.kill_grace_ms + LIMITS.settle_margin_ms,
    );
  });
});

describe("StreamInvoker with the TS runner: client-side duties", () => {
  it("stray console.log and stdout writes in a handler never reach the wire; a 1 MiB stderr flood is drained into the bounded tail", async () => {
    const print = sessions.open({ program: TS_RUNNER, args: ["--behave", "print"], timeoutMs: 10_000, limits: FAST });
    const p = await print.invoke(envelope("session.started", 1));
    sessions.see(print);
    expect(p.ok).toBe(true);
    expect(p.ok && p.stderrTail).toContain("a stray stdout write");
    const flood = sessions.open({
      program: TS_RUNNER,
      args: ["--behave", "stderr-flood"],
      timeoutMs: 10_000,
      limits: FAST,
    });
    const f = await flood.invoke(envelope("session.started", 1));
    sessions.see(flood);
    expect(f.ok).toBe(true);
    expect(f.ok && Buffer.byteLength(f.stderrTail)).toBeLessThanOrEqual(LIMITS.stderr_tail_bytes);
  });

  it("host commands over the pipe: a plugged-in store serves put and get under the CLI's names", async () => {
    const blobs = new Map<string, Buffer>();
    const inv = sessions.open({
      program: TS_RUNNER,
      args: ["--behave", "put-get"],
      timeoutMs: 10_000,
      limits: FAST,
      reverseHandlers: {
        "continuation/put": (req) => {
          blobs.set(`${String(req.params.thread)}/${String(req.params.key)}`, req.blob as Buffer);
          return { result: { status: "ok", written_at_epoch_s: 1 } };
        },
        "continuation/get": (req) => {
          const blob = blobs.get(`${String(req.params.thread)}/${String(req.params.key)}`);
          if (blob === undefined) throw new ReverseRequestError("not_found", "no entry");
          return { result: { client_id: "unknown", ttl_s: null, written_at_epoch_s: 1 }, blob };
        },
      },
    });
    const r = await inv.invoke(envelope("session.started", 7));
    sessions.see(inv);
    expect(r.ok && r.response.metadata).toMatchObject({ transport: "stream", roundtrip: "blob of e7" });
  });

  it("a throwing handler is answered failed/internal_error with warning handler_threw (a valid response)", async () => {
    const inv = sessions.open({ program: TS_RUNNER, args: ["--behave", "throw"], timeoutMs: 10_000, limits: FAST });
    const r = await inv.invoke(envelope("session.started", 1));
    sessions.see(inv);
    expect(r.ok && r.response).toMatchObject({
      status: "failed",
      failure_class: "internal_error",
      warnings: [{ code: "handler_threw" }],
    });
  });
});

describe("StreamInvoker: max_frame_bytes holds for the host's own requests", () => {
  it("an event request frame (LF included) of exactly max_frame_bytes is written; one byte more is request_too_large, nothing spawned", async () => {
    // Multi-byte characters: the bound counts the frame's UTF-8 bytes, not its characters.
    const env = {
      ...envelope("session.started", 1),
      request: { ...envelope("session.started", 1).request, metadata: { text: 'é€😀 "\u2028' } },
    };
    const frameBytes = Buffer.byteLength(
      `{"jsonrpc":"2.0","id":"1","method":"event/session.started","params":${JSON.stringify(env)}}\n`,
      "utf8",
    );
    const over = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", "echo"],
      timeoutMs: 10_000,
      limits: { max_frame_bytes: frameBytes - 1 },
    });
    const refused = await over.invoke(env);
    expect(refused.ok ? null : refused.failure.variant).toBe("request_too_large");
    expect(!refused.ok && refused.failure.detail).toContain(`is ${frameBytes} bytes`);
    expect(over.stats.spawns).toBe(0);
    const at = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", "echo"],
      timeoutMs: 10_000,
      limits: { max_frame_bytes: frameBytes },
    });
    const written = await at.invoke(env);
    sessions.see(at);
    expect(written.ok ? "ok" : written.failure.detail).toBe("ok");
  });
});

describe("StreamInvoker: max_frame_bytes holds for the host's own replies", () => {
  it("a reply to a client request that would pass the frame bound is replaced by -32603 internal_error", async () => {
    const maxFrameBytes = 8192;
    const inv = sessions.open({
      program: RAW_CLIENT,
      args: ["--behave", "reverse"],
      timeoutMs: 10_000,
      limits: { max_frame_bytes: maxFrameBytes },
    });
    inv.setReverseHandler("continuation/get", () => ({
      result: { client_id: "c", ttl_s: null, written_at_epoch_s: 7 },
      blob: Buffer.alloc(maxFrameBytes, 0x61),
    }));
    const r = await inv.invoke(envelope("session.started", 1));
    sessions.see(inv);
    expect(r.ok && (r.response.metadata?.reverse as Record<string, unknown>)).toMatchObject({ error_code: -32603 });
  });
});

describe("StreamInvoker: a client that cannot be started", () => {
  it("fails spawn with the same detail as v1: the error once, then what to do", async () => {
    const s = scratch();
    scratches.push(s.cleanup);
    const missing = join(s.dir, "no-such-client");
    const notExecutable = join(s.dir, "not-executable.sh");
    writeFileSync(notExecutable, "#!/bin/sh\nexit 0\n", { mode: 0o644 });
    const details: string[] = [];
    for (const [program, v1] of [
      [missing, new SubprocessInvoker({ program: missing, timeoutMs: 5000 })],
      [notExecutable, new SubprocessInvoker({ program: notExecutable, timeoutMs: 5000 })],
    ] as const) {
      const inv = sessions.open({ program, timeoutMs: 5000 });
      const r = await inv.invoke(envelope("session.started", 1));
      const w = await v1.invoke(envelope("session.started", 1));
      expect(r.ok ? "ok" : r.failure.variant).toBe("spawn");
      expect(w.ok ? "ok" : w.failure.variant).toBe("spawn");
      if (r.ok || w.ok) return;
      expect(r.failure.detail).toBe(w.failure.detail);
      details.push(r.failure.detail);
    }
    expect(details[0]).toBe(`cannot start ${missing}: spawn ${missing} ENOENT`);
    expect(details[1]).toMatch(
      new RegExp(`^cannot start ${notExecutable}: spawn ${notExecutable} EACCES \\(not executable: chmod \\+x`),
    );
  });
});

describe("StreamInvoker: the envelope is prepared as v1 prepares it", () => {
  it("a large in-memory envelope is serialized in slices against the event's deadline: timeoutMs 1 → timeout before anything is spawned", async () => {
    const env = envelope("session.started", 1);
    const metadata: Record<string, number> = {};
    for (let i = 0; i < LIMITS.max_object_members; i++) metadata[`k${i}`] = i;
    const big = { ...env, request: { ...env.request, metadata } };
    const inv = sessions.open({ program: RAW_CLIENT, args: ["--behave", "echo"], timeoutMs: 1 });
    const r = await inv.invoke(big);
    sessions.see(inv);
    expect(r.ok ? "ok" : `${r.failure.variant}: ${r.failure.detail}`).toMatch(
      /^timeout: the DispatchEnvelope was not serialized/,
    );
    expect(inv.stats.spawns).toBe(0);
  });

  it("invoke(envelope, null) and unusable options settle (never reject): null means none, a string is invalid_request", async () => {
    const inv = sessions.open({ program: RAW_CLIENT, args: ["--behave", "echo"], timeoutMs: 10_000 });
    const none = await inv.invoke(envelope("session.started", 1), null);
    const bad = await inv.invoke(envelope("session.started", 2), "x" as never);
    sessions.see(inv);
    expect(none.ok).toBe(true);
    expect(bad.ok ? "ok" : bad.failure.variant).toBe("invalid_request");
  });
});

describe("StreamInvoker: a reply frame is bounded by limits.max_frame_values", () => {
  /** A client (a real script file) answering every request with a result holding `count` empty objects in metadata. */
  const answering = (count: number): string[] => {
    const dir = scratch();
    cleanups.push(dir.cleanup);
    const file = join(dir.dir, "big-result.mjs");
    writeFileSync(
      file,
      `let b="";process.stdin.on("data",(c)=>{b+=c;let i;while((i=b.indexOf("\\n"))>=0){const f=JSON.parse(b.slice(0,i));b=b.slice(i+1);if(f.id===undefined)continue;` +
        `process.stdout.write('{"jsonrpc":"2.0","id":'+JSON.stringify(f.id)+',"result":{"schema_version":"${WIRE_VERSION}","status":"delivered","metadata":{"a":['+"{},".repeat(${count}-1)+'{}]}}}\\n')}});`,
    );
    return [file];
  };
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const c of cleanups) c();
  });

  it("a result with more than max_values values ends the stream as a framing violation (json.max-values), never delivered", async () => {
    const inv = sessions.open({
      program: process.execPath,
      args: answering(LIMITS.max_values + 10),
      timeoutMs: 20_000,
    }); // the frame's own values are at most 4
    const r = await inv.invoke(envelope("session.started", 1));
    sessions.see(inv);
    expect(r.ok ? "ok" : `${r.failure.variant}: ${r.failure.detail}`).toMatch(/^stream_framing: .*json\.max-values/);
  });

  it("a result of exactly max_values values is delivered", async () => {
    // The result's own values: the object, schema_version, status, metadata and the array.
    const inv = sessions.open({ program: process.execPath, args: answering(LIMITS.max_values - 5), timeoutMs: 20_000 });
    const r = await inv.invoke(envelope("session.started", 1));
    sessions.see(inv);
    expect(r.ok ? "ok" : `${r.failure.variant}: ${r.failure.detail}`).toBe("ok");
  });
});

describe("StreamInvoker: large reply frames are judged in slices, in order, before the stream ends", () => {
  /**
   * A client (node: built-ins only) that holds the replies until two requests are pending, then
   * writes, in one write, a reply to event e1 padded to `padBytes`, then a small reply to the
   * other (whichever came first), and exits 0 at once: the large frame is still being judged when stdout ends and the
   * child is reaped. With `duplicate`, the large reply's metadata ends with a second `pad` member.
   */
  function bigThenSmallClient(padBytes: number, duplicate = false): string {
    const s = scratch();
    scratches.push(s.cleanup);
    const file = join(s.dir, "big-then-small.mjs");
    writeFileSync(
      file,
      `const held = []; let pending = "";
const reply = (req, pad) => JSON.stringify({ jsonrpc: "2.0", id: req.id, result: { schema_version: req.params.schema_version, status: "delivered", metadata: { event_id: req.params.request.event_id, pad } } }) + "\\n";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let lf = pending.indexOf("\\n"); lf !== -1; lf = pending.indexOf("\\n")) {
    const frame = JSON.parse(pending.slice(0, lf));
    pending = pending.slice(lf + 1);
    if (typeof frame.method === "string" && frame.method.startsWith("event/")) held.push(frame);
    const big = () => reply(held.find((f) => f.params.request.event_id === "e1"), "\\\\n".repeat(${padBytes >> 1}))${duplicate ? `.replace("}}}\\n", ',"pad":""}}}\\n')` : ""};
    if (held.length === 2) process.stdout.write(big() + reply(held.find((f) => f.params.request.event_id !== "e1"), ""), () => process.exit(0));
  }
});
`,
    );
    return file;
  }

  it("a 4 MiB reply (an escaped string) and a small one written together, then exit: both delivered, exact", async () => {
    const padBytes = 4 << 20;
    const inv = sessions.open({
      program: process.execPath,
      args: [bigThenSmallClient(padBytes)],
      timeoutMs: 30_000,
      limits: FAST,
    });
    const [big, small] = await Promise.all([
      inv.invoke(envelope("session.started", 1)),
      inv.invoke(envelope("frame.opening", 2)),
    ]);
    sessions.see(inv);
    expect(big.ok ? "ok" : `${big.failure.variant}: ${big.failure.detail}`).toBe("ok");
    expect(small.ok ? "ok" : `${small.failure.variant}: ${small.failure.detail}`).toBe("ok");
    if (big.ok) expect(big.response.metadata?.event_id).toBe("e1");
    if (big.ok)
      expect(
        big.response.metadata?.pad === "\\n".repeat(padBytes >> 1),
        `pad of ${String(big.response.metadata?.pad).length} chars`,
      ).toBe(true);
    if (small.ok) expect(small.response.metadata).toEqual({ event_id: "e2", pad: "" });
  });

  it("a large frame with a duplicate member after its 4 MiB string ends the stream: stream_framing json.duplicate-key for both events", async () => {
    const inv = sessions.open({
      program: process.execPath,
      args: [bigThenSmallClient(4 << 20, true)],
      timeoutMs: 30_000,
      limits: FAST,
    });
    const results = await Promise.all([
      inv.invoke(envelope("session.started", 1)),
      inv.invoke(envelope("frame.opening", 2)),
    ]);
    sessions.see(inv);
    for (const r of results)
      expect(
        r.ok
          ? "ok"
          : { variant: r.failure.variant, rule: r.failure.issues?.[0]?.rule, pointer: r.failure.issues?.[0]?.pointer },
      ).toEqual({ variant: "stream_framing", rule: "json.duplicate-key", pointer: "/result/metadata/pad" });
  });
});
