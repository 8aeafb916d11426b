/**
 * The stream (v2) scenarios of `conform` (spec/conformance-runner.md, "Stream scenarios"): the
 * families of spec/tables/conformance-checks.json whose `transports` include `stream`, turned into
 * scripts that drive one client session over its raw pipes ({@link StreamSession}). The events come
 * from the event vocabulary, the bounds from spec/tables/limits.json, the frame shapes from
 * spec/tables/stream-v2.json; what is hand-shaped here is the bytes of each check, by family id,
 * as for the v1 `single` families.
 */
import {
  CONFORMANCE_CHECKS_TABLE,
  EVENT_VOCABULARY,
  LIMITS,
  RECEIPT_EMITTED_GUARD,
  STREAM_V2,
} from "../../generated/ts/spec.js";
import { errorCode } from "../rpc/error-codes.js";
import { encodeNotification, encodeRequestAround, framePointers, type JsonRpcId } from "../rpc/frame.js";
import { validateParsed } from "../wire/validate.js";
import { envelopeFor as envelopeOf, type Json, type JsonObject } from "./envelopes.js";
import { ConformFailure, type ReplyFrame, type StreamScript, type StreamSession } from "./stream-session.js";
import type { StreamExpectation, StreamScenarioParts, StreamSingleFamilyId } from "./types.js";

type Envelope = JsonObject;

const LF = Buffer.from("\n");
const EVENT_PREFIX = STREAM_V2.host_to_client.event_method_prefix;
const method = (event: string): string => `${EVENT_PREFIX}${event}`;
const json = (value: Json): Buffer => Buffer.from(JSON.stringify(value), "utf8");

/** An event request frame (with its LF) carrying `envelope` as params. */
export function requestFrame(
  id: JsonRpcId,
  envelope: Envelope,
  methodName = method(String((envelope.request as Envelope).event)),
): Buffer {
  return encodeRequestAround(id, methodName, json(envelope));
}

/** The same frame without its LF, with `pad` spaces of JSON whitespace before the closing brace. */
function paddedFrame(id: JsonRpcId, envelope: Envelope, totalBytes: number): Buffer {
  const open = requestFrame(id, envelope).subarray(0, -2); // without "}" and LF
  const pad = totalBytes - open.length - 1;
  if (pad < 0) throw new Error(`a request frame of ${totalBytes} bytes cannot hold the typical envelope`);
  return Buffer.concat([open, Buffer.alloc(pad, 0x20), Buffer.from("}")]);
}

function describeReply(r: ReplyFrame): string {
  return r.kind === "error_reply"
    ? `an error reply (code ${r.error.code}: ${r.error.message.slice(0, 120)})`
    : "a success reply";
}

/**
 * The reply to `id` must be a success reply whose result is a valid CallbackResponse in the
 * session's version (judged with its `answerWindow`); returns it.
 */
async function callbackResult(s: StreamSession, id: JsonRpcId, what: string): Promise<Envelope> {
  const r = await s.reply(id, what);
  if (r.kind !== "success_reply")
    throw new ConformFailure(`${what}: wanted a success reply with a CallbackResponse, got ${describeReply(r)}`);
  const issues = validateParsed("CallbackResponse", r.result, framePointers(r.pointers, "/result"), s.answerWindow);
  const first = issues[0];
  if (first !== undefined)
    throw new ConformFailure(
      `${what}: the result is not a valid CallbackResponse: ${first.rule} at "${first.pointer}": ${first.message}`,
    );
  return r.result as Envelope;
}

const refusal = CONFORMANCE_CHECKS_TABLE.refusal;
const isRefusal = (result: Envelope): boolean =>
  result.status === refusal.status && result.failure_class === refusal.failure_class;

/** A valid event answered, not refused. */
async function answered(s: StreamSession, id: JsonRpcId, what: string): Promise<void> {
  const result = await callbackResult(s, id, what);
  if (isRefusal(result)) throw new ConformFailure(`${what}: refused a valid request as ${refusal.failure_class}`);
}

