/**
 * Deterministic mutations of valid wire documents for the differential check against the reference.
 *
 * A seeded PRNG (mulberry32) picks 1-3 value-level edits (drop a member, add an unknown member,
 * change a value's type, empty a string, swap an enum value, null a value, nest a value, stretch a
 * string, grow or empty an array, change a number, bury a value under 55-131 levels of nesting) and, sometimes, one byte-level edit that a JSON
 * value cannot express (duplicate a key, rewrite a number lexeme, raw string escapes, BOM, trailing
 * data, truncation, pretty-printing). Same seed, same bases: same mutants, byte for byte.
 */
import type { Model } from "../../codegen/model/model.js";
import { escapeToken as escapePointerToken } from "../../runtime/wire/pointer.js";
import { mulberry32 } from "../support/prng.js";
import { shapeAt } from "../support/reference-differences.js";

export { mulberry32 };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One mutant document. */
export interface Mutant {
  readonly id: string;
  readonly bytes: Uint8Array;
  /** The edits applied, in order (for failure reports). */
  readonly ops: readonly string[];
}

interface Node {
  readonly pointer: string;
  readonly tokens: readonly (string | number)[];
  readonly value: Json;
}

function escapeToken(token: string | number): string {
  return escapePointerToken(String(token));
}

function nodes(value: Json): Node[] {
  const out: Node[] = [];
  const walk = (v: Json, tokens: (string | number)[]): void => {
    out.push({ pointer: tokens.map((t) => `/${escapeToken(t)}`).join(""), tokens, value: v });
    if (Array.isArray(v))
      v.forEach((item, i) => {
        walk(item, [...tokens, i]);
      });
    else if (v !== null && typeof v === "object") for (const [k, item] of Object.entries(v)) walk(item, [...tokens, k]);
  };
  walk(value, []);
  return out;
}

function setAt(root: Json, tokens: readonly (string | number)[], value: Json): Json {
  if (tokens.length === 0) return value;
  let parent = root as Record<string | number, Json>;
  for (const t of tokens.slice(0, -1)) parent = parent[t] as Record<string | number, Json>;
  parent[tokens[tokens.length - 1] as string | number] = value;
  return root;
}

const SENTINEL = "@@mutation-sentinel@@";
const UNKNOWN_NAMES = [
  "unknown",
  "extra_field",
  "Status",
  "eventId",
  "schema_version",
  "metadata",
  "event",
  "payload_id",
  "status",
  "redaction",
  "known_degradations",
  "",
];
const OTHER_TYPES: readonly Json[] = [0, 1, -1, 2.5, "str", "", true, false, null, [], {}, ["a"], { a: 1 }];
const NUMBERS: readonly Json[] = [0, 1, 2, 6, 42, 9007199254740991, 9007199254740992, -1, 1.5, 1e21];
const LEXEMES = [
  "1.0",
  "-0",
  "1e2",
  "1E0",
  "0.5e1",
  "9007199254740992",
  "9007199254740993",
  "18446744073709551615",
  "18446744073709551616",
  "1e400",
  "-1",
  "00",
  "1.",
  ".5",
  "0x1",
  "Infinity",
];
const RAW_STRINGS = [
  '"\\ud800"',
  '"\\udc00x"',
  '"\\u0000"',
  '"a\\"b"',
  '"\\ud83d\\ude00"',
  '"\\/"',
  '"\\u00e9"',
  '"\\x"',
  '"\t"',
  '"caf\\u00e9"',
];
const LENGTHS = [512, 513, 4096, 4097, 65536, 65537];

/**
 * `count` distinct mutants of documents of `typeName`, drawn from `bases` (valid documents) with the
 * PRNG seeded by `seed`.
 */
