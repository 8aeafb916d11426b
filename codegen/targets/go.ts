/**
 * Target: `generated/go/`, the Go client SDK (module `lifeloop-callback.dev/lifeloop`, package
 * `lifeloop`, standard library only), rendered from `sdk-templates/go/*.hbs`.
 *
 * The target builds one view model from the {@link Model}, validates it against its closed JSON Schema
 * (`sdk-templates/go/view-model.schema.json`, because handlebars' strict mode does not catch every
 * missing or misspelt member) and renders every template with it. Templates produce gofmt-clean
 * text: no Go tool is needed at generate time (the Go test suite asserts `gofmt -l` is empty).
 *
 * Errors: throws when the model holds something the Go SDK cannot express yet (a rule check the
 * interpreter in validate.go does not implement, a nested array, a command result member without a
 * known Go type), naming what to extend.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { CommandGroup, Field, Model, RuleStep, Shape, WireType } from "../model/model.js";
import { finalNewline, markdownBanner, slashBanner, type OutputFile } from "../emit/output.js";
import { wrapWords } from "../emit/text.js";
import { copyRuntimeSources } from "./sdk-runtime.js";
import { hookExample, hookMapping, runnerOutcomeBullets, runnerOutcomes, runnerOutcomeTable, runnerVariants } from "./sdk-shared.js";

/** handlebars is CommonJS (`export =`); loaded through require so the import type-checks without esModuleInterop. */
const Handlebars = createRequire(import.meta.url)("handlebars") as typeof import("handlebars");

/** Go module path and package name of the SDK. */
export const GO_MODULE = "lifeloop-callback.dev/lifeloop";
const GO_PACKAGE = "lifeloop";
const GO_VERSION = "1.22";
const OUT_DIR = "generated/go";
const TEMPLATE_DIR = "sdk-templates/go";

/**
 * Template file (under sdk-templates/go/) → output path (under generated/go/). The hand-written
 * files (strict JSON, validation, runner and their tests) are plain sources in sdk-runtime/go/,
 * copied verbatim (see sdk-runtime.ts).
 */
const TEMPLATES: readonly (readonly [string, string])[] = [
  ["go.mod.hbs", "go.mod"],
  ["doc.go.hbs", "doc.go"],
  ["README.md.hbs", "README.md"],
  ["wire_types.go.hbs", "wire_types.go"],
  ["wire_meta.go.hbs", "wire_meta.go"],
  ["spec_tables.go.hbs", "spec_tables.go"],
  ["runner_outcomes.go.hbs", "runner_outcomes.go"],
  ["commands.go.hbs", "commands.go"],
  ["hooks.go.hbs", "hooks.go"],
  ["generated_test.go.hbs", "generated_test.go"],
];

/** Rule checks the interpreter in sdk-runtime/go/validate.go implements, with their Go constants. */
const RULE_CHECKS: Readonly<Record<string, string>> = {
  equals_wire_version: "checkEqualsWireVersion",
  non_empty_string: "checkNonEmptyString",
  required_when: "checkRequiredWhen",
  forbidden_when: "checkForbiddenWhen",
  forbidden_value: "checkForbiddenValue",
  exactly_one_present: "checkExactlyOnePresent",
  utf8_byte_length_equals: "checkUTF8ByteLengthEquals",
  non_empty_array: "checkNonEmptyArray",
};

/** Tables with a hand-designed Go rendering in spec_tables.go.hbs; every other table is rendered generically. */
const EXPLICIT_TABLES = new Set(["event-vocabulary", "failure-retry-defaults", "subprocess-failure-mapping", "limits", "document-rules"]);

/** Go type and reader of each member type of spec/tables/client-initiated-commands.json `members`. */
const MEMBER_GO_TYPES = {
  string: { goType: "string", read: "string" },
  unsigned_integer: { goType: "uint64", read: "uint" },
  nullable_unsigned_integer: { goType: "*uint64", read: "optUint" },
} as const;

/** Go initialisms used when turning wire names into identifiers. */
const INITIALISMS: Readonly<Record<string, string>> = {
  id: "ID",
  ids: "IDs",
  ttl: "TTL",
  json: "JSON",
  utf8: "UTF8",
  url: "URL",
  uri: "URI",
  http: "HTTP",
  cli: "CLI",
  bom: "BOM",
};

// ---------------------------------------------------------------------------
// Naming and literals

