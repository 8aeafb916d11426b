/**
 * Builds our conformance corpus `test/conformance/<fixture_kind>/{valid,invalid}-<slug>.json` from the
 * model (schemas/ + spec/), in the reference's fixture format plus our extensions:
 *
 *   { "kind", "expect": "valid"|"invalid", "expect_rule"?, "expect_pointer"?, "description",
 *     "data" | "data_base64" }
 *
 * - `expect_rule` (our primary rule id) is on every invalid fixture; `expect_pointer` wherever the
 *   pointer is known by construction.
 * - `data_base64` carries documents whose exact bytes matter (BOM, invalid UTF-8, duplicate keys,
 *   number lexemes such as `1.0`, `-0`, `1e2`, 2^53 written out, lone surrogates, trailing data, depth).
 * - Every invalid fixture holds exactly one violation; expectations come from construction
 *   (codegen/model/samples.ts), never from running a validator.
 * - File names: `<expect>-<rule slug>-<detail>` where the rule slug is the rule id with `.` as `-`
 *   (e.g. `invalid-schema-max-length-event-id-plus-1`, `valid-non-empty-identifier-event-id-one-char`),
 *   so coverage per rule is visible from the names (test/conformance/corpus.test.ts checks it).
 *
 * The files are committed as source; this script owns every *.json file in the five kind folders.
 * Usage: `npx tsx test/conformance/tools/make-corpus.ts [--check] [--root DIR]`
 *   (no flag: write the files and delete stale ones; --check: exit 1 when the tree differs).
 * The corpus suite checks that re-running it reproduces the committed files byte for byte.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadModel } from "../../../codegen/model/load.js";
import { CORPUS_DIR } from "../../../codegen/targets/vectors/vectors.js";
import type { Field, Model, RuleStep, WireType } from "../../../codegen/model/model.js";
import {
  baseObject,
  concretePointer,
  editDocument,
  enumNameOf,
  enumValuesOf,
  fullObject,
  representativeOccurrences,
  sampleString,
  sampleValue,
  slug,
  stringOfCodePoints,
  typeNamed,
  type JsonObject,
  type JsonValue,
} from "../../../codegen/model/samples.js";

/** One corpus file: repository-relative path and exact content. */
export interface CorpusFile {
  readonly path: string;
  readonly content: string;
}

export { CORPUS_DIR };

interface Fixture {
  readonly stem: string;
  readonly expect: "valid" | "invalid";
  readonly rule?: string;
  readonly pointer?: string;
  readonly description: string;
  readonly data?: JsonValue;
  readonly bytes?: Uint8Array;
}

/** Member names that are never wire fields (unknown-field cases). */
const UNKNOWN_MEMBER = "unknown_field";
/** A number that never occurs in a sample document; replaced textually by a number lexeme. */
const NUMBER_SENTINEL = 987654321012345;
/** A string that never occurs in a sample document; replaced textually by raw bytes. */
const RAW_SENTINEL = "@@raw-sentinel@@";
/** Invalid wire versions that stay invalid whatever the current version is (literals on purpose: a version bump leaves them alone). */
const WRONG_VERSIONS: readonly (readonly [string, string])[] = [
  ["older", "lifeloop.v0.2"],
  ["empty", ""],
  ["trailing-space", "lifeloop.v0.3 "],
  ["upper-case", "LIFELOOP.V0.3"],
];

function ruleSlug(rule: string): string {
  return rule.replace(/\./g, "-");
}

function whereSlug(pointer: string): string {
  return pointer === "" ? "root" : slug(pointer.replace(/\/0(?=\/|$)/g, ""));
}

