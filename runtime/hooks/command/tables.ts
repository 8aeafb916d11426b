/**
 * Lookups over spec/tables/harness-hook-inputs.json (generated/ts/spec.ts HARNESS_HOOK_INPUTS;
 * spec/hook-command.md): which hook events the `hook` command serves per harness, what each
 * delivers and renders, and its input schema. Nothing here restates a table row.
 */
import { HARNESS_HOOK_INPUTS } from "../../../generated/ts/spec/harness-hook-inputs.js";
import type { HookAdapter } from "../../../generated/ts/spec/harness-hook-mapping.js";
import { HOOK_SCHEMAS } from "../../../generated/ts/spec/plans.js";
import type { HookSchemaName } from "../request.js";

/** One adapter row of the inputs table. */
export type HookInputAdapterRow = (typeof HARNESS_HOOK_INPUTS)["adapters"][number];
/** One hook event row: input schema, delivered events (in order), the rendered one, config entry. */
export type HookInputEventRow = HookInputAdapterRow["hook_events"][number];
/** One `fields` row: input member -> CallbackRequest member. */
export type HookInputFieldRow = (typeof HARNESS_HOOK_INPUTS)["fields"][number];

/** The inputs-table row of a harness. */
export function hookInputAdapter(adapter: HookAdapter): HookInputAdapterRow {
  return HARNESS_HOOK_INPUTS.adapters.find((a) => a.adapter === adapter) as HookInputAdapterRow;
}

/** The hook event names the `hook` command serves for `adapter`, in table order. */
export function servedHookEvents(adapter: HookAdapter): readonly string[] {
  return hookInputAdapter(adapter).hook_events.map((h) => h.hook_event);
}

/** The row of `hookEvent` for `adapter`, or null when the command does not serve it. */
export function hookInputEvent(adapter: HookAdapter, hookEvent: string): HookInputEventRow | null {
  return (
    (hookInputAdapter(adapter).hook_events as readonly HookInputEventRow[]).find((h) => h.hook_event === hookEvent) ??
    null
  );
}

/** Name of the generated input schema (and validator) of a hook event, e.g. `CodexStopInput`. */
export function inputSchemaName(adapter: HookAdapter, hookEvent: string): HookSchemaName {
  const found = HOOK_SCHEMAS.find((s) => s.role === "input" && s.adapter === adapter && s.hook_event === hookEvent);
  if (!found) throw new Error(`no input schema for ${adapter} ${hookEvent}; run npm run generate`);
  return found.name;
}
