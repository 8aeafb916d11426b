/**
 * Python syntax for the templates of sdk/python/templates/: the handlebars helpers that turn
 * view-model values (names, annotations, raw strings, numbers, booleans, JSON values) into Python
 * source text, so the view model carries data and the templates carry the syntax.
 *
 * Helpers (positional parameters, then named ones):
 * - `{{pyString s}}`: a string literal (`"a\"b"`); `{{pyOptString s}}` is `None` for null.
 * - `{{pyStrings list}}`: a tuple literal of string literals (`()`, `("a",)`, `("a", "b")`).
 * - `{{pyTuple names prefix=""}}`: a tuple literal of names (each after `prefix`, e.g. `PlacementClass.`).
 * - `{{pyBool b}}`: `True` or `False`.
 * - `{{pyLiteral value}}`: a JSON value as a Python literal (dicts and lists, 4-space indentation).
 * - `{{pyDocstring text indent=4}}`: a complete triple-quoted docstring block at `indent` spaces,
 *   wrapped at 100 columns; on a line of its own.
 * - `{{pyComment text width=97 indent=0}}`: `text` word-wrapped into `#: ` comment lines of at most
 *   `width` characters of text, indented by `indent` spaces; on a line of its own.
 * - `{{pyShape shape}}`: the `Shape(...)` expression of a model Shape (plans.py).
 * - `{{pyFieldDefault kind}}`: a dataclass field's ` = <default>` (nothing for null): `wire_version`
 *   is WIRE_VERSION, `none` None, `dict` an empty dict factory, `tuple` an empty tuple.
 *
 * Partials (each the entries of one mapping literal, on lines of their own; plans.py writes
 * current's, window.py an accepted version's, so both versions are written one way):
 * - `{{> pyEnumValues}}`: `"<enum>": (<values>),` per member of the context's `enums`.
 * - `{{> pyObjectSchemas}}`: `"<type>": ObjectSchema(...),` per member of `objectSchemas`.
 * - `{{> pyRulePlans}}`: `"<type>": (RuleStep(...), ...),` per member of `rulePlans`.
 * - `{{> pyIntegerPaths}}`: `"<type>": (<patterns>),` per member of `integerPaths`.
 */
import type { Shape } from "../../model/model.js";
import { helperNumber as num, helperString as str, helperStrings as strs, type SdkSyntax } from "../sdk-render.js";
import { pyDocstring, pyLiteral, pyStr, pyStrTuple, pyTuple, wrap } from "./naming.js";

/** The `Shape(...)` expression of `shape` (interpreted by sdk/python/lifeloop_callback/validation.py). */
function shapeExpr(shape: Shape): string {
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

/** `text` as comment lines of at most `width` characters of text, each starting with `prefix`. */
export function pyComment(text: string, width: number, prefix: string): string {
  return wrap(text, width)
    .map((line) => `${prefix}${line}`)
    .join("\n");
}

/** The default of a dataclass field by kind (wire.py; the kinds of the view model's `default`). */
const FIELD_DEFAULTS: Readonly<Record<string, string>> = {
  wire_version: " = WIRE_VERSION",
  none: " = None",
  dict: " = field(default_factory=dict)",
  tuple: " = ()",
};

/** The helpers of the Python templates. */
export const PYTHON_SYNTAX: SdkSyntax = {
  helpers: {
    pyString: ([value]) => pyStr(str(value, "pyString")),
    pyOptString: ([value]) => (value === null ? "None" : pyStr(str(value, "pyOptString"))),
    pyStrings: ([list]) => pyStrTuple(strs(list, "pyStrings")),
    pyTuple: ([list], hash) =>
      pyTuple(strs(list, "pyTuple").map((name) => `${typeof hash.prefix === "string" ? hash.prefix : ""}${name}`)),
    pyBool: ([value]) => {
      if (typeof value !== "boolean") throw new Error(`pyBool: expected a boolean, got ${JSON.stringify(value)}`);
      return value ? "True" : "False";
    },
    pyLiteral: ([value]) => pyLiteral(value),
    pyDocstring: ([text], hash) =>
      pyDocstring(str(text, "pyDocstring"), " ".repeat(num(hash.indent, 4, "pyDocstring indent"))),
    pyComment: ([text], hash) =>
      pyComment(
        str(text, "pyComment"),
        num(hash.width, 97, "pyComment width"),
        `${" ".repeat(num(hash.indent, 0, "pyComment indent"))}#: `,
      ),
    pyShape: ([shape]) => shapeExpr(shape as Shape),
    pyFieldDefault: ([kind]) => {
      if (kind === null) return "";
      const text = FIELD_DEFAULTS[str(kind, "pyFieldDefault")];
      if (text === undefined) throw new Error(`pyFieldDefault: unknown default ${JSON.stringify(kind)}`);
      return text;
    },
  },
  blocks: {},
  partials: {
    pyEnumValues: `{{#each enums}}
    "{{name}}": {{pyStrings values}},
{{/each}}`,
    pyObjectSchemas: `{{#each objectSchemas}}
    "{{name}}": ObjectSchema(
        name="{{name}}",
        required={{pyStrings required}},
        fields=(
{{#each fields}}
            Field(name={{pyString name}}, attr={{pyString attr}}, presence={{pyString presence}}, nullable={{pyBool nullable}}, shape={{pyShape shape}}),
{{/each}}
        ),
    ),
{{/each}}`,
    pyRulePlans: `{{#each rulePlans}}
    "{{name}}": (
{{#each steps}}
        RuleStep(rule={{pyString rule}}, check={{pyString check}}, at={{pyString at}}, message={{pyString message}}
        {{~#if field}}, field={{pyString field}}{{/if}}
        {{~#if fields}}, fields={{pyStrings fields}}{{/if}}
        {{~#if each}}, each=True{{/if}}
        {{~#if lengthField}}, length_field={{pyString lengthField}}{{/if}}
        {{~#if when}}, when=Condition(field={{pyString when.field}}, op={{pyString when.op}}, values={{pyStrings when.values}}){{/if}}
        {{~#if values}}, values={{pyStrings values}}{{/if}}
        {{~#if expected}}, expected={{pyString expected}}{{/if}}),
{{/each}}
    ),
{{/each}}`,
    pyIntegerPaths: `{{#each integerPaths}}
    "{{name}}": {{pyStrings paths}},
{{/each}}`,
  },
};
