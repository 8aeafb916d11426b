/**
 * The host's serializer (runtime/wire/serialize.ts) writes exactly the bytes `JSON.stringify`
 * writes for every value JSON represents faithfully, and its copy is exactly what `JSON.parse`
 * reads back from them: strings of every UTF-16 code unit (the plain-ASCII shortcut, escapes,
 * control characters, non-ASCII, surrogate pairs; a lone surrogate is `json.lone-surrogate`),
 * boxed primitives and `toJSON` results (also a boxed one), and any JSON document.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isPlainJsonString,
  PLAIN_LOOP_MAX,
  snapshotText,
  snapshotValue,
  snapshotValueSoon,
  type SnapshotLimits,
} from "../../runtime/wire/serialize.js";
import { parseStrictJson } from "../../runtime/wire/json/parse.js";

const LIMITS: SnapshotLimits = { maxBytes: 1 << 20, maxDepth: 64, maxValues: 100_000 };

/** One UTF-16 code unit, biased towards the characters JSON escapes or the shortcut must refuse. */
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('"', "\\", "\n", "\u0000", "\u001f", "\u007f", "\u0080", "\u2028", "\ud83d", "\ude00", "a", " "),
);
const anyString = fc.array(unit, { maxLength: 24 }).map((units) => units.join(""));

const isWellFormed = (s: string): boolean =>
  (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed.call(s);

describe("snapshotText's escaped flag", () => {
  /** `escaped` is exactly whether the JSON written holds a backslash (readers skip searching it: runtime/wire/fast-parse.ts acceptsSerialized). */
  const check = (value: unknown): void => {
    const snap = snapshotText(value, LIMITS);
    if (!snap.ok) return;
    const json = snap.text ?? snap.bytes.toString("utf8");
    expect(snap.escaped, json).toBe(json.includes("\\"));
  };

  it("is exactly whether the text has a backslash, for strings and member names of any code units, in any document", () => {
    fc.assert(
      fc.property(anyString, anyString, (k, v) => {
        for (const value of [v, { [k]: v }, { [k]: 1 }, { a: v, [k]: [v, { [v]: k }] }, [k, v]]) check(value);
      }),
      { numRuns: 2000 },
    );
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 5 }), check), { numRuns: 500 });
    for (const value of [
      "",
      "plain",
      'a"b',
      "a\\b",
      "\u0000",
      "é",
      "😀",
      { 'k"': 1 },
      { "é": "é" },
      { "\n": null },
      [1, true, null],
    ])
      check(value);
  });
});

