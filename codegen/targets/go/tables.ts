/**
 * The spec tables in Go (spec_tables.go): every table without a hand-designed rendering becomes Go
 * struct types derived from its meta-schema plus a typed value; limits and rule ids become constants.
 */
import type { Model } from "../../model/model.js";
import type { GoShape as GoViewShape, GoViewModel } from "../../../generated/codegen/go/view-model.js";
import { goName, singular } from "./naming.js";

/** Tables with a hand-designed Go rendering in spec_tables.go.hbs; every other table is rendered generically. */
export const EXPLICIT_TABLES = new Set([
  "event-vocabulary",
  "failure-retry-defaults",
  "subprocess-failure-mapping",
  "limits",
  "document-rules",
]);

// structs (members in first-seen order), arrays slices, JSON null a pointer (or nil), mixed values `any`.
export type GoShape =
  | { readonly kind: "string" | "int" | "float" | "bool" | "any" }
  | { readonly kind: "slice"; readonly elem: GoShape }
  | { readonly kind: "struct"; readonly name: string; readonly fields: readonly GoStructField[] };

export interface GoStructField {
  readonly key: string;
  readonly goName: string;
  readonly shape: GoShape;
  readonly nullable: boolean;
}

/** The view of one generated table struct. */
export type GenericStruct = GoViewModel["genericTables"][number]["structs"][number];

export type SchemaNode = Readonly<Record<string, unknown>>;

/** The branches of a oneOf/anyOf (or the node itself), with JSON null split off. */
export function branches(node: SchemaNode): { readonly nonNull: readonly SchemaNode[]; readonly nullable: boolean } {
  const list = (node.oneOf ?? node.anyOf) as SchemaNode[] | undefined;
  if (list === undefined) {
    const types = Array.isArray(node.type) ? (node.type as string[]) : [node.type];
    if (types.includes("null") && types.length > 1)
      return { nonNull: [{ ...node, type: types.filter((t) => t !== "null")[0] }], nullable: true };
    const nullEnum = Array.isArray(node.enum) && (node.enum as unknown[]).includes(null);
    return { nonNull: [node], nullable: node.type === "null" || nullEnum };
  }
  const nonNull = list.filter((b) => b.type !== "null");
  return { nonNull, nullable: nonNull.length < list.length };
}

/** The JSON type of a schema node without a oneOf/anyOf: from `type`, else its `enum`/`const` values. */
export function jsonTypeOf(node: SchemaNode): string {
  if (typeof node.type === "string") return node.type;
  const values = (
    node.enum !== undefined ? (node.enum as unknown[]) : node.const !== undefined ? [node.const] : []
  ).filter((v) => v !== null);
  const kinds = new Set(
    values.map((v) =>
      v === null
        ? "null"
        : Array.isArray(v)
          ? "array"
          : typeof v === "number"
            ? Number.isInteger(v)
              ? "integer"
              : "number"
            : typeof v,
    ),
  );
  return kinds.size === 1 ? ([...kinds][0] as string) : "any";
}

/**
 * The Go shape of a table member from its meta-schema node: objects become structs (members in
 * `properties` order, merged across oneOf branches), arrays and same-typed tuples slices, a member
 * that is optional or admits null a pointer (see goTypeOf), anything else `any`.
 */
export function schemaShape(
  node: SchemaNode,
  name: string,
  structs: Map<string, GoShape & { kind: "struct" }>,
): GoShape {
  const { nonNull } = branches(node);
  if (nonNull.length === 0) return { kind: "any" };
  const kinds = new Set(nonNull.map(jsonTypeOf));
  if (kinds.size !== 1) return { kind: "any" };
  const kind = [...kinds][0];
  switch (kind) {
    case "string":
      return { kind: "string" };
    case "boolean":
      return { kind: "bool" };
    case "integer":
      return { kind: "int" };
    case "number":
      return { kind: "float" };
    case "array": {
      const items = nonNull.flatMap((b) =>
        Array.isArray(b.prefixItems)
          ? (b.prefixItems as SchemaNode[])
          : b.items !== undefined
            ? [b.items as SchemaNode]
            : [],
      );
      const elems = items.map((item) => schemaShape(item, singular(name), structs));
      const first = elems[0];
      if (first === undefined || elems.some((e) => JSON.stringify(e) !== JSON.stringify(first)))
        return { kind: "slice", elem: { kind: "any" } };
      return { kind: "slice", elem: first };
    }
    case "object": {
      const keys: string[] = [];
      const props = new Map<string, SchemaNode[]>();
      for (const b of nonNull) {
        for (const [key, sub] of Object.entries((b.properties ?? {}) as Record<string, SchemaNode>)) {
          if (!keys.includes(key)) keys.push(key);
          props.set(key, [...(props.get(key) ?? []), sub]);
        }
      }
      if (keys.length === 0) return { kind: "any" };
      const requiredEverywhere = (key: string): boolean =>
        nonNull.every((b) => ((b.required ?? []) as string[]).includes(key));
      const fields = keys.map((key): GoStructField => {
        const subs = props.get(key) as SchemaNode[];
        const merged: SchemaNode = subs.length === 1 ? (subs[0] as SchemaNode) : { oneOf: subs };
        const shape = schemaShape(merged, `${name}${goName(key)}`, structs);
        const nullable =
          (!requiredEverywhere(key) || subs.some((sub) => branches(sub).nullable)) &&
          shape.kind !== "slice" &&
          shape.kind !== "any";
        return { key, goName: goName(key), shape, nullable };
      });
      const names = new Set<string>();
      for (const f of fields) {
        if (names.has(f.goName)) throw new Error(`go target: table struct ${name} has two members named ${f.goName}`);
        names.add(f.goName);
      }
      if (structs.has(name)) throw new Error(`go target: two table structs named ${name}`);
      const struct = { kind: "struct" as const, name, fields };
      structs.set(name, struct);
      return struct;
    }
    default:
      return { kind: "any" };
  }
}

