/** The wire types of the model as Python dataclasses, schema metadata and rule plans (wire.py, plans.py). */
import type { Field, RuleStep, Shape, WireType } from "../../model/model.js";
import type { PythonSdkViewModel } from "../../../generated/codegen/python/view-model.js";
import { pyAttr } from "./naming.js";

export function annotationOf(shape: Shape): string {
  switch (shape.kind) {
    case "string":
      return "str";
    case "integer":
      return "int";
    case "enum":
      return shape.enumName;
    case "object":
      return shape.typeName;
    case "open_object":
      return "Dict[str, JsonValue]";
    case "array":
      return `Tuple[${annotationOf(shape.items)}, ...]`;
  }
}

/** The view of one dataclass field (wire.py). */
export type PyField = PythonSdkViewModel["types"][number]["fields"][number];

export function dataclassField(field: Field): PyField & { readonly hasDefault: boolean } {
  const attr = pyAttr(field.name);
  const base = annotationOf(field.shape);
  const comment = `${field.description} (wire: \`${field.name}\`, ${field.presence})`;
  if (field.name === "schema_version" && field.presence === "required" && field.shape.kind === "string") {
    return { attr, annotation: base, default: "wire_version", comment, hasDefault: true };
  }
  switch (field.presence) {
    case "required":
      return { attr, annotation: base, default: null, comment, hasDefault: false };
    case "required_nullable":
    case "optional":
    case "optional_emit_null":
      return { attr, annotation: `Optional[${base}]`, default: "none", comment, hasDefault: true };
    case "collection":
      return {
        attr,
        annotation: base,
        default: field.shape.kind === "open_object" ? "dict" : "tuple",
        comment,
        hasDefault: true,
      };
  }
}

export function typeView(type: WireType): PythonSdkViewModel["types"][number] {
  const fields = type.fields.map(dataclassField);
  const ordered = [...fields.filter((f) => !f.hasDefault), ...fields.filter((f) => f.hasDefault)];
  return {
    name: type.name,
    doc: `${type.description}\n\nSchema: schemas/${type.file}.`,
    fields: ordered.map(({ attr, annotation, default: d, comment }) => ({ attr, annotation, default: d, comment })),
  };
}

/** The view of one rule step (a `RuleStep(...)` in plans.py); absent members are null. */
export function ruleStepView(step: RuleStep): PythonSdkViewModel["rulePlans"][number]["steps"][number] {
  return {
    rule: step.rule,
    check: step.check,
    at: step.at,
    message: step.message,
    field: step.field ?? null,
    fields: step.fields ? [...step.fields] : null,
    each: step.each === true,
    lengthField: step.lengthField ?? null,
    when: step.when ? { field: step.when.field, op: step.when.op, values: [...step.when.values] } : null,
    values: step.values ? [...step.values] : null,
    expected: step.expected ?? null,
  };
}

/**
 * Wire types with every referenced type before its referrers (model order otherwise), so no class
 * annotation is a forward reference (mypy would resolve a forward `Warning` to the builtin).
 */
export function dependencyOrder(types: readonly WireType[]): WireType[] {
  const byName = new Map(types.map((t) => [t.name, t]));
  const done = new Set<string>();
  const out: WireType[] = [];
  const refs = (shape: Shape): string[] =>
    shape.kind === "object" ? [shape.typeName] : shape.kind === "array" ? refs(shape.items) : [];
  const visit = (type: WireType, stack: readonly string[]): void => {
    if (done.has(type.name)) return;
    if (stack.includes(type.name)) throw new Error(`recursive wire types: ${[...stack, type.name].join(" -> ")}`);
    for (const field of type.fields) {
      for (const name of refs(field.shape)) visit(byName.get(name) as WireType, [...stack, type.name]);
    }
    done.add(type.name);
    out.push(type);
  };
  for (const type of types) visit(type, []);
  return out;
}
