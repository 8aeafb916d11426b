/**
 * The envelopes the conformance scenarios send, in both transports: the shared typical
 * DispatchEnvelope vector (generated/vectors/dispatch-envelope/valid-typical.json, every member
 * filled in) re-targeted at one event, keeping the event-specific rules of the event vocabulary and
 * of the receipt.emitted guard.
 */
import { EVENT_VOCABULARY, RECEIPT_EMITTED_GUARD } from "../../generated/ts/spec.js";

/** A JSON value as the scenarios build it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** A deep copy of the typical envelope for `event`: no frame_context where the event has none, no idempotency_key for receipt.emitted. */
export function envelopeFor(typical: JsonObject, event: string): JsonObject {
  const copy = structuredClone(typical);
  const request = copy.request as JsonObject;
  request.event = event;
  const row = EVENT_VOCABULARY.find((r) => r.event === event);
  if (row && !row.requires_frame_context) delete request.frame_context;
  if (event === RECEIPT_EMITTED_GUARD.event) delete request.idempotency_key;
  return copy;
}
