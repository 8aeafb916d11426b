/**
 * JSON-RPC 2.0 frames of stream mode (spec/stream-protocol.md §"Frames", schemas/stream/): judge the
 * bytes of one frame (as cut by {@link FrameReader}) and encode frames to write.
 *
 * {@link parseFrame} checks, in this order, and reports the first problem as a ValidationIssue with
 * the rule id of spec/tables/stream-v2.json: the strict JSON parse (`json.*` rules, with the frame
 * limit and one level of depth for the envelope around params/result), `stream.batch`,
 * `stream.not-object`, `stream.jsonrpc`, `stream.frame-kind`, `stream.id`, `stream.method`,
 * `stream.params`, `stream.error-object`. params and result are not judged here: their shape
 * depends on the method (see {@link framePointers} for the strict parser's pointers under them).
 */
import { isUtf8 } from "node:buffer";
import { ACCEPT_CHECKS, type AcceptCheck, type AcceptContext } from "../../generated/ts/accept-checks.js";
import { INTEGER_PATHS, LIMITS, STREAM_V2 } from "../../generated/ts/spec.js";
import type { ValidationIssue } from "../wire/issues.js";
import { parseStrictJson, type StrictJsonLimits } from "../wire/json/parse.js";
import { parseStrictJsonSliced } from "../wire/json/sliced.js";
import { toWireJson } from "../wire/wire-json.js";
import { isPlainJsonString } from "../wire/serialize.js";
import { FAST_PARSE_MAX_BYTES, fastParse } from "../wire/fast-parse.js";

/** A JSON-RPC id of this binding: a string of 1..128 characters or an integer 0..2^53-1. */
export type JsonRpcId = string | number;

/** The error object of an error reply. */
export interface JsonRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** One judged frame. `params` is absent when the frame has none. */
export type StreamFrame =
  | {
      readonly kind: "request";
      readonly id: JsonRpcId;
      readonly method: string;
      readonly params?: Record<string, unknown>;
    }
  | { readonly kind: "notification"; readonly method: string; readonly params?: Record<string, unknown> }
  | { readonly kind: "success_reply"; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly kind: "error_reply"; readonly id: JsonRpcId; readonly error: JsonRpcError };

/**
 * Outcome of {@link parseFrame}: the frame and the strict parser's non-integer number pointers
 * (relative to the frame), or the first issue. `resultAccepted` (only from {@link parseHostFrame}):
 * the frame is a success reply whose `result` the CallbackResponse accept check proved valid
 * (schema and rules), so validating it as a CallbackResponse finds nothing.
 */
export type FrameResult =
  | {
      readonly ok: true;
      readonly frame: StreamFrame;
      readonly nonIntegerNumberPointers: readonly string[];
      readonly resultAccepted?: true;
    }
  | { readonly ok: false; readonly issue: ValidationIssue };

const MEMBERS: ReadonlySet<string> = new Set(["jsonrpc", "id", "method", "params", "result", "error"]);
const ERROR_MEMBERS: ReadonlySet<string> = new Set(["code", "message", "data"]);
const METHOD_MAX = 256;
const MESSAGE_MAX = 65536;

/** Pointer patterns where the strict parser records non-integer lexemes: ids, codes, and the integer fields of params/result. */
const NON_INTEGER_PATHS: readonly string[] = [
  "/id",
  "/error/code",
  "/params/id",
  ...INTEGER_PATHS.DispatchEnvelope.map((p) => `/params${p}`),
  ...INTEGER_PATHS.CallbackResponse.map((p) => `/result${p}`),
];

/**
 * The patterns the host needs in the frames it reads (replies and client requests): ids, codes and
 * the integer fields of a result. The DispatchEnvelope's and the cancel's are a client's concern,
 * and the strict parser prepares every pattern it is given for each frame.
 */
export const HOST_NON_INTEGER_PATHS: readonly string[] = NON_INTEGER_PATHS.filter((p) => !p.startsWith("/params/"));

