/**
 * Target: `generated/vectors/`, the shared test vectors every binding (TypeScript, Go, Python) runs
 * through its validator to prove it judges wire documents exactly like this one.
 *
 * One file per case, `generated/vectors/<type-kebab>/<valid|invalid>-<slug>.json`:
 *
 *   { "$comment": <banner>, "id": "<type-kebab>/<file stem>", "type": "<TypeName>",
 *     "expect": "valid" | "invalid", "rule": <rule id> | null, "pointer": <JSON pointer> | null,
 *     "description": "...", "document_base64": "<the exact document bytes, base64>" }
 *
 * plus `generated/vectors/index.json` listing every case (without the document). An invalid case holds
 * exactly one violation, so `rule` (the primary issue's rule id) and `pointer` are unambiguous;
 * `rule`/`pointer` are null for valid cases (and `pointer` for a corpus fixture that names none).
 *
 * Sources:
 * - every case of the conformance corpus (corpus.ts, whose files are generated/conformance/<fixture_kind>/*.json),
 *   taken from the corpus builder in memory: `data` encoded with JSON.stringify, byte cases byte-exact;
 * - boundary cases derived from the model (codegen/model/samples.ts), one representative occurrence
 *   per field: every enum value in place and a near-miss, each string at maxLength and maxLength+1
 *   (code points; the last one astral), each integer at 0, maximum and maximum+1, each array at
 *   maxItems and maxItems+1. A derived case whose bytes equal a corpus fixture's is dropped.
 * - the document limits of spec/tables/limits.json: limits.max_values (a CallbackResponse at the
 *   limit and one value over) and limits.max_object_members (a DispatchEnvelope and a
 *   CallbackResponse whose open map has as many members as the limit allows, and one more).
 * Expectations are derived by construction, never by running a validator.
 */
import { BANNER, stableJson, type OutputFile } from "../../emit/output.js";
import { ModelError } from "../../model/errors.js";
import type { Field, Model } from "../../model/model.js";
import {
  concretePointer,
  editDocument,
  enumNameOf,
  enumValuesOf,
  representativeOccurrences,
  sampleValue,
  slug,
  stringOfCodePoints,
  baseObject,
  type JsonObject,
  type JsonValue,
} from "../../model/samples.js";

import { buildCorpusCases } from "./corpus.js";

/** Strings longer than this many code points get no derived maxLength case (it would not fit a document). */
const MAX_DERIVED_STRING = 65536;

/** One shared vector before rendering. */
export interface Vector {
  /** `<type-kebab>/<valid|invalid>-<slug>` */
  readonly id: string;
  readonly type: string;
  readonly expect: "valid" | "invalid";
  readonly rule: string | null;
  readonly pointer: string | null;
  readonly description: string;
  readonly bytes: Uint8Array;
  /** Where the case comes from (named in the file's `$comment`). */
  readonly source: string;
}

