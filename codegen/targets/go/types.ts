/** The wire types of the model as Go structs, codecs and schema metadata (wire_types.go, wire_meta.go). */
import type { Field, Model, RuleStep, Shape, WireType } from "../../model/model.js";
import type { GoViewModel } from "./view-model.js";
import { enumStringsVar, goName, goString, wrap } from "./naming.js";

/** Rule checks the interpreter in sdk-runtime/go/validate.go implements, with their Go constants. */
export const RULE_CHECKS: Readonly<Record<string, string>> = {
  equals_wire_version: "checkEqualsWireVersion",
  non_empty_string: "checkNonEmptyString",
  required_when: "checkRequiredWhen",
  forbidden_when: "checkForbiddenWhen",
  forbidden_value: "checkForbiddenValue",
  exactly_one_present: "checkExactlyOnePresent",
  utf8_byte_length_equals: "checkUTF8ByteLengthEquals",
  non_empty_array: "checkNonEmptyArray",
};

export const PRESENCE_DOC: Readonly<Record<Field["presence"], string>> = {
  required: "Presence: required.",
  required_nullable: "Presence: required_nullable (nil is written as null).",
  optional: "Presence: optional (nil when absent or null; omitted when nil).",
  optional_emit_null: "Presence: optional_emit_null (nil when absent or null; written as null when nil).",
  collection: "Presence: collection (nil when absent; omitted when empty).",
};

export interface ShapeCodec {
  readonly goType: string;
  readonly decode: string;
  readonly encode: string;
}

export function itemCodec(shape: Shape, where: string): ShapeCodec {
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

export function shapeLiteral(shape: Shape, model: Model): string {
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

/** The view of one wire type (wire_types.go, wire_meta.go). */
export type TypeView = GoViewModel["types"][number];

/** The view of one field: Go type, codec expressions, doc lines and schema metadata literal. */
export function fieldView(type: WireType, field: Field, model: Model): TypeView["fields"][number] {
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

export function stepLiteral(step: RuleStep, wireVersion: string): string {
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

/** The view of one wire type. */
export function typeView(type: WireType, model: Model): TypeView {
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