/** An invalid event refused with the refusal response. */
async function refused(s: StreamSession, id: JsonRpcId, what: string): Promise<void> {
  const result = await callbackResult(s, id, what);
  if (!isRefusal(result))
    throw new ConformFailure(
      `${what}: accepted an invalid request: result status ${String(result.status)}${result.failure_class ? ` (${String(result.failure_class)})` : ""}; expected status ${refusal.status} with failure_class ${refusal.failure_class}`,
    );
}

async function methodNotFound(s: StreamSession, id: JsonRpcId, what: string): Promise<void> {
  const r = await s.reply(id, what);
  const want = errorCode("method_not_found");
  if (r.kind !== "error_reply" || r.error.code !== want)
    throw new ConformFailure(`${what}: wanted an error reply with code ${want}, got ${describeReply(r)}`);
}

/** Wait for the exit after `since` and check the bound of limits.stream_client_exit_ms. */
async function exitsInBound(s: StreamSession, since: number, what: string): Promise<void> {
  const bound = LIMITS.stream_client_exit_ms;
  // Watch twice the bound: enough to tell a slow exit from none, without the scenario deadline.
  const ms = await s.exited(since, what, 2 * bound);
  if (ms > bound)
    throw new ConformFailure(
      `the client exited ${Math.round(ms)} ms ${what} (bound limits.stream_client_exit_ms = ${bound} ms)`,
    );
}

/**
 * A framing violation ends the stream. The control first: two valid requests in the same process,
 * each answered, and the client still running after them (a client that answers once and exits,
 * or exits on anything, shows no refusal by ending). Then `bad` is written, then a valid probe
 * request; the client must exit without writing any frame after `bad`.
 */
function endsStream(typical: Envelope, bad: (typical: Envelope) => Uint8Array, what: string): StreamScript {
  return async (s) => {
    await s.write(requestFrame("warm-up", envelopeOf(typical, "session.starting")));
    await answered(s, "warm-up", "the first control request (before the violation)");
    await s.write(requestFrame("control", envelopeOf(typical, "session.started")));
    await answered(s, "control", "the second control request (before the violation): a stream client keeps serving");
    if (s.io.exited())
      throw new ConformFailure(
        `the client exited after the control requests, before ${what} was written: its exit shows no refusal`,
      );
    const before = s.framesReceived;
    await s.write(bad(typical));
    await s.write(requestFrame("probe", envelopeOf(typical, "session.started")));
    await s.exitedOrFrame(before, `after ${what} (the stream must end)`);
    if (s.framesReceived > before)
      throw new ConformFailure(
        `wrote ${s.framesReceived - before} frame(s) after ${what}; a framing violation ends the stream without a reply`,
      );
    s.unclaimed();
  };
}

/** A copy of `frame` (one line without LF) re-encoded with `edit` applied to its object. */
function editedFrame(typical: Envelope, edit: (frame: { [key: string]: Json }) => Json): Buffer {
  const frame = {
    jsonrpc: "2.0",
    id: "bad",
    method: method("session.started"),
    params: envelopeOf(typical, "session.started"),
  } as { [key: string]: Json };
  return Buffer.concat([json(edit(frame)), LF]);
}

/** The stream scenario of a `per_event` family: one per dispatchable event. */
export function streamEventScenarios(familyId: string, typical: Envelope): StreamScenarioParts[] {
  // Decimal string ids "1", "2", ... as a host numbers its requests: the events share one session.
  return EVENT_VOCABULARY.filter((row) => row.dispatchable && row.stream_v2 === "request").map((row, i) => ({
    id: `${familyId}.${row.event}`,
    expect: "answer",
    shared: true,
    script: async (s) => {
      await s.write(requestFrame(String(i + 1), envelopeOf(typical, row.event)));
      await answered(s, String(i + 1), `event/${row.event}`);
    },
  }));
}

