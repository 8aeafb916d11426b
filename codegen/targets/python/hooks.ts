/** The harness hook mapping (spec/tables/harness-hook-mapping.json) as typed constants and lookups (hooks.py). */
import type { Model } from "../../model/model.js";
import type { PythonSdkViewModel } from "../../../generated/codegen/python/view-model.js";
import { hookExample, hookMapping } from "../sdk-shared.js";
import { pyConstName, upperSnake } from "./naming.js";

/** The harness hook mapping as constant names and plain values (lifeloop_callback/hooks.py). */
export function hooksView(model: Model): PythonSdkViewModel["hooks"] {
  const facts = hookMapping(model);
  const adapterConst = (adapter: string): string => `HOOK_ADAPTER_${pyConstName(adapter)}`;
  const eventConst = (adapter: string, hookEvent: string): string =>
    `${pyConstName(adapter)}_HOOK_EVENT_${upperSnake(hookEvent)}`;
  const nonEmpty = (values: readonly string[], what: string): string[] => {
    if (values.length === 0)
      throw new Error(
        `python target: spec/tables/harness-hook-mapping.json has no ${what}; hooks.py needs at least one`,
      );
    return [...values];
  };
  const adapters = facts.adapters.map((a) => {
    const constName = adapterConst(a.adapter);
    const hookEvents = a.hookEvents.map((h) => ({
      constName: eventConst(a.adapter, h.hookEvent),
      hookEvent: h.hookEvent,
      doc: `The ${a.harness} hook event ${h.hookEvent} (output schema schemas/hooks/${h.outputSchema}.schema.json); lifecycle events: ${a.events
        .filter((e) => e.hookEvent === h.hookEvent)
        .map((e) => e.event)
        .join(", ")}.`,
      outputSchema: h.outputSchema,
      contextSlot: h.contextSlot,
      placementMembers: h.contextPlacements.map(pyConstName),
      block: h.block,
      blockApplies: h.blockApplies,
    }));
    return {
      constName,
      adapter: a.adapter,
      harness: a.harness,
      doc: `Canonical adapter name of ${a.harness} (adapter ids ${a.adapterIds.join(", ")}).`,
      adapterIds: [...a.adapterIds],
      contextLimit: a.contextLimit === null ? null : { ...a.contextLimit },
      hookEvents,
      events: a.events.map((e) => ({
        eventMember: pyConstName(e.event),
        hookEventConst: e.hookEvent === null ? null : eventConst(a.adapter, e.hookEvent),
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
    blockEffects: nonEmpty(
      facts.blockEffects.map((b) => b.block),
      "block effect",
    ),
    contextSlots: nonEmpty(facts.contextSlots, "context slot"),
    adapters,
    adapterConsts: adapters.map((a) => a.constName),
    example: {
      adapterId: example.adapterId,
      eventMember: pyConstName(example.event),
      hookEventConst: eventConst(example.adapter.adapter, example.hookEvent.hookEvent),
      hookEvent: example.hookEvent.hookEvent,
    },
    exports,
  };
}
