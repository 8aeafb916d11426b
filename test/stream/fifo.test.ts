/**
 * The stream connection's O(1) queue (runtime/stream/fifo.ts): entries come out in the order they
 * went in across its compaction (past 4,096 taken), and peek, drain, retain and every see exactly
 * the waiting entries.
 */
import { describe, expect, it } from "vitest";
import { Fifo } from "../../runtime/stream/fifo.js";

describe("Fifo", () => {
  it("keeps first-in first-out order through compaction, interleaving pushes and shifts", () => {
    const q = new Fifo<number>();
    const out: number[] = [];
    let next = 0;
    // Push three for every two taken, so the head passes the compaction point many times with entries behind it.
    for (let round = 0; round < 10_000; round++) {
      q.push(next++);
      q.push(next++);
      q.push(next++);
      out.push(q.shift() as number, q.shift() as number);
    }
    expect(q.length).toBe(next - out.length);
    expect(q.peek()).toBe(out.length);
    out.push(...q.drain());
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
    expect(q.length).toBe(0);
    expect(q.shift()).toBeUndefined();
    expect(q.peek()).toBeUndefined();
  });

  it("retains, tests and drains only the waiting entries", () => {
    const q = new Fifo<number>();
    for (let i = 0; i < 10; i++) q.push(i);
    q.shift();
    q.shift();
    expect(q.every((n) => n >= 2)).toBe(true);
    q.retain((n) => n % 2 === 0);
    expect(q.length).toBe(4);
    expect(q.every((n) => n % 2 === 0)).toBe(true);
    q.push(11);
    expect(q.every((n) => n % 2 === 0)).toBe(false);
    expect(q.drain()).toEqual([2, 4, 6, 8, 11]);
    expect(new Fifo<number>().every(() => false)).toBe(true);
  });
});
