/**
 * Classifier of disagreements with the reference crate: decides whether a document that we reject and
 * the reference accepts is explained by an entry of spec/tables/reference-differences.json
 * (REFERENCE_DIFFERENCES in generated/ts/spec.ts).
 *
 * An entry explains a disagreement when one of its `match` patterns matches our primary issue
 * (spec/meta/reference-differences.schema.json): `rule` equals the issue's rule id, and each optional
 * property that the pattern names equals the computed fact:
 * - `value_type`: the JSON type of the value at the issue's pointer in the parsed document
 *   (object, array, string, number, boolean, null; unknown when the document did not parse or the
 *   pointer names a missing member);
 * - `expected`: what the schema wants at the pointer (object, enum, string, integer, array; an open
 *   map counts as object; unknown outside the schema, e.g. inside an open map or at an unknown member);
 * - `inside_open_map`: the pointer lies strictly below an open map (OPEN_MAP_PATHS), i.e. the issue
 *   concerns a member or value inside metadata / telemetry_summary, not the map member itself.
 */
import { REFERENCE_DIFFERENCES, OPEN_MAP_PATHS, type WireObjectTypeName } from "../../generated/ts/spec.js";
import type { Model, Shape } from "../../codegen/model/model.js";
import type { ValidationIssue } from "../../runtime/wire/issues.js";

/** JSON type names as used by the `value_type` match property. */
export type JsonTypeName = "object" | "array" | "string" | "number" | "boolean" | "null";
/** Schema expectations as used by the `expected` match property. */
export type ExpectedKind = "object" | "enum" | "string" | "integer" | "array";

/** The facts a match pattern may test. */
export interface IssueFacts {
  readonly rule: string;
  readonly value_type?: JsonTypeName;
  readonly expected?: ExpectedKind;
  readonly inside_open_map: boolean;
}

interface MatchPattern {
  readonly rule: string;
  readonly value_type?: string;
  readonly expected?: string;
  readonly inside_open_map?: boolean;
}

function tokens(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function jsonType(value: unknown): JsonTypeName {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const t = typeof value;
  return t === "object" || t === "string" || t === "number" || t === "boolean" ? t : "null";
}

/** The JSON type of the value at `pointer` in `doc`, or undefined when it does not resolve. */
export function valueTypeAt(doc: unknown, pointer: string): JsonTypeName | undefined {
  let node: unknown = doc;
  for (const token of tokens(pointer)) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= node.length) return undefined;
      node = node[Number(token)];
    } else if (node !== null && typeof node === "object" && Object.hasOwn(node, token)) {
      node = (node as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return jsonType(node);
}

function kindOf(shape: Shape): ExpectedKind {
  switch (shape.kind) {
    case "string":
      return "string";
    case "integer":
      return "integer";
    case "enum":
      return "enum";
    case "object":
    case "open_object":
      return "object";
    case "array":
      return "array";
  }
}

/** The schema shape of `typeName` at `pointer` (undefined outside the schema's fields, e.g. inside an open map). */
export function shapeAt(model: Model, typeName: string, pointer: string): Shape | undefined {
  let shape: Shape = { kind: "object", typeName };
  for (const token of tokens(pointer)) {
    if (shape.kind === "array") {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      shape = shape.items;
    } else if (shape.kind === "object") {
      const name: string = shape.typeName;
      const field = model.types.find((t) => t.name === name)?.fields.find((f) => f.name === token);
      if (!field) return undefined;
      shape = field.shape;
    } else {
      return undefined;
    }
  }
  return shape;
}

/** What the schema of `typeName` expects at `pointer` (undefined outside the schema's fields). */
export function expectedAt(model: Model, typeName: string, pointer: string): ExpectedKind | undefined {
  const shape = shapeAt(model, typeName, pointer);
  return shape === undefined ? undefined : kindOf(shape);
}

function patternTokens(pattern: string): string[] {
  return pattern === "" ? [] : pattern.slice(1).split("/");
}

/** True when `pointer` lies strictly below one of the open maps of `typeName`. */
export function insideOpenMap(typeName: WireObjectTypeName, pointer: string): boolean {
  const t = tokens(pointer);
  return OPEN_MAP_PATHS[typeName].some((pattern) => {
    const p = patternTokens(pattern);
    if (t.length <= p.length) return false;
    return p.every((tok, i) => (tok === "*" ? /^(0|[1-9][0-9]*)$/.test(t[i] as string) : tok === t[i]));
  });
}

/** Compute the facts of our primary issue on a document (`parsed` is undefined when parsing failed). */
export function issueFacts(
  model: Model,
  typeName: WireObjectTypeName,
  parsed: { readonly value: unknown } | undefined,
  issue: ValidationIssue,
): IssueFacts {
  const valueType = parsed === undefined ? undefined : valueTypeAt(parsed.value, issue.pointer);
  const expected = expectedAt(model, typeName, issue.pointer);
  return {
    rule: issue.rule,
    ...(valueType !== undefined ? { value_type: valueType } : {}),
    ...(expected !== undefined ? { expected } : {}),
    inside_open_map: insideOpenMap(typeName, issue.pointer),
  };
}

function matches(pattern: MatchPattern, facts: IssueFacts): boolean {
  if (pattern.rule !== facts.rule) return false;
  if (pattern.value_type !== undefined && pattern.value_type !== facts.value_type) return false;
  if (pattern.expected !== undefined && pattern.expected !== facts.expected) return false;
  if (pattern.inside_open_map !== undefined && pattern.inside_open_map !== facts.inside_open_map) return false;
  return true;
}

/** The id of the first reference difference whose patterns match `facts`, or null when none does. */
export function explainingDifference(facts: IssueFacts): string | null {
  for (const difference of REFERENCE_DIFFERENCES) {
    if (difference.scope === "validation" && difference.match.some((p) => matches(p, facts))) return difference.id;
  }
  return null;
}
