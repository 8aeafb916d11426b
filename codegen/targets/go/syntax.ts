/**
 * Go syntax for the templates of sdk/go/templates/: the handlebars helpers and partials that turn
 * view-model values (names, types, raw strings and numbers) into Go source text, so the view model
 * carries data and the templates carry the syntax.
 *
 * Helpers (positional parameters, then named ones):
 * - `{{goString s}}`: an interpreted string literal (`"a\"b"`).
 * - `{{goStrings list}}`: the string literals of `list`, comma-separated (`"a", "b"`), for `[]string{...}`.
 * - `{{goDoc text width=96 indent=0}}`: `text` word-wrapped into `// ` comment lines of at most
 *   `width` characters of text, each prefixed by `indent` tabs; on a line of its own.
 * - `{{goShape shape}}`: the schema-layer `shape{...}` literal of a model Shape (wire_meta.go).
 * - `{{goLiteral value shape nullable=false elide=false}}`: a table value of a Go shape as a
 *   single-line literal (`elide` drops the type of a struct or slice literal inside a slice).
 * - `{{#goBraces}}...{{/goBraces}}`: the block in braces, for composite literals (`{A: 1}`).
 *
 * Partials:
 * - `{{> goStructField}}`: one documented struct field (`// <goName> is <doc>.` then `<goName> <goType>`),
 *   on a line of its own inside `#each` over `{ goName, goType, doc }`.
 * - `{{> goRuleStep}}`: one `ruleStep{...}` element of a rule plan, on a line of its own inside `#each`
 *   over step views (wire_meta.go, window.go).
 */
import type { Shape } from "../../model/model.js";
import { helperNumber as num, helperString as str, helperStrings as strs, type SdkSyntax } from "../sdk-render.js";
import { enumStringsVar, goString, wrap } from "./naming.js";
import { type GoShape, goTypeOf } from "./tables.js";
import type { GoShape as GoViewShape } from "../../../generated/codegen/go/view-model.js";

/**
 * The schema-layer literal of `shape` (interpreted by sdk/go/schema.go). `enumValues` is the Go
 * expression of an enum's values: by default the current enum's strings variable (an older
 * version's metadata passes its own values when they differ; codegen/targets/go/window.ts).
 */
export function shapeLiteral(shape: Shape, enumValues: (enumName: string) => string = enumStringsVar): string {
  switch (shape.kind) {
    case "string":
      return `shape{kind: shapeString, maxLength: ${shape.maxLength}}`;
    case "integer":
      return `shape{kind: shapeInteger, minimum: ${shape.minimum}, maximum: ${shape.maximum}}`;
    case "enum":
      return `shape{kind: shapeEnum, enumName: ${goString(shape.enumName)}, enum: ${enumValues(shape.enumName)}}`;
    case "object":
      return `shape{kind: shapeObject, typeName: ${goString(shape.typeName)}}`;
    case "open_object":
      return "shape{kind: shapeOpenObject}";
    case "array":
      return `shape{kind: shapeArray, maxItems: ${shape.maxItems}, items: &${shapeLiteral(shape.items, enumValues)}}`;
  }
}

/**
 * A Go literal of `value` for a value of `shape` (single line). `elide` drops the type of a struct
 * or slice literal that is an element of a slice literal (Go infers it).
 */
export function goLiteral(value: unknown, shape: GoViewShape, nullable = false, elide = false): string {
  if (value === null || value === undefined) {
    if (nullable || shape.kind === "any" || shape.kind === "slice" || shape.kind === "struct") return "nil";
    return shape.kind === "string" ? '""' : shape.kind === "bool" ? "false" : "0";
  }
  const inner = goLiteralValue(value, shape);
  if (elide && !nullable && (shape.kind === "struct" || shape.kind === "slice")) return inner.slice(inner.indexOf("{"));
  if (!nullable) return inner;
  if (shape.kind === "struct") return `&${inner}`;
  // A numeric constant would make ptrTo's T int (or float64 for 1.5) where the field is *int64.
  return shape.kind === "int"
    ? `ptrTo[int64](${inner})`
    : shape.kind === "float"
      ? `ptrTo[float64](${inner})`
      : `ptrTo(${inner})`;
}

