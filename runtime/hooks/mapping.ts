/**
 * Lookups over the harness hook mapping table (generated/ts/spec.ts HARNESS_HOOK_MAPPING, from
 * spec/tables/harness-hook-mapping.json; spec/harness-hooks.md "Mapping"). Nothing here restates a
 * table row: every answer comes from the generated constant.
 */
import { HARNESS_HOOK_MAPPING, type HookAdapter } from "../../generated/ts/spec/harness-hook-mapping.js";
import { HOOK_SCHEMAS } from "../../generated/ts/spec/plans.js";
import type { LifecycleEventKind } from "../../generated/ts/types.js";
import type { HookSchemaName } from "./request.js";

/** One adapter (harness) row of the table. */
export type HookAdapterRow = (typeof HARNESS_HOOK_MAPPING)["adapters"][number];
/** One hook event row of an adapter: its output schema, context slot, placements and block effect. */
export type HookEventRow = HookAdapterRow["hook_events"][number];

/** The harnesses the renderer targets, in table order (`claude`, `codex`). */
export const HOOK_ADAPTERS: readonly HookAdapter[] = HARNESS_HOOK_MAPPING.adapters.map((a) => a.adapter);

/** True when `value` names a harness of the table (the CLI's `--adapter` values). */
export function isHookAdapter(value: string): value is HookAdapter {
  return (HOOK_ADAPTERS as readonly string[]).includes(value);
}

/** The table row of a harness. */
export function hookAdapterRow(adapter: HookAdapter): HookAdapterRow {
  return HARNESS_HOOK_MAPPING.adapters.find((a) => a.adapter === adapter) as HookAdapterRow;
}

/**
 * The hook event row a lifecycle event maps to for `adapter`, or null when the harness has no hook
 * event for it ("unsupported" in the table).
 */
export function hookEventFor(adapter: HookAdapter, event: LifecycleEventKind): HookEventRow | null {
  const row = hookAdapterRow(adapter);
  const name = row.events.find((e) => e.event === event)?.hook_event;
  return (row.hook_events as readonly HookEventRow[]).find((h) => h.hook_event === name) ?? null;
}

/** Name of the generated output schema (and validator) of a harness hook event, e.g. `ClaudeStopOutput`. */
export function outputSchemaName(adapter: HookAdapter, hookEvent: string): HookSchemaName {
  const found = HOOK_SCHEMAS.find((s) => s.role === "output" && s.adapter === adapter && s.hook_event === hookEvent);
  if (!found) throw new Error(`no output schema for ${adapter} ${hookEvent}; run npm run generate`);
  return found.name;
}

const BLANK = new RegExp(
  `^[${HARNESS_HOOK_MAPPING.white_space
    .map(([lo, hi]) => `\\u{${lo.toString(16)}}-\\u{${hi.toString(16)}}`)
    .join("")}]*$`,
  "u",
);

/**
 * True when a block reason is empty or made only of Unicode White_Space (the table's
 * `white_space` ranges): the reference and Codex both refuse such a reason.
 */
export function isBlankReason(reason: string): boolean {
  return BLANK.test(reason);
}
