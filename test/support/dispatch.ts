/**
 * Builders of DispatchEnvelopes for the cross-language matrix (tools/matrix) and the demo (demo/).
 *
 * The adapter is `codex` at `0.1.0`: the reference CLI (`lifeloop event invoke`) routes a request
 * only to an adapter of its built-in registry at the exact registered version, and both hosts must
 * see the same envelopes. Payload placements are ones that adapter satisfies without an operator
 * (`developer_equivalent_frame` up to 8192 bytes, and `receipt_only`, which needs no manifest
 * claim), so the reference never blocks dispatch on placement. `side_channel_context` is not one of
 * them: lifeloop-cli 0.9.0 maps it to the adapter's manual operator path and refuses a required one
 * with `operator_required` before spawning (this host negotiates no placement; see the differences
 * table, row `placement-negotiation`).
 */
import { EVENT_VOCABULARY, WIRE_VERSION } from "../../generated/ts/spec.js";
import type {
  CallbackRequest,
  DispatchEnvelope,
  FrameContext,
  LifecycleEventKind,
  PayloadEnvelope,
  PlacementClass,
} from "../../generated/ts/types.js";

/** The adapter every envelope names: registered in the reference CLI at exactly this version. */
export const ADAPTER = { adapter_id: "codex", adapter_version: "0.1.0" } as const;

const FRAME_EVENTS: ReadonlySet<string> = new Set(
  EVENT_VOCABULARY.filter((e) => e.requires_frame_context).map((e) => e.event),
);

/** True when the event-vocabulary table says `event` needs a frame_context (the frame.* events). */
export function requiresFrameContext(event: LifecycleEventKind): boolean {
  return FRAME_EVENTS.has(event);
}

/**
 * The identity of one request: `event_id` and `invocation_id` are required; harness ids, the
 * frame, an idempotency key and metadata are optional (omitted when undefined).
 */
export interface RequestIdentity {
  readonly event_id: string;
  readonly invocation_id: string;
  readonly harness_session_id?: string;
  readonly harness_run_id?: string;
  readonly frame_context?: FrameContext;
  readonly metadata?: Record<string, unknown>;
}

/** A CallbackRequest for {@link ADAPTER} (integration mode native_hook). */
export function callbackRequest(event: LifecycleEventKind, identity: RequestIdentity): CallbackRequest {
  const request: CallbackRequest = {
    schema_version: WIRE_VERSION,
    event,
    event_id: identity.event_id,
    ...ADAPTER,
    integration_mode: "native_hook",
    invocation_id: identity.invocation_id,
  };
  if (identity.harness_session_id !== undefined) request.harness_session_id = identity.harness_session_id;
  if (identity.harness_run_id !== undefined) request.harness_run_id = identity.harness_run_id;
  if (identity.frame_context !== undefined) request.frame_context = identity.frame_context;
  if (identity.metadata !== undefined) request.metadata = identity.metadata;
  return request;
}

/** A DispatchEnvelope around `request`; `payloads` is omitted when empty (as the reference writes it). */
export function dispatchEnvelope(
  request: CallbackRequest,
  payloads: readonly PayloadEnvelope[] = [],
): DispatchEnvelope {
  const envelope: DispatchEnvelope = { schema_version: WIRE_VERSION, request };
  if (payloads.length > 0) envelope.payloads = [...payloads];
  return envelope;
}

/** A top-level frame, or a subcall frame of `parent`. */
export function frameContext(frameId: string, parent?: string): FrameContext {
  return parent === undefined
    ? { frame_id: frameId, frame_class: "top_level" }
    : { frame_id: frameId, frame_class: "subcall", parent_frame_id: parent };
}

/** What {@link textPayload} needs: `body` is UTF-8 text; `placement` is required (the first and only acceptable one). */
export interface TextPayloadSpec {
  readonly payload_id: string;
  readonly client_id: string;
  readonly payload_kind: string;
  readonly format: string;
  readonly body: string;
  readonly placement: PlacementClass;
}

/** An inline UTF-8 PayloadEnvelope; `byte_size` is the body's UTF-8 length (rule payload-body-byte-size). */
export function textPayload(spec: TextPayloadSpec): PayloadEnvelope {
  return {
    schema_version: WIRE_VERSION,
    payload_id: spec.payload_id,
    client_id: spec.client_id,
    payload_kind: spec.payload_kind,
    format: spec.format,
    content_encoding: "utf8",
    body: spec.body,
    byte_size: Buffer.byteLength(spec.body, "utf8"),
    acceptable_placements: [{ placement: spec.placement, requirement: "required" }],
  };
}
