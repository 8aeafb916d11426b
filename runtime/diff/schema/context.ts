/**
 * What every keyword family of the schema comparison shares: the {@link Comparison} it reports to
 * and recurses through (implemented by compare.ts), the member model, the annotation keywords and
 * draft-07 normalization.
 *
 * @module
 */
import { isObject } from "../json.js";
import type { CompatRuleId, RawChange } from "../change.js";
import type { Dialect, SchemaNode, SchemaSide } from "./side.js";

/** A schema object. */
export type Obj = Record<string, unknown>;

/** What a member (a property name or an array position) accepts on one side. */
export type Member =
  | { readonly kind: "never" }
  | { readonly kind: "anything" }
  | { readonly kind: "schema"; readonly node: SchemaNode };

/** Reports a change at the current schema's location plus `suffix` (a family's view of {@link Comparison.emit}). */
export type Emit = (rule: CompatRuleId, suffix: string, detail: string) => void;

/** One comparison in progress: the sides, the changes found so far, and the recursion into subschemas. */
export interface Comparison {
  readonly out: RawChange[];
  readonly oldSide: SchemaSide;
  readonly newSide: SchemaSide;
  /** `<file>#<pointer><suffix>` of a node. */
  loc(node: SchemaNode, suffix?: string): string;
  /** Reports a change; under `not` (negated) sender and receiver rules flip. */
  emit(rule: CompatRuleId, at: string, detail: string, negated: boolean): void;
  /** The subschema of `node` at the given tokens. */
  child(node: SchemaNode, ...tokens: (string | number)[]): SchemaNode;
  /** Compares two schema nodes (recursing). */
  compare(oldNode: SchemaNode, newNode: SchemaNode, negated: boolean): void;
  /** A fresh comparison of the same sides at the same depth, whose changes are only inspected. */
  probe(): Comparison;
  /** Whether the two sides hold the same documents. */
  sidesEqual(): boolean;
}

/** Keywords that only annotate (a change is doc-changed). `x-*` extension keywords count as annotations too. */
export const ANNOTATIONS = new Set([
  "title",
  "description",
  "$comment",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$schema",
  "$id",
  "$anchor",
  "$dynamicAnchor",
  "$vocabulary",
  "$defs",
  "definitions",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
]);

/** True when a schema accepts every instance (`true`, or only annotations). */
export function acceptsAll(schema: unknown): boolean {
  if (schema === true) return true;
  if (!isObject(schema)) return false;
  return Object.keys(schema).every((k) => ANNOTATIONS.has(k) || k.startsWith("x-"));
}

/** Normalize a draft-07 schema object to the 2020-12 spelling of the same meaning. */
export function normalize(schema: Obj, dialect: Dialect): Obj {
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
