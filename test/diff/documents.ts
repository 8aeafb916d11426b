/**
 * Schema-directed generation of JSON documents for the diff's soundness property: documents that
 * are mostly valid under one of two schemas and that sit on the boundaries where the two differ.
 *
 * A {@link Pool} is harvested from both schemas (every bound, enum value, const, property name and
 * string literal, plus the wire versions of both trees), so generated values hit `max ± 1`, both
 * enums, names only one side declares, and so on. Each node is replaced by a "wild" value from the
 * pool with probability `wildRate`, so near-misses appear too. Randomness comes from a seeded
 * 32-bit generator (test/support/prng.ts): one fast-check integer seeds one document.
 */

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A seeded uniform generator of [0, 1) (test/support/prng.ts mulberry32). */
export type Random = () => number;

export { mulberry32 } from "../support/prng.js";

/** Values harvested from the compared schemas. */
export interface Pool {
  readonly numbers: number[];
  readonly strings: string[];
  readonly names: string[];
  readonly values: unknown[];
}

const NUMBER_KEYWORDS = [
  "maxLength",
  "minLength",
  "maximum",
  "minimum",
  "maxItems",
  "minItems",
  "exclusiveMaximum",
  "exclusiveMinimum",
  "multipleOf",
  "maxProperties",
  "minProperties",
  "maxContains",
  "minContains",
];

/** Harvest a pool from schemas (any number of them) and extra string literals. */
export function harvest(schemas: readonly unknown[], extraStrings: readonly string[] = []): Pool {
  const numbers = new Set<number>([0, 1, 2, 3, -1]);
  const strings = new Set<string>(["", "a", "abc", "x-1", ...extraStrings]);
  const names = new Set<string>(["extra", "x-extra"]);
  const values: unknown[] = [null, true, false, 0, -1, 1.5, "", "abc", [], {}];
  const walk = (s: unknown, depth: number): void => {
    if (depth > 40) return;
    if (Array.isArray(s)) {
      for (const x of s) walk(x, depth + 1);
      return;
    }
    if (!isObject(s)) return;
    for (const kw of NUMBER_KEYWORDS) {
      const n = s[kw];
      if (typeof n === "number" && Number.isFinite(n)) for (const d of [-1, 0, 1]) numbers.add(n + d);
    }
    if (Array.isArray(s.enum)) {
      for (const v of s.enum) {
        values.push(v);
        if (typeof v === "string") strings.add(v);
      }
    }
    if ("const" in s) {
      values.push(s.const);
      if (typeof s.const === "string") strings.add(s.const);
    }
    for (const k of ["properties", "patternProperties", "dependentRequired", "dependentSchemas"])
      if (isObject(s[k]))
        for (const name of Object.keys(s[k] as Obj))
          names.add(k === "patternProperties" ? `${name.replace(/[\^$\\.*+?()[\]{}|]/g, "")}z` : name);
    if (Array.isArray(s.required)) for (const name of s.required) names.add(String(name));
    for (const v of Object.values(s)) walk(v, depth + 1);
  };
  for (const s of schemas) walk(s, 0);
  return { numbers: [...numbers], strings: [...strings], names: [...names], values };
}

/** Resolves `$ref`s of the schemas a document is generated from (returns undefined when unknown). */
export type RefResolver = (ref: string, base: string) => { schema: unknown; base: string } | undefined;

/** Options of one document. */
export interface GenerateOptions {
  readonly pool: Pool;
  readonly random: Random;
  readonly wildRate: number;
  readonly resolve: RefResolver;
  /** Largest array length and object depth generated. */
  readonly maxDepth?: number;
  /** Values preferred (90%) for members of these names, e.g. the wire versions for `schema_version`. */
  readonly hints?: ReadonlyMap<string, readonly unknown[]>;
}

const CHARS = "abcdxyz-_0.A";
/** Longest string generated (characters): above every bound but the 16 MiB body limit. */
const MAX_STRING = 8192;

