/** The harness hook mapping (spec/tables/harness-hook-mapping.json) as typed constants and lookups (hooks.go). */
import type { Model } from "../../model/model.js";
import type { GoViewModel } from "../../../generated/codegen/go/view-model.js";
import { hookExample, hookMapping } from "../sdk-shared.js";
import { enumConst, goName } from "./naming.js";

/**
 * hooks.go and hooks_test.go: HookAdapter*, <Adapter>HookEvent*, HookBlockEffect* and HookContextSlot*
 * constant names, the rows of HookAdapterInfos and the cases of HookAdapterFor/HookEventFor.
 */
export function hooksView(model: Model): GoViewModel["hooks"] {
  const facts = hookMapping(model);
  const blockConst = (block: string): string => `HookBlockEffect${goName(block)}`;
  const slotConst = (slot: string): string => `HookContextSlot${goName(slot)}`;
  const adapters = facts.adapters.map((a) => {
    const prefix = goName(a.adapter);
    const constName = `HookAdapter${prefix}`;
    const eventConst = (hookEvent: string): string => `${prefix}HookEvent${goName(hookEvent)}`;
    const eventsOf = (hookEvent: string): string[] =>
      a.events.filter((e) => e.hookEvent === hookEvent).map((e) => e.event);
    const hookEvents = a.hookEvents.map((h) => ({
      constName: eventConst(h.hookEvent),
      hookEvent: h.hookEvent,
      doc: `${eventConst(h.hookEvent)} is the ${a.harness} hook event ${h.hookEvent} (output schema schemas/hooks/${h.outputSchema}.schema.json); lifecycle events: ${eventsOf(h.hookEvent).join(", ")}.`,
      outputSchema: h.outputSchema,
      contextSlotConst: h.contextSlot === null ? null : slotConst(h.contextSlot),
      placementConsts:
        h.contextSlot === null ? [] : h.contextPlacements.map((p) => enumConst(model, "PlacementClass", p)),
      blockConst: blockConst(h.block),
      blockApplies: h.blockApplies,
    }));
    return {
      constName,
      adapter: a.adapter,
      harness: a.harness,
      doc: `${constName} is the adapter of ${a.harness} (adapter ids ${a.adapterIds.map((id) => JSON.stringify(id)).join(", ")}).`,
      adapterIds: [...a.adapterIds],
      contextLimit: a.contextLimit === null ? null : { ...a.contextLimit },
      hookEvents,
      eventCases: a.hookEvents.map((h) => ({
        eventConsts: eventsOf(h.hookEvent).map((e) => enumConst(model, "LifecycleEventKind", e)),
        hookEventConst: eventConst(h.hookEvent),
      })),
    };
  });
  const example = hookExample(facts);
  const exampleAdapter = adapters[facts.adapters.indexOf(example.adapter)];
  const exampleEvent = exampleAdapter?.hookEvents.find((h) => h.hookEvent === example.hookEvent.hookEvent);
  if (!exampleAdapter || !exampleEvent) throw new Error("go target: the hook example names no generated constant");
  return {
    example: {
      adapterId: example.adapterId,
      eventConst: enumConst(model, "LifecycleEventKind", example.event),
      hookEventConst: exampleEvent.constName,
      hookEvent: exampleEvent.hookEvent,
    },
    adapters,
    blockEffects: facts.blockEffects.map((b) => ({
      constName: blockConst(b.block),
      block: b.block,
      doc: `${blockConst(b.block)}: a block directive renders ${b.renders}. ${b.meaning}`,
    })),
    contextSlots: facts.contextSlots.map((slot) => ({ constName: slotConst(slot), slot })),
  };
}
