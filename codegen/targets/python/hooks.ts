/** The harness hook mapping (spec/tables/harness-hook-mapping.json) as typed constants and lookups (hooks.py). */
import type { Model } from "../../model/model.js";
import { hookExample, hookMapping } from "../sdk-shared.js";
import { pyConstName, pyStr, pyStrTuple, pyTuple, upperSnake, wrap } from "./naming.js";

/** The harness hook mapping as typed constants (lifeloop_callback/hooks.py). */
export function hooksView(model: Model) {
  const facts = hookMapping(model);
  const adapterConst = (adapter: string): string => `HOOK_ADAPTER_${pyConstName(adapter)}`;
  const eventConst = (adapter: string, hookEvent: string): string => `${pyConstName(adapter)}_HOOK_EVENT_${upperSnake(hookEvent)}`;
  const literalType = (values: readonly string[], what: string): string => {
    if (values.length === 0) throw new Error(`python target: spec/tables/harness-hook-mapping.json has no ${what}; hooks.py needs at least one`);
    return `Literal[${values.map(pyStr).join(", ")}]`;
  };
  const adapters = facts.adapters.map((a) => {
    const constName = adapterConst(a.adapter);
    const limit = a.contextLimit;
    const hookEvents = a.hookEvents.map((h) => ({
      constName: eventConst(a.adapter, h.hookEvent),
      literal: pyStr(h.hookEvent),
      docLines: wrap(
        `The ${a.harness} hook event ${h.hookEvent} (output schema schemas/hooks/${h.outputSchema}.schema.json); lifecycle events: ${a.events
          .filter((e) => e.hookEvent === h.hookEvent)
          .map((e) => e.event)
          .join(", ")}.`,
        97,
      ),
      infoExpr: [
        `adapter=${constName}`,
        `hook_event=${eventConst(a.adapter, h.hookEvent)}`,
        `output_schema=${pyStr(h.outputSchema)}`,
        `context_slot=${h.contextSlot === null ? "None" : pyStr(h.contextSlot)}`,
        `context_placements=${pyTuple(h.contextPlacements.map((p) => `PlacementClass.${pyConstName(p)}`))}`,
        `block=${pyStr(h.block)}`,
        `block_applies=${h.blockApplies ? "True" : "False"}`,
      ].join(", "),
    }));
    return {
      constName,
      literal: pyStr(a.adapter),
      doc: `Canonical adapter name of ${a.harness} (adapter ids ${a.adapterIds.join(", ")}).`,
      ids: a.adapterIds.map((id) => ({ literal: pyStr(id) })),
      infoHead: [
        `adapter=${constName}`,
        `harness=${pyStr(a.harness)}`,
        `adapter_ids=${pyStrTuple(a.adapterIds)}`,
        `context_limit=${limit === null ? "None" : `HookContextLimit(length=${limit.length}, unit=${pyStr(limit.unit)}, on_exceed=${pyStr(limit.onExceed)}, fact=${pyStr(limit.fact)})`}`,
      ].join(", "),
      hookEvents,
      events: a.events.map((e) => ({
        member: `LifecycleEventKind.${pyConstName(e.event)}`,
        value: e.hookEvent === null ? "None" : eventConst(a.adapter, e.hookEvent),
      })),
    };
  });
  const example = hookExample(facts);
  const exports = [
    "HOOK_ADAPTERS",
    "HOOK_ADAPTER_IDS",
    "HOOK_ADAPTER_INFO",
    "HOOK_EVENTS",
    "HookAdapterInfo",
    "HookBlockEffect",
    "HookContextLimit",
    "HookContextSlot",
    "HookEventInfo",
    "hook_adapter_for",
    "hook_event_for",
    "hook_event_info_for",
    ...adapters.flatMap((a) => [a.constName, ...a.hookEvents.map((h) => h.constName)]),
  ];
  return {
    blockEffectType: literalType(
      facts.blockEffects.map((b) => b.block),
      "block effect",
    ),
    contextSlotType: literalType(facts.contextSlots, "context slot"),
    adapters,
    adapterTuple: pyTuple(adapters.map((a) => a.constName)),
    example: {
      adapterIdLiteral: pyStr(example.adapterId),
      eventMember: `LifecycleEventKind.${pyConstName(example.event)}`,
      hookEventConst: eventConst(example.adapter.adapter, example.hookEvent.hookEvent),
      hookEventLiteral: pyStr(example.hookEvent.hookEvent),
    },
    exports,
  };
}
