/**
 * What both invokers do with an in-memory wire value before it crosses the boundary
 * (CALLBACK-001 §"Subprocess callbacks" steps 1-3, §"Receipt.Emitted Notification Guard";
 * spec/host-runtime.md §"Round trip"):
 * 1. the guard: a notification-only event (event-vocabulary `dispatchable: false`, i.e.
 *    `receipt.emitted`) is refused with RECEIPT_EMITTED_GUARD.failure_variant before anything else;
 * 2. the value is serialized, and the bytes that will actually be written are judged exactly like a
 *    document read from a peer (strict parse with the byte and depth limits, schema, rules). The
 *    host therefore never writes what it would refuse to read, and a value that changes while it
 *    is read (a getter, a Proxy) is judged by what was written, not by what was looked at.
 * Every function here never throws.
 */
import { EVENT_VOCABULARY, LIMITS, RECEIPT_EMITTED_GUARD, type WireObjectTypeName, type WireTypeMap } from "../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import type { ValidationIssue } from "../wire/issues.js";
import { integerLexemeIssues } from "../wire/schema.js";
import { parseWireDocument } from "../wire/validate.js";
import { issueText, makeFailure } from "./failure.js";
import type { InvocationFailure } from "./types.js";

const NOT_DISPATCHABLE: ReadonlySet<string> = new Set(EVENT_VOCABULARY.filter((e) => !e.dispatchable).map((e) => e.event));

/** The event of an envelope-shaped value, or undefined when it has none or cannot be read. Never throws. */
export function eventOf(envelope: unknown): unknown {
  try {
    if (envelope === null || typeof envelope !== "object") return undefined;
    const request = (envelope as { request?: unknown }).request;
    if (request === null || typeof request !== "object") return undefined;
    return (request as { event?: unknown }).event;
  } catch {
    return undefined;
  }
}

/** True when the value's request carries a notification-only event (receipt.emitted). Never throws. */
export function isNotificationOnly(envelope: unknown): boolean {
  const event = eventOf(envelope);
  return typeof event === "string" && NOT_DISPATCHABLE.has(event);
}

/** The guard's failure for a notification-only envelope, or null. */
export function guardFailure(envelope: unknown): InvocationFailure | null {
  if (!isNotificationOnly(envelope)) return null;
  return makeFailure(RECEIPT_EMITTED_GUARD.failure_variant, `event ${String(eventOf(envelope))} is notification-only: it is never delivered to a client and never receipted`);
}

/** Thrown by {@link toWireJson} for a value JSON cannot represent faithfully. */
export class WireSerializeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WireSerializeError";
  }
}

function faithful(this: unknown, key: string, value: unknown): unknown {
  switch (typeof value) {
    case "bigint":
      throw new WireSerializeError(`value at key "${key}" is a BigInt, which JSON cannot represent`);
    case "number":
      if (!Number.isFinite(value)) throw new WireSerializeError(`value at key "${key}" is ${value}, which JSON cannot represent`);
      return value;
    case "function":
    case "symbol":
      throw new WireSerializeError(`value at key "${key}" is a ${typeof value}, which JSON cannot represent`);
    case "undefined":
      if (Array.isArray(this)) throw new WireSerializeError(`array element ${key} is undefined, which JSON cannot represent`);
      return value;
    default:
      return value;
  }
}

/**
 * JSON text of a wire value, refusing what `JSON.stringify` would silently change or drop: BigInt,
 * NaN/Infinity, functions, symbols, `undefined` array elements, and cycles. An `undefined` object
 * member is an absent member. Throws {@link WireSerializeError} (also when reading the value throws,
 * e.g. a getter or a Proxy trap, or when it nests too deeply for the serializer).
 */
