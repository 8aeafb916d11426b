/** The wire types of the model as Python dataclasses, schema metadata and rule plans (wire.py, plans.py). */
import type { Field, RuleStep, Shape, WireType } from "../../model/model.js";
import { pyAttr, pyDocstring, pyStr, pyStrTuple, wrap } from "./naming.js";

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

export function shapeExpr(shape: Shape): string {
  switch (shape.kind) {
    case "string":
      return `Shape("string", max_length=${shape.maxLength})`;
    case "integer":
      return `Shape("integer", minimum=${shape.minimum}, maximum=${shape.maximum})`;
    case "enum":
      return `Shape("enum", ref=${pyStr(shape.enumName)})`;
    case "object":
      return `Shape("object", ref=${pyStr(shape.typeName)})`;
    case "open_object":
      return `Shape("open_object")`;
    case "array":
      return `Shape("array", items=${shapeExpr(shape.items)}, max_items=${shape.maxItems})`;
  }
}

export interface PyField {
  readonly attr: string;
  readonly annotation: string;
  readonly default: string;
  readonly comment: string[];
}

export function dataclassField(field: Field): PyField & { readonly hasDefault: boolean } {
  const attr = pyAttr(field.name);
  const base = annotationOf(field.shape);
  const comment = wrap(`${field.description} (wire: \`${field.name}\`, ${field.presence})`, 92);
  if (field.name === "schema_version" && field.presence === "required" && field.shape.kind === "string") {
    return { attr, annotation: base, default: " = WIRE_VERSION", comment, hasDefault: true };
  }
  switch (field.presence) {
    case "required":
      return { attr, annotation: base, default: "", comment, hasDefault: false };
    case "required_nullable":
    case "optional":
    case "optional_emit_null":
      return { attr, annotation: `Optional[${base}]`, default: " = None", comment, hasDefault: true };
    case "collection":
      return {
        attr,
        annotation: base,
        default: field.shape.kind === "open_object" ? " = field(default_factory=dict)" : " = ()",
        comment,
        hasDefault: true,
      };
  }
}

export function typeView(type: WireType): { name: string; docstring: string; fields: PyField[] } {
  const fields = type.fields.map(dataclassField);
  const ordered = [...fields.filter((f) => !f.hasDefault), ...fields.filter((f) => f.hasDefault)];
  return {
    name: type.name,
    docstring: pyDocstring(`${type.description}\n\nSchema: schemas/${type.file}.`, "    "),
    fields: ordered.map(({ attr, annotation, default: d, comment }) => ({ attr, annotation, default: d, comment })),
  };
}

export function ruleStepExpr(step: RuleStep): string {
  const parts = [`rule=${pyStr(step.rule)}`, `check=${pyStr(step.check)}`, `at=${pyStr(step.at)}`, `message=${pyStr(step.message)}`];
  if (step.field !== undefined) parts.push(`field=${pyStr(step.field)}`);
  if (step.fields !== undefined) parts.push(`fields=${pyStrTuple(step.fields)}`);
  if (step.each) parts.push("each=True");
  if (step.lengthField !== undefined) parts.push(`length_field=${pyStr(step.lengthField)}`);
  if (step.when) {
    parts.push(`when=Condition(field=${pyStr(step.when.field)}, op=${pyStr(step.when.op)}, values=${pyStrTuple(step.when.values)})`);
  }
  if (step.values !== undefined) parts.push(`values=${pyStrTuple(step.values)}`);
  if (step.expected !== undefined) parts.push(`expected=${pyStr(step.expected)}`);
  return parts.join(", ");
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