export function mutants(
  model: Model,
  typeName: string,
  kind: string,
  bases: readonly Json[],
  count: number,
  seed: number,
): Mutant[] {
  const rnd = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const enumValues = model.enums.flatMap((e) => e.values);
  const out: Mutant[] = [];
  const seen = new Set<string>();
  for (let attempt = 0; out.length < count && attempt < count * 20; attempt++) {
    let doc = structuredClone(pick(bases));
    const ops: string[] = [];
    const edits = 1 + (rnd() < 0.3 ? 1 : 0) + (rnd() < 0.1 ? 1 : 0);
    for (let e = 0; e < edits; e++) {
      const all = nodes(doc);
      const inner = all.filter((n) => n.tokens.length > 0);
      const objects = all.filter((n) => n.value !== null && typeof n.value === "object" && !Array.isArray(n.value));
      const strings = all.filter((n) => typeof n.value === "string");
      const arrays = all.filter((n) => Array.isArray(n.value));
      const numbers = all.filter((n) => typeof n.value === "number");
      const op = pick([
        "drop",
        "drop",
        "add",
        "type",
        "empty",
        "enum",
        "enum",
        "enum",
        "null",
        "null",
        "nest",
        "deep",
        "long",
        "array",
        "number",
      ] as const);
      switch (op) {
        case "drop": {
          const withKeys = objects.filter((n) => Object.keys(n.value as object).length > 0);
          if (withKeys.length === 0) break;
          const n = pick(withKeys);
          const key = pick(Object.keys(n.value as object));
          delete (n.value as Record<string, Json>)[key];
          ops.push(`drop ${n.pointer}/${escapeToken(key)}`);
          break;
        }
        case "add": {
          const n = pick(objects);
          const key = pick(UNKNOWN_NAMES);
          (n.value as Record<string, Json>)[key] = pick(OTHER_TYPES);
          ops.push(`add ${n.pointer}/${escapeToken(key)}`);
          break;
        }
        case "type":
        case "null":
        case "nest": {
          if (inner.length === 0) break;
          const n = pick(inner);
          const value =
            op === "null" ? null : op === "nest" ? (rnd() < 0.5 ? [n.value] : { value: n.value }) : pick(OTHER_TYPES);
          doc = setAt(doc, n.tokens, structuredClone(value));
          ops.push(`${op} ${n.pointer}`);
          break;
        }
        case "deep": {
          if (inner.length === 0) break;
          const n = pick(inner);
          const levels = rnd() < 0.7 ? 55 + Math.floor(rnd() * 16) : 120 + Math.floor(rnd() * 12);
          let value: Json = structuredClone(n.value);
          for (let l = 0; l < levels; l++) value = rnd() < 0.5 ? [value] : { d: value };
          doc = setAt(doc, n.tokens, value);
          ops.push(`deep ${n.pointer} +${levels}`);
          break;
        }
        case "empty":
        case "long": {
          if (strings.length === 0) break;
          const n = pick(strings);
          const length = pick(LENGTHS);
          const value = op === "empty" ? "" : rnd() < 0.5 ? "a".repeat(length) : "\u{1F600}".repeat(length);
          doc = setAt(doc, n.tokens, value);
          ops.push(`${op} ${n.pointer}${op === "long" ? ` ${length}` : ""}`);
          break;
        }
        case "enum": {
          if (strings.length === 0) break;
          const n = pick(strings);
          const shape = shapeAt(model, typeName, n.pointer);
          const own = shape?.kind === "enum" ? (model.enums.find((x) => x.name === shape.enumName)?.values ?? []) : [];
          const value =
            own.length > 0 && rnd() < 0.7 ? pick(own) : rnd() < 0.8 ? pick(enumValues) : `${n.value as string} `;
          doc = setAt(doc, n.tokens, value);
          ops.push(`enum ${n.pointer}=${value}`);
          break;
        }
        case "array": {
          if (arrays.length === 0) break;
          const n = pick(arrays);
          const items = n.value as Json[];
          if (items.length > 0 && rnd() < 0.6) items.push(structuredClone(pick(items)));
          else items.length = 0;
          ops.push(`array ${n.pointer} -> ${items.length} items`);
          break;
        }
        case "number": {
          if (numbers.length === 0) break;
          const n = pick(numbers);
          const value = pick(NUMBERS);
          doc = setAt(doc, n.tokens, value);
          ops.push(`number ${n.pointer}=${value}`);
          break;
        }
      }
    }
    let text = JSON.stringify(doc);
    let bytes: Uint8Array | undefined;
    if (rnd() < 0.3) {
      const all = nodes(doc);
      const objects = all.filter(
        (n) =>
          n.value !== null && typeof n.value === "object" && !Array.isArray(n.value) && Object.keys(n.value).length > 0,
      );
      const numbers = all.filter((n) => typeof n.value === "number");
      const strings = all.filter((n) => typeof n.value === "string");
      const raw = pick([
        "dup",
        "dup",
        "lexeme",
        "lexeme",
        "escape",
        "escape",
        "bom",
        "trailing",
        "truncate",
        "pretty",
        "utf8",
      ] as const);
      const replaceSentinel = (where: Node, rawText: string): void => {
        const copy = setAt(structuredClone(doc), where.tokens, SENTINEL);
        text = JSON.stringify(copy).replace(JSON.stringify(SENTINEL), () => rawText);
      };
      if (raw === "dup" && objects.length > 0) {
        const n = pick(objects);
        const key = pick(Object.keys(n.value as object));
        const copy = structuredClone(doc);
        let target = copy as Record<string, Json>;
        for (const t of n.tokens)
          target = (target as unknown as Record<string | number, Json>)[t] as Record<string, Json>;
        const original = target[key] as Json;
        target[SENTINEL] = rnd() < 0.5 ? original : pick(OTHER_TYPES);
        text = JSON.stringify(copy).replace(JSON.stringify(SENTINEL), () => JSON.stringify(key));
        ops.push(`dup-key ${n.pointer}/${escapeToken(key)}`);
      } else if (raw === "lexeme" && numbers.length > 0) {
        const n = pick(numbers);
        const lexeme = pick(LEXEMES);
        replaceSentinel(n, lexeme);
        ops.push(`lexeme ${n.pointer}=${lexeme}`);
      } else if (raw === "escape" && strings.length > 0) {
        const n = pick(strings);
        const rawString = pick(RAW_STRINGS);
        replaceSentinel(n, rawString);
        ops.push(`escape ${n.pointer}=${rawString}`);
      } else if (raw === "bom") {
        bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
        ops.push("bom");
      } else if (raw === "trailing") {
        text = `${text}${pick(["\n{}", " x", "\n\n", "]", "\u0000"])}`;
        ops.push("trailing");
      } else if (raw === "truncate") {
        text = text.slice(0, Math.max(0, text.length - 1 - Math.floor(rnd() * 4)));
        ops.push("truncate");
      } else if (raw === "pretty") {
        text = JSON.stringify(doc, null, pick([1, 2, "\t"]));
        ops.push("pretty");
      } else if (raw === "utf8" && strings.length > 0) {
        const n = pick(strings);
        const copy = setAt(structuredClone(doc), n.tokens, SENTINEL);
        const [head, tail] = JSON.stringify(copy).split(SENTINEL) as [string, string];
        const enc = new TextEncoder();
        bytes = new Uint8Array([
          ...enc.encode(head),
          ...pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]),
          ...enc.encode(tail),
        ]);
        ops.push(`utf8 ${n.pointer}`);
      }
    }
    const final = bytes ?? new TextEncoder().encode(text);
    const key = Buffer.from(final).toString("base64");
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ id: `${kind}#${out.length}`, bytes: final, ops });
  }
  return out;
}
