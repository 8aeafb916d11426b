/**
 * Acceptance-set comparison of two JSON Schemas (2020-12 or draft-07), for `lifeloop-callback diff`.
 *
 * Question answered, per wire type: is every instance valid under OLD valid under NEW (else the
 * change breaks *senders*: new receivers reject what old senders send) and is every instance valid
 * under NEW valid under OLD (else it breaks *receivers*)? A schema is treated as the conjunction of
 * independent units: `type`, `enum`/`const`, each bound, `pattern`, `required`, the object content
 * model (`properties` + `patternProperties` + `additionalProperties`/`unevaluatedProperties`), the
 * array positions (`prefixItems` + `items`), `contains`, and each combinator. If every unit of OLD
 * is a subset of the same unit of NEW, OLD is a subset of NEW; so comparing unit by unit, and
 * reporting a unit whose inclusion is not decided as a warning in both directions, can report a
 * breaking change where there is none (a false positive) but never report a breaking change as
 * compatible. `not` flips the direction; `oneOf`, a changed `if` and `unevaluatedProperties` next
 * to dynamic applicators are not monotone and are reported as schema-combinator-undecided.
 *
 * Rule ids are those of spec/tables/compat-rules.json. Locations are `<file>#<JSON pointer>` of
 * the NEW schema (of the OLD one for what exists only there).
 */
import { canonical, isObject, jsonEqual, MAX_JSON_DEPTH, token } from "./json.js";
import { TreeError } from "./tree.js";
import type { RawChange } from "./change.js";

/** A JSON Schema dialect this comparator understands. */
export type Dialect = "2020-12" | "draft-07";

/** One schema document of a side: its tree-relative file name (`""` for a lone document), its base URI and its JSON. */
export interface SchemaDocument {
  readonly file: string;
  readonly uri: string;
  readonly json: unknown;
  readonly dialect: Dialect;
}

/** Every schema document of one side, by base URI (a `$ref` resolves against these only). */
export class SchemaSide {
  private readonly byUri = new Map<string, SchemaDocument>();
  /** Embedded resources (a subschema with its own `$id`), by absolute URI: their document and pointer. */
  private readonly embedded = new Map<string, { readonly doc: SchemaDocument; readonly pointer: string }>();

  /** What a loader tried for a target URI it could not load (a file path and the reason), for the unresolved message. */
  private readonly tried = new Map<string, string>();

  /**
   * `aliases`: further base URIs naming a whole document (a `$ref` target found in the referencing
   * file's directory whose own `$id` differs); `tried`: target URI → what was tried for it.
   */
  constructor(docs: readonly SchemaDocument[], aliases: ReadonlyMap<string, SchemaDocument> = new Map(), tried: ReadonlyMap<string, string> = new Map()) {
    for (const doc of docs) this.byUri.set(stripFragment(doc.uri), doc);
    for (const [uri, doc] of aliases) if (!this.byUri.has(uri)) this.byUri.set(uri, doc);
    for (const doc of docs) this.indexEmbedded(doc);
    for (const [uri, note] of tried) this.tried.set(uri, note);
  }

  /** Why `ref` (at base URI `base`) does not resolve: the URI it names and what was tried for it. */
  unresolved(ref: string, base: string): string {
    let target: string;
    try {
      target = stripFragment(new URL(ref, base).href);
    } catch {
      return `cannot resolve ${ref}: not a URI reference (base ${base})`;
    }
    const note = this.tried.get(target);
    const loaded = this.byUri.has(target) || this.embedded.has(target);
    return `cannot resolve ${ref}: tried ${target}${loaded ? " (the document is loaded; the fragment names nothing there)" : note ? `, ${note}` : " (no loaded document has that URI)"}`;
  }

  /** Record every subschema below the root that has an `$id` (an embedded resource), iteratively. */
  private indexEmbedded(doc: SchemaDocument): void {
    const stack: { value: unknown; pointer: string; base: string }[] = [{ value: doc.json, pointer: "", base: stripFragment(doc.uri) }];
    while (stack.length > 0) {
      const { value, pointer, base } = stack.pop() as { value: unknown; pointer: string; base: string };
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) stack.push({ value: value[i], pointer: `${pointer}/${i}`, base });
        continue;
      }
      if (!isObject(value)) continue;
      let here = base;
      if (pointer !== "" && typeof value.$id === "string") {
        here = rebase(value.$id, base);
        if (!this.byUri.has(here) && !this.embedded.has(here)) this.embedded.set(here, { doc, pointer });
      }
      for (const [k, v] of Object.entries(value)) {
        // Instance data, not subschemas: an `$id` member there names nothing.
        if (k !== "enum" && k !== "const" && k !== "examples" && k !== "default") stack.push({ value: v, pointer: `${pointer}/${token(k)}`, base: here });
      }
    }
  }

  /**
   * The base URI a `$ref` at `node` resolves against: the document's, changed by every `$id` on the
   * way down to the node (embedded resources, JSON Schema 2020-12 §8.2.1).
   */
  baseOf(node: SchemaNode): string {
    let base = stripFragment(node.doc.uri);
    let value: unknown = node.doc.json;
    for (const raw of node.pointer === "" ? [] : node.pointer.slice(1).split("/")) {
      const name = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      value = Array.isArray(value) ? value[Number(name)] : isObject(value) ? value[name] : undefined;
      if (isObject(value) && typeof value.$id === "string") base = rebase(value.$id, base);
    }
    return base;
  }

  /** True when both sides hold the same documents (same base URIs, equal JSON). */
  sameAs(other: SchemaSide): boolean {
    if (this.byUri.size !== other.byUri.size) return false;
    for (const [uri, doc] of this.byUri) {
      const theirs = other.byUri.get(uri);
      if (!theirs || !jsonEqual(doc.json, theirs.json)) return false;
    }
    return true;
  }

  /** Resolve `ref` against `base`; null when the target is not among the documents. */
  resolve(ref: string, base: string): SchemaNode | null {
    let url: URL;
    try {
      url = new URL(ref, base);
    } catch {
      return null;
    }
    let fragment: string;
    try {
      fragment = decodeURIComponent(url.hash.slice(1));
    } catch {
      return null; // a malformed percent-escape names nothing
    }
    url.hash = "";
    const root = this.byUri.get(url.href);
    const resource = root ? { doc: root, pointer: "" } : this.embedded.get(url.href);
    if (!resource) return null;
    if (fragment !== "" && !fragment.startsWith("/")) return null; // plain-name anchors are not resolved
    let value: unknown = resource.doc.json;
    for (const raw of resource.pointer === "" ? [] : resource.pointer.slice(1).split("/")) {
      const name = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      value = Array.isArray(value) ? value[Number(name)] : (value as Obj)[name];
    }
    for (const raw of fragment === "" ? [] : fragment.slice(1).split("/")) {
      const name = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(value)) value = value[Number(name)];
      else if (isObject(value)) value = value[name];
      else return null;
      if (value === undefined) return null;
    }
    return { schema: value, doc: resource.doc, pointer: `${resource.pointer}${fragment}` };
  }
}

