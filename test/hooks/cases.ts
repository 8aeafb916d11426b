/**
 * Shared inputs of the hook rendering suites: request builders, the directive variants and the
 * payload variations every combination is rendered with.
 */
import {
  HARNESS_HOOK_MAPPING,
  LIFECYCLE_EVENT_KIND_VALUES,
  WIRE_VERSION,
  type HookAdapter,
} from "../../generated/ts/spec.js";
import type {
  FrameAdmissionDirective,
  HookRenderPayload,
  HookRenderRequest,
  LifecycleEventKind,
  PayloadEnvelope,
  PlacementClass,
} from "../../generated/ts/types.js";

export const ADAPTERS: readonly HookAdapter[] = HARNESS_HOOK_MAPPING.adapters.map((a) => a.adapter);
export const EVENTS: readonly LifecycleEventKind[] = LIFECYCLE_EVENT_KIND_VALUES;

/** A valid PayloadEnvelope with an inline body (or a body_ref when `ref` is given). */
export function envelope(
  id: string,
  content: { readonly body: string } | { readonly ref: string },
  kind = "lifecycle.context",
): PayloadEnvelope {
  return {
    schema_version: WIRE_VERSION,
    payload_id: id,
    client_id: "test-client",
    payload_kind: kind,
    format: "application/json",
    content_encoding: "utf8",
    ...("body" in content ? { body: content.body } : { body_ref: content.ref }),
    byte_size: "body" in content ? Buffer.byteLength(content.body, "utf8") : 0,
    acceptable_placements: [{ placement: "pre_prompt_frame", requirement: "preferred" }],
  };
}

export function payload(placement: PlacementClass, env: PayloadEnvelope): HookRenderPayload {
  return { envelope: env, placement };
}

/** A body that exercises string escaping: quotes, backslashes, control characters, non-BMP, U+2028. */
export const NASTY_BODY =
  '{"q":"\\"x\\"","nl":"a\nb","tab":"\t","ctl":"\u0001\u001f\u007f","emoji":"😀","ls":"\u2028\u2029","bom":"\ufeff","nul":"\u0000"}';

/** Named payload variations. */
export const PAYLOAD_SETS: Readonly<Record<string, readonly HookRenderPayload[]>> = {
  none: [],
  pre_prompt: [payload("pre_prompt_frame", envelope("pl-pre", { body: '{"next_focus":["finish"]}' }))],
  developer_equivalent: [payload("developer_equivalent_frame", envelope("pl-dev", { body: "developer text" }))],
  side_channel: [payload("side_channel_context", envelope("pl-side", { body: "post compact context" }))],
  receipt_only: [payload("receipt_only", envelope("pl-receipt", { body: '{"should":"not appear"}' }))],
  body_ref: [payload("pre_prompt_frame", envelope("pl-ref", { ref: "blob://abc" }))],
  side_channel_ref: [payload("side_channel_context", envelope("pl-side-ref", { ref: "blob://side" }))],
  several: [
    payload("pre_prompt_frame", envelope("pl-1", { body: '{"foo":"a"}' })),
    payload("receipt_only", envelope("pl-2", { body: "receipt" })),
    payload("developer_equivalent_frame", envelope("pl-3", { ref: "blob://dev" })),
    payload("side_channel_context", envelope("pl-4", { body: "side" })),
    payload("pre_prompt_frame", envelope("pl-5", { body: '{"foo":"b"}' })),
    payload("pre_prompt_frame", envelope("pl-6", { body: NASTY_BODY }, 'kind/with "quotes"')),
    payload("side_channel_context", envelope("pl-7", { ref: "blob://side-2" })),
    payload("pre_prompt_frame", envelope("pl-8", { body: "" })),
  ],
};

/** Directive variants: absent, allow, block with a reason, and blocks whose reason is blank or borderline. */
export const DIRECTIVES: Readonly<Record<string, FrameAdmissionDirective | undefined>> = {
  none: undefined,
  allow: { kind: "allow" },
  block: { kind: "block", reason: "policy requires operator review" },
  block_empty: { kind: "block", reason: "" },
  block_blank: { kind: "block", reason: " \t\n\u3000\u2028\u0085" },
  // U+FEFF is not Unicode White_Space (a JavaScript trim() would remove it): a valid reason.
  block_feff: { kind: "block", reason: "\ufeff" },
  block_padded: { kind: "block", reason: "  keep going \n" },
};

/** The four directive variants of the combination and golden suites. */
export const CORE_DIRECTIVES = ["none", "allow", "block", "block_empty"] as const;

/** A render request for `adapter` (its canonical adapter id unless `adapterId` is given). */
export function request(
  adapter: string,
  event: LifecycleEventKind,
  opts: {
    payloads?: readonly HookRenderPayload[];
    directive?: FrameAdmissionDirective | undefined;
    adapterId?: string;
  } = {},
): HookRenderRequest {
  return {
    adapter_id: opts.adapterId ?? adapter,
    adapter_version: "1.0.0",
    integration_mode: "native_hook",
    event,
    ...(opts.payloads && opts.payloads.length > 0 ? { payloads: [...opts.payloads] } : {}),
    ...(opts.directive ? { directive: opts.directive } : {}),
  };
}
