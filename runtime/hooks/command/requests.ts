/**
 * Building the CallbackRequest of one lifecycle event from a hook input (spec/hook-command.md,
 * "Request fields"): every member comes from a `fields` row of spec/tables/harness-hook-inputs.json;
 * a member that is absent, null or an empty string is left out; bounded text is cut to
 * `metadata_text_max_bytes` UTF-8 bytes at a code point boundary and named in
 * `metadata.truncated_fields`. The names (never the values) of input members the input schema does
 * not list go into `metadata.unknown_input_members`, in input order, at most
 * `max_unknown_input_members` of them, each cut to `unknown_input_member_name_max_bytes` (more, or a
 * longer name: `truncated_fields` names `unknown_input_members`), so a client sees that its harness
 * sends something this toolkit does not know yet and the request stays bounded whatever it sends.
 */
import { randomUUID } from "node:crypto";
import { HARNESS_HOOK_INPUTS } from "../../../generated/ts/spec/harness-hook-inputs.js";
import type { HookAdapter } from "../../../generated/ts/spec/harness-hook-mapping.js";
import { HOOK_SCHEMAS } from "../../../generated/ts/spec/plans.js";
import { WIRE_VERSION } from "../../../generated/ts/spec/wire-version.js";
import type { CallbackRequest, LifecycleEventKind } from "../../../generated/ts/types.js";
import type { HookInput } from "./input.js";
import { hookInputAdapter, type HookInputFieldRow } from "./tables.js";

/** The frame.* events need a frame_context (rule frame-events-need-frame-context). */
export function isFrameEvent(event: string): boolean {
  return event.startsWith("frame.");
}

/** `text` cut to at most `maxBytes` UTF-8 bytes without splitting a code point; `cut` tells whether anything was removed. */
export function boundUtf8(text: string, maxBytes: number): { readonly text: string; readonly cut: boolean } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return { text, cut: false };
  let end = maxBytes;
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString("utf8"), cut: true };
}

function applies(row: HookInputFieldRow, event: string): boolean {
  return row.applies === "all" || (row.applies === "frame") === isFrameEvent(event);
}

/** The input's value for a row, or undefined when it is to be left out. */
function present(input: HookInput, name: string): string | boolean | undefined {
  const v = input[name];
  if (typeof v === "boolean") return v;
  if (typeof v === "string" && v !== "") return v;
  return undefined;
}

/** The fields row whose target is the frame id (`/frame_context/frame_id`). */
const FRAME_ID_ROW = HARNESS_HOOK_INPUTS.fields.find(
  (f) => f.target === "/frame_context/frame_id",
) as HookInputFieldRow;

/** The harness's own frame id in `input` (the member the table maps to frame_context.frame_id), or null. */
export function inputFrameId(input: HookInput): string | null {
  const v = present(input, FRAME_ID_ROW.input);
  return typeof v === "string" ? v : null;
}

/** The members each input schema lists, by adapter and hook event (`adapter hook_event`). */
const LISTED_MEMBERS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  HOOK_SCHEMAS.flatMap((s) =>
    "members" in s ? [[`${s.adapter} ${s.hook_event}`, new Set<string>(s.members)] as const] : [],
  ),
);

/**
 * The names of `input`'s members that its input schema does not list, in input order, at most
 * `max_unknown_input_members`, each cut at a code point boundary to
 * `unknown_input_member_name_max_bytes` UTF-8 bytes; `cut` tells whether there were more or one was cut.
 */
export function unknownInputMembers(
  adapter: HookAdapter,
  input: HookInput,
): { readonly names: readonly string[]; readonly cut: boolean } {
  const listed = LISTED_MEMBERS.get(`${adapter} ${String(input.hook_event_name)}`);
  if (listed === undefined) return { names: [], cut: false };
  const names: string[] = [];
  let cut = false;
  for (const name of Object.keys(input)) {
    if (listed.has(name)) continue;
    if (names.length === HARNESS_HOOK_INPUTS.max_unknown_input_members) return { names, cut: true };
    const bounded = boundUtf8(name, HARNESS_HOOK_INPUTS.unknown_input_member_name_max_bytes);
    cut ||= bounded.cut;
    names.push(bounded.text);
  }
  return { names, cut };
}

/** Inputs of one request besides the hook input: the ids the host makes. */
export interface RequestIds {
  /** frame_context.frame_id for frame.* events (the caller resolves it: input, state, or fresh). */
  readonly frameId: string;
  readonly eventId?: string;
  readonly invocationId?: string;
}

/**
 * The CallbackRequest of `event` for a hook input of `adapter`, in `wireVersion` (the version the
 * host speaks, spec/wire-window.md; default current). `event_id` and `invocation_id` default to
 * `evt-<uuid>` / `inv-<uuid>`; integration_mode is native_hook; adapter_version is the table's.
 */
export function buildCallbackRequest(
  adapter: HookAdapter,
  event: LifecycleEventKind,
  input: HookInput,
  ids: RequestIds,
  wireVersion: string = WIRE_VERSION,
): CallbackRequest {
  const metadata: Record<string, unknown> = {};
  const truncated: string[] = [];
  const request: Record<string, unknown> = {
    schema_version: wireVersion,
    event,
    event_id: ids.eventId ?? `evt-${randomUUID()}`,
    adapter_id: adapter,
    adapter_version: hookInputAdapter(adapter).adapter_version,
    integration_mode: "native_hook",
    invocation_id: ids.invocationId ?? `inv-${randomUUID()}`,
  };
  if (isFrameEvent(event)) request.frame_context = { frame_id: ids.frameId, frame_class: "top_level" };
  for (const row of HARNESS_HOOK_INPUTS.fields) {
    if (!applies(row, event) || row.target === FRAME_ID_ROW.target) continue;
    let value = present(input, row.input);
    if (value === undefined) continue;
    if (row.bounded && typeof value === "string") {
      const bounded = boundUtf8(value, HARNESS_HOOK_INPUTS.metadata_text_max_bytes);
      if (bounded.cut) truncated.push(row.input);
      value = bounded.text;
    }
    if (row.target.startsWith("/metadata/")) metadata[row.target.slice("/metadata/".length)] = value;
    else request[row.target.slice(1)] = value;
  }
  const unknown = unknownInputMembers(adapter, input);
  if (unknown.names.length > 0) metadata.unknown_input_members = unknown.names;
  if (unknown.cut) truncated.push("unknown_input_members");
  if (truncated.length > 0) metadata.truncated_fields = truncated;
  request.metadata = metadata;
  return request as unknown as CallbackRequest;
}