/** A schema at a place: the value, the document it lives in and its JSON pointer there. */
export interface SchemaNode {
  readonly schema: unknown;
  readonly doc: SchemaDocument;
  readonly pointer: string;
}

/** `$id` resolved against `base`, without a fragment; `base` itself when `$id` is not a URI reference. */
function rebase(id: string, base: string): string {
  try {
    return stripFragment(new URL(id, base).href);
  } catch {
    return base;
  }
}

/** `uri` without its `#fragment`. */
export function stripFragment(uri: string): string {
  const i = uri.indexOf("#");
  return i < 0 ? uri : uri.slice(0, i);
}

/** Keywords that only annotate (a change is doc-changed). `x-*` extension keywords count as annotations too. */
const ANNOTATIONS = new Set([
  "title", "description", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly",
  "$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$defs", "definitions",
  "contentMediaType", "contentEncoding", "contentSchema",
]);

/** Keywords whose meaning the comparator models (after draft-07 normalization). */
const MODELLED = new Set([
  "type", "enum", "const", "maxLength", "minLength", "maximum", "minimum", "maxItems", "minItems",
  "exclusiveMaximum", "exclusiveMinimum", "multipleOf", "maxProperties", "minProperties", "maxContains", "minContains",
  "uniqueItems", "pattern", "format", "required", "dependentRequired", "dependentSchemas",
  "properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames",
  "prefixItems", "items", "unevaluatedItems", "contains", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref",
]);

/** Dedicated rule pairs of the bound keywords: [rule when the value goes up, rule when it goes down]. */
const BOUNDS: readonly { kw: string; upper: boolean; absent: number; up: string; down: string }[] = [
  { kw: "maxLength", upper: true, absent: Infinity, up: "schema-max-length-increased", down: "schema-max-length-decreased" },
  { kw: "minLength", upper: false, absent: 0, up: "schema-min-length-increased", down: "schema-min-length-decreased" },
  { kw: "maximum", upper: true, absent: Infinity, up: "schema-maximum-increased", down: "schema-maximum-decreased" },
  { kw: "minimum", upper: false, absent: -Infinity, up: "schema-minimum-increased", down: "schema-minimum-decreased" },
  { kw: "maxItems", upper: true, absent: Infinity, up: "schema-max-items-increased", down: "schema-max-items-decreased" },
  { kw: "minItems", upper: false, absent: 0, up: "schema-min-items-increased", down: "schema-min-items-decreased" },
  { kw: "exclusiveMaximum", upper: true, absent: Infinity, up: "schema-constraint-widened", down: "schema-constraint-narrowed" },
  { kw: "exclusiveMinimum", upper: false, absent: -Infinity, up: "schema-constraint-narrowed", down: "schema-constraint-widened" },
  { kw: "maxProperties", upper: true, absent: Infinity, up: "schema-constraint-widened", down: "schema-constraint-narrowed" },
  { kw: "minProperties", upper: false, absent: 0, up: "schema-constraint-narrowed", down: "schema-constraint-widened" },
  { kw: "maxContains", upper: true, absent: Infinity, up: "schema-constraint-widened", down: "schema-constraint-narrowed" },
  { kw: "minContains", upper: false, absent: 1, up: "schema-constraint-narrowed", down: "schema-constraint-widened" },
];

/** Rules that break senders only / receivers only, for the flip under `not`. */
const SENDER_RULES = new Set([
  "schema-type-removed", "schema-enum-value-removed", "schema-max-length-decreased", "schema-min-length-increased",
  "schema-maximum-decreased", "schema-minimum-increased", "schema-max-items-decreased", "schema-min-items-increased",
  "schema-constraint-narrowed", "schema-pattern-added", "schema-property-removed-closed", "schema-property-added-open",
  "schema-additional-properties-closed", "schema-required-added", "schema-tuple-item-removed",
]);
const RECEIVER_RULES = new Set([
  "schema-type-added", "schema-enum-value-added", "schema-max-length-increased", "schema-min-length-decreased",
  "schema-maximum-increased", "schema-minimum-decreased", "schema-max-items-increased", "schema-min-items-decreased",
  "schema-constraint-widened", "schema-pattern-removed", "schema-property-added-closed", "schema-property-removed-open",
  "schema-additional-properties-opened", "schema-required-removed", "schema-tuple-item-added",
]);

/** JSON instance types, with `number` split so that `integer` is a part of it. */
const ALL_TYPES = ["null", "boolean", "object", "array", "string", "integer", "fraction"] as const;

type Obj = Record<string, unknown>;

/** What a member (a property name or an array position) accepts on one side. */
type Member = { readonly kind: "never" } | { readonly kind: "anything" } | { readonly kind: "schema"; readonly node: SchemaNode };

