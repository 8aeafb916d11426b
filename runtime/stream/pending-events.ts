/**
 * The events of one stream waiting for their reply, by host id, in the order they were sent
 * (runtime/stream/invoker.ts). A Map that keeps one placeholder entry under the empty id, which
 * is never a host id (host ids are decimal strings, and spec/stream-protocol.md's id rule refuses
 * an empty id string in any frame), so the Map never empties: V8 shrinks a Map's table, with a
 * call into the runtime and a new table, each time its last entry is deleted, which with one
 * event at a time was once per event.
 */
export class PendingEvents<T extends object> {
  private readonly map = new Map<string, T | null>([["", null]]);

  /** How many events are pending (the placeholder is not one). */
  get size(): number {
    return this.map.size - 1;
  }

  /** The pending event of `id`; undefined for an unknown id and for the empty id. */
  get(id: string): T | undefined {
    return id === "" ? undefined : (this.map.get(id) ?? undefined);
  }

  has(id: string): boolean {
    return id !== "" && this.map.has(id);
  }

  /** Add (or replace) the pending event of `id`; `id` is a host id, never empty (a TypeError otherwise: a bug of the caller). */
  set(id: string, event: T): void {
    if (id === "") throw new TypeError("a host id is never empty");
    this.map.set(id, event);
  }

  /** Remove the pending event of `id`; false when there was none. */
  delete(id: string): boolean {
    return id !== "" && this.map.delete(id);
  }

  /** The pending events in the order they were sent (a copy: settling them while iterating is safe). */
  list(): T[] {
    const out: T[] = [];
    for (const event of this.map.values()) if (event !== null) out.push(event);
    return out;
  }
}
