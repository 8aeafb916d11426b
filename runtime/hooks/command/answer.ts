/**
 * From a client's CallbackResponse to a hook render request (spec/hook-command.md, "What is
 * rendered"): the response's `client_payloads` become the render's payloads, each placed at the
 * first of its acceptable placements that the hook event's context slot takes (else at its first
 * acceptable placement, which the renderer then reports as payload_not_rendered); the response's
 * `metadata.directive`, a FrameAdmissionDirective (`{"kind": "allow"}` or
 * `{"kind": "block", "reason": "..."}`), becomes the render's directive.
 */
import type { HookAdapter } from "../../../generated/ts/spec/harness-hook-mapping.js";
import type {
  CallbackResponse,
  FrameContext,
  HookRenderPayload,
  HookRenderRequest,
  LifecycleEventKind,
} from "../../../generated/ts/types.js";
import { hookEventFor } from "../mapping.js";
import { hookInputAdapter } from "./tables.js";

/** The member of CallbackResponse.metadata that carries a frame-admission directive. */
export const DIRECTIVE_METADATA_KEY = "directive";

/**
 * The render request for `response` (already validated: every payload lists at least one
 * acceptable placement, rule payload-placements-non-empty), answered to `event` on `adapter`.
 */
export function renderRequestFor(
  adapter: HookAdapter,
  event: LifecycleEventKind,
  frame: FrameContext | null,
  response: CallbackResponse,
): HookRenderRequest {
  const slot = (hookEventFor(adapter, event)?.context_placements ?? []) as readonly string[];
  const payloads: HookRenderPayload[] = [];
  for (const envelope of response.client_payloads ?? []) {
    const choices = envelope.acceptable_placements ?? [];
    const chosen = choices.find((c) => slot.includes(c.placement)) ?? choices[0];
    if (chosen) payloads.push({ envelope, placement: chosen.placement });
  }
  const request: Record<string, unknown> = {
    adapter_id: adapter,
    adapter_version: hookInputAdapter(adapter).adapter_version,
    integration_mode: "native_hook",
    event,
    frame,
    payloads,
  };
  const directive = response.metadata?.[DIRECTIVE_METADATA_KEY];
  if (directive !== undefined) request.directive = directive;
  return request as unknown as HookRenderRequest;
}

/** What in a response would be lost if it is not the rendered one: its payload count and whether it carries a directive. */
export function renderableParts(response: CallbackResponse): {
  readonly payloads: number;
  readonly directive: boolean;
} {
  return {
    payloads: (response.client_payloads ?? []).length,
    directive: response.metadata?.[DIRECTIVE_METADATA_KEY] !== undefined,
  };
}