export function toWireJson(value: unknown): string {
  try {
    return JSON.stringify(value, faithful);
  } catch (error) {
    if (error instanceof WireSerializeError) throw error;
    throw new WireSerializeError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * The wire form of an in-memory value, judged as a document:
 * - `ok`: `bytes` (UTF-8 JSON, what crosses the boundary) and `value`, a fresh copy parsed back from
 *   those bytes (so later changes to the caller's object cannot reach the client, and the client
 *   cannot reach the caller's object);
 * - `serialize`: the value cannot be written as JSON (see {@link toWireJson});
 * - `invalid`: the bytes break the wire contract; `issues[0]` is the primary issue (`json.max-bytes`
 *   when larger than `maxBytes`, `json.max-depth`, `json.lone-surrogate`, `schema.*`, rules).
 */
export type WireSnapshot<T> =
  | { readonly ok: true; readonly bytes: Buffer; readonly value: T }
  | { readonly ok: false; readonly problem: "serialize"; readonly detail: string }
  | { readonly ok: false; readonly problem: "invalid"; readonly issues: readonly ValidationIssue[] };

/** Nesting the serializer could not handle is a depth problem of the document, not a host bug. */
const TOO_DEEP = /call stack/i;

/**
 * Serialize `value` and judge the bytes as a `typeName` document bounded by `maxBytes` and
 * limits.max_depth. `nonIntegerNumberPointers` are the strict parser's pointers when the value
 * itself came from bytes (a `1.0` in an integer field there is reported as `schema.type`, as
 * parseWireDocument would). Never throws.
 */
export function wireSnapshot<K extends WireObjectTypeName>(
  typeName: K,
  value: unknown,
  maxBytes: number,
  nonIntegerNumberPointers: readonly string[] = [],
): WireSnapshot<WireTypeMap[K]> {
  const lexemes = integerLexemeIssues(typeName, nonIntegerNumberPointers);
  if (lexemes.length > 0) return { ok: false, problem: "invalid", issues: lexemes };
  let text: string;
  try {
    text = toWireJson(value);
  } catch (error) {
    const message = (error as Error).message;
    if (TOO_DEEP.test(message)) {
      return { ok: false, problem: "invalid", issues: [{ rule: "json.max-depth", pointer: "", message: `the value nests too deeply to serialize (limits.max_depth is ${LIMITS.max_depth})` }] };
    }
    return { ok: false, problem: "serialize", detail: message };
  }
  if (text === undefined) return { ok: false, problem: "invalid", issues: [{ rule: "schema.type", pointer: "", message: `a ${typeName} must be an object` }] };
  const bytes = Buffer.from(text, "utf8");
  const judged = parseWireDocument(typeName, bytes, { maxBytes, maxDepth: LIMITS.max_depth });
  if (!judged.ok) return { ok: false, problem: "invalid", issues: judged.issues };
  return { ok: true, bytes, value: judged.value };
}

/**
 * Guard, then snapshot the envelope: the bytes to deliver and a validated copy, or the failure to
 * report (`receipt_emitted_rejected`, `serialize_request`, `request_too_large` when the bytes exceed
 * `maxBytes`, `invalid_request`).
 */
export function prepareEnvelope(
  envelope: unknown,
  maxBytes: number,
  nonIntegerNumberPointers: readonly string[] = [],
): { readonly ok: true; readonly bytes: Buffer; readonly envelope: DispatchEnvelope } | { readonly ok: false; readonly failure: InvocationFailure } {
  const guarded = guardFailure(envelope);
  if (guarded !== null) return { ok: false, failure: guarded };
  const snap = wireSnapshot("DispatchEnvelope", envelope, maxBytes, nonIntegerNumberPointers);
  if (snap.ok) return { ok: true, bytes: snap.bytes, envelope: snap.value };
  if (snap.problem === "serialize") {
    return { ok: false, failure: makeFailure("serialize_request", `the DispatchEnvelope cannot be serialized: ${snap.detail}`) };
  }
  const primary = snap.issues[0] as ValidationIssue;
  if (primary.rule === "json.max-bytes") {
    return { ok: false, failure: makeFailure("request_too_large", `the serialized DispatchEnvelope is larger than ${maxBytes} bytes (limits.max_request_bytes); nothing was delivered`) };
  }
  return { ok: false, failure: makeFailure("invalid_request", `DispatchEnvelope is invalid: ${issueText(primary)}`, { issues: snap.issues }) };
}

/** Narrow an envelope accepted by {@link prepareEnvelope}. */
export function payloadsOf(envelope: DispatchEnvelope): NonNullable<DispatchEnvelope["payloads"]> {
  return envelope.payloads ?? [];
}