/**
 * Compare two sides. `roots` pairs the nodes to compare (one pair per wire type present on both
 * sides). Returns the raw changes found, in discovery order (dedupe with toChanges).
 */
export function compareSchemas(oldSide: SchemaSide, newSide: SchemaSide, roots: readonly [SchemaNode, SchemaNode][]): RawChange[] {
  const comparer = new Comparer(oldSide, newSide);
  for (const [o, n] of roots) comparer.compare(o, n, false);
  return comparer.out;
}

/** Normalize a draft-07 schema object to the 2020-12 spelling of the same meaning. */
function normalize(schema: Obj, dialect: Dialect): Obj {
  if (dialect !== "draft-07") return schema;
  if (typeof schema.$ref === "string") {
    // draft-07: a $ref ignores its siblings.
    return { $ref: schema.$ref };
  }
  const out: Obj = { ...schema };
  if (Array.isArray(schema.items)) {
    out.prefixItems = schema.items;
    delete out.items;
    if (schema.additionalItems !== undefined) out.items = schema.additionalItems;
  }
  delete out.additionalItems;
  if (isObject(schema.dependencies)) {
    const required: Obj = {};
    const schemas: Obj = {};
    for (const [k, v] of Object.entries(schema.dependencies)) {
      if (Array.isArray(v)) required[k] = v;
      else schemas[k] = v;
    }
    if (Object.keys(required).length > 0) out.dependentRequired = required;
    if (Object.keys(schemas).length > 0) out.dependentSchemas = schemas;
    delete out.dependencies;
  }
  return out;
}

function typeSet(schema: Obj): Set<string> {
  if (schema.type === undefined) return new Set(ALL_TYPES);
  const list = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const out = new Set<string>();
  for (const t of list) {
    if (t === "number") {
      out.add("integer");
      out.add("fraction");
    } else out.add(t);
  }
  return out;
}

function typeNames(set: Iterable<string>): string {
  return [...set].map((t) => (t === "fraction" ? "number (non-integer)" : t)).join(", ");
}

/** The set an enum/const admits, as canonical texts; null for no constraint. */
function valueSet(schema: Obj): Set<string> | null {
  let set: Set<string> | null = null;
  if (Array.isArray(schema.enum)) set = new Set(schema.enum.map(canonical));
  if ("const" in schema) {
    const c = canonical(schema.const);
    set = set === null ? new Set([c]) : new Set([...set].filter((v) => v === c));
  }
  return set;
}

function num(value: unknown, absent: number): number {
  return typeof value === "number" ? value : absent;
}

/** True when a schema accepts every instance (`true`, or only annotations). */
function acceptsAll(schema: unknown): boolean {
  if (schema === true) return true;
  if (!isObject(schema)) return false;
  return Object.keys(schema).every((k) => ANNOTATIONS.has(k) || k.startsWith("x-"));
}

class Comparer {
  readonly out: RawChange[] = [];
  private readonly seen = new Set<string>();

  /** `depth`: the compare levels already open around this comparer (a probe's parent's). */
  constructor(
    private readonly oldSide: SchemaSide,
    private readonly newSide: SchemaSide,
    private depth = 0,
  ) {}

  private sidesSame: boolean | undefined;

  /** Whether the two sides hold the same documents (computed once). */
  private sidesEqual(): boolean {
    this.sidesSame ??= this.oldSide.sameAs(this.newSide);
    return this.sidesSame;
  }

  private loc(node: SchemaNode, suffix = ""): string {
    return `${node.doc.file}#${node.pointer}${suffix}`;
  }

  private emit(rule: string, at: string, detail: string, negated: boolean): void {
    if (negated && SENDER_RULES.has(rule)) this.out.push({ rule: "schema-constraint-widened", location: at, detail: `under not: ${rule}: ${detail}` });
    else if (negated && RECEIVER_RULES.has(rule)) this.out.push({ rule: "schema-constraint-narrowed", location: at, detail: `under not: ${rule}: ${detail}` });
    else this.out.push({ rule, location: at, detail });
  }

  private child(node: SchemaNode, ...tokens: (string | number)[]): SchemaNode {
    let value: unknown = node.schema;
    for (const t of tokens) value = Array.isArray(value) ? value[Number(t)] : isObject(value) ? value[String(t)] : undefined;
    return { schema: value, doc: node.doc, pointer: `${node.pointer}${tokens.map((t) => `/${token(t)}`).join("")}` };
  }

  /** Follow `$ref`s that carry no assertions besides, so that a type and its inlined copy compare equal. */
  private deref(node: SchemaNode, side: SchemaSide, negated: boolean): SchemaNode | null {
    let current = node;
    for (let hops = 0; hops < 32; hops++) {
      if (!isObject(current.schema)) return current;
      const schema = normalize(current.schema, current.doc.dialect);
      if (typeof schema.$ref !== "string") return current;
      const siblings = Object.keys(schema).filter((k) => k !== "$ref" && !ANNOTATIONS.has(k) && !k.startsWith("x-"));
      if (siblings.length > 0) return current;
      const base = side.baseOf(current);
      const target = side.resolve(schema.$ref, base);
      if (!target) {
        this.emit("schema-ref-unresolved", this.loc(current, "/$ref"), side.unresolved(schema.$ref, base), negated);
        return null;
      }
      current = target;
    }
    this.emit("schema-ref-unresolved", this.loc(current), "more than 32 chained $ref hops", negated);
    return null;
  }

  /**
   * Compare two schema nodes; `negated` is true under an odd number of `not`s. Throws TreeError
   * (exit 3) past MAX_JSON_DEPTH open levels: a chain of `$ref`s nests as deep as the inline
   * nesting a file may not exceed, and would otherwise overflow the stack.
   */
  compare(oldNode: SchemaNode, newNode: SchemaNode, negated: boolean): void {
    if (this.depth >= MAX_JSON_DEPTH) {
      throw new TreeError(`the schemas nest deeper than ${MAX_JSON_DEPTH} levels through $ref (at ${this.loc(newNode)}), the bound a file's own nesting has`);
    }
    this.depth++;
    try {
      this.compareAt(oldNode, newNode, negated);
    } finally {
      this.depth--;
    }
  }