function issue(rule: string, pointer: string, message: string): { ok: false; issue: ValidationIssue } {
  return { ok: false, issue: { rule, pointer, message } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Code point length, bounded: stops counting past `max` (so a huge string costs O(max)). */
function codePointsAtMost(text: string, max: number): boolean {
  if (text.length <= max) return true;
  if (text.length > 2 * max) return false;
  let n = 0;
  for (const _ of text) if (++n > max) return false;
  return true;
}

/**
 * Check an id value at `pointer` (rule `stream.id`); `lexemes` are the parser's non-integer pointers.
 * Returns an error message or null.
 */
export function idProblem(value: unknown, pointer: string, lexemes: readonly string[]): string | null {
  if (typeof value === "string") {
    if (value.length === 0) return "an id string is never empty";
    return codePointsAtMost(value, STREAM_V2.ids.string_max_length)
      ? null
      : `an id string has at most ${STREAM_V2.ids.string_max_length} characters`;
  }
  if (typeof value === "number") {
    if (lexemes.includes(pointer) || !Number.isInteger(value))
      return `an integer id is written as a plain integer (no fraction, exponent or -0)`;
    if (value < STREAM_V2.ids.integer_minimum || value > STREAM_V2.ids.integer_maximum)
      return `an integer id is in ${STREAM_V2.ids.integer_minimum}..${STREAM_V2.ids.integer_maximum}`;
    return null;
  }
  return `an id is a string or an integer, not ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`;
}

/** Judge the bytes of one frame (LF and optional CR already removed); never throws. */
export function parseFrame(
  bytes: Uint8Array,
  maxFrameBytes: number = LIMITS.max_frame_bytes,
  maxFrameValues: number = LIMITS.max_frame_values,
): FrameResult {
  return parseFrameRecording(bytes, maxFrameBytes, NON_INTEGER_PATHS, maxFrameValues);
}

/** The frame's own values beyond the document it carries (limits.max_frame_values − limits.max_values). */
export const FRAME_OWN_VALUES = LIMITS.max_frame_values - LIMITS.max_values;

/**
 * {@link parseFrame} recording non-integer lexemes only at `nonIntegerPaths` (the host passes
 * {@link HOST_NON_INTEGER_PATHS}); the verdict is the same, only the pointers returned differ.
 */
export function parseFrameRecording(
  bytes: Uint8Array,
  maxFrameBytes: number,
  nonIntegerPaths: readonly string[],
  maxFrameValues: number = LIMITS.max_frame_values,
): FrameResult {
  return judgeFrame(
    parseStrictJson(
      bytes,
      {
        maxBytes: maxFrameBytes,
        maxDepth: LIMITS.max_depth + 1,
        maxValues: maxFrameValues,
        maxMembers: LIMITS.max_object_members,
      },
      { nonIntegerPaths },
    ),
  );
}

const NO_PATHS: readonly string[] = [];
/** Members of a result under which CallbackResponse has integer fields (first tokens of its INTEGER_PATHS). */
const RESULT_INTEGER_MEMBERS: readonly string[] = [
  ...new Set(INTEGER_PATHS.CallbackResponse.map((p) => p.split("/")[1] as string)),
];

/**
 * Could the verdict on this parsed frame depend on a lexeme at {@link HOST_NON_INTEGER_PATHS}: an
 * integer id, an error code, a result member holding integer fields, or a client request?
 */
function hostLexemesMatter(value: unknown): boolean {
  if (!isRecord(value)) return false;
  if (typeof value.id === "number" || "error" in value || "method" in value) return true;
  const result = value.result;
  if (!isRecord(result)) return false;
  for (const member of RESULT_INTEGER_MEMBERS) if (member in result) return true;
  return false;
}

/** The strict parser's limits of a host frame, kept for the last (maxFrameBytes, maxFrameValues) asked (a connection asks the same each time); every object of a frame, the carried document's too, holds at most limits.max_object_members members. */
let hostLimits: StrictJsonLimits = {
  maxBytes: LIMITS.max_frame_bytes,
  maxDepth: LIMITS.max_depth + 1,
  maxValues: LIMITS.max_frame_values,
  maxMembers: LIMITS.max_object_members,
};

function hostFrameLimits(maxFrameBytes: number, maxFrameValues: number): StrictJsonLimits {
  if (hostLimits.maxBytes !== maxFrameBytes || hostLimits.maxValues !== maxFrameValues)
    hostLimits = {
      maxBytes: maxFrameBytes,
      maxDepth: LIMITS.max_depth + 1,
      maxValues: maxFrameValues,
      maxMembers: LIMITS.max_object_members,
    };
  return hostLimits;
}

/**
 * What the host reads: {@link parseFrameRecording} with {@link HOST_NON_INTEGER_PATHS}, same
 * verdict and pointers. The common frame (a success reply to a string id whose result has no
 * integer fields) is parsed once without recording any lexeme; a frame where one could matter is
 * parsed again with the patterns (recording lexemes costs the scanner more than the first parse).
 */
export function parseHostFrame(
  bytes: Uint8Array,
  maxFrameBytes: number,
  maxFrameValues: number = LIMITS.max_frame_values,
): FrameResult {
  const common = judgeCommonReply(bytes, maxFrameBytes, maxFrameValues);
  if (common !== null) return common;
  const quick = parseStrictJson(bytes, hostFrameLimits(maxFrameBytes, maxFrameValues), QUICK_OPTIONS);
  if (quick.ok && hostLexemesMatter(quick.value))
    return parseFrameRecording(bytes, maxFrameBytes, HOST_NON_INTEGER_PATHS, maxFrameValues);
  if (quick.ok && quick.accepted === true) {
    // No lexeme can matter here (above), so the proof holds with the host's patterns too.
    const value = quick.value as { readonly id: string; readonly result: unknown };
    return {
      ok: true,
      frame: { kind: "success_reply", id: value.id, result: value.result },
      nonIntegerNumberPointers: NO_PATHS,
      resultAccepted: true,
    };
  }
  return judgeFrame(quick);
}

/** The bytes of the common reply before its id, and between its id and its result. */
const REPLY_HEAD = Buffer.from('{"jsonrpc":"2.0","id":"', "latin1");
const RESULT_HEAD = Buffer.from('","result":', "latin1");
const C_QUOTE = 0x22;
const C_BACKSLASH = 0x5c;
const C_CLOSE = 0x7d;

/**
 * The common reply judged on its result's text alone: bytes that are exactly
 * `{"jsonrpc":"2.0","id":"<id>","result":<R>}`, where <id> is 1..ids.string_max_length bytes of
 * 0x20..0x7E other than `"` and `\` (a JSON string whose value is its own text) and the text <R>,
 * parsed alone by the fast path (runtime/wire/fast-parse.ts) with the CallbackResponse accept check,
 * limits.max_depth levels, the frame's values less its own three, limits.max_object_members
 * members per object (the frame's own object has three) and the result's integer paths,
 * is proved a valid CallbackResponse. Then the frame parses to exactly these three members (<R> is
 * one complete JSON value, so the frame's parser reads exactly it before the final `}`), within the
 * frame's byte, depth and value limits, with no lexeme at HOST_NON_INTEGER_PATHS: the verdict,
 * frame and pointers of {@link parseFrameRecording}, without parsing the frame's own members. null
 * when not proved (the frame is then judged in full: never a different verdict). Never throws.
 */
export function judgeCommonReply(bytes: Uint8Array, maxFrameBytes: number, maxFrameValues: number): FrameResult | null {
  const n = bytes.length;
  if (n > maxFrameBytes || n > FAST_PARSE_MAX_BYTES || bytes[n - 1] !== C_CLOSE || LIMITS.max_object_members < 3)
    return null;
  const head = REPLY_HEAD.length;
  for (let i = 0; i < head; i++) if (bytes[i] !== REPLY_HEAD[i]) return null;
  let end = head;
  while (end < n && bytes[end] !== C_QUOTE) {
    const c = bytes[end] as number;
    if (c < 0x20 || c > 0x7e || c === C_BACKSLASH) return null;
    if (++end - head > STREAM_V2.ids.string_max_length) return null;
  }
  if (end === head || end >= n) return null;
  for (let i = 0; i < RESULT_HEAD.length; i++) if (bytes[end + i] !== RESULT_HEAD[i]) return null;
  const from = end + RESULT_HEAD.length;
  // Rules 1-3 on the whole frame (no BOM: it starts with '{'); its pieces cut at ASCII bytes are valid UTF-8 too.
  if (from >= n - 1 || !isUtf8(bytes)) return null;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const fast = fastParse(
    buf.toString("utf8", from, n - 1),
    n - 1 - from,
    LIMITS.max_depth,
    maxFrameValues - 3,
    LIMITS.max_object_members,
    INTEGER_PATHS.CallbackResponse,
    ACCEPT_CHECKS.CallbackResponse,
  );
  if (fast === undefined || !fast.accepted) return null;
  return {
    ok: true,
    frame: { kind: "success_reply", id: buf.toString("latin1", head, end), result: fast.value },
    nonIntegerNumberPointers: NO_PATHS,
    resultAccepted: true,
  };
}

/**
 * The accept check of the common frame, a success reply `{"jsonrpc":"2.0","id":<string>,"result":<CallbackResponse>}`
 * (runtime/wire/fast-parse.ts: with the fast path's proof that the text holds no member it did not
 * count, a passing check proves every frame check of {@link parseFrame} and that the result is a
 * valid CallbackResponse). The members the frame holds, or -1 when not proved (then the frame is
 * judged as any other: never a different verdict).
 */
const acceptSuccessReply: AcceptCheck = (value: unknown, c: AcceptContext): number => {
  if (typeof value !== "object" || value === null || Array.isArray(value) || c.maxDepth < 1) return -1;
  const frame = value as { readonly jsonrpc?: unknown; readonly id?: unknown; readonly result?: unknown };
  const id = frame.id;
  // At most string_max_length UTF-16 units is at most that many characters (idProblem's bound).
  if (
    frame.jsonrpc !== "2.0" ||
    typeof id !== "string" ||
    id.length === 0 ||
    id.length > STREAM_V2.ids.string_max_length ||
    frame.result === undefined
  )
    return -1;
  // The result is at level 2 of the frame: its check counts levels from the result.
  c.maxDepth -= 1;
  const members = ACCEPT_CHECKS.CallbackResponse(frame.result, c);
  c.maxDepth += 1;
  if (members < 0) return -1;
  // Shortest text: {"jsonrpc":"2.0","id":"<id>","result":<result>} (each member: name, quotes, colon, separator).
  c.chars += 7 + 4 + 5 + (2 + 4) + (id.length + 2) + (6 + 4) + 1;
  return 3 + members;
};

/** The host's first parse: no lexeme patterns, and the success reply's accept check. */
const QUICK_OPTIONS = Object.freeze({ nonIntegerPaths: NO_PATHS, accept: acceptSuccessReply });

/**
 * {@link parseHostFrame} without blocking the event loop: one strict parse in slices
 * (parseStrictJsonSliced, recording lexemes at {@link HOST_NON_INTEGER_PATHS}), then the frame
 * checks. Same verdict and pointers as parseHostFrame. For large frames (the connection judges
 * frames above {@link SLICED_FRAME_BYTES} this way); never rejects.
 */
export async function parseHostFrameSliced(
  bytes: Uint8Array,
  maxFrameBytes: number,
  maxFrameValues: number = LIMITS.max_frame_values,
): Promise<FrameResult> {
  const parsed = await parseStrictJsonSliced(
    bytes,
    {
      maxBytes: maxFrameBytes,
      maxDepth: LIMITS.max_depth + 1,
      maxValues: maxFrameValues,
      maxMembers: LIMITS.max_object_members,
    },
    { nonIntegerPaths: HOST_NON_INTEGER_PATHS },
  );
  // No deadline is given, so the parse always ends with a verdict.
  return judgeFrame(parsed as Exclude<typeof parsed, "deadline">);
}

/**
 * Frames above this many bytes are judged by {@link parseHostFrameSliced}; up to it, a synchronous
 * parse holds the event loop for at most a few milliseconds.
 */
export const SLICED_FRAME_BYTES = 64 * 1024;

/** The frame checks after the strict parse (see {@link parseFrame}). */
function judgeFrame(parsed: ReturnType<typeof parseStrictJson>): FrameResult {
  if (!parsed.ok)
    return {
      ok: false,
      issue: { rule: parsed.issue.rule, pointer: parsed.issue.pointer, message: parsed.issue.message },
    };
  const value = parsed.value;
  const lexemes = parsed.nonIntegerNumberPointers;
  if (Array.isArray(value))
    return issue("stream.batch", "", "a JSON array (a JSON-RPC batch) is not a frame of this binding");
  if (!isRecord(value))
    return issue("stream.not-object", "", `a frame is a JSON object, not ${value === null ? "null" : typeof value}`);
  if (value.jsonrpc !== "2.0")
    return issue(
      "stream.jsonrpc",
      "/jsonrpc",
      `jsonrpc must be exactly "2.0"${"jsonrpc" in value ? "" : " (missing)"}`,
    );
  for (const key of Object.keys(value)) {
    if (!MEMBERS.has(key))
      return issue("stream.frame-kind", "", `unknown member ${JSON.stringify(key)}: frames are closed`);
  }
  const hasId = "id" in value;
  const hasMethod = "method" in value;
  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (hasMethod && (hasResult || hasError))
    return issue(
      "stream.frame-kind",
      "",
      "a frame with method is a request or notification and has neither result nor error",
    );
  if (!hasMethod) {
    if (hasResult && hasError)
      return issue("stream.frame-kind", "", "a reply has exactly one of result and error, not both");
    if (!hasResult && !hasError)
      return issue("stream.frame-kind", "", "a frame has method (request, notification) or result/error (reply)");
    if (!hasId) return issue("stream.frame-kind", "", "a reply has an id");
    if ("params" in value) return issue("stream.frame-kind", "", "a reply has no params");
  }
  if (hasId) {
    const problem = idProblem(value.id, "/id", lexemes);
    if (problem !== null) return issue("stream.id", "/id", problem);
  }
  const id = value.id as JsonRpcId;
  if (hasMethod) {
    const method = value.method;
    if (typeof method !== "string" || method.length === 0 || !codePointsAtMost(method, METHOD_MAX)) {
      return issue("stream.method", "/method", `method is a string of 1..${METHOD_MAX} characters`);
    }
    if (method.startsWith("rpc."))
      return issue("stream.method", "/method", "methods starting with rpc. are reserved by JSON-RPC 2.0");
    if ("params" in value && !isRecord(value.params))
      return issue("stream.params", "/params", "params is an object (by-name); arrays and scalars are not used");
    const params = value.params as Record<string, unknown> | undefined;
    const frame: StreamFrame = hasId
      ? params === undefined
        ? { kind: "request", id, method }
        : { kind: "request", id, method, params }
      : params === undefined
        ? { kind: "notification", method }
        : { kind: "notification", method, params };
    return { ok: true, frame, nonIntegerNumberPointers: lexemes };
  }
  if (hasError) {
    const error = value.error;
    if (!isRecord(error)) return issue("stream.error-object", "/error", "error is an object {code, message, data?}");
    for (const key of Object.keys(error)) {
      if (!ERROR_MEMBERS.has(key))
        return issue("stream.error-object", "/error", `unknown member ${JSON.stringify(key)} in error`);
    }
    if (typeof error.code !== "number" || !Number.isSafeInteger(error.code) || lexemes.includes("/error/code")) {
      return issue("stream.error-object", "/error/code", "error.code is an integer");
    }
    if (typeof error.message !== "string" || !codePointsAtMost(error.message, MESSAGE_MAX)) {
      return issue(
        "stream.error-object",
        "/error/message",
        `error.message is a string of at most ${MESSAGE_MAX} characters`,
      );
    }
    const err: JsonRpcError =
      "data" in error
        ? { code: error.code, message: error.message, data: error.data }
        : { code: error.code, message: error.message };
    return { ok: true, frame: { kind: "error_reply", id, error: err }, nonIntegerNumberPointers: lexemes };
  }
  return { ok: true, frame: { kind: "success_reply", id, result: value.result }, nonIntegerNumberPointers: lexemes };
}

/** The parser's pointers under `prefix` (e.g. `/result`), made relative to it. */
export function framePointers(pointers: readonly string[], prefix: string): string[] {
  return pointers.filter((p) => p.startsWith(`${prefix}/`)).map((p) => p.slice(prefix.length));
}

/** Ids compare by type and value: `"7"` is not `7`. */
export function sameId(a: JsonRpcId, b: JsonRpcId): boolean {
  return typeof a === typeof b && a === b;
}

/** A map key that keeps the id's type (`s:7` vs `n:7`). */
export function idKey(id: JsonRpcId): string {
  return typeof id === "string" ? `s:${id}` : `n:${id}`;
}

/** Encode a frame object as one line (JSON + LF). Throws WireSerializeError for values JSON cannot represent. */
export function encodeFrame(frame: Record<string, unknown>): Buffer {
  return Buffer.from(`${toWireJson(frame)}\n`, "utf8");
}

/**
 * An event request frame around already-serialized DispatchEnvelope bytes (no second serialization):
 * `{"jsonrpc":"2.0","id":<id>,"method":<method>,"params":<envelope>}` + LF.
 */
export function encodeRequestAround(id: JsonRpcId, method: string, paramsJson: Uint8Array): Buffer {
  return around(requestHead(id, method), paramsJson);
}

/** The frame's JSON up to its params: `{"jsonrpc":"2.0","id":<id>,"method":<method>,"params":`. */
function requestHead(id: JsonRpcId, method: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)}${requestFraming(method).afterId}`;
}

/**
 * What an event request frame holds besides its id and params, fixed by the method: the JSON from
 * the id to the params (`,"method":<method>,"params":`) and the UTF-8 bytes of everything but the
 * id and params, `}` and LF included. Built once per method (see {@link encodeRequestText}).
 */
export interface RequestFraming {
  readonly afterId: string;
  readonly aroundBytes: number;
}

const FRAMINGS = new Map<string, RequestFraming>();

/** The {@link RequestFraming} of `method` (cached: methods are the event vocabulary's few). */
export function requestFraming(method: string): RequestFraming {
  let framing = FRAMINGS.get(method);
  if (framing === undefined) {
    const afterId = `,"method":${JSON.stringify(method)},"params":`;
    framing = { afterId, aroundBytes: Buffer.byteLength(`{"jsonrpc":"2.0","id":${afterId}}\n`, "utf8") };
    if (FRAMINGS.size < 1024) FRAMINGS.set(method, framing);
  }
  return framing;
}

/**
 * {@link encodeRequestAround} as text, around the DispatchEnvelope's JSON text (`paramsBytes` UTF-8
 * bytes): the frame, LF included, and its UTF-8 length. The frame is encoded once, when it is written
 * (a string written to a pipe is encoded as UTF-8), so the envelope is neither encoded separately
 * nor copied into a frame buffer; the bytes on the wire are the same.
 */
export function encodeRequestText(
  id: JsonRpcId,
  framing: RequestFraming,
  paramsText: string,
  paramsBytes: number,
): { readonly text: string; readonly bytes: number } {
  // The host's ids are decimal strings: written as they are in quotes, one byte per character (no call into JSON.stringify).
  const plain = typeof id === "string" && isPlainJsonString(id);
  const idJson = plain ? `"${id}"` : JSON.stringify(id);
  return {
    text: `{"jsonrpc":"2.0","id":${idJson}${framing.afterId}${paramsText}}\n`,
    bytes: framing.aroundBytes + (plain ? idJson.length : Buffer.byteLength(idJson, "utf8")) + paramsBytes,
  };
}

/** A success reply around already-serialized result bytes. */
export function encodeResultAround(id: JsonRpcId, resultJson: Uint8Array): Buffer {
  return around(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`, resultJson);
}

/** `head` (UTF-8) + `inner` + `}` + LF in one buffer (one allocation, one copy of `inner`). */
function around(head: string, inner: Uint8Array): Buffer {
  const headBytes = Buffer.byteLength(head, "utf8");
  const out = Buffer.allocUnsafe(headBytes + inner.length + 2);
  out.write(head, 0, headBytes, "utf8");
  out.set(inner, headBytes);
  out[headBytes + inner.length] = 0x7d; // }
  out[headBytes + inner.length + 1] = 0x0a; // LF
  return out;
}

/** An error reply frame. */
export function encodeErrorReply(id: JsonRpcId, error: JsonRpcError): Buffer {
  return encodeFrame({ jsonrpc: "2.0", id, error });
}

/** A notification frame. */
export function encodeNotification(method: string, params?: Record<string, unknown>): Buffer {
  return encodeFrame(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
}
