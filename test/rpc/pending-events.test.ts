/**
 * PendingEvents (runtime/rpc/peer.ts) behaves as a Map of the pending events by id:
 * its placeholder under the empty id is never an event, never counted, never listed and never
 * removed, whatever ids come in (a client's reply may carry any id).
 */
import { describe, expect, it } from "vitest";
import { PendingEvents } from "../../runtime/rpc/peer.js";

describe("PendingEvents", () => {
  it("is a Map of the pending events in the order they were sent; the empty id is never one of them", () => {
    const pending = new PendingEvents<{ id: string }>();
    const model = new Map<string, { id: string }>();
    expect(pending.size).toBe(0);
    for (let i = 1; i <= 50; i++) {
      const event = { id: String(i) };
      pending.set(event.id, event);
      model.set(event.id, event);
      // Settle some out of order, as replies and timeouts do.
      if (i % 3 === 0) {
        expect(pending.delete(String(i - 1))).toBe(model.delete(String(i - 1)));
        expect(pending.delete(String(i - 1))).toBe(false);
      }
      for (const probe of ["", String(i), String(i - 1), "0", "unknown"]) {
        expect(pending.get(probe)).toBe(model.get(probe));
        expect(pending.has(probe)).toBe(model.has(probe));
      }
      expect(pending.size).toBe(model.size);
      expect(pending.list()).toEqual([...model.values()]);
    }
    expect(pending.delete("")).toBe(false);
    expect(() => pending.set("", { id: "" })).toThrow(TypeError);
    for (const id of [...model.keys()]) pending.delete(id);
    expect(pending.size).toBe(0);
    expect(pending.list()).toEqual([]);
    expect(pending.get("")).toBeUndefined();
  });
});