function encode(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

/** The conformance corpus (corpus.ts, built in memory, never read back from generated/conformance/) as vectors. */
export function corpusVectors(model: Model): Vector[] {
  const out: Vector[] = [];
  for (const root of model.roots) {
    for (const c of buildCorpusCases(model).filter((x) => x.fixtureKind === root.fixtureKind)) {
      out.push({
        id: `${root.cliName}/${c.stem}`,
        type: root.typeName,
        expect: c.expect,
        rule: c.expect === "invalid" ? (c.rule ?? null) : null,
        pointer: c.expect === "invalid" ? (c.pointer ?? null) : null,
        description: c.description,
        bytes: c.bytes ?? encode(c.data),
        source: c.path,
      });
    }
  }
  return out;
}

/** Field value kinds that get derived boundary cases. */
interface BoundaryCase {
  /** File-name part, e.g. `max-length-plus-1`. */
  readonly slug: string;
  readonly label: string;
  readonly value: JsonValue;
  /** Set for a case that breaks the schema: its rule and the pointer suffix below the field. */
  readonly fail?: { readonly rule: string; readonly suffix: string };
}

function boundaryCases(model: Model, field: Field): BoundaryCase[] {
  const shape = field.shape;
  const cases: BoundaryCase[] = [];
  const inArray = shape.kind === "array";
  const scalar = shape.kind === "array" ? shape.items : shape;
  const wrap = (v: JsonValue): JsonValue => (inArray ? [v] : v);
  const itemSuffix = inArray ? "/0" : "";
  if (scalar.kind === "string" && scalar.maxLength <= MAX_DERIVED_STRING) {
    cases.push({
      slug: "max-length",
      label: `max-length ${scalar.maxLength} code points (the last one astral)`,
      value: wrap(stringOfCodePoints(scalar.maxLength)),
    });
    cases.push({
      slug: "max-length-plus-1",
      label: `max-length+1 ${scalar.maxLength + 1} code points`,
      value: wrap(stringOfCodePoints(scalar.maxLength + 1)),
      fail: { rule: "schema.max-length", suffix: itemSuffix },
    });
  }
  if (scalar.kind === "integer") {
    cases.push({ slug: "zero", label: "0", value: wrap(scalar.minimum) });
    cases.push({ slug: "maximum", label: `maximum ${scalar.maximum}`, value: wrap(scalar.maximum) });
    cases.push({
      slug: "maximum-plus-1",
      label: `maximum+1 ${scalar.maximum + 1}`,
      value: wrap(scalar.maximum + 1),
      fail: { rule: "schema.maximum", suffix: itemSuffix },
    });
  }
  const enumName = enumNameOf(shape);
  if (enumName !== null) {
    const values = enumValuesOf(model, enumName);
    for (const v of values) cases.push({ slug: `enum-${slug(v)}`, label: `enum value ${v}`, value: wrap(v) });
    const first = values[0] as string;
    cases.push({
      slug: "enum-near-miss",
      label: `near-miss ${first.toUpperCase()} (wrong case)`,
      value: wrap(first.toUpperCase()),
      fail: { rule: "schema.enum", suffix: itemSuffix },
    });
  }
  if (shape.kind === "array") {
    const item = sampleValue(model, shape.items, field.name);
    cases.push({
      slug: "max-items",
      label: `max-items ${shape.maxItems}`,
      value: Array.from({ length: shape.maxItems }, () => item),
    });
    cases.push({
      slug: "max-items-plus-1",
      label: `max-items+1 ${shape.maxItems + 1}`,
      value: Array.from({ length: shape.maxItems + 1 }, () => item),
      fail: { rule: "schema.max-items", suffix: "" },
    });
  }
  return cases;
}

/** Boundary cases derived from the model: one representative occurrence per (type, field). */
export function derivedVectors(model: Model): Vector[] {
  const out: Vector[] = [];
  const versionFields = new Set(
    [...model.rulePlans.values()]
      .flat()
      .filter((s) => s.check === "equals_wire_version" && s.at === "")
      .map((s) => s.field),
  );
  const reps = representativeOccurrences(model);
  for (const type of model.types) {
    const rep = reps.get(type.name);
    if (!rep) continue;
    const root = model.roots.find((r) => r.typeName === rep.rootType);
    if (!root) continue;
    const base = baseObject(model, rep.rootType);
    const at = concretePointer(rep.occurrence.pattern);
    for (const field of type.fields) {
      if (versionFields.has(field.name) && field.shape.kind === "string") continue;
      const fieldPointer = `${at}/${field.name}`;
      for (const c of boundaryCases(model, field)) {
        const edited = editDocument(
          model,
          rep.rootType,
          base,
          rep.occurrence.pattern,
          [field.name],
          (obj: JsonObject) => {
            obj[field.name] = c.value;
          },
        );
        let expect: "valid" | "invalid" = "valid";
        let rule: string | null = null;
        let pointer: string | null = null;
        if (c.fail) {
          expect = "invalid";
          rule = c.fail.rule;
          pointer = `${fieldPointer}${c.fail.suffix}`;
        } else if (edited.conflicts.length === 1) {
          const conflict = edited.conflicts[0] as (typeof edited.conflicts)[number];
          expect = "invalid";
          rule = conflict.step.rule;
          pointer = conflict.pointer;
        } else if (edited.conflicts.length > 1) {
          continue;
        }
        if (c.fail && edited.conflicts.length > 0) continue;
        const where =
          rep.occurrence.pattern === ""
            ? `${type.name}.${field.name}`
            : `${type.name}.${field.name} (at ${fieldPointer} of a ${rep.rootType})`;
        out.push({
          id: `${root.cliName}/${expect}-bound-${slug(fieldPointer)}-${c.slug}`,
          type: rep.rootType,
          expect,
          rule,
          pointer,
          description: `${where}: ${c.label}${rule ? ` -> ${rule}` : ""}`,
          bytes: encode(edited.doc),
          source: "schemas/ (derived boundary case)",
        });
      }
    }
  }
  return out;
}

/** Number of JSON values in a value (every scalar and container, the root included). */
function valueCount(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.reduce((n: number, v) => n + valueCount(v), 0);
  if (value !== null && typeof value === "object")
    return 1 + Object.values(value).reduce((n: number, v) => n + valueCount(v), 0);
  return 1;
}

/**
 * The limits.max_values boundary (rule json.max-values), for the response side of the exchange: a
 * CallbackResponse whose open map holds an array of zeros, with exactly limits.max_values values
 * (valid) and one more (invalid, at the last zero, the first value past the limit). One pair only:
 * each document is about half a megabyte.
 */
export function limitVectors(model: Model): Vector[] {
  const limit = model.tables.limits.limits.find((l) => l.name === "max_values");
  const root = model.roots.find((r) => r.typeName === "CallbackResponse");
  const type = model.types.find((t) => t.name === "CallbackResponse");
  const open = type?.fields.find((f) => f.shape.kind === "open_object");
  if (!limit || !root || !type || !open) return [];
  // Every nullable member written as null, as the SDK encoders write them: the valid case then
  // survives their decode-encode-decode round trip with the same value count.
  const doc = baseObject(model, "CallbackResponse");
  for (const field of type.fields) if (field.nullable && !(field.name in doc)) doc[field.name] = null;
  delete doc[open.name];
  const zeros = limit.value - valueCount(doc) - 2; // the open map and the array
  const make = (n: number): Uint8Array => encode({ ...doc, [open.name]: { v: new Array(n).fill(0) } });
  const source = "spec/tables/limits.json max_values (derived boundary case)";
  return [
    {
      id: `${root.cliName}/valid-json-max-values-at-limit`,
      type: "CallbackResponse",
      expect: "valid",
      rule: null,
      pointer: null,
      description: `exactly limits.max_values (${limit.value}) JSON values`,
      bytes: make(zeros),
      source,
    },
    {
      id: `${root.cliName}/invalid-json-max-values-plus-1`,
      type: "CallbackResponse",
      expect: "invalid",
      rule: "json.max-values",
      pointer: `/${open.name}/v/${zeros}`,
      description: `limits.max_values + 1 JSON values -> json.max-values at the first value past the limit`,
      bytes: make(zeros + 1),
      source,
    },
  ];
}

/**
 * The path of field names from `typeName` to its first open map (`metadata`), through required
 * object members only, or null when there is none.
 */
function openMapPath(model: Model, typeName: string): string[] | null {
  const type = model.types.find((t) => t.name === typeName);
  if (!type) return null;
  const open = type.fields.find((f) => f.shape.kind === "open_object");
  if (open) return [open.name];
  for (const field of type.fields) {
    if (field.shape.kind !== "object" || field.presence !== "required") continue;
    const below = openMapPath(model, field.shape.typeName);
    if (below) return [field.name, ...below];
  }
  return null;
}

/**
 * The limits.max_object_members boundary (rule json.max-members), on both sides of the exchange: a
 * DispatchEnvelope (the request's open map) and a CallbackResponse (its open map) whose open map
 * holds exactly limits.max_object_members members `k0`, `k1`, ... of value 0 (valid) and one more
 * (invalid, at the first member past the limit). About 300 KB each.
 */
export function memberLimitVectors(model: Model): Vector[] {
  const limit = model.tables.limits.limits.find((l) => l.name === "max_object_members");
  if (!limit) return [];
  const out: Vector[] = [];
  const source = "spec/tables/limits.json max_object_members (derived boundary case)";
  for (const typeName of ["DispatchEnvelope", "CallbackResponse"]) {
    const root = model.roots.find((r) => r.typeName === typeName);
    const path = openMapPath(model, typeName);
    if (!root || !path) continue;
    const make = (n: number): Uint8Array => {
      const doc = baseObject(model, typeName);
      let holder: JsonObject = doc;
      for (const name of path.slice(0, -1)) holder = holder[name] as JsonObject;
      const members: JsonObject = {};
      for (let i = 0; i < n; i++) members[`k${i}`] = 0;
      holder[path[path.length - 1] as string] = members;
      return encode(doc);
    };
    const at = `/${path.join("/")}`;
    out.push(
      {
        id: `${root.cliName}/valid-json-max-members-at-limit`,
        type: typeName,
        expect: "valid",
        rule: null,
        pointer: null,
        description: `${at} with exactly limits.max_object_members (${limit.value}) members`,
        bytes: make(limit.value),
        source,
      },
      {
        id: `${root.cliName}/invalid-json-max-members-plus-1`,
        type: typeName,
        expect: "invalid",
        rule: "json.max-members",
        pointer: `${at}/k${limit.value}`,
        description: `${at} with limits.max_object_members + 1 members -> json.max-members at the first member past the limit`,
        bytes: make(limit.value + 1),
        source,
      },
    );
  }
  return out;
}

/** Every vector: corpus fixtures first, then derived cases not already in the corpus. Throws on duplicate ids. */
export function allVectors(model: Model): Vector[] {
  const corpus = corpusVectors(model);
  const seen = new Set(corpus.map((v) => `${v.type}\u0000${Buffer.from(v.bytes).toString("base64")}`));
  const derived = derivedVectors(model).filter(
    (v) => !seen.has(`${v.type}\u0000${Buffer.from(v.bytes).toString("base64")}`),
  );
  const all = [...corpus, ...derived, ...limitVectors(model), ...memberLimitVectors(model)];
  const ids = new Set<string>();
  for (const v of all) {
    if (ids.has(v.id)) throw new ModelError(v.source, "", `two vectors have the id ${v.id}`);
    ids.add(v.id);
  }
  return all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Generate generated/vectors/. */
export async function generateVectors(model: Model): Promise<OutputFile[]> {
  const vectors = allVectors(model);
  const files: OutputFile[] = vectors.map((v) => ({
    path: `generated/vectors/${v.id}.json`,
    content: stableJson(
      {
        id: v.id,
        type: v.type,
        expect: v.expect,
        rule: v.rule,
        pointer: v.pointer,
        description: v.description,
        document_base64: Buffer.from(v.bytes).toString("base64"),
      },
      `${BANNER} Source: ${v.source}.`,
    ),
  }));
  files.push({
    path: "generated/vectors/index.json",
    content: stableJson(
      {
        wire_version: model.wireVersion.current,
        format:
          "one file per case at generated/vectors/<id>.json: {id, type, expect, rule, pointer, description, document_base64}",
        vectors: vectors.map((v) => ({
          id: v.id,
          path: `${v.id}.json`,
          type: v.type,
          expect: v.expect,
          rule: v.rule,
          pointer: v.pointer,
        })),
      },
      BANNER,
    ),
  });
  return files;
}
