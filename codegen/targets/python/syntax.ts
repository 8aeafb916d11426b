/**
 * Python syntax for the templates of sdk-templates/python/: the handlebars helpers that turn
 * view-model values (names, annotations, raw strings, numbers, booleans, JSON values) into Python
 * source text, so the view model carries data and the templates carry the syntax.
 *
 * Helpers (positional parameters, then named ones):
 * - `{{pyString s}}`: a string literal (`"a\"b"`); `{{pyOptString s}}` is `None` for null.
 * - `{{pyStrings list}}`: a tuple literal of string literals (`()`, `("a",)`, `("a", "b")`).
 * - `{{pyBool b}}`: `True` or `False`.
 * - `{{pyLiteral value}}`: a JSON value as a Python literal (dicts and lists, 4-space indentation).
 * - `{{pyDocstring text indent=4}}`: a complete triple-quoted docstring block at `indent` spaces,
 *   wrapped at 100 columns; on a line of its own.
 * - `{{pyComment text width=97 prefix="#: "}}`: `text` word-wrapped into comment lines.
 */
import type { SdkSyntax } from "../sdk-render.js";
import { pyDocstring, pyLiteral, pyStr, pyStrTuple, wrap } from "./naming.js";

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

/** `text` as comment lines of at most `width` characters of text, each starting with `prefix`. */
export function pyComment(text: string, width: number, prefix: string): string {
  return wrap(text, width)
    .map((line) => `${prefix}${line}`)
    .join("\n");
}

/** The helpers of the Python templates. */
export const PYTHON_SYNTAX: SdkSyntax = {
  helpers: {
    pyString: ([value]) => pyStr(str(value, "pyString")),
    pyOptString: ([value]) => (value === null ? "None" : pyStr(str(value, "pyOptString"))),
    pyStrings: ([list]) => pyStrTuple(strs(list, "pyStrings")),
    pyBool: ([value]) => {
      if (typeof value !== "boolean") throw new Error(`pyBool: expected a boolean, got ${JSON.stringify(value)}`);
      return value ? "True" : "False";
    },
    pyLiteral: ([value]) => pyLiteral(value),
    pyDocstring: ([text], hash) => pyDocstring(str(text, "pyDocstring"), " ".repeat(num(hash.indent, 4, "pyDocstring indent"))),
    pyComment: ([text], hash) => pyComment(str(text, "pyComment"), num(hash.width, 97, "pyComment width"), typeof hash.prefix === "string" ? hash.prefix : "#: "),
  },
  blocks: {},
  partials: {},
};
