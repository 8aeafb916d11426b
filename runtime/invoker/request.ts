/**
 * The steps both invokers run before a client sees anything (CALLBACK-001 §"Subprocess callbacks"
 * steps 1-2, §"Receipt.Emitted Notification Guard"), and the check of an in-memory response:
 * 1. the guard: a notification-only event (event-vocabulary `dispatchable: false`, i.e.
 *    `receipt.emitted`) is refused with RECEIPT_EMITTED_GUARD.failure_variant before validation;
 * 2. the envelope is validated (schema, integer lexemes, rules) → `invalid_request`.
 */
import { EVENT_VOCABULARY, RECEIPT_EMITTED_GUARD } from "../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import { validateParsed, validateValue } from "../wire/validate.js";
import { issueText, makeFailure } from "./failure.js";
import type { InvocationFailure } from "./types.js";

const NOT_DISPATCHABLE: ReadonlySet<string> = new Set(EVENT_VOCABULARY.filter((e) => !e.dispatchable).map((e) => e.event));

/** The event of an envelope-shaped value, or undefined when it has none. Never throws. */
export function eventOf(envelope: unknown): unknown {
  if (envelope === null || typeof envelope !== "object") return undefined;
  const request = (envelope as { request?: unknown }).request;
  if (request === null || typeof request !== "object") return undefined;
  return (request as { event?: unknown }).event;
}

/** True when the value's request carries a notification-only event (receipt.emitted). */
export function isNotificationOnly(envelope: unknown): boolean {
  const event = eventOf(envelope);
  return typeof event === "string" && NOT_DISPATCHABLE.has(event);
}

/**
 * Guard, then validate. Returns the failure to report, or null when the envelope may be delivered.
 * `nonIntegerNumberPointers`: from parseStrictJson when the envelope came from bytes (else []).
 */
export function checkEnvelope(envelope: unknown, nonIntegerNumberPointers: readonly string[] = []): InvocationFailure | null {
  if (isNotificationOnly(envelope)) {
    return makeFailure(RECEIPT_EMITTED_GUARD.failure_variant, `event ${String(eventOf(envelope))} is notification-only: it is never delivered to a client and never receipted`);
  }
  const issues = validateParsed("DispatchEnvelope", envelope, nonIntegerNumberPointers);
  if (issues.length === 0) return null;
  return makeFailure("invalid_request", `DispatchEnvelope is invalid: ${issueText(issues[0] as (typeof issues)[number])}`, { issues });
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
 * member is an absent member. Throws {@link WireSerializeError}.
 */
export function toWireJson(value: unknown): string {
  try {
    return JSON.stringify(value, faithful);
  } catch (error) {
    if (error instanceof WireSerializeError) throw error;
    throw new WireSerializeError((error as Error).message);
  }
}

/**
 * Check a response that did not come from bytes (in-process): schema and rules, then that it is
 * representable as JSON. Returns the `invalid_response` failure, or null when valid.
 */
export function checkInMemoryResponse(response: unknown): InvocationFailure | null {
  const issues = validateValue("CallbackResponse", response);
  if (issues.length > 0) return makeFailure("invalid_response", `CallbackResponse is invalid: ${issueText(issues[0] as (typeof issues)[number])}`, { issues });
  try {
    toWireJson(response);
  } catch (error) {
    return makeFailure("invalid_response", `CallbackResponse is not representable as JSON: ${(error as Error).message}`);
  }
  return null;
}

/** Narrow an envelope accepted by {@link checkEnvelope}. */
export function payloadsOf(envelope: DispatchEnvelope): NonNullable<DispatchEnvelope["payloads"]> {
  return envelope.payloads ?? [];
}