/** Inline JSON with a space after `:` and `,`. */
function inline(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** Containers with at most this many members and no non-empty container inside stay on one line. */
const INLINE_MEMBERS = 6;

function isFlat(value: JsonValue): boolean {
  const members = Array.isArray(value) ? value : Object.values(value as JsonObject);
  return members.length <= INLINE_MEMBERS && members.every((m) => m === null || typeof m !== "object" || (Array.isArray(m) ? m.length === 0 : Object.keys(m).length === 0));
}

/**
 * Pretty JSON: small flat containers stay on one line. The layout depends on structure only (never on
 * string lengths), so rewriting a value (e.g. a version bump) never reflows a fixture.
 */
export function prettyJson(value: JsonValue, indent = ""): string {
  if (value === null || typeof value !== "object" || isFlat(value)) return inline(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => `${inner}${prettyJson(v, inner)}`).join(",\n")}\n${indent}]`;
  const entries = Object.entries(value);
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${prettyJson(v, inner)}`).join(",\n")}\n${indent}}`;
}

function renderFixture(kind: string, f: Fixture): string {
  const head: JsonObject = { kind, expect: f.expect };
  if (f.rule !== undefined) head.expect_rule = f.rule;
  if (f.pointer !== undefined) head.expect_pointer = f.pointer;
  head.description = f.description;
  if (f.bytes !== undefined) head.data_base64 = Buffer.from(f.bytes).toString("base64");
  else head.data = f.data as JsonValue;
  const lines = Object.entries(head).map(([k, v]) => `  ${JSON.stringify(k)}: ${prettyJson(v, "  ")}`);
  return `{\n${lines.join(",\n")}\n}\n`;
}

function concat(...parts: (string | Uint8Array)[]): Uint8Array {
  const chunks = parts.map((p) => (typeof p === "string" ? new TextEncoder().encode(p) : p));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Replace the single occurrence of `needle` in `text` (throws unless it occurs exactly once). */
function replaceOnce(text: string, needle: string, by: string | Uint8Array): Uint8Array {
  const first = text.indexOf(needle);
  if (first < 0 || text.indexOf(needle, first + 1) >= 0) throw new Error(`corpus: sentinel ${needle} must occur exactly once`);
  return concat(text.slice(0, first), by, text.slice(first + needle.length));
}

/** Builds the fixtures of one wire document type. */
class RootCorpus {
  readonly fixtures: Fixture[] = [];
  readonly type: WireType;
  readonly base: JsonObject;

  constructor(
    readonly model: Model,
    readonly rootType: string,
  ) {
    this.type = typeNamed(model, rootType);
    this.base = baseObject(model, rootType);
  }

  add(f: Fixture): void {
    if (this.fixtures.some((x) => x.stem === f.stem)) throw new Error(`corpus: duplicate fixture ${this.rootType} ${f.stem}`);
    this.fixtures.push(f);
  }

  /** Edit the object at `pattern`; a schema-level case must leave every rule satisfied. */
  edit(pattern: string, pinned: readonly string[], fn: (obj: JsonObject) => void): JsonObject {
    const edited = editDocument(this.model, this.rootType, this.base, pattern, pinned, fn);
    if (edited.conflicts.length > 0) {
      throw new Error(`corpus: ${this.rootType} ${pattern} [${pinned.join()}] breaks rule ${edited.conflicts[0]?.step.rule} at ${edited.conflicts[0]?.pointer}`);
    }
    return edited.doc;
  }

  /** Edit expecting exactly one broken rule step of `rule`; returns the document and the step's pointer. */
  breakRule(rule: string, pattern: string, pinned: readonly string[], fn: (obj: JsonObject) => void): { doc: JsonObject; pointer: string } {
    const edited = editDocument(this.model, this.rootType, this.base, pattern, pinned, fn);
    const [only, ...more] = edited.conflicts;
    if (!only || more.length > 0 || only.step.rule !== rule) {
      throw new Error(`corpus: ${this.rootType} ${pattern}: expected exactly one ${rule} conflict, got ${edited.conflicts.map((c) => `${c.step.rule}@${c.pointer}`).join(", ") || "none"}`);
    }
    return { doc: edited.doc, pointer: only.pointer };
  }

  /** The document with `field` of the object at `pattern` set to NUMBER_SENTINEL, then written as `lexeme`. */
  numberLexeme(pattern: string, field: string, lexeme: string): Uint8Array {
    const doc = this.edit(pattern, [field], (obj) => {
      obj[field] = NUMBER_SENTINEL;
    });
    return replaceOnce(JSON.stringify(doc), String(NUMBER_SENTINEL), lexeme);
  }

  /** The document with `field` of the object at `pattern` holding the raw JSON bytes `raw` (a string value). */
  rawString(pattern: string, field: string, raw: string | Uint8Array): Uint8Array {
    const doc = this.edit(pattern, [field], (obj) => {
      obj[field] = RAW_SENTINEL;
    });
    return replaceOnce(JSON.stringify(doc), JSON.stringify(RAW_SENTINEL), raw);
  }

  /** The document with an open map at `mapPointer` (pattern) holding `members` and one raw member value. */
  rawInMap(mapPattern: string, raw: string | Uint8Array, before = ""): Uint8Array {
    const parent = mapPattern.slice(0, mapPattern.lastIndexOf("/"));
    const field = mapPattern.slice(mapPattern.lastIndexOf("/") + 1);
    const doc = this.edit(parent, [field], (obj) => {
      obj[field] = { raw_member: RAW_SENTINEL };
    });
    const text = JSON.stringify(doc);
    const needle = `{"raw_member":${JSON.stringify(RAW_SENTINEL)}}`;
    return replaceOnce(text, needle, typeof raw === "string" ? `{${before}${raw}}` : concat(`{${before}`, raw, "}"));
  }
}

function fieldsOf(model: Model, typeName: string): readonly Field[] {
  return typeNamed(model, typeName).fields;
}

function describeWhere(rootType: string, pattern: string, field?: string): string {
  const p = concretePointer(pattern);
  return `${rootType}${p}${field ? `/${field}` : ""}`.replace(/^(\w+)\//, "$1 at /");
}

/** Rule steps (all occurrences inside the root). */
function addRuleCases(c: RootCorpus): void {
  const { model } = c;
  const steps = model.rulePlans.get(c.rootType) ?? [];
  for (const step of steps) {
    const at = step.at;
    const target = model.occurrences.get(c.rootType)?.find((o) => o.pattern === at)?.typeName as string;
    const ttype = typeNamed(model, target);
    const where = whereSlug(concretePointer(at));
    const tag = (field: string): string => (at === "" ? slug(field) : `${where}-${slug(field)}`);
    const rs = ruleSlug(step.rule);
    const field = step.field ?? "";
    switch (step.check) {
      case "equals_wire_version": {
        const variants = at === "" ? WRONG_VERSIONS : WRONG_VERSIONS.slice(0, 1);
        for (const [name, value] of variants) {
          const { doc, pointer } = c.breakRule(step.rule, at, [field], (o) => {
            o[field] = value;
          });
          c.add({ stem: `invalid-${rs}-${tag(field)}-${name}`, expect: "invalid", rule: step.rule, pointer, description: `${describeWhere(c.rootType, at, field)} is ${JSON.stringify(value)}, not the current wire version`, data: doc });
        }
        c.add({ stem: `valid-${rs}-${tag(field)}-current`, expect: "valid", description: `${describeWhere(c.rootType, at, field)} equals the current wire version (spec/wire-version.json)`, data: c.edit(at, [], () => undefined) });
        break;
      }
      case "non_empty_string": {
        const value = (v: string): JsonValue => (step.each ? [v] : v);
        const { doc, pointer } = c.breakRule(step.rule, at, [field], (o) => {
          o[field] = value("");
        });
        c.add({ stem: `invalid-${rs}-${tag(field)}-empty`, expect: "invalid", rule: step.rule, pointer, description: `${describeWhere(c.rootType, at, field)}${step.each ? "[0]" : ""} is the empty string`, data: doc });
        c.add({
          stem: `valid-${rs}-${tag(field)}-one-char`,
          expect: "valid",
          description: `${describeWhere(c.rootType, at, field)}${step.each ? "[0]" : ""} is one character long (the shortest non-empty identifier)`,
          data: c.edit(at, [field], (o) => {
            o[field] = value("x");
          }),
        });
        break;
      }
      case "required_when":
      case "forbidden_when": {
        const when = step.when as NonNullable<RuleStep["when"]>;
        const condField = ttype.fields.find((f) => f.name === when.field) as Field;
        const all = enumValuesOf(model, enumNameOf(condField.shape) as string);
        const holding = all.filter((v) => (when.op === "in" ? when.values.includes(v) : !when.values.includes(v)));
        const targetField = ttype.fields.find((f) => f.name === field) as Field;
        for (const [i, v] of holding.entries()) {
          if (step.check === "required_when") {
            const forms: [string, (o: JsonObject) => void][] = [];
            if (targetField.presence !== "required_nullable") forms.push(["absent", (o) => delete o[field]]);
            if (i === 0 || targetField.presence === "required_nullable") forms.push(["null", (o) => (o[field] = null)]);
            for (const [form, apply] of forms) {
              const { doc, pointer } = c.breakRule(step.rule, at, [when.field, field], (o) => {
                o[when.field] = v;
                apply(o);
              });
              c.add({ stem: `invalid-${rs}-${tag(field)}-${slug(v)}-${form}`, expect: "invalid", rule: step.rule, pointer, description: `${when.field}=${v} but ${describeWhere(c.rootType, at, field)} is ${form}`, data: doc });
            }
            c.add({
              stem: `valid-${rs}-${tag(field)}-${slug(v)}-present`,
              expect: "valid",
              description: `${when.field}=${v} with ${describeWhere(c.rootType, at, field)} present`,
              data: c.edit(at, [when.field], (o) => {
                o[when.field] = v;
              }),
            });
          } else {
            const { doc, pointer } = c.breakRule(step.rule, at, [when.field, field], (o) => {
              o[when.field] = v;
              o[field] = sampleValue(model, targetField.shape, field);
            });
            c.add({ stem: `invalid-${rs}-${tag(field)}-${slug(v)}-present`, expect: "invalid", rule: step.rule, pointer, description: `${when.field}=${v} with ${describeWhere(c.rootType, at, field)} present`, data: doc });
            const forms: [string, (o: JsonObject) => void][] = [["null", (o) => (o[field] = null)]];
            if (targetField.presence !== "required_nullable") forms.push(["absent", (o) => delete o[field]]);
            for (const [form, apply] of forms) {
              c.add({
                stem: `valid-${rs}-${tag(field)}-${slug(v)}-${form}`,
                expect: "valid",
                description: `${when.field}=${v} with ${describeWhere(c.rootType, at, field)} ${form}`,
                data: c.edit(at, [when.field, field], (o) => {
                  o[when.field] = v;
                  apply(o);
                }),
              });
            }
          }
        }
        break;
      }
      case "forbidden_value": {
        for (const v of step.values ?? []) {
          const { doc, pointer } = c.breakRule(step.rule, at, [field], (o) => {
            o[field] = v;
          });
          c.add({ stem: `invalid-${rs}-${tag(field)}-${slug(v)}`, expect: "invalid", rule: step.rule, pointer, description: `${describeWhere(c.rootType, at, field)} is ${v}`, data: doc });
        }
        const targetField = ttype.fields.find((f) => f.name === field) as Field;
        const allowed = enumValuesOf(model, enumNameOf(targetField.shape) as string).filter((v) => !(step.values ?? []).includes(v));
        for (const v of allowed.slice(0, 1)) {
          c.add({
            stem: `valid-${rs}-${tag(field)}-${slug(v)}`,
            expect: "valid",
            description: `${describeWhere(c.rootType, at, field)} is ${v}`,
            data: c.edit(at, [field], (o) => {
              o[field] = v;
            }),
          });
        }
        break;
      }
      case "exactly_one_present": {
        const [first, second] = step.fields as [string, string];
        const none = c.breakRule(step.rule, at, [first, second], (o) => {
          delete o[first];
          delete o[second];
        });
        c.add({ stem: `invalid-${rs}-${where}-neither`, expect: "invalid", rule: step.rule, pointer: none.pointer, description: `${describeWhere(c.rootType, at)} has neither ${first} nor ${second}`, data: none.doc });
        const nulls = c.breakRule(step.rule, at, [first, second], (o) => {
          o[first] = null;
          o[second] = null;
        });
        c.add({ stem: `invalid-${rs}-${where}-both-null`, expect: "invalid", rule: step.rule, pointer: nulls.pointer, description: `${describeWhere(c.rootType, at)} has ${first} and ${second} both null (null means absent)`, data: nulls.doc });
        const both = c.breakRule(step.rule, at, [first, second], (o) => {
          o[first] = sampleString(first);
          o[second] = sampleString(second);
        });
        c.add({ stem: `invalid-${rs}-${where}-both`, expect: "invalid", rule: step.rule, pointer: both.pointer, description: `${describeWhere(c.rootType, at)} has both ${first} and ${second}`, data: both.doc });
        for (const [only, other] of [
          [first, second],
          [second, first],
        ] as const) {
          c.add({
            stem: `valid-${rs}-${where}-only-${slug(only)}`,
            expect: "valid",
            description: `${describeWhere(c.rootType, at)} has ${only} and ${other} null`,
            data: c.edit(at, [only, other], (o) => {
              o[only] = sampleString(only);
              o[other] = null;
            }),
          });
        }
        break;
      }
      case "utf8_byte_length_equals": {
        const lengthField = step.lengthField as string;
        const text = "é\u{1F600}";
        for (const [name, declared] of [
          ["code-points", [...text].length],
          ["utf16-units", text.length],
        ] as const) {
          const { doc, pointer } = c.breakRule(step.rule, at, [field, lengthField], (o) => {
            o[field] = text;
            o[lengthField] = declared;
          });
          c.add({ stem: `invalid-${rs}-${where}-counts-${name}`, expect: "invalid", rule: step.rule, pointer, description: `${field} "é😀" is 6 UTF-8 bytes but ${lengthField} is ${declared} (its ${name.replace("-", " ")})`, data: doc });
        }
        c.add({
          stem: `valid-${rs}-${where}-multibyte`,
          expect: "valid",
          description: `${field} "é😀" with ${lengthField} 6 (UTF-8 bytes)`,
          data: c.edit(at, [field, lengthField], (o) => {
            o[field] = text;
            o[lengthField] = 6;
          }),
        });
        c.add({
          stem: `valid-${rs}-${where}-empty-body`,
          expect: "valid",
          description: `${field} is the empty string with ${lengthField} 0`,
          data: c.edit(at, [field, lengthField], (o) => {
            o[field] = "";
            o[lengthField] = 0;
          }),
        });
        break;
      }
      case "non_empty_array": {
        const { doc, pointer } = c.breakRule(step.rule, at, [field], (o) => {
          o[field] = [];
        });
        c.add({ stem: `invalid-${rs}-${tag(field)}-empty`, expect: "invalid", rule: step.rule, pointer, description: `${describeWhere(c.rootType, at, field)} is an empty array`, data: doc });
        c.add({ stem: `valid-${rs}-${tag(field)}-one`, expect: "valid", description: `${describeWhere(c.rootType, at, field)} lists one entry`, data: c.edit(at, [], () => undefined) });
        break;
      }
      case "fields_differ": {
        const fields = step.fields as readonly string[];
        const first = fields[0] as string;
        for (const later of fields.slice(1)) {
          const same = c.breakRule(step.rule, at, [first, later], (o) => {
            o[first] = sampleString(first);
            o[later] = sampleString(first);
          });
          c.add({ stem: `invalid-${rs}-${tag(later)}-equals-${slug(first)}`, expect: "invalid", rule: step.rule, pointer: same.pointer, description: `${describeWhere(c.rootType, at, later)} equals ${first}`, data: same.doc });
          c.add({
            stem: `valid-${rs}-${tag(later)}-differs`,
            expect: "valid",
            description: `${describeWhere(c.rootType, at, later)} differs from ${first}`,
            data: c.edit(at, [first, later], (o) => {
              o[first] = sampleString(first);
              o[later] = sampleString(later);
            }),
          });
          c.add({
            stem: `valid-${rs}-${tag(later)}-differs-by-case`,
            expect: "valid",
            description: `${describeWhere(c.rootType, at, later)} differs from ${first} only in letter case (the comparison is exact)`,
            data: c.edit(at, [first, later], (o) => {
              o[first] = sampleString(first);
              o[later] = sampleString(first).toUpperCase();
            }),
          });
        }
        break;
      }
    }
  }
}

/** The first occurrence in the root of every object type, in depth-first field order. */
function firstOccurrences(model: Model, rootType: string): { pattern: string; typeName: string }[] {
  const seen = new Set<string>();
  const out: { pattern: string; typeName: string }[] = [];
  for (const o of model.occurrences.get(rootType) ?? []) {
    if (seen.has(o.typeName)) continue;
    seen.add(o.typeName);
    out.push({ pattern: o.pattern, typeName: o.typeName });
  }
  return out;
}

/** Unknown members at every nesting level, and anything inside open maps. */
function addUnknownFieldCases(c: RootCorpus): void {
  for (const o of c.model.occurrences.get(c.rootType) ?? []) {
    const pointer = `${concretePointer(o.pattern)}/${UNKNOWN_MEMBER}`;
    c.add({
      stem: `invalid-schema-additional-properties-${whereSlug(concretePointer(o.pattern))}`,
      expect: "invalid",
      rule: "schema.additional-properties",
      pointer,
      description: `an unknown member in the ${o.typeName} at ${o.pattern === "" ? "the root" : concretePointer(o.pattern)} (every wire object is closed)`,
      data: c.edit(o.pattern, [UNKNOWN_MEMBER], (obj) => {
        obj[UNKNOWN_MEMBER] = 1;
      }),
    });
    for (const f of fieldsOf(c.model, o.typeName)) {
      if (f.shape.kind !== "open_object") continue;
      c.add({
        stem: `valid-schema-additional-properties-open-map-${whereSlug(`${concretePointer(o.pattern)}/${f.name}`)}`,
        expect: "valid",
        description: `the open map ${concretePointer(o.pattern)}/${f.name} takes any members and any JSON values`,
        data: c.edit(o.pattern, [f.name], (obj) => {
          obj[f.name] = { [UNKNOWN_MEMBER]: 1, schema_version: "anything", nested: { list: [1, "two", null, false, { deep: [] }] }, "": "empty key", "with/slash~tilde": -1 };
        }),
      });
    }
  }
}

/** Null vs absent for every field of every object type at its first occurrence in the root. */
function addPresenceCases(c: RootCorpus, owned: ReadonlySet<string>): void {
  for (const o of firstOccurrences(c.model, c.rootType)) {
    if (!owned.has(o.typeName)) continue;
    const at = concretePointer(o.pattern);
    for (const f of fieldsOf(c.model, o.typeName)) {
      const pointer = `${at}/${f.name}`;
      const tag = whereSlug(pointer);
      const where = describeWhere(c.rootType, o.pattern, f.name);
      const absent = (obj: JsonObject): void => {
        delete obj[f.name];
      };
      const nul = (obj: JsonObject): void => {
        obj[f.name] = null;
      };
      switch (f.presence) {
        case "required":
          c.add({ stem: `invalid-schema-required-${tag}-absent`, expect: "invalid", rule: "schema.required", pointer, description: `${where} (required) is absent`, data: c.edit(o.pattern, [f.name], absent) });
          c.add({ stem: `invalid-schema-type-${tag}-null`, expect: "invalid", rule: "schema.type", pointer, description: `${where} (required, not nullable) is null`, data: c.edit(o.pattern, [f.name], nul) });
          break;
        case "required_nullable":
          c.add({ stem: `invalid-schema-required-${tag}-absent`, expect: "invalid", rule: "schema.required", pointer, description: `${where} (required even when null) is absent`, data: c.edit(o.pattern, [f.name], absent) });
          c.add({ stem: `valid-schema-type-${tag}-null`, expect: "valid", description: `${where} (required, nullable) is null`, data: c.edit(o.pattern, [f.name], nul) });
          break;
        case "optional":
        case "optional_emit_null":
          c.add({ stem: `valid-schema-type-${tag}-null`, expect: "valid", description: `${where} (${f.presence}) is null: null means none`, data: c.edit(o.pattern, [f.name], nul) });
          c.add({ stem: `valid-schema-required-${tag}-absent`, expect: "valid", description: `${where} (${f.presence}) is absent`, data: c.edit(o.pattern, [f.name], absent) });
          break;
        case "collection":
          c.add({ stem: `invalid-schema-type-${tag}-null`, expect: "invalid", rule: "schema.type", pointer, description: `${where} (a collection) is null: absent means empty, null is rejected`, data: c.edit(o.pattern, [f.name], nul) });
          c.add({ stem: `valid-schema-required-${tag}-absent`, expect: "valid", description: `${where} (a collection) is absent, which means empty`, data: c.edit(o.pattern, [f.name], absent) });
          c.add({
            stem: `valid-schema-type-${tag}-empty`,
            expect: "valid",
            description: `${where} (a collection) is empty`,
            data: c.edit(o.pattern, [f.name], (obj) => {
              obj[f.name] = f.shape.kind === "array" ? [] : {};
            }),
          });
          break;
      }
    }
  }
}

/** Enum values: every value of each enum at its representative field; near-misses at every enum field of the root. */
function addEnumCases(c: RootCorpus, enumHomes: ReadonlyMap<string, { rootType: string; pattern: string; field: string }>): void {
  for (const o of firstOccurrences(c.model, c.rootType)) {
    const at = concretePointer(o.pattern);
    for (const f of fieldsOf(c.model, o.typeName)) {
      const enumName = enumNameOf(f.shape);
      if (enumName === null) continue;
      const values = enumValuesOf(c.model, enumName);
      const pointer = `${at}/${f.name}`;
      const tag = whereSlug(pointer);
      const where = describeWhere(c.rootType, o.pattern, f.name);
      const first = values[0] as string;
      for (const [name, value] of [
        ["upper-case", first.toUpperCase()],
        ["trailing-space", `${first} `],
        ["leading-space", ` ${first}`],
        ["title-case", first.charAt(0).toUpperCase() + first.slice(1)],
      ] as const) {
        c.add({
          stem: `invalid-schema-enum-${tag}-${name}`,
          expect: "invalid",
          rule: "schema.enum",
          pointer,
          description: `${where} is ${JSON.stringify(value)}, a near-miss of the ${enumName} value ${first}`,
          data: c.edit(o.pattern, [f.name], (obj) => {
            obj[f.name] = value;
          }),
        });
      }
      const home = enumHomes.get(enumName);
      const isHome = home !== undefined && home.rootType === c.rootType && home.pattern === o.pattern && home.field === f.name;
      // Every value at the enum's home field; elsewhere one value (the last one that breaks no rule).
      const chosen = isHome ? values : [...values].reverse().slice(0, 1);
      for (const v of chosen) {
        const edited = editDocument(c.model, c.rootType, c.base, o.pattern, [f.name], (obj) => {
          obj[f.name] = v;
        });
        if (edited.conflicts.length > 0) continue;
        c.add({ stem: `valid-schema-enum-${tag}-${slug(v)}`, expect: "valid", description: `${where} is the ${enumName} value ${v}`, data: edited.doc });
      }
    }
  }
}

/** Strings, integers and arrays at their bounds (one representative field each per root), plus number lexemes. */
function addBoundaryCases(c: RootCorpus): void {
  const { model } = c;
  const occ = firstOccurrences(model, c.rootType);
  const versionFields = new Set((model.rulePlans.get(c.rootType) ?? []).filter((s) => s.check === "equals_wire_version").map((s) => s.field));
  const nonEmpty = new Set((model.rulePlans.get(c.rootType) ?? []).filter((s) => s.check === "non_empty_string").map((s) => `${s.at}/${s.field}`));
  // Representative string: the first bounded identifier-sized string (not the version).
  let str: { pattern: string; field: Field; maxLength: number } | undefined;
  let emptyOk: { pattern: string; field: Field } | undefined;
  let integer: { pattern: string; field: Field } | undefined;
  for (const o of occ) {
    for (const f of fieldsOf(model, o.typeName)) {
      if (f.shape.kind === "string" && !versionFields.has(f.name)) {
        if (!str && f.shape.maxLength <= 4096) str = { pattern: o.pattern, field: f, maxLength: f.shape.maxLength };
        if (!emptyOk && !nonEmpty.has(`${o.pattern}/${f.name}`) && !(model.rulePlans.get(c.rootType) ?? []).some((s) => s.at === o.pattern && (s.fields?.includes(f.name) || s.field === f.name))) {
          emptyOk = { pattern: o.pattern, field: f };
        }
      }
      if (!integer && f.shape.kind === "integer") integer = { pattern: o.pattern, field: f };
    }
  }
  if (str) {
    const { pattern, field, maxLength } = str;
    const pointer = `${concretePointer(pattern)}/${field.name}`;
    const tag = whereSlug(pointer);
    const where = describeWhere(c.rootType, pattern, field.name);
    const set = (value: string) => (obj: JsonObject) => {
      obj[field.name] = value;
    };
    c.add({ stem: `valid-schema-max-length-${tag}-at-limit`, expect: "valid", description: `${where} is exactly ${maxLength} code points, the last one astral (${maxLength + 1} UTF-16 code units)`, data: c.edit(pattern, [field.name], set(stringOfCodePoints(maxLength))) });
    c.add({ stem: `valid-schema-max-length-${tag}-at-limit-all-astral`, expect: "valid", description: `${where} is ${maxLength} astral code points (${2 * maxLength} UTF-16 code units, ${4 * maxLength} UTF-8 bytes)`, data: c.edit(pattern, [field.name], set("\u{1F600}".repeat(maxLength))) });
    c.add({ stem: `invalid-schema-max-length-${tag}-plus-1`, expect: "invalid", rule: "schema.max-length", pointer, description: `${where} is ${maxLength + 1} code points, one over its maxLength`, data: c.edit(pattern, [field.name], set(stringOfCodePoints(maxLength + 1))) });
    c.add({ stem: `invalid-schema-max-length-${tag}-plus-1-all-astral`, expect: "invalid", rule: "schema.max-length", pointer, description: `${where} is ${maxLength + 1} astral code points`, data: c.edit(pattern, [field.name], set("\u{1F600}".repeat(maxLength + 1))) });
    c.add({ stem: `invalid-schema-type-${tag}-number`, expect: "invalid", rule: "schema.type", pointer, description: `${where} is a number, not a string`, data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = 7)) });
    c.add({ stem: `valid-schema-type-${tag}-unicode`, expect: "valid", description: `${where} holds escapes and non-ASCII text`, data: c.edit(pattern, [field.name], set("tab\there \"quoted\" \\ é 中文 \u{1F600} \u0000 end")) });
    // Lone surrogates and invalid UTF-8 inside the same string.
    c.add({ stem: `invalid-json-lone-surrogate-${tag}-high`, expect: "invalid", rule: "json.lone-surrogate", pointer, description: `${where} escapes a lone high surrogate \\ud800`, bytes: c.rawString(pattern, field.name, '"a\\ud800b"') });
    c.add({ stem: `invalid-json-lone-surrogate-${tag}-low`, expect: "invalid", rule: "json.lone-surrogate", pointer, description: `${where} escapes a lone low surrogate \\udc00`, bytes: c.rawString(pattern, field.name, '"a\\udc00b"') });
    c.add({ stem: `invalid-json-lone-surrogate-${tag}-reversed-pair`, expect: "invalid", rule: "json.lone-surrogate", pointer, description: `${where} escapes a surrogate pair in the wrong order (\\ude00\\ud83d)`, bytes: c.rawString(pattern, field.name, '"\\ude00\\ud83d"') });
    c.add({ stem: `valid-json-lone-surrogate-${tag}-escaped-pair`, expect: "valid", description: `${where} escapes a proper surrogate pair \\ud83d\\ude00`, bytes: c.rawString(pattern, field.name, '"\\ud83d\\ude00"') });
    c.add({ stem: `invalid-json-utf8-${tag}-byte-ff`, expect: "invalid", rule: "json.utf8", pointer: "", description: `${where} contains the byte FF (never valid in UTF-8)`, bytes: c.rawString(pattern, field.name, concat('"a', new Uint8Array([0xff]), 'b"')) });
    c.add({ stem: `invalid-json-utf8-${tag}-encoded-surrogate`, expect: "invalid", rule: "json.utf8", pointer: "", description: `${where} contains ED A0 80 (a UTF-16 surrogate encoded as UTF-8)`, bytes: c.rawString(pattern, field.name, concat('"a', new Uint8Array([0xed, 0xa0, 0x80]), 'b"')) });
    c.add({ stem: `invalid-json-utf8-${tag}-overlong`, expect: "invalid", rule: "json.utf8", pointer: "", description: `${where} contains C0 AF (an overlong encoding of /)`, bytes: c.rawString(pattern, field.name, concat('"a', new Uint8Array([0xc0, 0xaf]), 'b"')) });
    c.add({ stem: `invalid-json-utf8-${tag}-truncated`, expect: "invalid", rule: "json.utf8", pointer: "", description: `${where} contains E2 82 without its last byte`, bytes: c.rawString(pattern, field.name, concat('"a', new Uint8Array([0xe2, 0x82]), '"')) });
    c.add({ stem: `valid-json-utf8-${tag}-multibyte`, expect: "valid", description: `${where} holds raw 2-, 3- and 4-byte UTF-8 sequences`, bytes: c.rawString(pattern, field.name, '"é€\u{1F600}"') });
    c.add({ stem: `invalid-json-syntax-${tag}-raw-control-character`, expect: "invalid", rule: "json.syntax", description: `${where} holds a raw tab character (control characters must be escaped)`, bytes: c.rawString(pattern, field.name, '"a\tb"') });
    c.add({ stem: `invalid-json-syntax-${tag}-bad-escape`, expect: "invalid", rule: "json.syntax", description: `${where} holds the invalid escape \\x41`, bytes: c.rawString(pattern, field.name, '"a\\x41"') });
  }
  if (emptyOk) {
    const { pattern, field } = emptyOk;
    c.add({ stem: `valid-schema-max-length-${whereSlug(`${concretePointer(pattern)}/${field.name}`)}-empty`, expect: "valid", description: `${describeWhere(c.rootType, pattern, field.name)} (no non-empty rule) is the empty string`, data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = "")) });
  }
  if (integer) {
    const { pattern, field } = integer;
    const pointer = `${concretePointer(pattern)}/${field.name}`;
    const tag = whereSlug(pointer);
    const where = describeWhere(c.rootType, pattern, field.name);
    const lexeme = (name: string, text: string, expect: "valid" | "invalid", rule: string, why: string): void =>
      c.add({
        stem: `${expect}-${ruleSlug(rule)}-${tag}-${name}`,
        expect,
        ...(expect === "invalid" ? { rule, pointer } : {}),
        description: `${where} written as ${text}: ${why}`,
        bytes: c.numberLexeme(pattern, field.name, text),
      });
    lexeme("max-safe-integer", "9007199254740991", "valid", "schema.maximum", "2^53 - 1, the largest integer on the wire");
    lexeme("zero", "0", "valid", "schema.minimum", "the minimum");
    lexeme("integer", "42", "valid", "schema.type", "a plain integer lexeme");
    lexeme("two-pow-53", "9007199254740992", "invalid", "schema.maximum", "2^53, one over the maximum");
    lexeme("u64-max", "18446744073709551615", "invalid", "schema.maximum", "2^64 - 1 (accepted by the reference's u64; above our 2^53 - 1 bound)");
    lexeme("two-pow-64", "18446744073709551616", "invalid", "schema.maximum", "2^64, beyond any 64-bit integer");
    lexeme("minus-one", "-1", "invalid", "schema.minimum", "negative");
    lexeme("one-point-zero", "1.0", "invalid", "schema.type", "a fraction, even .0, is not an integer lexeme");
    lexeme("minus-zero", "-0", "invalid", "schema.type", "minus zero is not an integer lexeme");
    lexeme("exponent", "1e2", "invalid", "schema.type", "an exponent is not an integer lexeme");
    lexeme("exponent-upper", "1E2", "invalid", "schema.type", "an exponent is not an integer lexeme");
    lexeme("fraction", "1.5", "invalid", "schema.type", "not an integer");
    lexeme("huge-exponent", "1e400", "invalid", "json.number-range", "overflows an IEEE-754 double");
    lexeme("leading-zero", "01", "invalid", "json.syntax", "leading zeros are not JSON");
    lexeme("plus-sign", "+1", "invalid", "json.syntax", "a plus sign is not JSON");
    c.add({ stem: `invalid-schema-type-${tag}-string`, expect: "invalid", rule: "schema.type", pointer, description: `${where} is the string "1"`, data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = "1")) });
  }
  // Arrays: the array with the fewest maxItems (then the smallest items) at maxItems and maxItems + 1.
  let best: { pattern: string; field: Field; maxItems: number; item: JsonValue; size: number } | undefined;
  for (const o of occ) {
    for (const f of fieldsOf(model, o.typeName)) {
      if (f.shape.kind !== "array") continue;
      const item = sampleValue(model, f.shape.items, f.name);
      const size = f.shape.maxItems * JSON.stringify(item).length;
      if (!best || size < best.size) best = { pattern: o.pattern, field: f, maxItems: f.shape.maxItems, item, size };
    }
  }
  if (best) {
    const { pattern, field, maxItems, item } = best;
    const pointer = `${concretePointer(pattern)}/${field.name}`;
    const tag = whereSlug(pointer);
    const where = describeWhere(c.rootType, pattern, field.name);
    c.add({ stem: `valid-schema-max-items-${tag}-at-limit`, expect: "valid", description: `${where} lists exactly ${maxItems} entries (its maxItems)`, data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = Array.from({ length: maxItems }, () => item))) });
    c.add({ stem: `invalid-schema-max-items-${tag}-plus-1`, expect: "invalid", rule: "schema.max-items", pointer, description: `${where} lists ${maxItems + 1} entries, one over its maxItems`, data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = Array.from({ length: maxItems + 1 }, () => item))) });
    c.add({ stem: `invalid-schema-type-${tag}-object`, expect: "invalid", rule: "schema.type", pointer, description: `${where} is an object, not an array`, data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = {})) });
  }
}

/** Document-level byte cases: BOM, syntax, trailing data, duplicate keys, depth. */
function addDocumentCases(c: RootCorpus): void {
  const { model } = c;
  const text = JSON.stringify(c.base);
  const firstKey = Object.keys(c.base)[0] as string;
  const maxDepth = model.tables.limits.limits.find((l) => l.name === "max_depth")?.value as number;
  c.add({ stem: "invalid-json-bom-minimal", expect: "invalid", rule: "json.bom", pointer: "", description: "the minimal valid document preceded by a UTF-8 byte-order mark", bytes: concat(new Uint8Array([0xef, 0xbb, 0xbf]), text) });
  c.add({ stem: "valid-json-bom-leading-whitespace", expect: "valid", description: "the minimal document preceded by whitespace (space, tab, CR, LF) instead of a BOM", bytes: concat(" \t\r\n", text) });
  c.add({ stem: "invalid-json-syntax-trailing-comma", expect: "invalid", rule: "json.syntax", description: "a comma after the last member", bytes: concat(text.slice(0, -1), ",}") });
  c.add({ stem: "invalid-json-syntax-empty", expect: "invalid", rule: "json.syntax", pointer: "", description: "an empty document", bytes: new Uint8Array(0) });
  c.add({ stem: "invalid-json-syntax-comment", expect: "invalid", rule: "json.syntax", description: "a comment before the document", bytes: concat("/* c */", text) });
  const secondKey = Object.keys(c.base)[1] as string;
  c.add({
    stem: "invalid-json-syntax-single-quotes",
    expect: "invalid",
    rule: "json.syntax",
    description: `the member name ${secondKey} in single quotes`,
    bytes: replaceOnce(text, `,${JSON.stringify(secondKey)}:`, `,'${secondKey}':`),
  });
  c.add({ stem: "invalid-json-syntax-truncated", expect: "invalid", rule: "json.syntax", description: "the document without its closing brace", bytes: concat(text.slice(0, -1)) });
  c.add({ stem: "valid-json-syntax-pretty", expect: "valid", description: "the minimal document pretty-printed with tabs and CRLF line ends", bytes: concat(JSON.stringify(c.base, null, "\t").replace(/\n/g, "\r\n")) });
  c.add({ stem: "invalid-json-trailing-data-second-document", expect: "invalid", rule: "json.trailing-data", description: "a second JSON document after the first", bytes: concat(text, "\n{}") });
  c.add({ stem: "invalid-json-trailing-data-log-line", expect: "invalid", rule: "json.trailing-data", description: "a log line after the document", bytes: concat(text, "\ndone\n") });
  c.add({ stem: "invalid-json-trailing-data-nul", expect: "invalid", rule: "json.trailing-data", description: "a NUL byte after the document", bytes: concat(text, new Uint8Array([0])) });
  c.add({ stem: "valid-json-trailing-data-whitespace", expect: "valid", description: "only whitespace after the document", bytes: concat(text, "\n\t \r\n") });
  c.add({
    stem: `invalid-json-duplicate-key-${slug(firstKey)}`,
    expect: "invalid",
    rule: "json.duplicate-key",
    pointer: `/${firstKey}`,
    description: `the member ${firstKey} twice, with the same value`,
    bytes: concat(`{${JSON.stringify(firstKey)}:${JSON.stringify(c.base[firstKey])},`, text.slice(1)),
  });
  // Open maps: duplicates, depth, big numbers (the reference keeps the last duplicate of a map key and allows deeper nesting).
  const mapPattern = openMaps(model, c.rootType)[0];
  if (mapPattern !== undefined) {
    const mapPointer = concretePointer(mapPattern);
    const mapTag = whereSlug(mapPointer);
    c.add({ stem: `invalid-json-duplicate-key-${mapTag}`, expect: "invalid", rule: "json.duplicate-key", pointer: `${mapPointer}/k`, description: `the open map ${mapPointer} names the key k twice`, bytes: c.rawInMap(mapPattern, '"k":2', '"k":1,') });
    c.add({ stem: `invalid-json-duplicate-key-${mapTag}-escaped`, expect: "invalid", rule: "json.duplicate-key", pointer: `${mapPointer}/k`, description: `the open map ${mapPointer} names k twice, once as the escape \\u006b`, bytes: c.rawInMap(mapPattern, '"\\u006b":2', '"k":1,') });
    c.add({ stem: `valid-json-duplicate-key-${mapTag}-case-differs`, expect: "valid", description: `the open map ${mapPointer} has keys k and K (distinct)`, bytes: c.rawInMap(mapPattern, '"K":2', '"k":1,') });
    const mapDepth = mapPointer.split("/").length; // the map object's own nesting level
    const nest = (levels: number): string => `"deep":${"[".repeat(levels)}${"]".repeat(levels)}`;
    const over = maxDepth + 1 - mapDepth;
    c.add({ stem: `valid-json-max-depth-${mapTag}-at-limit`, expect: "valid", description: `arrays nested inside ${mapPointer} to exactly ${maxDepth} levels (limits.max_depth)`, bytes: c.rawInMap(mapPattern, nest(over - 1)) });
    c.add({
      stem: `invalid-json-max-depth-${mapTag}-plus-1`,
      expect: "invalid",
      rule: "json.max-depth",
      pointer: `${mapPointer}/deep${"/0".repeat(over - 1)}`,
      description: `arrays nested inside ${mapPointer} to ${maxDepth + 1} levels, one over limits.max_depth`,
      bytes: c.rawInMap(mapPattern, nest(over)),
    });
    c.add({ stem: `invalid-json-number-range-${mapTag}`, expect: "invalid", rule: "json.number-range", pointer: `${mapPointer}/big`, description: `the open map ${mapPointer} holds 1e400 (beyond an IEEE-754 double)`, bytes: c.rawInMap(mapPattern, '"big":1e400') });
    c.add({ stem: `valid-json-number-range-${mapTag}-large-float`, expect: "valid", description: `the open map ${mapPointer} holds 1.5e308 and 1.0 (any JSON number fits an open map)`, bytes: c.rawInMap(mapPattern, '"big":1.5e308,"f":1.0,"z":-0') });
  }
}

/** Open-map pointer patterns of a root, shallowest first. */
function openMaps(model: Model, rootType: string): string[] {
  const out: string[] = [];
  for (const o of model.occurrences.get(rootType) ?? []) {
    for (const f of fieldsOf(model, o.typeName)) if (f.shape.kind === "open_object") out.push(`${o.pattern}/${f.name}`);
  }
  return out.sort((a, b) => a.split("/").length - b.split("/").length);
}

/** Build every corpus file (sorted by path). */
export function buildCorpus(model: Model): CorpusFile[] {
  const reps = representativeOccurrences(model);
  const enumHomes = new Map<string, { rootType: string; pattern: string; field: string }>();
  for (const type of model.types) {
    const rep = reps.get(type.name);
    if (!rep) continue;
    for (const f of type.fields) {
      const e = enumNameOf(f.shape);
      if (e !== null && !enumHomes.has(e)) enumHomes.set(e, { rootType: rep.rootType, pattern: rep.occurrence.pattern, field: f.name });
    }
  }
  const files: CorpusFile[] = [];
  for (const root of model.roots) {
    const c = new RootCorpus(model, root.typeName);
    const owned = new Set([...reps].filter(([, r]) => r.rootType === root.typeName).map(([t]) => t));
    c.add({ stem: "valid-minimal", expect: "valid", description: `a ${root.typeName} with only its required members`, data: c.base });
    c.add({ stem: "valid-typical", expect: "valid", description: `a ${root.typeName} with every member filled in`, data: fullObject(model, root.typeName) });
    addRuleCases(c);
    addUnknownFieldCases(c);
    addPresenceCases(c, owned);
    addEnumCases(c, enumHomes);
    addBoundaryCases(c);
    addDocumentCases(c);
    for (const f of c.fixtures) {
      if (f.expect === "invalid" && f.rule === undefined) throw new Error(`corpus: ${f.stem} has no rule`);
      files.push({ path: `${CORPUS_DIR}/${root.fixtureKind}/${f.stem}.json`, content: renderFixture(root.fixtureKind, f) });
    }
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The *.json files currently in the corpus folders (repository-relative). */
export function listCorpusFiles(root: string, model: Model): string[] {
  const out: string[] = [];
  for (const r of model.roots) {
    const dir = join(root, CORPUS_DIR, r.fixtureKind);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) if (name.endsWith(".json")) out.push(`${CORPUS_DIR}/${r.fixtureKind}/${name}`);
  }
  return out;
}

/** Differences between the built corpus and the tree: paths that are missing, changed or stale. */
export function corpusDrift(root: string, model: Model): { missing: string[]; changed: string[]; stale: string[] } {
  const files = buildCorpus(model);
  const built = new Set(files.map((f) => f.path));
  const missing: string[] = [];
  const changed: string[] = [];
  for (const f of files) {
    const abs = join(root, f.path);
    if (!existsSync(abs)) missing.push(f.path);
    else if (readFileSync(abs, "utf8") !== f.content) changed.push(f.path);
  }
  const stale = listCorpusFiles(root, model).filter((p) => !built.has(p));
  return { missing, changed, stale };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  const args = process.argv.slice(2);
  let root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
  let check = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--check") check = true;
    else if (args[i] === "--root" && args[i + 1] !== undefined) root = resolve(args[++i] as string);
    else {
      process.stderr.write("usage: npx tsx test/conformance/tools/make-corpus.ts [--check] [--root DIR]\n");
      process.exit(2);
    }
  }
  const model = loadModel(root);
  const drift = corpusDrift(root, model);
  const total = drift.missing.length + drift.changed.length + drift.stale.length;
  if (check) {
    for (const [what, list] of Object.entries(drift)) for (const p of list) process.stdout.write(`${what}: ${p}\n`);
    process.stderr.write(`make-corpus --check: ${total === 0 ? "up to date" : `${total} file(s) differ; run npx tsx test/conformance/tools/make-corpus.ts`}\n`);
    process.exitCode = total === 0 ? 0 : 1;
  } else {
    const files = buildCorpus(model);
    for (const f of files) {
      const abs = join(root, f.path);
      if (existsSync(abs) && readFileSync(abs, "utf8") === f.content) continue;
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, f.content);
    }
    for (const p of drift.stale) rmSync(join(root, p));
    process.stdout.write(`make-corpus: ${files.length} fixtures (${drift.missing.length} new, ${drift.changed.length} changed, ${drift.stale.length} deleted)\n`);
  }
}