  private compareAt(oldNode: SchemaNode, newNode: SchemaNode, negated: boolean): void {
    const o0 = this.deref(oldNode, this.oldSide, negated);
    const n0 = this.deref(newNode, this.newSide, negated);
    if (!o0 || !n0) return;
    const key = `${o0.doc.uri}#${o0.pointer}|${n0.doc.uri}#${n0.pointer}|${negated}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const at = this.loc(n0);
    const os = o0.schema;
    const ns = n0.schema;
    if (typeof os === "boolean" || typeof ns === "boolean") {
      const oAll = acceptsAll(os);
      const nAll = acceptsAll(ns);
      if (os === false && ns === false) return;
      if (os === false) this.emit("schema-constraint-widened", at, "a `false` schema now accepts instances", negated);
      else if (ns === false) this.emit("schema-constraint-narrowed", at, "the schema became `false`", negated);
      else if (oAll && nAll) return;
      else {
        // true vs an object: compare as {} vs the object.
        this.compareObjects(
          { ...o0, schema: isObject(os) ? os : {} },
          { ...n0, schema: isObject(ns) ? ns : {} },
          negated,
        );
      }
      return;
    }
    if (!isObject(os) || !isObject(ns)) {
      if (!jsonEqual(os, ns)) this.emit("schema-keyword-changed", at, "a schema that is neither an object nor a boolean", negated);
      return;
    }
    this.compareObjects(o0, n0, negated);
  }

  private compareObjects(oNode: SchemaNode, nNode: SchemaNode, negated: boolean): void {
    const o = normalize(oNode.schema as Obj, oNode.doc.dialect);
    const n = normalize(nNode.schema as Obj, nNode.doc.dialect);
    const at = this.loc(nNode);
    const emit = (rule: string, suffix: string, detail: string): void => this.emit(rule, `${at}${suffix}`, detail, negated);

    // $ref with assertion siblings (2020-12): an in-place applicator, compared as a conjunct.
    if (typeof o.$ref === "string" || typeof n.$ref === "string") {
      if (typeof o.$ref === "string" && typeof n.$ref === "string") {
        const ob = this.oldSide.baseOf(oNode);
        const nb = this.newSide.baseOf(nNode);
        const ot = this.oldSide.resolve(o.$ref, ob);
        const nt = this.newSide.resolve(n.$ref, nb);
        if (!ot) emit("schema-ref-unresolved", "/$ref", `${this.oldSide.unresolved(o.$ref, ob)} (old)`);
        else if (!nt) emit("schema-ref-unresolved", "/$ref", this.newSide.unresolved(n.$ref, nb));
        else this.compare(ot, nt, negated);
      } else if (typeof n.$ref === "string") {
        emit("schema-constraint-narrowed", "/$ref", `a $ref (${n.$ref}) was added next to other keywords`);
      } else {
        emit("schema-constraint-widened", "/$ref", `a $ref (${String(o.$ref)}) was removed`);
      }
    }

    // $dynamicRef / $recursiveRef: the target depends on the dynamic scope, which is not modelled;
    // unless nothing on either side changed, what it accepts may have changed.
    for (const kw of ["$dynamicRef", "$recursiveRef"]) {
      if ((kw in o || kw in n) && !(jsonEqual(o[kw], n[kw]) && this.sidesEqual())) {
        emit("schema-keyword-changed", `/${token(kw)}`, `${kw}: its target depends on the dynamic scope, which this gate does not compare`);
      }
    }

    // type
    const ot = typeSet(o);
    const nt = typeSet(n);
    const typesRemoved = [...ot].filter((t) => !nt.has(t));
    const typesAdded = [...nt].filter((t) => !ot.has(t));
    if (typesRemoved.length > 0) emit("schema-type-removed", "/type", `no longer accepts ${typeNames(typesRemoved)}`);
    if (typesAdded.length > 0) emit("schema-type-added", "/type", `now accepts ${typeNames(typesAdded)}`);

    // enum / const
    const ov = valueSet(o);
    const nv = valueSet(n);
    if (ov !== null || nv !== null) {
      const suffix = "enum" in n || "enum" in o ? "/enum" : "/const";
      if (ov === null) emit("schema-enum-value-removed", suffix, "an enum/const constraint was introduced");
      else if (nv === null) emit("schema-enum-value-added", suffix, "the enum/const constraint was dropped");
      else {
        const removed = [...ov].filter((v) => !nv.has(v));
        const added = [...nv].filter((v) => !ov.has(v));
        for (const v of removed) emit("schema-enum-value-removed", `${suffix}/${token(v)}`, `value ${v} removed`);
        for (const v of added) emit("schema-enum-value-added", `${suffix}/${token(v)}`, `value ${v} added`);
      }
    }

    // bounds
    for (const b of BOUNDS) {
      const ob = num(o[b.kw], b.absent);
      const nb = num(n[b.kw], b.absent);
      if (nb > ob) emit(b.up, `/${b.kw}`, `${b.kw} ${fmt(ob)} → ${fmt(nb)}`);
      else if (nb < ob) emit(b.down, `/${b.kw}`, `${b.kw} ${fmt(ob)} → ${fmt(nb)}`);
    }
    this.compareMultipleOf(o, n, emit);
    if ((o.uniqueItems === true) !== (n.uniqueItems === true)) {
      emit(n.uniqueItems === true ? "schema-constraint-narrowed" : "schema-constraint-widened", "/uniqueItems", `uniqueItems ${String(o.uniqueItems === true)} → ${String(n.uniqueItems === true)}`);
    }

    // pattern, format
    for (const kw of ["pattern", "format"]) {
      if (o[kw] === n[kw]) continue;
      if (o[kw] === undefined) emit("schema-pattern-added", `/${kw}`, `${kw} ${JSON.stringify(n[kw])} introduced`);
      else if (n[kw] === undefined) emit("schema-pattern-removed", `/${kw}`, `${kw} ${JSON.stringify(o[kw])} dropped`);
      else emit("schema-pattern-changed", `/${kw}`, `${kw} ${JSON.stringify(o[kw])} → ${JSON.stringify(n[kw])}`);
    }

    // required, dependentRequired
    const oreq = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
    const nreq = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
    for (const name of nreq) if (!oreq.has(name)) emit("schema-required-added", `/required/${token(name)}`, `${name} became required`);
    for (const name of oreq) if (!nreq.has(name)) emit("schema-required-removed", `/required/${token(name)}`, `${name} is no longer required`);
    const odr = isObject(o.dependentRequired) ? o.dependentRequired : {};
    const ndr = isObject(n.dependentRequired) ? n.dependentRequired : {};
    for (const key of new Set([...Object.keys(odr), ...Object.keys(ndr)])) {
      const a = new Set((odr[key] as string[] | undefined) ?? []);
      const b = new Set((ndr[key] as string[] | undefined) ?? []);
      if ([...b].some((x) => !a.has(x))) emit("schema-constraint-narrowed", `/dependentRequired/${token(key)}`, `more members required when ${key} is present`);
      if ([...a].some((x) => !b.has(x))) emit("schema-constraint-widened", `/dependentRequired/${token(key)}`, `fewer members required when ${key} is present`);
    }

    this.compareContentModel(oNode, nNode, o, n, negated);
    this.compareArrays(oNode, nNode, o, n, negated);
    this.compareCombinators(oNode, nNode, o, n, negated);

    // everything else: annotations are doc changes, unknown keywords are undecided
    for (const kw of new Set([...Object.keys(o), ...Object.keys(n)])) {
      if (MODELLED.has(kw) || jsonEqual(o[kw], n[kw])) continue;
      if (kw === "title" && oNode.pointer === "" && nNode.pointer === "" && oNode.doc.file !== "") {
        // A wire type's title names its generated SDK types.
        emit("source-type-renamed", "/title", `${JSON.stringify(o.title)} → ${JSON.stringify(n.title)}`);
      } else if (ANNOTATIONS.has(kw) || kw.startsWith("x-")) {
        if (kw !== "$defs" && kw !== "definitions" && kw !== "$id" && kw !== "$schema") emit("doc-changed", `/${token(kw)}`, `${kw} changed`);
      } else emit("schema-keyword-changed", `/${token(kw)}`, `keyword ${kw} changed and is not modelled`);
    }
  }

  private compareMultipleOf(o: Obj, n: Obj, emit: (rule: string, suffix: string, detail: string) => void): void {
    const a = typeof o.multipleOf === "number" ? o.multipleOf : undefined;
    const b = typeof n.multipleOf === "number" ? n.multipleOf : undefined;
    if (a === b) return;
    const detail = `multipleOf ${String(a)} → ${String(b)}`;
    if (a === undefined) {
      emit("schema-constraint-narrowed", "/multipleOf", detail);
      return;
    }
    if (b === undefined) {
      emit("schema-constraint-widened", "/multipleOf", detail);
      return;
    }
    const divides = (x: number, y: number): boolean => Number.isInteger(x / y);
    // Multiples of a are multiples of b when b divides a (old ⊆ new); the converse when a divides b.
    if (!divides(a, b)) emit("schema-constraint-narrowed", "/multipleOf", detail);
    if (!divides(b, a)) emit("schema-constraint-widened", "/multipleOf", detail);
  }

  /**
   * The schema a concrete property name meets on one side (properties, else patterns, else the
   * rest). A pattern is only run against the name when that matters (the rest constrains) and
   * when {@link patternRunRefusal} finds its backtracking bounded; otherwise whether it covers the
   * name is undecided: a schema-pattern-properties-changed warning says why, and the name counts as
   * covered (the pattern schemas are compared as their own conjuncts).
   */
  private memberFor(node: SchemaNode, s: Obj, name: string, restKw: string, negated: boolean): Member {
    const props = isObject(s.properties) ? s.properties : {};
    if (Object.hasOwn(props, name)) return { kind: "schema", node: this.child(node, "properties", name) };
    const rest = this.rest(node, s, restKw);
    if (rest.kind === "anything") return rest; // covered by a pattern or not, the name may hold anything here
    const patterns = isObject(s.patternProperties) ? Object.keys(s.patternProperties) : [];
    for (const pattern of patterns) {
      const refusal = patternRunRefusal(pattern, name);
      if (refusal !== null) {
        this.emit("schema-pattern-properties-changed", `${this.loc(node)}/patternProperties/${token(pattern)}`, `whether this pattern covers property ${name} is not decided: ${refusal}`, negated);
        return { kind: "anything" };
      }
      if (safeTest(pattern, name)) return { kind: "anything" };
    }
    return rest;
  }

  private rest(node: SchemaNode, s: Obj, kw: string): Member {
    const value = s[kw];
    if (value === undefined || acceptsAll(value)) return { kind: "anything" };
    if (value === false) return { kind: "never" };
    return { kind: "schema", node: this.child(node, kw) };
  }

  private compareMember(o: Member, n: Member, at: string, negated: boolean, rules: { added: string; removed: string; addedOpen: string; removedOpen: string }, what: string): void {
    if (o.kind === "never" && n.kind === "never") return;
    if (o.kind === "never") {
      this.emit(rules.added, at, `${what} is now accepted`, negated);
      return;
    }
    if (n.kind === "never") {
      this.emit(rules.removed, at, `${what} is no longer accepted`, negated);
      return;
    }
    if (o.kind === "anything" && n.kind === "anything") return;
    if (o.kind === "anything" && n.kind === "schema") {
      if (!acceptsAll(n.node.schema)) this.emit(rules.addedOpen, at, `${what} is now constrained`, negated);
      return;
    }
    if (o.kind === "schema" && n.kind === "anything") {
      if (!acceptsAll(o.node.schema)) this.emit(rules.removedOpen, at, `${what} is no longer constrained`, negated);
      return;
    }
    if (o.kind === "schema" && n.kind === "schema") this.compare(o.node, n.node, negated);
  }

  private compareContentModel(oNode: SchemaNode, nNode: SchemaNode, o: Obj, n: Obj, negated: boolean): void {
    const keys = ["properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames"];
    if (!keys.some((k) => k in o || k in n)) return;
    const at = this.loc(nNode);
    // unevaluatedProperties next to dynamic applicators: what counts as evaluated depends on the instance.
    const dynamic = (s: Obj): boolean => ["allOf", "anyOf", "oneOf", "if", "dependentSchemas", "$ref", "not"].some((k) => k in s);
    const usesUnevaluated = "unevaluatedProperties" in o || "unevaluatedProperties" in n;
    if (usesUnevaluated && (dynamic(o) || dynamic(n)) && !this.sameReach(oNode, nNode, o, n)) {
      this.emit("schema-combinator-undecided", `${at}/unevaluatedProperties`, "unevaluatedProperties next to applicators whose evaluated members depend on the instance", negated);
    }
    const restKw = (s: Obj): string => ("additionalProperties" in s ? "additionalProperties" : "unevaluatedProperties");
    const oprops = isObject(o.properties) ? Object.keys(o.properties) : [];
    const nprops = isObject(n.properties) ? Object.keys(n.properties) : [];
    const propertyRules = {
      added: "schema-property-added-closed",
      removed: "schema-property-removed-closed",
      addedOpen: "schema-property-added-open",
      removedOpen: "schema-property-removed-open",
    };
    // Sets, not Array.includes: a closed object with 10^5 properties must not take quadratic time.
    const oset = new Set(oprops);
    const nset = new Set(nprops);
    for (const name of new Set([...oprops, ...nprops])) {
      const om = this.memberFor(oNode, o, name, restKw(o), negated);
      const nm = this.memberFor(nNode, n, name, restKw(n), negated);
      const where = nset.has(name) || !oset.has(name) ? `${at}/properties/${token(name)}` : `${this.loc(oNode)}/properties/${token(name)}`;
      this.compareMember(om, nm, where, negated, propertyRules, `property ${name}`);
    }
    // pattern schemas: compared pairwise when the pattern sets agree, else undecided.
    const opat = isObject(o.patternProperties) ? o.patternProperties : {};
    const npat = isObject(n.patternProperties) ? n.patternProperties : {};
    const samePatterns = jsonEqual(Object.keys(opat).sort(), Object.keys(npat).sort());
    if (!samePatterns) this.emit("schema-pattern-properties-changed", `${at}/patternProperties`, "the set of patterns changed", negated);
    else for (const p of Object.keys(npat)) this.compare(this.child(oNode, "patternProperties", p), this.child(nNode, "patternProperties", p), negated);
    // the rest: names in no properties and no pattern
    const orest = this.rest(oNode, o, restKw(o));
    const nrest = this.rest(nNode, n, restKw(n));
    this.compareMember(orest, nrest, `${at}/${restKw(n)}`, negated, {
      added: "schema-additional-properties-opened",
      removed: "schema-additional-properties-closed",
      addedOpen: "schema-additional-properties-closed",
      removedOpen: "schema-additional-properties-opened",
    }, "members not listed in properties");
    // propertyNames: a conjunct over every name (absent = any name)
    if ("propertyNames" in o || "propertyNames" in n) {
      const on = "propertyNames" in o ? this.child(oNode, "propertyNames") : { ...oNode, schema: true };
      const nn = "propertyNames" in n ? this.child(nNode, "propertyNames") : { ...nNode, schema: true, pointer: `${nNode.pointer}/propertyNames` };
      this.compare(on, nn, negated);
    }
  }

  /**
   * True when two schemas are equal JSON and so is every schema their `$ref`s reach (transitively):
   * then keywords that depend on what the applicators evaluate (`unevaluated*`) mean the same on both sides.
   */
  private sameReach(oNode: SchemaNode, nNode: SchemaNode, o: Obj, n: Obj): boolean {
    return jsonEqual(o, n) && jsonEqual(refClosure(oNode, this.oldSide), refClosure(nNode, this.newSide));
  }

  private compareArrays(oNode: SchemaNode, nNode: SchemaNode, o: Obj, n: Obj, negated: boolean): void {
    const at = this.loc(nNode);
    if ("prefixItems" in o || "prefixItems" in n || "items" in o || "items" in n || "unevaluatedItems" in o || "unevaluatedItems" in n) {
      if (!jsonEqual(o.unevaluatedItems, n.unevaluatedItems)) {
        this.emit("schema-combinator-undecided", `${at}/unevaluatedItems`, "unevaluatedItems changed", negated);
      } else if ("unevaluatedItems" in o && ["allOf", "anyOf", "oneOf", "if", "$ref", "not"].some((k) => k in o || k in n) && !this.sameReach(oNode, nNode, o, n)) {
        // Which positions count as evaluated depends on the applicators, which changed.
        this.emit("schema-combinator-undecided", `${at}/unevaluatedItems`, "unevaluatedItems next to applicators that changed", negated);
      }
      const olen = Array.isArray(o.prefixItems) ? o.prefixItems.length : 0;
      const nlen = Array.isArray(n.prefixItems) ? n.prefixItems.length : 0;
      const position = (node: SchemaNode, s: Obj, i: number, len: number): Member =>
        i < len ? (acceptsAll((s.prefixItems as unknown[])[i]) ? { kind: "anything" } : (s.prefixItems as unknown[])[i] === false ? { kind: "never" } : { kind: "schema", node: this.child(node, "prefixItems", i) }) : this.rest(node, s, itemsKw(s));
      const rules = { added: "schema-tuple-item-added", removed: "schema-tuple-item-removed", addedOpen: "schema-constraint-narrowed", removedOpen: "schema-constraint-widened" };
      for (let i = 0; i < Math.max(olen, nlen); i++) {
        this.compareMember(position(oNode, o, i, olen), position(nNode, n, i, nlen), `${at}/prefixItems/${i}`, negated, rules, `array position ${i}`);
      }
      this.compareMember(this.rest(oNode, o, itemsKw(o)), this.rest(nNode, n, itemsKw(n)), `${at}/${itemsKw(n)}`, negated, rules, "array items after the tuple");
    }
    if ("contains" in o || "contains" in n) {
      if (!("contains" in o)) this.emit("schema-constraint-narrowed", `${at}/contains`, "contains introduced", negated);
      else if (!("contains" in n)) this.emit("schema-constraint-widened", `${at}/contains`, "contains dropped", negated);
      else this.compare(this.child(oNode, "contains"), this.child(nNode, "contains"), negated);
    }
  }

  /** True when a fresh comparison of the oneOf branches finds any change other than documentation. */
  private branchesDiffer(oNode: SchemaNode, nNode: SchemaNode, olen: number, nlen: number): boolean {
    if (olen !== nlen) return true;
    const probe = new Comparer(this.oldSide, this.newSide, this.depth);
    for (let i = 0; i < olen; i++) probe.compare(this.child(oNode, "oneOf", i), this.child(nNode, "oneOf", i), false);
    return probe.out.some((c) => c.rule !== "doc-changed");
  }

  private compareCombinators(oNode: SchemaNode, nNode: SchemaNode, o: Obj, n: Obj, negated: boolean): void {
    const at = this.loc(nNode);
    // allOf: conjunction (an added branch narrows); anyOf/oneOf: disjunction (an added branch widens).
    for (const kw of ["allOf", "anyOf", "oneOf"] as const) {
      const a = Array.isArray(o[kw]) ? (o[kw] as unknown[]) : [];
      const b = Array.isArray(n[kw]) ? (n[kw] as unknown[]) : [];
      if (a.length === 0 && b.length === 0) continue;
      const before = this.out.length;
      const conj = kw === "allOf";
      if (a.length === 0 || b.length === 0) {
        // introducing or dropping the whole keyword
        const narrowed = conj ? b.length > 0 : a.length > 0;
        this.emit(narrowed ? "schema-constraint-narrowed" : "schema-constraint-widened", `${at}/${kw}`, `${kw} ${b.length > 0 ? "introduced" : "dropped"}`, negated);
      } else {
        for (let i = 0; i < Math.min(a.length, b.length); i++) this.compare(this.child(oNode, kw, i), this.child(nNode, kw, i), negated);
        for (let i = a.length; i < b.length; i++) this.emit(conj ? "schema-constraint-narrowed" : "schema-constraint-widened", `${at}/${kw}/${i}`, `${kw} branch ${i} added`, negated);
        for (let i = b.length; i < a.length; i++) this.emit(conj ? "schema-constraint-widened" : "schema-constraint-narrowed", `${this.loc(oNode)}/${kw}/${i}`, `${kw} branch ${i} removed`, negated);
      }
      // A branch pair already compared elsewhere emits nothing here (it is visited once), so a fresh
      // probe says whether the branches differ at all.
      if (kw === "oneOf" && (this.out.length > before || this.branchesDiffer(oNode, nNode, a.length, b.length))) {
        this.emit("schema-combinator-undecided", `${at}/oneOf`, "a oneOf changed: widening one branch can make a document match two", negated);
      }
    }
    if ("not" in o || "not" in n) {
      if (!("not" in o)) this.emit("schema-constraint-narrowed", `${at}/not`, "not introduced", negated);
      else if (!("not" in n)) this.emit("schema-constraint-widened", `${at}/not`, "not dropped", negated);
      else this.compare(this.child(oNode, "not"), this.child(nNode, "not"), !negated);
    }
    if ("if" in o || "if" in n) {
      const probe = new Comparer(this.oldSide, this.newSide, this.depth);
      const oif = "if" in o ? this.child(oNode, "if") : { ...oNode, schema: true };
      const nif = "if" in n ? this.child(nNode, "if") : { ...nNode, schema: true };
      probe.compare(oif, nif, false);
      if (probe.out.some((c) => c.rule !== "doc-changed")) {
        this.emit("schema-combinator-undecided", `${at}/if`, "the if condition changed", negated);
      }
      for (const kw of ["then", "else"]) {
        const on = kw in o ? this.child(oNode, kw) : { ...oNode, schema: true, pointer: `${oNode.pointer}/${kw}` };
        const nn = kw in n ? this.child(nNode, kw) : { ...nNode, schema: true, pointer: `${nNode.pointer}/${kw}` };
        this.compare(on, nn, negated);
      }
    }
    const ods = isObject(o.dependentSchemas) ? o.dependentSchemas : {};
    const nds = isObject(n.dependentSchemas) ? n.dependentSchemas : {};
    for (const key of new Set([...Object.keys(ods), ...Object.keys(nds)])) {
      // "if key is present, S": monotone in S.
      if (!(key in ods)) this.emit("schema-constraint-narrowed", `${at}/dependentSchemas/${token(key)}`, `dependent schema of ${key} introduced`, negated);
      else if (!(key in nds)) this.emit("schema-constraint-widened", `${at}/dependentSchemas/${token(key)}`, `dependent schema of ${key} dropped`, negated);
      else this.compare(this.child(oNode, "dependentSchemas", key), this.child(nNode, "dependentSchemas", key), negated);
    }
  }
}

/** The keyword that governs array positions after `prefixItems`: `items`, else (no dynamic applicators) `unevaluatedItems`. */
function itemsKw(s: Obj): string {
  return "items" in s ? "items" : "unevaluatedItems";
}

/** Most schemas {@link refClosure} visits before it gives up (a huge reach counts as changed). */
const MAX_REACH = 10_000;

/**
 * Every schema reachable from `node` through `$ref`s, as `ref → canonical JSON` texts in discovery
 * order (`unresolved` for a dangling one). Cycles end at schemas already visited.
 */
function refClosure(node: SchemaNode, side: SchemaSide): string[] {
  const out: string[] = [];
  const visited = new Set<string>();
  const queue: SchemaNode[] = [node];
  while (queue.length > 0) {
    const current = queue.shift() as SchemaNode;
    const walk = (value: unknown, base: string, top: boolean): void => {
      if (Array.isArray(value)) {
        for (const v of value) walk(v, base, false);
      }
      else if (isObject(value)) {
        if (!top && typeof value.$id === "string") base = rebase(value.$id, base);
        if (typeof value.$ref === "string") {
          const target = side.resolve(value.$ref, base);
          const key = target ? `${target.doc.uri}#${target.pointer}` : `unresolved ${value.$ref}`;
          out.push(`${value.$ref} → ${target ? canonical(target.schema) : "unresolved"}`);
          if (target && !visited.has(key)) {
            visited.add(key);
            queue.push(target);
          }
        }
        for (const v of Object.values(value)) walk(v, base, false);
      }
    };
    walk(current.schema, side.baseOf(current), true);
    if (visited.size > MAX_REACH) return [...out, "too many schemas"];
  }
  return out;
}