describe("snapshotValue writes what JSON.stringify writes", () => {
  it("every string (and member name): same bytes, or json.lone-surrogate", () => {
    fc.assert(
      fc.property(anyString, (s) => {
        for (const value of [s, { [s]: s }, [s, s]]) {
          const snap = snapshotValue(value, LIMITS);
          if (!isWellFormed(s)) {
            expect(snap.ok === false && snap.problem === "invalid" && snap.issue.rule).toBe("json.lone-surrogate");
            continue;
          }
          expect(snap.ok).toBe(true);
          if (!snap.ok) return;
          expect(snap.bytes.equals(Buffer.from(JSON.stringify(value), "utf8"))).toBe(true);
          expect(snap.value).toEqual(JSON.parse(JSON.stringify(value)));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("the plain-string shortcut (a loop up to PLAIN_LOOP_MAX characters, a regex above) holds for exactly the strings JSON.stringify writes unchanged in quotes as ASCII, for every code unit and on both sides of the bound", () => {
    const plainByStringify = (s: string): boolean =>
      JSON.stringify(s) === `"${s}"` && Buffer.byteLength(s, "utf8") === s.length;
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      for (const length of [1, 3, PLAIN_LOOP_MAX, PLAIN_LOOP_MAX + 1]) {
        // The unit first, in the middle and last, so every position of the loop is reached.
        for (const s of [
          ch + "a".repeat(length - 1),
          "a".repeat(length - 1) + ch,
          "a".repeat(length >> 1) + ch + "a".repeat(length - 1 - (length >> 1)),
        ].map((t) => t.slice(0, length))) {
          if (isPlainJsonString(s) !== plainByStringify(s))
            expect.fail(
              `code unit 0x${c.toString(16)} in a ${length}-character string: shortcut ${isPlainJsonString(s)}`,
            );
        }
      }
    }
    // And the serializer's bytes for such strings are JSON.stringify's.
    for (const s of [
      "a".repeat(PLAIN_LOOP_MAX - 1) + '"',
      "a".repeat(PLAIN_LOOP_MAX) + "\\",
      `${"a".repeat(PLAIN_LOOP_MAX - 1)}\u007f`,
      "\u0080",
      "\u001f",
    ]) {
      const snap = snapshotValue({ [s]: s }, LIMITS);
      expect(snap.ok && snap.bytes.toString("utf8")).toBe(JSON.stringify({ [s]: s }));
    }
  });

  it("any JSON document: same bytes, and the copy is what the bytes say", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const snap = snapshotValue(value, LIMITS);
        expect(snap.ok).toBe(true);
        if (!snap.ok) return;
        expect(snap.bytes.toString("utf8")).toBe(JSON.stringify(value));
        expect(snap.value).toEqual(JSON.parse(snap.bytes.toString("utf8")));
      }),
      { numRuns: 500 },
    );
  });

  it("documents longer than one output piece (64 Ki characters), ASCII and not: the same bytes, in sync and sliced runs", async () => {
    const mixed = fc.sample(
      fc.array(fc.oneof(anyString.filter(isWellFormed), fc.integer(), fc.constant(null)), {
        minLength: 40_000,
        maxLength: 40_000,
      }),
      { numRuns: 1, seed: 8 },
    )[0] as unknown[];
    const values: unknown[] = [
      Array.from({ length: 50_000 }, (_, i) => i),
      { a: "é".repeat(70_000), b: Array.from({ length: 30_000 }, (_, i) => `\u2028${i}😀`) },
      mixed,
    ];
    for (const value of values) {
      const expected = Buffer.from(JSON.stringify(value), "utf8");
      for (const snap of [snapshotValue(value, LIMITS), await snapshotValueSoon(value, LIMITS, { sliceMs: 1 })]) {
        expect(snap.ok).toBe(true);
        if (!snap.ok) return;
        expect(snap.bytes.length).toBe(expected.length);
        expect(snap.bytes.equals(expected)).toBe(true);
      }
    }
  });

  it("boxed primitives and toJSON results (a boxed one too) are written as JSON.stringify writes them", () => {
    const value = {
      n: Object(5) as unknown,
      s: Object('a"b') as unknown,
      b: Object(false) as unknown,
      date: new Date(0),
      custom: { toJSON: (key: string) => `key:${key}` },
      boxed: { toJSON: () => Object("plain") as unknown },
      list: [Object(1) as unknown, { toJSON: () => null }],
    };
    const snap = snapshotValue(value, LIMITS);
    expect(snap.ok).toBe(true);
    if (!snap.ok) return;
    expect(snap.bytes.toString("utf8")).toBe(JSON.stringify(value));
    expect(snap.value).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it("boxed primitives with overridden conversions are written as JSON.stringify writes them", () => {
    const value = {
      s: Object.assign(Object("a"), { toString: () => "b" }) as unknown,
      n: Object.assign(Object(5), { valueOf: () => 6, toString: () => "7" }) as unknown,
      p: Object.assign(Object("a"), { [Symbol.toPrimitive]: () => "c" }) as unknown,
      b: Object.assign(Object(false), { valueOf: () => "z" }) as unknown,
    };
    const snap = snapshotValue(value, LIMITS);
    expect(snap.ok && snap.bytes.toString("utf8")).toBe(JSON.stringify(value));
    // ToNumber gives NaN: JSON.stringify writes null, the serializer refuses it as it refuses NaN
    const nan = snapshotValue([Object.assign(Object(5), { valueOf: () => "x" })], LIMITS);
    expect(nan.ok === false && nan.problem).toBe("serialize");
  });

  it("a container inside itself is a cycle at any depth; one reached on two paths is written twice", () => {
    const chain = (levels: number, leaf: unknown): Record<string, unknown> => {
      const root: Record<string, unknown> = {};
      let at = root;
      for (let i = 0; i < levels; i++) at = at.c = {} as Record<string, unknown>;
      at.leaf = leaf;
      return root;
    };
    // Depths on both sides of the serializer's scanned levels (8) and far below them.
    for (const levels of [0, 6, 7, 8, 9, 12, 40]) {
      const shared = { list: [1, 2], below: chain(10, "z") };
      const value = { a: chain(levels, shared), b: chain(levels + 1, shared), c: [shared, chain(levels, [shared])] };
      const snap = snapshotValue(value, LIMITS);
      expect(snap.ok && snap.bytes.toString("utf8"), `levels ${levels}`).toBe(JSON.stringify(value));
      // A reference back to the container at each level of the chain.
      const containers: Record<string, unknown>[] = [chain(levels, null)];
      for (let i = 0; i < levels; i++) containers.push(containers[i]?.c as Record<string, unknown>);
      const deepest = containers[levels] as Record<string, unknown>;
      for (const target of containers) {
        deepest.back = [target];
        const cycle = snapshotValue(containers[0], LIMITS);
        // Found where it closes, the first time round.
        expect(cycle.ok === false && cycle.problem === "serialize" && cycle.detail, `levels ${levels}`).toContain(
          `${JSON.stringify(`${"/c".repeat(levels)}/back/0`)} refers to one of its own containers (a cycle)`,
        );
      }
    }
  });

  it("snapshotValueSoon gives a small value at once and the same outcome as snapshotValue", () => {
    const value = { id: "evt-1", list: [1, "two", null, true] };
    const soon = snapshotValueSoon(value, LIMITS);
    expect(soon).not.toBeInstanceOf(Promise);
    expect(soon).toEqual(snapshotValue(value, LIMITS));
  });
});

describe("the plain-string shortcut on strings of any code units", () => {
  it("snapshotValue writes JSON.stringify's bytes for strings of up to 140 code units (quotes, backslashes, controls, DEL, non-ASCII included) as keys and values; a lone surrogate is refused (json.lone-surrogate)", () => {
    const unit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
    const str = fc.oneof(
      fc.string({ unit, maxLength: 140 }),
      fc.string({
        unit: fc.constantFrom("a", '"', "\\", "\u001f", "\u007f", "\u0080", "\ud800", "\udc00"),
        maxLength: 140,
      }),
      fc.string({ unit: "binary", maxLength: 70 }),
    );
    fc.assert(
      fc.property(str, str, (k, v) => {
        const snap = snapshotValue({ [k]: v, list: [v, k] }, LIMITS);
        // A lone surrogate has no UTF-8 form: refused by rule, whichever side of the bound.
        const wellFormed = (s: string) =>
          !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
        if (!wellFormed(k) || !wellFormed(v)) {
          expect(!snap.ok && snap.problem === "invalid" && snap.issue.rule).toBe("json.lone-surrogate");
          return;
        }
        expect(snap.ok && snap.bytes.toString("utf8")).toBe(JSON.stringify({ [k]: v, list: [v, k] }));
        if (snap.ok)
          expect(snap.bytes.length).toBe(Buffer.byteLength(JSON.stringify({ [k]: v, list: [v, k] }), "utf8"));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("json.max-members: the members of one in-memory object", () => {
  const members = (n: number, at = (i: number) => i as unknown): Record<string, unknown> => {
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) obj[`k${i}`] = at(i);
    return obj;
  };
  const verdict = (snap: { ok: boolean; problem?: string; issue?: { rule: string; pointer: string } }): string =>
    snap.ok ? "ok" : `${snap.problem} ${snap.issue?.rule} ${snap.issue?.pointer}`;

  it("writes an object of exactly maxMembers members and refuses one more at the first member past it, in sync and sliced runs", async () => {
    const limits: SnapshotLimits = { ...LIMITS, maxMembers: 3 };
    expect(verdict(snapshotValue({ a: members(3) }, limits))).toBe("ok");
    expect(verdict(snapshotValue({ a: members(4) }, limits))).toBe("invalid json.max-members /a/k3");
    expect(verdict(await snapshotValueSoon({ a: members(4) }, limits))).toBe("invalid json.max-members /a/k3");
  });

  it("counts the members written: an undefined member is absent and does not count", () => {
    const limits: SnapshotLimits = { ...LIMITS, maxMembers: 3 };
    const snap = snapshotValue(
      members(6, (i) => (i % 2 === 0 ? undefined : i)),
      limits,
    );
    expect(verdict(snap)).toBe("ok");
    if (snap.ok) expect(snap.bytes.toString()).toBe('{"k1":1,"k3":3,"k5":5}');
  });

  it("the member past the limit is judged as its text would be: its name is read first (a lone surrogate in it is json.lone-surrogate, as the strict parser says)", async () => {
    const limits: SnapshotLimits = { ...LIMITS, maxMembers: 3 };
    const value = { a: { ...members(3), "\ud800": 3 } };
    const text = '{"a":{"k0":0,"k1":1,"k2":2,"\\ud800":3}}';
    const parsed = parseStrictJson(Buffer.from(text), limits);
    expect(parsed.ok ? "ok" : `${parsed.issue.rule} ${parsed.issue.pointer}`).toBe("json.lone-surrogate /a");
    expect(verdict(snapshotValue(value, limits))).toBe("invalid json.lone-surrogate /a");
    expect(verdict(await snapshotValueSoon(value, limits))).toBe("invalid json.lone-surrogate /a");
    // A well-formed name past the limit is json.max-members, in both.
    const plain = parseStrictJson(Buffer.from('{"a":{"k0":0,"k1":1,"k2":2,"k3":3}}'), limits);
    expect(plain.ok ? "ok" : `${plain.issue.rule} ${plain.issue.pointer}`).toBe("json.max-members /a/k3");
  });

  it("an in-memory object of 32,769 members (limits.max_object_members + 1) is refused, one of 32,768 written", async () => {
    const limits: SnapshotLimits = { maxBytes: 16 << 20, maxDepth: 64, maxValues: 131072, maxMembers: 32768 };
    expect(verdict(await snapshotValueSoon({ metadata: members(32769) }, limits))).toBe(
      "invalid json.max-members /metadata/k32768",
    );
    expect(verdict(await snapshotValueSoon({ metadata: members(32768) }, limits))).toBe("ok");
  });
});
