/** The wire types of the model as Go structs, codecs and schema metadata (wire_types.go, wire_meta.go). */
import type { Field, Model, RuleStep, Shape, WireType } from "../../model/model.js";
import type { GoViewModel } from "../../../generated/codegen/go/view-model.js";
import { goName } from "./naming.js";

/** Rule checks the interpreter in sdk/go/rules.go implements, with their Go constants. */
export const RULE_CHECKS: Readonly<Record<string, string>> = {
  equals_wire_version: "checkEqualsWireVersion",
  non_empty_string: "checkNonEmptyString",
  required_when: "checkRequiredWhen",
  forbidden_when: "checkForbiddenWhen",
  forbidden_value: "checkForbiddenValue",
  exactly_one_present: "checkExactlyOnePresent",
  utf8_byte_length_equals: "checkUTF8ByteLengthEquals",
  non_empty_array: "checkNonEmptyArray",
  fields_differ: "checkFieldsDiffer",
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
      throw new Error(
        `go target: nested arrays are not supported (${where}); extend codegen/targets/go/types.ts itemCodec`,
      );
  }
}

/** The view of one wire type (wire_types.go, wire_meta.go). */
export type TypeView = GoViewModel["types"][number];

/** The view of one field: Go type, codec (the template writes the decode and encode expressions), doc and shape. */
export function fieldView(type: WireType, field: Field): TypeView["fields"][number] {
  const where = `${type.name}.${field.name}`;
  const name = goName(field.name);
  const common = {
    goName: name,
    wireName: field.name,
    doc: `${name} is \`${field.name}\`: ${field.description} ${PRESENCE_DOC[field.presence]}`,
    nullable: field.nullable,
    shape: field.shape,
    omitNil: field.presence === "optional",
    omitEmpty: field.presence === "collection",
  };
  if (field.shape.kind === "array" || field.shape.kind === "open_object") {
    if (field.nullable || (field.presence !== "collection" && field.presence !== "required")) {
      throw new Error(
        `go target: ${where}: nullable or optional arrays/maps are not supported (presence ${field.presence})`,
      );
    }
    const item =
      field.shape.kind === "array"
        ? itemCodec(field.shape.items, where)
        : { goType: "", decode: "nodeMap", encode: "mapNode" };
    const slice = field.shape.kind === "array";
    return {
      ...common,
      slice,
      pointer: false,
      goType: slice ? `[]${item.goType}` : "map[string]any",
      itemDecode: item.decode,
      itemEncode: item.encode,
    };
  }
  const item = itemCodec(field.shape, where);
  if (field.presence === "collection") throw new Error(`go target: ${where}: presence ${field.presence} on a scalar`);
  const pointer = field.presence !== "required";
  return {
    ...common,
    slice: false,
    pointer,
    goType: pointer ? `*${item.goType}` : item.goType,
    itemDecode: item.decode,
    itemEncode: item.encode,
  };
}

/** The view of one rule step: the Go check constant and the step's members (null when absent). */
export function stepView(step: RuleStep, wireVersion: string): TypeView["steps"][number] {
  const check = RULE_CHECKS[step.check];
  if (!check) {
    throw new Error(
      `go target: rule check ${JSON.stringify(step.check)} is not implemented by the Go interpreter; add it to sdk/go/rules.go and RULE_CHECKS`,
    );
  }
  return {
    rule: step.rule,
    check,
    at: step.at === "" ? [] : step.at.slice(1).split("/"),
    field: step.field ?? null,
    fields: step.fields ? [...step.fields] : null,
    each: step.each === true,
    lengthField: step.lengthField ?? null,
    when: step.when
      ? { field: step.when.field, notIn: step.when.op === "not_in", values: [...step.when.values] }
      : null,
    values: step.values ? [...step.values] : null,
    expected: step.expected === undefined ? null : step.check === "equals_wire_version" ? wireVersion : step.expected,
    message: step.message,
  };
}

/** The view of one wire type. */
export function typeView(type: WireType, model: Model): TypeView {
  const steps = (model.rulePlans.get(type.name) ?? []).map((s) => stepView(s, model.wireVersion.current));
  return {
    name: type.name,
    file: type.file,
    doc: `${type.name} (schemas/${type.file}): ${type.description}`,
    fields: type.fields.map((f) => fieldView(type, f)),
    required: (type.schema.required as string[] | undefined) ?? [],
    metaVar: `meta${type.name}`,
    planVar: `rulePlan${type.name}`,
    steps,
  };
}
