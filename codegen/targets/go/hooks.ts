/** The harness hook mapping (spec/tables/harness-hook-mapping.json) as typed constants and lookups (hooks.go). */
import type { Model } from "../../model/model.js";
import { hookExample, hookMapping } from "../sdk-shared.js";
import { enumConst, goName, goString, wrap } from "./naming.js";

/**
 * hooks.go and hooks_test.go: HookAdapter*, <Adapter>HookEvent*, HookBlockEffect* and HookContextSlot*
 * constants, the HookAdapterInfos literal and the switch cases of HookAdapterFor/HookEventFor.
 */
export function hooksView(model: Model) {
  const facts = hookMapping(model);
  const blockConst = (block: string): string => `HookBlockEffect${goName(block)}`;
  const slotConst = (slot: string): string => `HookContextSlot${goName(slot)}`;
  const adapters = facts.adapters.map((a) => {
    const prefix = goName(a.adapter);
    const constName = `HookAdapter${prefix}`;
    const eventConst = (hookEvent: string): string => `${prefix}HookEvent${goName(hookEvent)}`;
    const eventsOf = (hookEvent: string): string[] => a.events.filter((e) => e.hookEvent === hookEvent).map((e) => e.event);
    const hookEvents = a.hookEvents.map((h) => {
      const parts = [`Adapter: ${constName}`, `HookEvent: ${eventConst(h.hookEvent)}`, `OutputSchema: ${goString(h.outputSchema)}`];
      if (h.contextSlot !== null) {
        parts.push(`ContextSlot: ${slotConst(h.contextSlot)}`);
        parts.push(`ContextPlacements: []PlacementClass{${h.contextPlacements.map((p) => enumConst(model, "PlacementClass", p)).join(", ")}}`);
      }
      parts.push(`Block: ${blockConst(h.block)}`, `BlockApplies: ${String(h.blockApplies)}`);
      return {
        constName: eventConst(h.hookEvent),
        literal: goString(h.hookEvent),
        docLines: wrap(`${eventConst(h.hookEvent)} is the ${a.harness} hook event ${h.hookEvent} (output schema schemas/hooks/${h.outputSchema}.schema.json); lifecycle events: ${eventsOf(h.hookEvent).join(", ")}.`),
        infoLiteral: `{${parts.join(", ")}}`,
      };
    });
    const limit = a.contextLimit;
    const head = [
      `Adapter: ${constName}`,
      `Harness: ${goString(a.harness)}`,
      `AdapterIDs: []string{${a.adapterIds.map(goString).join(", ")}}`,
      `ContextLimit: ${limit === null ? "nil" : `&HookContextLimit{Length: ${limit.length}, Unit: ${goString(limit.unit)}, OnExceed: ${goString(limit.onExceed)}, Fact: ${goString(limit.fact)}}`}`,
    ];
    return {
      constName,
      literal: goString(a.adapter),
      harness: a.harness,
      docLines: wrap(`${constName} is the adapter of ${a.harness} (adapter ids ${a.adapterIds.map(goString).join(", ")}).`),
      idCases: a.adapterIds.map(goString).join(", "),
      infoHead: head.join(", "),
      hookEvents,
      eventCases: a.hookEvents.map((h) => ({
        events: eventsOf(h.hookEvent).map((e) => enumConst(model, "LifecycleEventKind", e)).join(", "),
        hookEventConst: eventConst(h.hookEvent),
      })),
    };
  });
  const blockEffects = facts.blockEffects.map((b) => ({
    constName: blockConst(b.block),
    literal: goString(b.block),
    docLines: wrap(`${blockConst(b.block)}: a block directive renders ${b.renders}. ${b.meaning}`, 92),
  }));
  const contextSlots = facts.contextSlots.map((slot) => ({ constName: slotConst(slot), literal: goString(slot) }));
  const example = hookExample(facts);
  const exampleAdapter = adapters[facts.adapters.indexOf(example.adapter)];
  const exampleEvent = exampleAdapter?.hookEvents.find((h) => h.literal === goString(example.hookEvent.hookEvent));
  if (!exampleAdapter || !exampleEvent) throw new Error("go target: the hook example names no generated constant");
  return {
    example: {
      adapterIdLiteral: goString(example.adapterId),
      eventConst: enumConst(model, "LifecycleEventKind", example.event),
      hookEventConst: exampleEvent.constName,
      hookEventLiteral: exampleEvent.literal,
    },
    adapters,
    adapterList: adapters.map((a) => a.constName).join(", "),
    blockEffects,
    blockEffectList: blockEffects.map((b) => b.constName).join(", "),
    contextSlots,
    contextSlotList: contextSlots.map((c) => c.constName).join(", "),
  };
}
