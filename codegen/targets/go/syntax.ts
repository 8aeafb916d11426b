/**
 * Go syntax for the templates of sdk-templates/go/: the handlebars helpers and partials that turn
 * view-model values (names, types, raw strings and numbers) into Go source text, so the view model
 * carries data and the templates carry the syntax.
 *
 * Helpers (positional parameters, then named ones):
 * - `{{goString s}}`: an interpreted string literal (`"a\"b"`).
 * - `{{goStrings list}}`: the string literals of `list`, comma-separated (`"a", "b"`), for `[]string{...}`.
 * - `{{goDoc text width=96 indent=0}}`: `text` word-wrapped into `// ` comment lines of at most
 *   `width` characters of text, each prefixed by `indent` tabs; on a line of its own.
 * - `{{goShape shape}}`: the schema-layer `shape{...}` literal of a model Shape (wire_meta.go).
 * - `{{#goBraces}}...{{/goBraces}}`: the block in braces, for composite literals (`{A: 1}`).
 *
 * Partials:
 * - `{{> goStructField}}`: one documented struct field (`// <goName> is <doc>.` then `<goName> <goType>`),
 *   on a line of its own inside `#each` over `{ goName, goType, doc }`.
 */
import type { Shape } from "../../model/model.js";
import type { SdkSyntax } from "../sdk-render.js";
import { enumStringsVar, goString, wrap } from "./naming.js";

/** The schema-layer literal of `shape` (interpreted by sdk-runtime/go/validate.go). */
export function shapeLiteral(shape: Shape): string {
  switch (shape.kind) {
    case "string":
      return `shape{kind: shapeString, maxLength: ${shape.maxLength}}`;
    case "integer":
      return `shape{kind: shapeInteger, minimum: ${shape.minimum}, maximum: ${shape.maximum}}`;
    case "enum":
      return `shape{kind: shapeEnum, enumName: ${goString(shape.enumName)}, enum: ${enumStringsVar(shape.enumName)}}`;
    case "object":
      return `shape{kind: shapeObject, typeName: ${goString(shape.typeName)}}`;
    case "open_object":
      return "shape{kind: shapeOpenObject}";
    case "array":
      return `shape{kind: shapeArray, maxItems: ${shape.maxItems}, items: &${shapeLiteral(shape.items)}}`;
  }
}

/** `text` as `// ` comment lines (wrapped at `width`, indented by `indent` tabs), joined by newlines. */
export function goDoc(text: string, width = 96, indent = 0): string {
  const tabs = "\t".repeat(indent);
  return wrap(text, width)
    .map((line) => `${tabs}// ${line}`)
    .join("\n");
}

function str(value: unknown, helper: string): string {
  if (typeof value !== "string") throw new Error(`${helper}: expected a string, got ${JSON.stringify(value)}`);
  return value;
}

function strs(value: unknown, helper: string): string[] {
  if (!Array.isArray(value)) throw new Error(`${helper}: expected a list of strings, got ${JSON.stringify(value)}`);
  return value.map((v) => str(v, helper));
}

function num(value: unknown, fallback: number, helper: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number") throw new Error(`${helper}: expected a number, got ${JSON.stringify(value)}`);
  return value;
}

/** The helpers and partials of the Go templates. */
export const GO_SYNTAX: SdkSyntax = {
  helpers: {
    goString: ([value]) => goString(str(value, "goString")),
    goStrings: ([list]) => strs(list, "goStrings").map(goString).join(", "),
    goDoc: ([text], hash) => goDoc(str(text, "goDoc"), num(hash.width, 96, "goDoc width"), num(hash.indent, 0, "goDoc indent")),
    goShape: ([shape]) => shapeLiteral(shape as Shape),
  },
  blocks: {
    goBraces: (inner) => `{${inner}}`,
  },
  partials: {
    goStructField: "\t// {{goName}} is {{{doc}}}.\n\t{{goName}} {{{goType}}}\n",
  },
};