function fmt(n: number): string {
  return Number.isFinite(n) ? String(n) : n > 0 ? "unbounded" : "unbounded below";
}

/** Longest property name a pattern is run against (characters; see {@link patternRunRefusal}). */
export const MAX_PATTERN_NAME_LENGTH = 256;

/** Most repeating quantifiers a pattern that is run may hold (see {@link patternRunRefusal}). */
export const MAX_PATTERN_QUANTIFIERS = 3;

/** The head of a group that is not a plain capturing one (sticky: matched at lastIndex only). */
const GROUP_KIND = /\(\?(:|=|!|<=|<!|<[^>]*>)/y;

/** A braced quantifier `{n}`, `{n,}` or `{n,m}` (sticky). */
const BRACES = /\{\d+(,\d*)?\}/y;

/**
 * Why `pattern` is not run against `name` by JavaScript's backtracking engine, or null when its
 * work is bounded (spec/README.md, "How `diff` bounds hostile schemas"). A pattern is run only
 * when, read as ECMA-262 source: no repeating quantifier (`*`, `+`, `{n}`, `{n,}`, `{n,m}`; not
 * `?`) applies to a group that holds a quantifier or an alternation (nested quantifiers and
 * repeated alternations, the sources of exponential backtracking: `^(a+)+$`, `(a|a)*`); it holds
 * no backreference (matching with them is NP-hard) and at most MAX_PATTERN_QUANTIFIERS repeating
 * quantifiers; and `name` has at most MAX_PATTERN_NAME_LENGTH characters. Then backtracking is
 * polynomial of degree at most 3 in a short name: at most a few million steps.
 * A conservative, syntactic check: it refuses some patterns that would run fast.
 */
export function patternRunRefusal(pattern: string, name: string): string | null {
  if ([...name].length > MAX_PATTERN_NAME_LENGTH) return `the name is longer than ${MAX_PATTERN_NAME_LENGTH} characters`;
  // One frame per open group: whether it holds a quantifier or an alternation so far.
  const groups: { inner: boolean }[] = [{ inner: false }];
  let lastAtomWasGroup: { inner: boolean } | null = null;
  let unbounded = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    const top = groups[groups.length - 1] as { inner: boolean };
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && pattern[i + 2] === "<")) return "it holds a backreference";
      i++;
      lastAtomWasGroup = null;
      continue;
    }
    if (c === "[") {
      // A character class: one atom; `]` right after `[` or `[^` is a literal in non-u patterns, an error with u.
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
      lastAtomWasGroup = null;
      continue;
    }
    if (c === "(") {
      groups.push({ inner: false });
      // (?:, (?=, (?!, (?<=, (?<!, (?<name>: the group's kind, not a quantifier.
      GROUP_KIND.lastIndex = i;
      const kind = GROUP_KIND.exec(pattern);
      if (kind !== null) i += kind[0].length - 1;
      lastAtomWasGroup = null;
      continue;
    }
    if (c === ")") {
      const closed = groups.length > 1 ? (groups.pop() as { inner: boolean }) : { inner: false };
      lastAtomWasGroup = closed;
      // What a group holds, its enclosing group holds too.
      if (closed.inner) (groups[groups.length - 1] as { inner: boolean }).inner = true;
      continue;
    }
    if (c === "|") {
      top.inner = true;
      lastAtomWasGroup = null;
      continue;
    }
    BRACES.lastIndex = i;
    const braces = c === "{" ? BRACES.exec(pattern) : null;
    if (c === "*" || c === "+" || c === "?" || braces !== null) {
      // Every quantifier but `?` repeats its atom; `{n}` and `{n,m}` count as unbounded (m may be huge).
      if (c !== "?") {
        unbounded++;
        if (lastAtomWasGroup?.inner) return "a quantifier repeats a group that holds a quantifier or an alternation (nested quantifiers: exponential backtracking)";
      }
      top.inner = true;
      if (braces !== null) i += braces[0].length - 1;
      if (pattern[i + 1] === "?") i++; // lazy
      lastAtomWasGroup = null;
      continue;
    }
    lastAtomWasGroup = null;
  }
  if (unbounded > MAX_PATTERN_QUANTIFIERS) return `it holds more than ${MAX_PATTERN_QUANTIFIERS} repeating quantifiers (polynomial backtracking of a higher degree)`;
  return null;
}

function safeTest(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern, "u").test(name);
  } catch {
    return false;
  }
}
