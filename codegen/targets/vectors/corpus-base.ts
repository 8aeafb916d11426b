/**
 * The shared pieces of the conformance corpus builders (corpus.ts): the fixture record, the
 * sentinels and wrong versions every family uses, byte helpers and {@link RootCorpus}, which builds
 * the fixtures of one wire document type. The families live in corpus-rules.ts (rules.json rules),
 * corpus-fields.ts (unknown members, presence, enums, value bounds) and corpus-json.ts (document
 * level JSON cases).
 */
import type { Field, Model, WireType } from "../../model/model.js";
import {
  baseObject,
  concretePointer,
  editDocument,
  slug,
  typeNamed,
  type JsonObject,
  type JsonValue,
} from "../../model/samples.js";

/** One fixture of a corpus before rendering: its file stem, expectation and document (data or exact bytes). */
export interface Fixture {
  readonly stem: string;
  readonly expect: "valid" | "invalid";
  readonly rule?: string;
  readonly pointer?: string;
  readonly description: string;
  readonly data?: JsonValue;
  readonly bytes?: Uint8Array;
}

/** Member names that are never wire fields (unknown-field cases). */
export const UNKNOWN_MEMBER = "unknown_field";
/** A number that never occurs in a sample document; replaced textually by a number lexeme. */
export const NUMBER_SENTINEL = 987654321012345;
/** A string that never occurs in a sample document; replaced textually by raw bytes. */
export const RAW_SENTINEL = "@@raw-sentinel@@";
/** Invalid wire versions that stay invalid whatever the current version is (literals on purpose: a version bump leaves them alone). */
export const WRONG_VERSIONS: readonly (readonly [string, string])[] = [
  ["older", "lifeloop.v0.2"],
  ["empty", ""],
  ["trailing-space", "lifeloop.v0.3 "],
  ["upper-case", "LIFELOOP.V0.3"],
];

/** `schema.max-length` → `schema-max-length` (the rule part of a fixture file name). */
export function ruleSlug(rule: string): string {
  return rule.replace(/\./g, "-");
}

/** A pointer as a file-name part (`root` for the document itself, array indexes dropped). */
export function whereSlug(pointer: string): string {
  return pointer === "" ? "root" : slug(pointer.replace(/\/0(?=\/|$)/g, ""));
}

/** The concatenated bytes of text (UTF-8) and byte parts. */
export function concat(...parts: (string | Uint8Array)[]): Uint8Array {
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
export function replaceOnce(text: string, needle: string, by: string | Uint8Array): Uint8Array {
  const first = text.indexOf(needle);
  if (first < 0 || text.indexOf(needle, first + 1) >= 0)
    throw new Error(`corpus: sentinel ${needle} must occur exactly once`);
  return concat(text.slice(0, first), by, text.slice(first + needle.length));
}

/** Builds the fixtures of one wire document type. */
export class RootCorpus {
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
    if (this.fixtures.some((x) => x.stem === f.stem))
      throw new Error(`corpus: duplicate fixture ${this.rootType} ${f.stem}`);
    this.fixtures.push(f);
  }

  /** Edit the object at `pattern`; a schema-level case must leave every rule satisfied. */
  edit(pattern: string, pinned: readonly string[], fn: (obj: JsonObject) => void): JsonObject {
    const edited = editDocument(this.model, this.rootType, this.base, pattern, pinned, fn);
    if (edited.conflicts.length > 0) {
      throw new Error(
        `corpus: ${this.rootType} ${pattern} [${pinned.join()}] breaks rule ${edited.conflicts[0]?.step.rule} at ${edited.conflicts[0]?.pointer}`,
      );
    }
    return edited.doc;
  }

  /** Edit expecting exactly one broken rule step of `rule`; returns the document and the step's pointer. */
  breakRule(
    rule: string,
    pattern: string,
    pinned: readonly string[],
    fn: (obj: JsonObject) => void,
  ): { doc: JsonObject; pointer: string } {
    const edited = editDocument(this.model, this.rootType, this.base, pattern, pinned, fn);
    const [only, ...more] = edited.conflicts;
    if (!only || more.length > 0 || only.step.rule !== rule) {
      throw new Error(
        `corpus: ${this.rootType} ${pattern}: expected exactly one ${rule} conflict, got ${edited.conflicts.map((c) => `${c.step.rule}@${c.pointer}`).join(", ") || "none"}`,
      );
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

/** The fields of a wire object type. */
export function fieldsOf(model: Model, typeName: string): readonly Field[] {
  return typeNamed(model, typeName).fields;
}

/** Human wording of a place in a root document (for fixture descriptions). */
export function describeWhere(rootType: string, pattern: string, field?: string): string {
  const p = concretePointer(pattern);
  return `${rootType}${p}${field ? `/${field}` : ""}`.replace(/^(\w+)\//, "$1 at /");
}
