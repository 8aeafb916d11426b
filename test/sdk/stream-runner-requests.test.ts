/**
 * A client runner's own requests to the host (spec/stream-protocol.md §"What a client runner
 * answers"), in every binding, against the real host (StreamInvoker) and the fixture clients built
 * on each SDK (go-echo, python-echo, node/stream-actions.mjs):
 *
 * - a handler that calls back more than limits.max_client_requests_in_flight times at once has at
 *   most that many unanswered (the host ends the stream at one more: stream.request-flood); the
 *   rest wait for replies, and every one is stored;
 * - more events than limits.client_handler_concurrency whose handlers all wait for replies to
 *   their own requests: the runner still reads the replies (each request in flight adds a place);
 * - a request whose frame would exceed limits.max_frame_bytes is refused in the runner
 *   (RequestFrameTooLargeError) and never written (the host would end the stream:
 *   stream.frame-too-large), so the event is answered and the stream goes on;
 * - a request that fails before it is written (params with no JSON or UTF-8 form, a frame too
 *   large) neither keeps a slot nor swallows the wake-up of one;
 * - TypeScript runner: a request still unanswered when the stream ends rejects with
 *   StreamClosedError (the Go and Python runners' tests cover theirs);
 * - a handler's response with more values than limits.max_values (which every reader refuses: the
 *   host would end the stream at such a frame) is replaced by the runner's failed response with
 *   warning json.max-values, as one over max_object_members is: the event is answered, the stream
 *   goes on.
 *
 * Barrier, never a sleep: the host's put handler holds every request until as many are pending as
 * the runner may have unanswered (or all have arrived), then answers them all.
 */
import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LIMITS, STREAM_V2 } from "../../generated/ts/spec.js";
import { serve, StreamClosedError } from "../../runtime/index.js";
import type { ReverseMethodHandler, ReverseReply } from "../../runtime/stream/reverse.js";
import { callbackRequest, dispatchEnvelope } from "../support/dispatch.js";
import { sdkRunnerClients } from "../support/fixture-clients.js";
import { Sessions } from "../stream/support.js";

const sdk = sdkRunnerClients("runner-requests", "stream-actions.mjs");
const CLIENTS = sdk.clients;
beforeAll(sdk.build, 600_000);
afterAll(sdk.remove);

const sessions = new Sessions();
afterEach(async () => {
  const left = await sessions.closeAll();
  expect(left.alive, "processes left running").toEqual([]);
});

/** An event whose handler carries out `action` (request.metadata.matrix_action). */
function event(action: string, i: number) {
  return dispatchEnvelope(
    callbackRequest("session.started", {
      event_id: `evt-${i}`,
      invocation_id: `inv-${i}`,
      metadata: { matrix_action: action },
    }),
  );
}

/**
 * The host's `continuation/put` for a burst of `total` puts: each is held until
 * max_client_requests_in_flight are pending, or every one of the burst has arrived, then all held
 * are answered `ok`. `maxPending` is the most held at once.
 */
function heldPuts(total: number): {
  handler: ReverseMethodHandler;
  stats: () => { received: number; maxPending: number };
} {
  const held: (() => void)[] = [];
  let received = 0;
  let maxPending = 0;
  const handler: ReverseMethodHandler = () =>
    new Promise<ReverseReply>((resolve) => {
      received++;
      held.push(() => resolve({ result: { status: "ok", written_at_epoch_s: 1 } }));
      maxPending = Math.max(maxPending, held.length);
      if (held.length >= LIMITS.max_client_requests_in_flight || received === total)
        for (const answer of held.splice(0)) answer();
    });
  return { handler, stats: () => ({ received, maxPending }) };
}