/** Generate one document from `schema` (whose base URI is `base`). */
export function generateDocument(schema: unknown, base: string, options: GenerateOptions): unknown {
  const { pool, random, wildRate, resolve } = options;
  const maxDepth = options.maxDepth ?? 8;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const chance = (p: number): boolean => random() < p;
  const wild = (): unknown => (chance(0.5) ? pick(pool.values) : chance(0.5) ? pick(pool.strings) : pick(pool.numbers));

  const gen = (s: unknown, b: string, depth: number): unknown => {
    if (chance(wildRate) || depth > maxDepth) return wild();
    if (s === true || s === undefined) return wild();
    if (s === false) return wild();
    if (!isObject(s)) return wild();
    if (typeof s.$ref === "string") {
      const target = resolve(s.$ref, b);
      if (target && (Object.keys(s).length === 1 || chance(0.7))) return gen(target.schema, target.base, depth + 1);
    }
    // With wildRate 0 the document follows the schema's shape; noise grows with wildRate.
    const follow = 1 - wildRate;
    if ("const" in s && chance(follow)) return s.const;
    if (Array.isArray(s.enum) && chance(follow)) return pick(s.enum);
    for (const kw of ["anyOf", "oneOf"]) {
      if (Array.isArray(s[kw]) && chance(follow)) {
        const branch = pick(s[kw] as unknown[]);
        const merged = isObject(branch) ? { ...withoutKeys(s, [kw]), ...branch } : branch;
        return gen(merged, b, depth + 1);
      }
    }
    if (Array.isArray(s.allOf)) {
      let merged: Obj = withoutKeys(s, ["allOf"]);
      for (const branch of s.allOf) {
        if (!isObject(branch)) continue;
        merged = {
          ...branch,
          ...merged,
          properties: {
            ...(isObject(branch.properties) ? branch.properties : {}),
            ...(isObject(merged.properties) ? merged.properties : {}),
          },
        };
      }
      return gen(merged, b, depth + 1);
    }
    const types =
      s.type === undefined
        ? ["string", "integer", "object", "array", "null", "boolean", "number"]
        : Array.isArray(s.type)
          ? (s.type as string[])
          : [s.type as string];
    const type = pick(types);
    switch (type) {
      case "null":
        return null;
      case "boolean":
        return chance(0.5);
      case "integer":
      case "number": {
        const lo = typeof s.minimum === "number" ? s.minimum : -3;
        const hi = typeof s.maximum === "number" ? s.maximum : 100;
        let n = chance(0.6) ? pick(pool.numbers) : Math.floor(lo + random() * (Math.min(hi, lo + 1000) - lo + 1));
        if (typeof s.multipleOf === "number" && chance(0.6)) n = s.multipleOf * Math.floor(random() * 8);
        return type === "number" && chance(0.3) ? n + 0.5 : n;
      }
      case "string": {
        if (chance(0.3)) return pick(pool.strings);
        const max = typeof s.maxLength === "number" ? s.maxLength : 12;
        const lengths = pool.numbers.filter((n) => n >= 0 && n <= Math.min(max + 1, MAX_STRING));
        const length = lengths.length > 0 && chance(0.7) ? pick(lengths) : Math.floor(random() * Math.min(max + 2, 24));
        let out = "";
        for (let i = 0; i < Math.min(length, 8); i++) out += CHARS[Math.floor(random() * CHARS.length)];
        // Long strings repeat a random head: their length is what matters at a bound.
        return length <= 8 ? out : out.repeat(Math.ceil(length / 8)).slice(0, length);
      }
      case "array": {
        const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
        const maxItems = typeof s.maxItems === "number" ? s.maxItems : 4;
        const lengths = pool.numbers.filter((n) => n >= 0 && n <= Math.min(maxItems + 1, 6));
        const length =
          depth > maxDepth - 2
            ? 0
            : lengths.length > 0 && chance(0.6)
              ? pick(lengths)
              : Math.floor(random() * Math.min(maxItems + 2, 5));
        const items: unknown[] = [];
        for (let i = 0; i < length; i++) items.push(gen(i < prefix.length ? prefix[i] : s.items, b, depth + 1));
        if (s.uniqueItems === true && chance(0.3) && items.length > 0) items.push(items[0]);
        return items;
      }
      default: {
        const props = isObject(s.properties) ? s.properties : {};
        const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
        const out: Obj = {};
        for (const [name, sub] of Object.entries(props)) {
          if (!(required.has(name) ? chance(1 - wildRate / 2) : chance(0.5))) continue;
          const hint = options.hints?.get(name);
          out[name] = hint && chance(0.9) ? pick(hint) : gen(sub, b, depth + 1);
        }
        if (chance(0.02 + wildRate * 2)) {
          const name = pick(pool.names);
          if (!(name in out)) out[name] = name in props && chance(0.5) ? gen(props[name], b, depth + 1) : wild();
        }
        return out;
      }
    }
  };
  return gen(schema, base, 0);
}

function withoutKeys(s: Obj, keys: readonly string[]): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(s)) if (!keys.includes(k)) out[k] = v;
  return out;
}
