/**
 * A first-in first-out queue whose dequeue costs O(1) however long it is. `Array.prototype.shift`
 * moves every element of a long array (measured on Node 20: shifting half of a 50,000-entry array
 * took 2 s), so a stream connection's queues, which may hold tens of thousands of frames, keep a
 * head index instead and compact the array once most of it has been taken.
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  /** Entries waiting (from the head on). */
  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The head entry, or undefined when empty; it stays queued. */
  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  /** Take the head entry (undefined when empty). */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.items[this.head] = undefined as T; // nothing holds a taken entry
    this.head++;
    if (this.head === this.items.length) this.clear();
    else if (this.head >= 4096 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Take every entry, in order. */
  drain(): T[] {
    const all = this.items.slice(this.head);
    this.clear();
    return all;
  }

  /** Keep only the entries `keep` accepts, in order (one pass). */
  retain(keep: (item: T) => boolean): void {
    this.items = this.items.slice(this.head).filter(keep);
    this.head = 0;
  }

  /** Whether every waiting entry satisfies `test` (true when empty). */
  every(test: (item: T) => boolean): boolean {
    for (let i = this.head; i < this.items.length; i++) if (!test(this.items[i] as T)) return false;
    return true;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