function goLiteralValue(value: unknown, shape: GoViewShape): string {
  switch (shape.kind) {
    case "string":
      return goString(String(value));
    case "int":
      return String(value);
    case "float":
      // String(1e300) is "1e+300": an exponent already makes a Go float constant; "1e+300.0" would not parse.
      return Number.isInteger(value) && !/[e]/i.test(String(value)) ? `${String(value)}.0` : String(value);
    case "bool":
      return String(value);
    case "any":
      return anyLiteral(value);
    case "slice":
      return `${goTypeOf(viewShape(shape))}{${(value as unknown[]).map((v) => goLiteral(v, member(shape.elem, "elem"), false, true)).join(", ")}}`;
    case "struct": {
      const o = value as Record<string, unknown>;
      const members = (shape.fields ?? []).filter(
        (f) => o[f.key] !== undefined && !(o[f.key] === null && !f.nullable && f.shape.kind !== "any"),
      );
      return `${member(shape.name, "name")}{${members.map((f) => `${f.goName}: ${goLiteral(o[f.key], f.shape, f.nullable)}`).join(", ")}}`;
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

/** A member a shape of that kind always has (the view-model schema cannot say so per kind). */
function member<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`goLiteral: a shape lacks its ${name}`);
  return value;
}

/** The view shape as the table module's GoShape (for goTypeOf). */
function viewShape(shape: GoViewShape): GoShape {
  switch (shape.kind) {
    case "slice":
      return { kind: "slice", elem: viewShape(member(shape.elem, "elem")) };
    case "struct":
      return {
        kind: "struct",
        name: member(shape.name, "name"),
        fields: (shape.fields ?? []).map((f) => ({ ...f, shape: viewShape(f.shape) })),
      };
    default:
      return { kind: shape.kind };
  }
}

/** `text` as `// ` comment lines (wrapped at `width`, indented by `indent` tabs), joined by newlines. */
export function goDoc(text: string, width = 96, indent = 0): string {
  const tabs = "\t".repeat(indent);
  return wrap(text, width)
    .map((line) => `${tabs}// ${line}`)
    .join("\n");
}

/**
 * One `ruleStep{...}` element of a rule plan (a step view: codegen/targets/go/types.ts stepView), on
 * a line of its own inside `#each` over the steps (wire_meta.go, window.go).
 */
const RULE_STEP_PARTIAL = [
  "\t{{#goBraces}}rule: {{goString rule}}, check: {{check}}",
  "{{~#if at.length}}, at: []string{ {{~goStrings at~}} }{{/if}}",
  "{{~#if field}}, field: {{goString field}}{{/if}}",
  "{{~#if fields}}, fields: []string{ {{~goStrings fields~}} }{{/if}}",
  "{{~#if each}}, each: true{{/if}}",
  "{{~#if lengthField}}, lengthField: {{goString lengthField}}{{/if}}",
  "{{~#if when}}, when: &ruleCondition{{#goBraces}}field: {{goString when.field}}{{#if when.notIn}}, notIn: true{{/if}}, values: []string{ {{~goStrings when.values~}} }{{/goBraces}}{{/if}}",
  "{{~#if values}}, values: []string{ {{~goStrings values~}} }{{/if}}",
  "{{~#if expected}}, expected: {{goString expected}}{{/if}}, message: {{goString message}}{{/goBraces}},\n",
].join("\n");

/** The helpers and partials of the Go templates. */
export const GO_SYNTAX: SdkSyntax = {
  helpers: {
    goString: ([value]) => goString(str(value, "goString")),
    goStrings: ([list]) => strs(list, "goStrings").map(goString).join(", "),
    goDoc: ([text], hash) =>
      goDoc(str(text, "goDoc"), num(hash.width, 96, "goDoc width"), num(hash.indent, 0, "goDoc indent")),
    goShape: ([shape]) => shapeLiteral(shape as Shape),
    goLiteral: ([value, shape], hash) =>
      goLiteral(value, shape as GoViewShape, hash.nullable === true, hash.elide === true),
  },
  blocks: {
    goBraces: (inner) => `{${inner}}`,
  },
  partials: {
    goStructField: "\t// {{goName}} is {{{doc}}}.\n\t{{goName}} {{{goType}}}\n",
    goRuleStep: RULE_STEP_PARTIAL,
  },
};