export function goTypeOf(shape: GoShape, nullable = false): string {
  const star = nullable ? "*" : "";
  switch (shape.kind) {
    case "string":
      return `${star}string`;
    case "int":
      return `${star}int64`;
    case "float":
      return `${star}float64`;
    case "bool":
      return `${star}bool`;
    case "any":
      return "any";
    case "slice":
      return `[]${goTypeOf(shape.elem)}`;
    case "struct":
      return `${star}${shape.name}`;
  }
}

/** `shape` as plain view-model data (mutable copies of its lists, as the generated view type has them). */
export function shapeData(shape: GoShape): GoViewShape {
  switch (shape.kind) {
    case "slice":
      return { kind: "slice", elem: shapeData(shape.elem) };
    case "struct":
      return {
        kind: "struct",
        name: shape.name,
        fields: shape.fields.map((f) => ({
          key: f.key,
          goName: f.goName,
          shape: shapeData(f.shape),
          nullable: f.nullable,
        })),
      };
    default:
      return { kind: shape.kind };
  }
}

export function tablePath(stem: string): string {
  return stem === "wire-version" ? "spec/wire-version.json" : `spec/tables/${stem}.json`;
}

/** The view of one table rendered generically: its struct types (from the meta-schema) and its value. */
export function genericTableView(
  stem: string,
  doc: Readonly<Record<string, unknown>>,
  meta: SchemaNode,
): GoViewModel["genericTables"][number] {
  const typeName = `Spec${goName(stem)}Table`;
  const structs = new Map<string, GoShape & { kind: "struct" }>();
  const { $schema: _schema, ...properties } = (meta.properties ?? {}) as Record<string, SchemaNode>;
  const root = schemaShape({ ...meta, properties }, typeName, structs);
  if (root.kind !== "struct") throw new Error(`go target: ${stem} is not an object`);
  const structViews: GenericStruct[] = [...structs.values()].map((s) => ({
    name: s.name,
    doc: s.name === typeName ? `the document ${tablePath(stem)}` : `one object of ${tablePath(stem)}`,
    fields: s.fields.map((f) => ({ goName: f.goName, key: f.key, goType: goTypeOf(f.shape, f.nullable) })),
  }));
  structViews.sort((a, b) => (a.name === typeName ? -1 : b.name === typeName ? 1 : 0));
  const assignments = root.fields
    .filter((f) => doc[f.key] !== undefined)
    .map((f) => {
      const value = doc[f.key];
      const multiline = f.shape.kind === "slice" && Array.isArray(value) && value.length > 0;
      return {
        goName: f.goName,
        multiline,
        goType: goTypeOf(f.shape, f.nullable),
        value,
        shape: shapeData(f.shape),
        nullable: f.nullable,
      };
    });
  return {
    stem,
    path: tablePath(stem),
    varName: `Spec${goName(stem)}`,
    typeName,
    funcName: `spec${goName(stem)}Value`,
    structs: structViews,
    assignments,
  };
}

/** A `Limit*` constant per row of spec/tables/limits.json. */
export function limitViews(model: Model): GoViewModel["limitConsts"] {
  return model.tables.limits.limits.map((l) => ({
    constName: `Limit${goName(l.name)}`,
    value: String(l.value),
    doc: `Limit${goName(l.name)} is limits.${l.name}: ${l.value} ${l.unit}. Applies to: ${l.applies_to}. On exceed: ${l.on_exceed}.`,
  }));
}

/** A `Rule*` constant per rule id (document rules, cross-field rules, then stream framing rules). */
export function ruleIdViews(model: Model): GoViewModel["ruleIds"] {
  const document = model.tables.documentRules.rules.map((r) => ({ id: r.id, summary: r.summary }));
  const cross = model.rules.map((r) => ({ id: r.id, summary: r.summary }));
  const stream = model.tables.streamV2.framing_rules.map((r) => ({ id: r.id, summary: r.summary }));
  return [...document, ...cross, ...stream].map((r) => ({
    constName: `Rule${goName(r.id)}`,
    id: r.id,
    summary: r.summary.replace(/\s+/g, " "),
  }));
}