describe.each(CLIENTS)("the %s runner's own requests", (_name, program) => {
  it(`a burst of max_client_requests_in_flight + 16 puts from one handler: at most ${LIMITS.max_client_requests_in_flight} unanswered, all stored, the event answered`, async () => {
    const total = LIMITS.max_client_requests_in_flight + 16;
    const puts = heldPuts(total);
    const inv = sessions.open({ program, timeoutMs: 60_000, reverseHandlers: { "continuation/put": puts.handler } });
    const r = await inv.invoke(event(`put-burst:${total}`, 1));
    sessions.see(inv);
    expect(r.ok ? r.response.metadata?.burst : `${r.failure.variant}: ${r.failure.detail}`).toEqual({
      ok: total,
      errors: [],
    });
    expect(puts.stats()).toEqual({ received: total, maxPending: LIMITS.max_client_requests_in_flight });
    expect(inv.stats).toMatchObject({ spawns: 1, reverseRequests: total });
  });

  it(`${LIMITS.max_client_requests_in_flight} puts that cannot be sent, among as many that can: no slot is kept or lost, the last put goes`, async () => {
    const n = LIMITS.max_client_requests_in_flight;
    const inv = sessions.open({
      program,
      timeoutMs: 60_000,
      reverseHandlers: { "continuation/put": () => ({ result: { status: "ok", written_at_epoch_s: 1 } }) },
    });
    const r = await inv.invoke(event(`put-unsendable:${n}`, 1));
    sessions.see(inv);
    if (!r.ok) throw new Error(`${r.failure.variant}: ${r.failure.detail}`);
    const unsendable = r.response.metadata?.unsendable as { ok: number; errors: string[] };
    expect(unsendable.ok, JSON.stringify(unsendable)).toBe(n + 1);
    expect(unsendable.errors.length).toBeGreaterThan(0);
  });

  it(`more events than client_handler_concurrency, each handler waiting for the host's reply to its own put: the replies are read, every event is answered`, async () => {
    // Each request in flight adds a handler place; with places fixed at client_handler_concurrency,
    // handlers awaiting replies would keep the reader, waiting for a place, from reading them.
    const events = 2 * LIMITS.client_handler_concurrency + 8;
    const puts = heldPuts(events);
    const inv = sessions.open({ program, timeoutMs: 60_000, reverseHandlers: { "continuation/put": puts.handler } });
    const results = await Promise.all(
      Array.from({ length: events }, (_, i) => inv.invoke(event("reverse-put", i + 1))),
    );
    sessions.see(inv);
    expect(
      results.map((r) => (r.ok ? r.response.metadata?.put_error : `${r.failure.variant}: ${r.failure.detail}`)),
    ).toEqual(Array(events).fill(""));
    expect(puts.stats()).toEqual({ received: events, maxPending: LIMITS.max_client_requests_in_flight });
    expect(inv.stats).toMatchObject({ spawns: 1, reverseRequests: events });
  });

  it("a put whose frame would exceed max_frame_bytes is refused in the runner, never written; the stream goes on", async () => {
    let received = 0;
    const inv = sessions.open({
      program,
      timeoutMs: 60_000,
      reverseHandlers: {
        "continuation/put": () => {
          received++;
          return { result: { status: "ok", written_at_epoch_s: 1 } };
        },
      },
    });
    const r = await inv.invoke(event("put-too-large", 1));
    sessions.see(inv);
    expect(r.ok ? r.response.metadata?.put_error : `${r.failure.variant}: ${r.failure.detail}`).toBe(
      "RequestFrameTooLargeError",
    );
    const next = await inv.invoke(event("reverse-put", 2));
    expect(next.ok ? next.response.metadata?.put_error : `${next.failure.variant}: ${next.failure.detail}`).toBe("");
    expect(received).toBe(1);
    expect(inv.stats).toMatchObject({ spawns: 1, reverseRequests: 1 });
  });
});

describe.each(CLIENTS)("the %s runner's responses", (_name, program) => {
  it("a response over limits.max_values is answered failed (json.max-values), never written; the stream goes on", async () => {
    const inv = sessions.open({ program, timeoutMs: 60_000 });
    const r = await inv.invoke(event(`many-values:${LIMITS.max_values}`, 1));
    sessions.see(inv);
    if (!r.ok) throw new Error(`${r.failure.variant}: ${r.failure.detail}`);
    expect(r.response.status).toBe("failed");
    expect(r.response.warnings?.map((w) => w.code)).toEqual(["json.max-values"]);
    const within = await inv.invoke(event(`many-values:${LIMITS.max_values - 100}`, 2));
    expect(within.ok ? within.response.status : within.failure.variant).toBe("delivered");
    expect(inv.stats.spawns).toBe(1);
  });
});

describe("the TypeScript runner at the end of the stream", () => {
  it("a request still unanswered when stdin ends rejects with StreamClosedError", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stderr.resume();
    let settle!: (outcome: string) => void;
    const outcome = new Promise<string>((resolve) => (settle = resolve));
    const served = serve(
      async (request, _payloads, context) => {
        try {
          await context.commands.call("continuation/put", { thread: "t", key: "k" }, Buffer.from("v"));
          settle("answered");
        } catch (error) {
          settle(error instanceof StreamClosedError ? "StreamClosedError" : `other: ${String(error)}`);
        }
        return { schema_version: request.schema_version, status: "delivered", failure_class: null, retry_class: null };
      },
      { argv: [STREAM_V2.launch.flag], stdin, stdout, stderr, exit: false },
    );
    const asked = new Promise<string>((resolve) =>
      stdout.once("data", (chunk: Buffer) => resolve(chunk.toString("utf8"))),
    );
    stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: "h1", method: `${STREAM_V2.host_to_client.event_method_prefix}session.started`, params: event("reverse-put", 1) })}\n`,
    );
    // Barrier: the runner wrote the put request; the host never answers it.
    expect(JSON.parse(await asked)).toMatchObject({ jsonrpc: "2.0", method: "continuation/put" });
    stdin.end();
    const watchdog = new Promise<string>((resolve) =>
      setTimeout(() => resolve("still pending after 5 s"), 5000).unref(),
    );
    expect(await Promise.race([outcome, watchdog])).toBe("StreamClosedError");
    expect(await served).toBe(0);
  });
});