/** `event_id` → `EventID`, `session.starting` → `SessionStarting`, `max-bytes` → `MaxBytes`. */
export function goName(wire: string): string {
  return wire
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => INITIALISMS[part.toLowerCase()] ?? part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

const GO_KEYWORDS = new Set("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var".split(" "));

/** lowerCamel Go name for parameters: `--thread` → `thread`, `--client-id` → `clientID` (`--type` → `typeValue`). */
function paramName(wire: string): string {
  const pascal = goName(wire);
  const lead = /^[A-Z]+(?![a-z])/.exec(pascal)?.[0] ?? pascal.charAt(0);
  const name = lead.toLowerCase() + pascal.slice(lead.length);
  return GO_KEYWORDS.has(name) || ["ctx", "blob", "opts", "args", "result", "out", "err", "r", "c"].includes(name) ? `${name}Value` : name;
}

/** A Go interpreted string literal (JSON string syntax is valid Go for every string in our sources). */
function goString(value: string): string {
  return JSON.stringify(value);
}

function singular(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/ses$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word) && !/ss$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Split prose into comment lines of at most `width` characters (words are never broken). */
function wrap(text: string, width = 96): string[] {
  return wrapWords(text, width, false);
}

// ---------------------------------------------------------------------------
// Wire types

const PRESENCE_DOC: Readonly<Record<Field["presence"], string>> = {
  required: "Presence: required.",
  required_nullable: "Presence: required_nullable (nil is written as null).",
  optional: "Presence: optional (nil when absent or null; omitted when nil).",
  optional_emit_null: "Presence: optional_emit_null (nil when absent or null; written as null when nil).",
  collection: "Presence: collection (nil when absent; omitted when empty).",
};

interface ShapeCodec {
  readonly goType: string;
  readonly decode: string;
  readonly encode: string;
}

function itemCodec(shape: Shape, where: string): ShapeCodec {
  switch (shape.kind) {
    case "string":
      return { goType: "string", decode: "nodeString", encode: "stringNode" };
    case "integer":
      return { goType: "int64", decode: "nodeInt", encode: "intNode" };
    case "enum":
      return { goType: shape.enumName, decode: `nodeEnum[${shape.enumName}]`, encode: `enumNode[${shape.enumName}]` };
    case "object":
      return { goType: shape.typeName, decode: `decode${shape.typeName}`, encode: `${shape.typeName}.toNode` };
    case "open_object":
      return { goType: "map[string]any", decode: "nodeMap", encode: "mapNode" };
    case "array":
      throw new Error(`go target: nested arrays are not supported (${where}); extend codegen/targets/go.ts itemCodec`);
  }
}

function shapeLiteral(shape: Shape, model: Model): string {
  switch (shape.kind) {
    case "string":
      return `shape{kind: shapeString, maxLength: ${shape.maxLength}}`;
    case "integer":
      return `shape{kind: shapeInteger, minimum: ${shape.minimum}, maximum: ${shape.maximum}}`;
    case "enum": {
      const e = model.enums.find((x) => x.name === shape.enumName);
      if (!e) throw new Error(`go target: unknown enum ${shape.enumName}`);
      return `shape{kind: shapeEnum, enumName: ${goString(e.name)}, enum: ${enumStringsVar(e.name)}}`;
    }
    case "object":
      return `shape{kind: shapeObject, typeName: ${goString(shape.typeName)}}`;
    case "open_object":
      return "shape{kind: shapeOpenObject}";
    case "array":
      return `shape{kind: shapeArray, maxItems: ${shape.maxItems}, items: &${shapeLiteral(shape.items, model)}}`;
  }
}

function enumStringsVar(enumName: string): string {
  return `enumStrings${enumName}`;
}

function fieldView(type: WireType, field: Field, model: Model): Record<string, unknown> {
  const where = `${type.name}.${field.name}`;
  const name = goName(field.name);
  const access = `v.${name}`;
  let goType: string;
  let decode: string;
  let encodeExpr: string;
  let encodeCondition = "";
  if (field.shape.kind === "array" || field.shape.kind === "open_object") {
    if (field.nullable || (field.presence !== "collection" && field.presence !== "required")) {
      throw new Error(`go target: ${where}: nullable or optional arrays/maps are not supported (presence ${field.presence})`);
    }
    if (field.shape.kind === "array") {
      const item = itemCodec(field.shape.items, where);
      goType = `[]${item.goType}`;
      decode = `decodeArray(m, ${item.decode})`;
      encodeExpr = `encodeArray(${access}, ${item.encode})`;
    } else {
      goType = "map[string]any";
      decode = "nodeMap(m)";
      encodeExpr = `mapNode(${access})`;
    }
    if (field.presence === "collection") encodeCondition = `len(${access}) > 0`;
  } else {
    const item = itemCodec(field.shape, where);
    if (field.presence === "required") {
      goType = item.goType;
      decode = `${item.decode}(m)`;
      encodeExpr = `${item.encode}(${access})`;
    } else {
      goType = `*${item.goType}`;
      decode = `optional(m, ${item.decode})`;
      if (field.presence === "optional") {
        encodeCondition = `${access} != nil`;
        encodeExpr = `${item.encode}(*${access})`;
      } else if (field.presence === "required_nullable" || field.presence === "optional_emit_null") {
        encodeExpr = `nullable(${access}, ${item.encode})`;
      } else {
        throw new Error(`go target: ${where}: presence ${field.presence} on a scalar`);
      }
    }
  }
  const metaLiteral = `{name: ${goString(field.name)}${field.nullable ? ", nullable: true" : ""}, shape: ${shapeLiteral(field.shape, model)}}`;
  return {
    goName: name,
    wireName: field.name,
    goType,
    docLines: wrap(`${name} is \`${field.name}\`: ${field.description} ${PRESENCE_DOC[field.presence]}`),
    decode,
    encodeExpr,
    encodeCondition,
    metaLiteral,
  };
}

function stepLiteral(step: RuleStep, wireVersion: string): string {
  const check = RULE_CHECKS[step.check];
  if (!check) {
    throw new Error(`go target: rule check ${JSON.stringify(step.check)} is not implemented by the Go interpreter; add it to sdk-runtime/go/validate.go and RULE_CHECKS`);
  }
  const tokens = step.at === "" ? [] : step.at.slice(1).split("/");
  const parts = [`rule: ${goString(step.rule)}`, `check: ${check}`];
  if (tokens.length > 0) parts.push(`at: []string{${tokens.map(goString).join(", ")}}`);
  if (step.field !== undefined) parts.push(`field: ${goString(step.field)}`);
  if (step.fields !== undefined) parts.push(`fields: []string{${step.fields.map(goString).join(", ")}}`);
  if (step.each) parts.push("each: true");
  if (step.lengthField !== undefined) parts.push(`lengthField: ${goString(step.lengthField)}`);
  if (step.when) {
    const notIn = step.when.op === "not_in" ? ", notIn: true" : "";
    parts.push(`when: &ruleCondition{field: ${goString(step.when.field)}${notIn}, values: []string{${step.when.values.map(goString).join(", ")}}}`);
  }
  if (step.values !== undefined) parts.push(`values: []string{${step.values.map(goString).join(", ")}}`);
  if (step.expected !== undefined) parts.push(`expected: ${goString(step.check === "equals_wire_version" ? wireVersion : step.expected)}`);
  parts.push(`message: ${goString(step.message)}`);
  return `{${parts.join(", ")}}`;
}

function typeView(type: WireType, model: Model): Record<string, unknown> {
  const required = ((type.schema.required as string[] | undefined) ?? []).map(goString);
  const steps = (model.rulePlans.get(type.name) ?? []).map((s) => stepLiteral(s, model.wireVersion.current));
  return {
    name: type.name,
    file: type.file,
    docLines: wrap(`${type.name} (schemas/${type.file}): ${type.description}`),
    fields: type.fields.map((f) => fieldView(type, f, model)),
    requiredLiteral: `[]string{${required.join(", ")}}`,
    metaVar: `meta${type.name}`,
    planVar: `rulePlan${type.name}`,
    steps,
  };
}

// ---------------------------------------------------------------------------
// Generic table rendering: any JSON table becomes Go struct types plus a typed value. Objects become
// structs (members in first-seen order), arrays slices, JSON null a pointer (or nil), mixed values `any`.

type GoShape =
  | { readonly kind: "string" | "int" | "float" | "bool" | "any" }
  | { readonly kind: "slice"; readonly elem: GoShape }
  | { readonly kind: "struct"; readonly name: string; readonly fields: readonly GoStructField[] };

interface GoStructField {
  readonly key: string;
  readonly goName: string;
  readonly shape: GoShape;
  readonly nullable: boolean;
}

interface GenericStruct {
  readonly name: string;
  readonly doc: string;
  readonly fields: readonly { readonly goName: string; readonly key: string; readonly goType: string }[];
}

type SchemaNode = Readonly<Record<string, unknown>>;

/** The branches of a oneOf/anyOf (or the node itself), with JSON null split off. */
function branches(node: SchemaNode): { readonly nonNull: readonly SchemaNode[]; readonly nullable: boolean } {
  const list = (node.oneOf ?? node.anyOf) as SchemaNode[] | undefined;
  if (list === undefined) {
    const types = Array.isArray(node.type) ? (node.type as string[]) : [node.type];
    if (types.includes("null") && types.length > 1) return { nonNull: [{ ...node, type: types.filter((t) => t !== "null")[0] }], nullable: true };
    const nullEnum = Array.isArray(node.enum) && (node.enum as unknown[]).includes(null);
    return { nonNull: [node], nullable: node.type === "null" || nullEnum };
  }
  const nonNull = list.filter((b) => b.type !== "null");
  return { nonNull, nullable: nonNull.length < list.length };
}

/** The JSON type of a schema node without a oneOf/anyOf: from `type`, else its `enum`/`const` values. */
function jsonTypeOf(node: SchemaNode): string {
  if (typeof node.type === "string") return node.type;
  const values = (node.enum !== undefined ? (node.enum as unknown[]) : node.const !== undefined ? [node.const] : []).filter((v) => v !== null);
  const kinds = new Set(values.map((v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v)));
  return kinds.size === 1 ? ([...kinds][0] as string) : "any";
}

/**
 * The Go shape of a table member from its meta-schema node: objects become structs (members in
 * `properties` order, merged across oneOf branches), arrays and same-typed tuples slices, a member
 * that is optional or admits null a pointer (see goTypeOf), anything else `any`.
 */
function schemaShape(node: SchemaNode, name: string, structs: Map<string, GoShape & { kind: "struct" }>): GoShape {
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
      const items = nonNull.flatMap((b) => (Array.isArray(b.prefixItems) ? (b.prefixItems as SchemaNode[]) : b.items !== undefined ? [b.items as SchemaNode] : []));
      const elems = items.map((item) => schemaShape(item, singular(name), structs));
      const first = elems[0];
      if (first === undefined || elems.some((e) => JSON.stringify(e) !== JSON.stringify(first))) return { kind: "slice", elem: { kind: "any" } };
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
      const requiredEverywhere = (key: string): boolean => nonNull.every((b) => ((b.required ?? []) as string[]).includes(key));
      const fields = keys.map((key): GoStructField => {
        const subs = props.get(key) as SchemaNode[];
        const merged: SchemaNode = subs.length === 1 ? (subs[0] as SchemaNode) : { oneOf: subs };
        const shape = schemaShape(merged, `${name}${goName(key)}`, structs);
        const nullable = (!requiredEverywhere(key) || subs.some((sub) => branches(sub).nullable)) && shape.kind !== "slice" && shape.kind !== "any";
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

function goTypeOf(shape: GoShape, nullable = false): string {
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

/**
 * A Go literal of `value` for a value of `shape` (single line). `elide` drops the type of a struct
 * or slice literal that is an element of a slice literal (Go infers it).
 */
function goLiteral(value: unknown, shape: GoShape, nullable = false, elide = false): string {
  if (value === null || value === undefined) {
    if (nullable || shape.kind === "any" || shape.kind === "slice" || shape.kind === "struct") return "nil";
    return shape.kind === "string" ? '""' : shape.kind === "bool" ? "false" : "0";
  }
  const inner = goLiteralValue(value, shape);
  if (elide && !nullable && (shape.kind === "struct" || shape.kind === "slice")) return inner.slice(inner.indexOf("{"));
  if (!nullable) return inner;
  return shape.kind === "struct" ? `&${inner}` : `ptrTo(${inner})`;
}

function goLiteralValue(value: unknown, shape: GoShape): string {
  switch (shape.kind) {
    case "string":
      return goString(String(value));
    case "int":
      return String(value);
    case "float":
      return Number.isInteger(value) ? `${String(value)}.0` : String(value);
    case "bool":
      return String(value);
    case "any":
      return anyLiteral(value);
    case "slice":
      return `${goTypeOf(shape)}{${(value as unknown[]).map((v) => goLiteral(v, shape.elem, false, true)).join(", ")}}`;
    case "struct": {
      const o = value as Record<string, unknown>;
      const members = shape.fields.filter((f) => o[f.key] !== undefined && !(o[f.key] === null && !f.nullable && f.shape.kind !== "any"));
      return `${shape.name}{${members.map((f) => `${f.goName}: ${goLiteral(o[f.key], f.shape, f.nullable)}`).join(", ")}}`;
    }
  }
}

function anyLiteral(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "string") return goString(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return `float64(${String(value)})`;
  if (Array.isArray(value)) return `[]any{${value.map(anyLiteral).join(", ")}}`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]any{${entries.map(([k, v]) => `${goString(k)}: ${anyLiteral(v)}`).join(", ")}}`;
}

function tablePath(stem: string): string {
  return stem === "wire-version" ? "spec/wire-version.json" : `spec/tables/${stem}.json`;
}

function genericTableView(stem: string, doc: Record<string, unknown>, meta: SchemaNode): Record<string, unknown> {
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
      if (f.shape.kind === "slice" && Array.isArray(value) && value.length > 0) {
        return {
          goName: f.goName,
          multiline: true,
          open: `${goTypeOf(f.shape)}{`,
          elements: value.map((v) => goLiteral(v, f.shape.kind === "slice" ? f.shape.elem : f.shape, false, true)),
          literal: "",
        };
      }
      return { goName: f.goName, multiline: false, open: "", elements: [], literal: goLiteral(value, f.shape, f.nullable) };
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

// ---------------------------------------------------------------------------
// Client-initiated commands

function resultRead(member: string, group: CommandGroup, where: string, entryReaders: Map<string, Record<string, unknown>>): { goName: string; goType: string; expr: string; doc: string } {
  const known = group.members.find((m) => m.name === member);
  if (!known) throw new Error(`go target: ${where} prints member ${JSON.stringify(member)}, which spec/tables/client-initiated-commands.json members does not type`);
  const doc = `\`${member}\`: ${known.description}`;
  if (known.type === "entries") {
    const typeName = `${goName(group.group)}${goName(singular(member))}`;
    const funcName = `read${typeName}s`;
    if (!entryReaders.has(typeName)) {
      const reads = (known.entry_members ?? []).map((m) => resultRead(m, group, `${where}.${member}`, entryReaders));
      entryReaders.set(typeName, { typeName, funcName, reads, doc: `one entry of \`${member}\`` });
    }
    return { goName: goName(member), goType: `[]${typeName}`, expr: `${funcName}(r.objects(${goString(member)}))`, doc };
  }
  if (known.nullable && known.type !== "unsigned_integer") throw new Error(`go target: ${where}: a nullable ${known.type} member has no Go reader yet`);
  const t = MEMBER_GO_TYPES[known.nullable ? "nullable_unsigned_integer" : known.type];
  const expr = t.read === "optUint" ? `r.optUint(${goString(member)}, true)` : `r.${t.read}(${goString(member)})`;
  return { goName: goName(member), goType: t.goType, expr, doc };
}

function commandGroupView(group: CommandGroup): Record<string, unknown> {
  const [program, ...groupArgs] = group.cli;
  if (program === undefined || groupArgs.length === 0) throw new Error(`go target: group ${group.group} has no CLI words`);
  const typeName = `${goName(group.group)}Commands`;
  const entryReaders = new Map<string, Record<string, unknown>>();
  const structs: Record<string, unknown>[] = [];
  const commands = group.commands.map((cmd) => {
    const where = `${group.group} ${cmd.command}`;
    const cmdName = goName(cmd.command);
    const required = cmd.flags.filter((f) => f.required);
    const optional = cmd.flags.filter((f) => !f.required);
    const params = ["ctx context.Context"];
    const args = [...groupArgs, cmd.command].map(goString);
    for (const f of required) {
      const p = paramName(f.flag);
      params.push(`${p} ${f.value === "identifier" ? "string" : "uint64"}`);
      args.push(goString(f.flag), f.value === "identifier" ? p : `strconv.FormatUint(${p}, 10)`);
    }
    if (cmd.stdin === "blob") params.push("blob []byte");
    const optionsType = `${goName(group.group)}${cmdName}Options`;
    if (optional.length > 0) {
      params.push(`opts *${optionsType}`);
      structs.push({
        name: optionsType,
        doc: `the optional flags of \`${group.cli.join(" ")} ${cmd.command}\` (a nil *${optionsType} passes none)`,
        fields: optional.map((f) => ({
          goName: goName(f.flag),
          goType: f.value === "identifier" ? "string" : "*uint64",
          doc: `${f.flag} (${f.value === "identifier" ? '"" = not passed' : "nil = not passed"})`,
        })),
      });
    }
    const resultType = `${goName(group.group)}${cmdName}Result`;
    const reads = cmd.result_fields.map((m) => resultRead(m, group, where, entryReaders));
    const resultFields = reads.map((r) => ({ goName: r.goName, goType: r.goType, doc: r.doc }));
    if (cmd.stdout === "blob") resultFields.unshift({ goName: "Blob", goType: "[]byte", doc: "the stored bytes, exactly as the command printed them on stdout" });
    if (cmd.stderr === "diagnostics") resultFields.push({ goName: "Diagnostics", goType: "[]string", doc: "the diagnostic lines the command printed on stderr (one JSON object each)" });
    const jsonFrom = cmd.stdout === "json" ? "stdout" : cmd.stderr === "json_metadata" ? "stderr" : null;
    if (jsonFrom === null && reads.length > 0) throw new Error(`go target: ${where} names result fields but prints no JSON`);
    structs.push({
      name: resultType,
      doc: `what \`${group.cli.join(" ")} ${cmd.command}\` prints on success (${jsonFrom === "stdout" ? "JSON on stdout" : "the blob on stdout, JSON metadata on stderr"})`,
      fields: resultFields,
    });
    const usage = [cmd.command, ...cmd.flags.map((f) => (f.required ? `${f.flag} <${f.value}>` : `[${f.flag} <${f.value}>]`))].join(" ");
    const doc = [
      `${cmdName} runs \`${group.cli.join(" ")} ${usage}\`${cmd.stdin === "blob" ? " with blob on stdin" : ""}.`,
      `A non-zero exit is a *HostError: Code holds the error envelope's code for exit ${[...new Set(group.errors.map((e) => e.exit_code))].join("/")}, Usage is true for exit ${group.usage_error_exit_code}.`,
    ].join(" ");
    return {
      goName: cmdName,
      docLines: wrap(doc),
      params: params.join(", "),
      resultType,
      argsLiteral: args.join(", "),
      options: optional.map((f) => ({ goName: goName(f.flag), flagLiteral: goString(f.flag), isUint: f.value === "unsigned_integer" })),
      stdinExpr: cmd.stdin === "blob" ? "blob" : "nil",
      blobOut: cmd.stdout === "blob",
      diagnostics: cmd.stderr === "diagnostics",
      jsonStream: jsonFrom ?? "stdout",
      reads: reads.map((r) => ({ goName: r.goName, expr: r.expr })),
    };
  });
  for (const reader of entryReaders.values()) {
    const reads = reader.reads as { goName: string; goType: string; doc: string }[];
    structs.push({ name: reader.typeName, doc: String(reader.doc), fields: reads.map((r) => ({ goName: r.goName, goType: r.goType, doc: r.doc })) });
  }
  const envDoc = group.environment.map((e) => `${e.name}: ${e.meaning}`).join(" ");
  return {
    group: group.group,
    typeName,
    varName: goName(group.group),
    programLiteral: goString(program),
    usageExitCode: group.usage_error_exit_code,
    docLines: wrap(`${typeName} runs the \`${group.cli.join(" ")}\` commands (${group.spec}): ${group.purpose} Environment: ${envDoc}`),
    errors: group.errors.map((e) => ({
      constName: `${goName(group.group)}Error${goName(e.error)}`,
      literal: goString(e.error),
      exitCode: e.exit_code,
      fieldsDoc: e.fields.map((f) => `"${f}"`).join(", "),
    })),
    structs,
    commands,
    entryReaders: [...entryReaders.values()].map((r) => ({ funcName: r.funcName, typeName: r.typeName, reads: (r.reads as { goName: string; expr: string }[]).map((x) => ({ goName: x.goName, expr: x.expr })) })),
  };
}

// ---------------------------------------------------------------------------
// Spec tables (explicit renderings)

function limitViews(model: Model): Record<string, unknown>[] {
  return model.tables.limits.limits.map((l) => ({
    constName: `Limit${goName(l.name)}`,
    value: String(l.value),
    docLines: wrap(`Limit${goName(l.name)} is limits.${l.name}: ${l.value} ${l.unit}. Applies to: ${l.applies_to}. On exceed: ${l.on_exceed}.`),
  }));
}

function ruleIdViews(model: Model): Record<string, unknown>[] {
  const document = model.tables.documentRules.rules.map((r) => ({ id: r.id, summary: r.summary }));
  const cross = model.rules.map((r) => ({ id: r.id, summary: r.summary }));
  return [...document, ...cross].map((r) => ({ constName: `Rule${goName(r.id)}`, literal: goString(r.id), summary: r.summary.replace(/\s+/g, " ") }));
}

function enumConst(model: Model, enumName: string, value: string): string {
  const e = model.enums.find((x) => x.name === enumName);
  if (!e?.values.includes(value)) throw new Error(`go target: ${JSON.stringify(value)} is not a ${enumName} value`);
  return `${enumName}${goName(value)}`;
}

/** Go constant of a failure variant of spec/tables/subprocess-failure-mapping.json, e.g. `FailureVariantHandlerThrew`. */
function failureVariantConst(variant: string): string {
  return `FailureVariant${goName(variant)}`;
}

/** The client runner: failure classes and warning-code constants from the tables, and its documented outcomes. */
function runnerView(model: Model) {
  const v = runnerVariants(model, "go");
  const cls = (failureClass: string): { name: string; constName: string } => ({ name: failureClass, constName: enumConst(model, "FailureClass", failureClass) });
  const reject = cls(v.invalidRequest.failureClass);
  const handler = cls(v.handlerThrew.failureClass);
  const outcomes = runnerOutcomes(model, "go", { binding: "go", handlerFails: "returns an error or panics", invalidResponseExtra: "" });
  return {
    rejectClass: reject.name,
    rejectClassConst: reject.constName,
    handlerErrorClass: handler.name,
    handlerErrorClassConst: handler.constName,
    timeoutClassConst: cls(v.timeout.failureClass).constName,
    readErrorClassConst: cls(v.readRequest.failureClass).constName,
    readRequestCode: failureVariantConst(v.readRequest.variant),
    invalidRequestCode: failureVariantConst(v.invalidRequest.variant),
    guardCode: failureVariantConst(v.guard.variant),
    handlerThrewCode: failureVariantConst(v.handlerThrew.variant),
    invalidResponseCode: failureVariantConst(v.invalidResponse.variant),
    timeoutCode: failureVariantConst(v.timeout.variant),
    outcomeLines: runnerOutcomeBullets(outcomes, 94),
    outcomeTable: runnerOutcomeTable(outcomes),
  };
}

// ---------------------------------------------------------------------------
// Harness hook mapping (spec/tables/harness-hook-mapping.json): typed constants and lookups

/**
 * hooks.go and hooks_test.go: HookAdapter*, <Adapter>HookEvent*, HookBlockEffect* and HookContextSlot*
 * constants, the HookAdapterInfos literal and the switch cases of HookAdapterFor/HookEventFor.
 */
function hooksView(model: Model) {
  const facts = hookMapping(model);
  const blockConst = (block: string): string => `HookBlockEffect${goName(block)}`;
  const slotConst = (slot: string): string => `HookContextSlot${goName(slot)}`;
  const adapters = facts.adapters.map((a) => {
    const prefix = goName(a.adapter);
    const constName = `HookAdapter${prefix}`;
    const eventConst = (hookEvent: string): string => `${prefix}HookEvent${goName(hookEvent)}`;
    const eventsOf = (hookEvent: string): string[] => a.events.filter((e) => e.hookEvent === hookEvent).map((e) => e.event);
    const hookEvents = a.hookEvents.map((h) => {
      const parts = [`Adapter: ${constName}`, `HookEvent: ${eventConst(h.hookEvent)}`, `OutputSchema: ${goString(h.outputSchema)}`];
      if (h.contextSlot !== null) {
        parts.push(`ContextSlot: ${slotConst(h.contextSlot)}`);
        parts.push(`ContextPlacements: []PlacementClass{${h.contextPlacements.map((p) => enumConst(model, "PlacementClass", p)).join(", ")}}`);
      }
      parts.push(`Block: ${blockConst(h.block)}`, `BlockApplies: ${String(h.blockApplies)}`);
      return {
        constName: eventConst(h.hookEvent),
        literal: goString(h.hookEvent),
        docLines: wrap(`${eventConst(h.hookEvent)} is the ${a.harness} hook event ${h.hookEvent} (output schema schemas/hooks/${h.outputSchema}.schema.json); lifecycle events: ${eventsOf(h.hookEvent).join(", ")}.`),
        infoLiteral: `{${parts.join(", ")}}`,
      };
    });
    const limit = a.contextLimit;
    const head = [
      `Adapter: ${constName}`,
      `Harness: ${goString(a.harness)}`,
      `AdapterIDs: []string{${a.adapterIds.map(goString).join(", ")}}`,
      `ContextLimit: ${limit === null ? "nil" : `&HookContextLimit{Length: ${limit.length}, Unit: ${goString(limit.unit)}, OnExceed: ${goString(limit.onExceed)}, Fact: ${goString(limit.fact)}}`}`,
    ];
    return {
      constName,
      literal: goString(a.adapter),
      harness: a.harness,
      docLines: wrap(`${constName} is the adapter of ${a.harness} (adapter ids ${a.adapterIds.map(goString).join(", ")}).`),
      idCases: a.adapterIds.map(goString).join(", "),
      infoHead: head.join(", "),
      hookEvents,
      eventCases: a.hookEvents.map((h) => ({
        events: eventsOf(h.hookEvent).map((e) => enumConst(model, "LifecycleEventKind", e)).join(", "),
        hookEventConst: eventConst(h.hookEvent),
      })),
    };
  });
  const blockEffects = facts.blockEffects.map((b) => ({
    constName: blockConst(b.block),
    literal: goString(b.block),
    docLines: wrap(`${blockConst(b.block)}: a block directive renders ${b.renders}. ${b.meaning}`, 92),
  }));
  const contextSlots = facts.contextSlots.map((slot) => ({ constName: slotConst(slot), literal: goString(slot) }));
  const example = hookExample(facts);
  const exampleAdapter = adapters[facts.adapters.indexOf(example.adapter)];
  const exampleEvent = exampleAdapter?.hookEvents.find((h) => h.literal === goString(example.hookEvent.hookEvent));
  if (!exampleAdapter || !exampleEvent) throw new Error("go target: the hook example names no generated constant");
  return {
    example: {
      adapterIdLiteral: goString(example.adapterId),
      eventConst: enumConst(model, "LifecycleEventKind", example.event),
      hookEventConst: exampleEvent.constName,
      hookEventLiteral: exampleEvent.literal,
    },
    adapters,
    adapterList: adapters.map((a) => a.constName).join(", "),
    blockEffects,
    blockEffectList: blockEffects.map((b) => b.constName).join(", "),
    contextSlots,
    contextSlotList: contextSlots.map((c) => c.constName).join(", "),
  };
}

// ---------------------------------------------------------------------------
// View model, validation, rendering

export function buildViewModel(model: Model): Record<string, unknown> {
  const banner = slashBanner("Code generated by `npm run generate`. DO NOT EDIT.");
  const enums = model.enums.map((e) => ({
    name: e.name,
    docLines: wrap(`${e.name} (schemas/${e.file}): ${e.description}`),
    valuesVar: `${e.name}Values`,
    stringsVar: enumStringsVar(e.name),
    values: e.values.map((v) => ({ constName: enumConst(model, e.name, v), literal: goString(v) })),
  }));
  const types = model.types.map((t) => typeView(t, model));
  const groups = model.tables.clientInitiatedCommands.groups;
  const limit = (name: string): number => {
    const row = model.tables.limits.limits.find((l) => l.name === name);
    if (!row) throw new Error(`go target: spec/tables/limits.json lacks ${name}`);
    return row.value;
  };
  const runner = runnerView(model);
  const hooks = hooksView(model);
  const names = new Set<string>();
  const claim = (name: string): void => {
    if (names.has(name)) throw new Error(`go target: two generated identifiers are named ${name}`);
    names.add(name);
  };
  for (const e of enums) {
    claim(e.name);
    for (const v of e.values) claim(v.constName);
  }
  for (const t of types) claim(String(t.name));
  for (const r of model.tables.subprocessFailureMapping.variants) claim(failureVariantConst(r.variant));
  for (const name of ["HookAdapter", "HookAdapters", "HookAdapterInfo", "HookAdapterInfos", "HookAdapterFor", "HookEventInfo", "HookEventFor", "HookEventInfoFor", "HookContextLimit", "HookBlockEffect", "HookBlockEffects", "HookContextSlot", "HookContextSlots"]) claim(name);
  for (const a of hooks.adapters) {
    claim(a.constName);
    for (const h of a.hookEvents) claim(h.constName);
  }
  for (const b of hooks.blockEffects) claim(b.constName);
  for (const c of hooks.contextSlots) claim(c.constName);
  return {
    banner,
    markdownBanner: markdownBanner(),
    module: GO_MODULE,
    package: GO_PACKAGE,
    goVersion: GO_VERSION,
    wireVersion: model.wireVersion.current,
    wireVersionLiteral: goString(model.wireVersion.current),
    referenceCrate: model.wireVersion.reference.crate,
    referenceVersion: model.wireVersion.reference.version,
    referenceCrateLiteral: goString(model.wireVersion.reference.crate),
    referenceVersionLiteral: goString(model.wireVersion.reference.version),
    limits: { maxRequestBytes: limit("max_request_bytes"), maxDepth: limit("max_depth") },
    enums,
    types,
    documents: model.roots.map((r) => r.typeName),
    limitConsts: limitViews(model),
    ruleIds: ruleIdViews(model),
    events: model.tables.eventVocabulary.events.map(
      (e) =>
        `{Event: ${enumConst(model, "LifecycleEventKind", e.event)}, Summary: ${goString(e.summary)}, RequiresFrameContext: ${e.requires_frame_context}, NotificationOnly: ${e.notification_only}, Dispatchable: ${e.dispatchable}, StreamV2: ${goString(e.stream_v2)}}`,
    ),
    failureRetryDefaults: model.tables.failureRetryDefaults.defaults.map((r) => {
      const failureConst = enumConst(model, "FailureClass", r.failure_class);
      const retryConst = enumConst(model, "RetryClass", r.retry_class);
      return { failureConst, retryConst, literal: `{FailureClass: ${failureConst}, RetryClass: ${retryConst}, Meaning: ${goString(r.meaning)}}` };
    }),
    failureVariants: model.tables.subprocessFailureMapping.variants.map(
      (r) =>
        `{Variant: ${failureVariantConst(r.variant)}, FailureClass: ${enumConst(model, "FailureClass", r.failure_class)}, Origin: ${goString(r.origin)}, ReferenceVariant: ${goString(r.reference_variant ?? "")}, Transports: []string{${r.transports.map(goString).join(", ")}}, Stage: ${goString(r.stage)}, When: ${goString(r.when)}, Reason: ${goString(r.reason ?? "")}}`,
    ),
    failureVariantConsts: model.tables.subprocessFailureMapping.variants.map((r) => ({
      constName: failureVariantConst(r.variant),
      literal: goString(r.variant),
      docLines: wrap(`${failureVariantConst(r.variant)} is failure variant "${r.variant}" (failure class ${r.failure_class}): ${r.when}`),
    })),
    genericTables: model.specTables.filter((t) => !EXPLICIT_TABLES.has(t.stem)).map((t) => genericTableView(t.stem, { ...t.doc }, t.meta)),
    tableJSON: model.specTables.map((t) => ({ stemLiteral: goString(t.stem), jsonLiteral: goString(JSON.stringify(t.doc)) })),
    commandGroups: groups.map(commandGroupView),
    commandGroupList: groups.map((g) => `${goName(g.group)}: ${g.commands.map((c) => c.command).join(", ")}`).join("; "),
    runner,
    hooks,
  };
}

/** Validate the view model against sdk-templates/go/view-model.schema.json (closed objects). */
export function checkViewModel(root: string, view: Record<string, unknown>): void {
  const schema = JSON.parse(readFileSync(join(root, TEMPLATE_DIR, "view-model.schema.json"), "utf8")) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: true, allErrors: false });
  const validate = ajv.compile(schema);
  if (!validate(view)) {
    const first = validate.errors?.[0];
    throw new Error(`go target: the view model does not match ${TEMPLATE_DIR}/view-model.schema.json at ${first?.instancePath ?? ""}: ${first?.message ?? "invalid"} ${JSON.stringify(first?.params ?? {})}`);
  }
}

/** Generate generated/go/ from sdk-templates/go/ and the plain sources of sdk-runtime/go/. */
export async function generateGo(model: Model): Promise<OutputFile[]> {
  const view = buildViewModel(model);
  checkViewModel(model.root, view);
  const hbs = Handlebars.create();
  const outputs: OutputFile[] = [];
  for (const [template, output] of TEMPLATES) {
    const source = readFileSync(join(model.root, TEMPLATE_DIR, template), "utf8");
    const render = hbs.compile(source, { noEscape: true, strict: true });
    outputs.push({ path: `${OUT_DIR}/${output}`, content: finalNewline(render(view)) });
  }
  outputs.push(...copyRuntimeSources(model.root, "go", [".go"], OUT_DIR, `${String(view.banner)}\n`));
  return outputs;
}
