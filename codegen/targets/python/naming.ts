/** Python naming and source literals: identifiers, string and tuple literals, docstrings, isort order. */
import { wrapWords } from "../../emit/text.js";
import { camelWords } from "../sdk-shared.js";

export const PY_KEYWORDS = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
  "match",
  "case",
  "type",
]);

/** A Python string literal (JSON string syntax is valid Python). */
export function pyStr(text: string): string {
  return JSON.stringify(text);
}

/** A Python tuple literal of expressions. */
export function pyTuple(exprs: readonly string[]): string {
  if (exprs.length === 0) return "()";
  return `(${exprs.join(", ")}${exprs.length === 1 ? "," : ""})`;
}

/** A Python tuple literal of strings. */
export function pyStrTuple(values: readonly string[]): string {
  return pyTuple(values.map(pyStr));
}

/** A Python literal of a JSON value (dicts and lists), pretty-printed with 4-space indentation. */
export function pyLiteral(value: unknown, indent = ""): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`non-finite number ${value} in a table`);
    return Number.isInteger(value) ? String(value) : JSON.stringify(value);
  }
  if (typeof value === "string") return pyStr(value);
  const inner = `${indent}    `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => `${inner}${pyLiteral(v, inner)},`).join("\n")}\n${indent}]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([k, v]) => `${inner}${pyStr(k)}: ${pyLiteral(v, inner)},`).join("\n")}\n${indent}}`;
  }
  throw new Error(`cannot render ${typeof value} as a Python literal`);
}

/** Word-wrap `text` into lines of at most `width` characters (never splits a word; keeps blank lines). */
export function wrap(text: string, width: number): string[] {
  return wrapWords(text, width, true);
}

/** Escape text for a triple-quoted Python docstring. */
export function docEscape(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"');
}

/** A complete docstring block at `indent`, wrapped at 100 columns. */
export function pyDocstring(text: string, indent: string): string {
  const lines = wrap(docEscape(text.trim()), Math.max(40, 100 - indent.length));
  if (lines.length === 1 && indent.length + (lines[0] ?? "").length + 6 <= 110) return `${indent}"""${lines[0]}"""`;
  return [`${indent}"""${lines[0]}`, ...lines.slice(1).map((l) => (l ? `${indent}${l}` : "")), `${indent}"""`].join(
    "\n",
  );
}

/** UPPER_SNAKE member name of an enum value (`context.pressure_observed` -> `CONTEXT_PRESSURE_OBSERVED`). */
export function pyConstName(value: string): string {
  let name = value
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase();
  if (/^[0-9]/.test(name)) name = `_${name}`;
  if (!name) throw new Error(`cannot name enum value ${JSON.stringify(value)}`);
  return name;
}

/** Python attribute name of a wire field (a keyword gets a trailing underscore). */
export function pyAttr(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new Error(`field ${JSON.stringify(name)} is not a Python identifier`);
  return PY_KEYWORDS.has(name) ? `${name}_` : name;
}

export function snake(text: string): string {
  return text.replace(/-/g, "_");
}

export function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

/**
 * Sort imported names like isort's `order-by-type` (ruff's I001): CONSTANTS, then Classes, then
 * functions/variables, each group case-insensitively.
 */
export function isortNames(names: readonly string[]): string[] {
  const group = (n: string): number => (n === n.toUpperCase() && /[A-Z]/.test(n) ? 0 : /^[A-Z]/.test(n) ? 1 : 2);
  return [...names].sort((a, b) => {
    const g = group(a) - group(b);
    if (g !== 0) return g;
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
  });
}

/** UPPER_SNAKE words of a harness event name: `UserPromptSubmit` → `USER_PROMPT_SUBMIT`. */
export function upperSnake(camel: string): string {
  return camelWords(camel).join("_").toUpperCase();
}

/** Python constant of a failure variant of spec/tables/subprocess-failure-mapping.json, e.g. `FAILURE_VARIANT_HANDLER_THREW`. */
export function failureVariantConst(variant: string): string {
  return `FAILURE_VARIANT_${pyConstName(variant)}`;
}