/** What a family's script builder gets: the envelope of an event, and the shapes of its parts. */
interface ScriptKit {
  /** The typical envelope for `event`. */
  ev(event: string): Envelope;
  /** A scenario with a session of its own. */
  one(expect: StreamExpectation, script: StreamScript): StreamScenarioParts;
  /** A scenario that leaves the stream open: it shares the events' session (a new one after a crash). */
  kept(expect: StreamExpectation, script: StreamScript): StreamScenarioParts;
  /** A framing violation that must end the stream ({@link endsStream}). */
  ends(what: string, bad: (t: Envelope) => Uint8Array): StreamScenarioParts;
}

/**
 * The script of every `single` stream family, by family id: the keys are the generated id union
 * of spec/tables/conformance-checks.json ({@link StreamSingleFamilyId}), so a family added to the
 * table without a script here, or a script whose family left the table, fails the typecheck.
 */
const STREAM_SCRIPTS: Readonly<Record<StreamSingleFamilyId, (kit: ScriptKit) => StreamScenarioParts>> = {
  "stream-id-types": ({ ev, kept }) =>
    kept("answer", async (s) => {
      await s.write(Buffer.concat([requestFrame(70, ev("frame.opening")), requestFrame("70", ev("frame.opened"))]));
      // Both replies first: a client that turns ids into strings (or numbers) answers one id twice.
      const both = await s.replies(2, (f) => String(f.id) === "70", 'the requests with the ids 70 and "70"');
      const ids = both.map((f) => JSON.stringify(f.id)).sort();
      if (ids.join() !== '"70",70')
        throw new ConformFailure(
          `the replies to the ids 70 and "70" came back with the ids ${ids.join(" and ")}: ids keep their type`,
        );
      for (const id of [70, "70"]) {
        const r = await s.reply(id, `the request with the id ${JSON.stringify(id)}`);
        if (r.kind !== "success_reply") throw new ConformFailure(`wanted success replies, got ${describeReply(r)}`);
      }
    }),
  "stream-pipelined": ({ ev, kept }) =>
    kept("answer", async (s) => {
      const events = ["session.started", "frame.opening", "frame.opened", "supervisor.tick"];
      for (const [i, event] of events.entries()) await s.write(requestFrame(`p${i}`, ev(event)));
      for (const [i, event] of events.entries())
        await answered(s, `p${i}`, `event/${event} (one of ${events.length} in flight)`);
    }),
  "stream-two-in-one-write": ({ ev, kept }) =>
    kept("answer", async (s) => {
      await s.write(
        Buffer.concat([requestFrame("a", ev("capability.degraded")), requestFrame("b", ev("receipt.gap_detected"))]),
      );
      await answered(s, "a", "the first of two frames in one write");
      await answered(s, "b", "the second of two frames in one write");
    }),
  "stream-bytewise": ({ ev, kept }) =>
    kept("answer", async (s) => {
      await s.writeBytewise(requestFrame("bytes", ev("frame.ending")));
      await answered(s, "bytes", "a request written one byte per write");
    }),
  "stream-notification": ({ ev, one }) =>
    one("no_reply", async (s) => {
      await s.write(requestFrame("first", ev("session.starting")));
      await answered(s, "first", "the first request");
      await s.write(
        Buffer.concat([json({ jsonrpc: "2.0", method: method("session.started"), params: ev("session.started") }), LF]),
      );
      await s.write(encodeNotification("conform/unknown-notification", {}));
      await s.write(encodeNotification(STREAM_V2.cancel.method, { id: "first", reason: "timeout" }));
      await s.write(requestFrame("barrier", ev("frame.opening")));
      await answered(s, "barrier", "the request after the notifications");
      // Replies to the notifications may come after the barrier's: wait for the client's own exit.
      await s.drain();
      const extra = s.unclaimed();
      if (extra.length > 0)
        throw new ConformFailure(
          `replied to a notification: ${extra.map((f) => `${f.kind} id ${JSON.stringify(f.id)}`).join(", ")}`,
        );
    }),
  "stream-unknown-method": ({ ev, kept }) =>
    kept("method_not_found", async (s) => {
      await s.write(
        Buffer.concat([json({ jsonrpc: "2.0", id: "m1", method: "conform/no-such-method", params: {} }), LF]),
      );
      await methodNotFound(s, "m1", "a request for the unknown method conform/no-such-method");
      await s.write(requestFrame("m2", ev("session.started"), method("conform.no_such_event")));
      await methodNotFound(s, "m2", `a request for the unknown event kind ${method("conform.no_such_event")}`);
    }),
  "stream-cancel": ({ ev, one }) =>
    one("no_reply", async (s) => {
      await s.write(requestFrame("warm-up", ev("session.starting")));
      await answered(s, "warm-up", "the warm-up request");
      await s.write(
        Buffer.concat([
          requestFrame("cancelled", ev("frame.opening")),
          encodeNotification(STREAM_V2.cancel.method, { id: "cancelled", reason: "timeout" }),
        ]),
      );
      await s.write(requestFrame("after", ev("frame.opened")));
      await answered(s, "after", "the request after the cancel");
      await s.drain();
      if (s.unclaimed().some((f) => f.id === "cancelled"))
        throw new ConformFailure(`replied to a request after ${STREAM_V2.cancel.method} for it`);
    }),
  "stream-refuse-invalid": ({ ev, kept }) =>
    kept("refuse", async (s) => {
      const doc = ev("session.started");
      doc.conform_unknown_member = true;
      await s.write(requestFrame("invalid", doc));
      await refused(s, "invalid", "params with an unknown member");
    }),
  "stream-refuse-event-mismatch": ({ ev, kept }) =>
    kept("refuse", async (s) => {
      await s.write(requestFrame("mismatch", ev("session.starting"), method("frame.opened")));
      await refused(s, "mismatch", `${method("frame.opened")} carrying a session.starting envelope`);
    }),
  "stream-refuse-receipt-emitted": ({ ev, kept }) =>
    kept("refuse", async (s) => {
      await s.write(requestFrame("receipt", ev(RECEIPT_EMITTED_GUARD.event)));
      await refused(s, "receipt", method(RECEIPT_EMITTED_GUARD.event));
    }),
  "stream-frame-cr": ({ ev, kept }) =>
    kept("answer", async (s) => {
      await s.write(Buffer.concat([requestFrame("cr", ev("session.started")).subarray(0, -1), Buffer.from("\r\n")]));
      await answered(s, "cr", "a request ending in CR LF");
    }),
  "stream-size-at-limit": ({ ev, kept }) =>
    kept("answer", async (s) => {
      await s.write(Buffer.concat([paddedFrame("at-limit", ev("session.started"), LIMITS.max_frame_bytes), LF]));
      await answered(s, "at-limit", `a request of exactly limits.max_frame_bytes (${LIMITS.max_frame_bytes}) bytes`);
    }),
  "stream-size-over-limit": ({ ends }) =>
    ends(`a frame of limits.max_frame_bytes + 1 (${LIMITS.max_frame_bytes + 1}) bytes`, (t) =>
      Buffer.concat([paddedFrame("over", envelopeOf(t, "session.started"), LIMITS.max_frame_bytes + 1), LF]),
    ),
  "stream-empty-line": ({ ends }) => ends("an empty line", () => LF),
  "stream-bom": ({ ends }) =>
    ends("a frame starting with a UTF-8 BOM", (t) =>
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), requestFrame("bom", envelopeOf(t, "session.started"))]),
    ),
  "stream-invalid-utf8": ({ ends }) =>
    ends("a frame with the byte 0xFF", (t) => {
      const doc = envelopeOf(t, "session.started");
      (doc.request as Envelope).metadata = { note: "conform-invalid-byte" };
      const frame = requestFrame("utf8", doc);
      const at = frame.indexOf("conform-invalid-byte");
      frame[at] = 0xff;
      return frame;
    }),
  "stream-not-json": ({ ends }) =>
    ends("a log line that is not a frame", () => Buffer.from("conform: this log line is not a frame\n")),
  "stream-batch": ({ ends }) =>
    ends("a batch (a JSON array of requests)", (t) =>
      Buffer.concat([
        Buffer.from("["),
        requestFrame("batch", envelopeOf(t, "session.started")).subarray(0, -1),
        Buffer.from("]\n"),
      ]),
    ),
  "stream-not-object": ({ ends }) => ends("a frame that is a JSON number", () => Buffer.from("42\n")),
  "stream-jsonrpc-version": ({ ends }) =>
    ends('a request with jsonrpc "1.0"', (t) => editedFrame(t, (f) => ({ ...f, jsonrpc: "1.0" }))),
  "stream-frame-kind": ({ ends }) =>
    ends("a request with an unknown top-level member", (t) =>
      editedFrame(t, (f) => ({ ...f, conform_unknown_member: true })),
    ),
  "stream-bad-id": ({ ends }) => ends("a request with the id 1.5", (t) => editedFrame(t, (f) => ({ ...f, id: 1.5 }))),
  "stream-reserved-method": ({ ends }) =>
    ends("a request for the reserved method rpc.discover", (t) =>
      editedFrame(t, (f) => ({ ...f, method: "rpc.discover" })),
    ),
  "stream-params-array": ({ ends }) =>
    ends("a request whose params is an array", (t) => editedFrame(t, (f) => ({ ...f, params: [f.params as Json] }))),
  "stream-unterminated": ({ ev, one }) =>
    one("exit", async (s) => {
      await s.write(requestFrame("warm-up", ev("session.starting")));
      await answered(s, "warm-up", "the warm-up request");
      const before = s.framesReceived;
      await s.write(requestFrame("unterminated", ev("session.started")).subarray(0, -1));
      await exitsInBound(s, s.endStdin(), "after stdin EOF inside a frame");
      if (s.framesReceived > before)
        throw new ConformFailure("answered a frame without its LF (stdin ended inside it)");
    }),
  "stream-exit-eof": ({ ev, one }) =>
    one("exit", async (s) => {
      await s.write(requestFrame("warm-up", ev("session.ending")));
      await answered(s, "warm-up", "the warm-up request");
      await exitsInBound(s, s.endStdin(), "after stdin EOF");
    }),
  "stream-exit-sigterm": ({ ev, one }) =>
    one("exit", async (s) => {
      await s.write(requestFrame("warm-up", ev("session.ended")));
      await answered(s, "warm-up", "the warm-up request");
      const at = performance.now();
      s.io.signalGroup("SIGTERM");
      await exitsInBound(s, at, "after SIGTERM");
    }),
};

/** True when `familyId` has a script in {@link STREAM_SCRIPTS}. */
function isStreamSingleFamily(familyId: string): familyId is StreamSingleFamilyId {
  return Object.hasOwn(STREAM_SCRIPTS, familyId);
}

/**
 * The script of a `single` stream family, by family id. Throws for a family the runner has no
 * script for (the table and the runner disagree), never for anything a client does.
 */
export function streamSingleScenario(familyId: string, typical: Envelope): StreamScenarioParts {
  if (!isStreamSingleFamily(familyId))
    throw new Error(`conformance-checks.json: stream family ${familyId} has no script in the runner`);
  const one = (expect: StreamExpectation, script: StreamScript): StreamScenarioParts => ({
    id: familyId,
    expect,
    script,
  });
  // Scenarios that leave the stream open share the events' session (a new one after a crash).
  const kept = (expect: StreamExpectation, script: StreamScript): StreamScenarioParts => ({
    id: familyId,
    expect,
    script,
    shared: true,
  });
  return STREAM_SCRIPTS[familyId]({
    ev: (event) => envelopeOf(typical, event),
    one,
    kept,
    ends: (what, bad) => one("end_stream", endsStream(typical, bad, what)),
  });
}
