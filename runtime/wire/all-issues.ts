/**
 * `validate --all`: every issue the layers can find in one document, instead of the first one
 * (spec/wire-contract.md keeps first-issue as the default and as what the bindings agree on).
 *
 * The layers still run in order, because each later one needs the earlier ones to hold: a JSON
 * issue is reported alone (the parser cannot go on past it); otherwise every schema issue (ajv with
 * `allErrors`, compiled at first use from the package's schemas/) and every integer-lexeme issue;
 * the cross-field rules only when the schema layer found nothing (they assume its types).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { INTEGER_PATHS, type WireObjectTypeName } from "../../generated/ts/spec.js";
import type { ValidationIssue } from "./issues.js";
import { evaluateRules } from "./rules.js";
import { integerLexemeIssues, toIssue, type AjvError } from "./schema.js";
import { parseStrictJson } from "./json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument } from "./validate.js";
import { packageRoot } from "../process/package-root.js";

let compiled: Map<string, ValidateFunction> | null = null;

/** The all-errors validator of a wire type, compiled once per process from schemas/*.schema.json. */
function allErrorsValidator(typeName: WireObjectTypeName): ValidateFunction {
  if (compiled === null) {
    // strict: false only tolerates this project's annotation keywords; the checks are the schemas'.
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const dir = join(packageRoot(), "schemas");
    const schemas = readdirSync(dir)
      .filter((f) => f.endsWith(".schema.json"))
      .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as { title?: string });
    for (const schema of schemas) ajv.addSchema(schema);
    compiled = new Map();
    for (const schema of schemas) if (typeof schema.title === "string") compiled.set(schema.title, ajv.compile(schema));
  }
  const validate = compiled.get(typeName);
  if (!validate) throw new Error(`no schema titled ${typeName} under schemas/`);
  return validate;
}

/**
 * Every issue of one document of type `typeName`, in layer order (JSON, schema, integer lexemes,
 * rules); [] when valid. Never throws for bad input.
 */
export function allIssues(typeName: WireObjectTypeName, bytes: Uint8Array): ValidationIssue[] {
  // The default path first: a valid document, or a JSON issue, is reported exactly as `validate` does.
  const first = parseWireDocument(typeName, bytes);
  if (first.ok) return [];
  if (first.issues[0]?.rule.startsWith("json.")) return [...first.issues];
  const parsed = parseStrictJson(bytes, DEFAULT_DOCUMENT_LIMITS, { nonIntegerPaths: INTEGER_PATHS[typeName] });
  if (!parsed.ok) return [...first.issues];
  const validate = allErrorsValidator(typeName);
  const schema = validate(parsed.value)
    ? []
    : ((validate.errors ?? []) as unknown as AjvError[]).map(toIssue).filter((i): i is ValidationIssue => i !== null);
  const lexemes = parsed.nonIntegerNumberPointers.flatMap((p) => integerLexemeIssues(typeName, [p]));
  if (schema.length > 0 || lexemes.length > 0) return [...schema, ...lexemes];
  return evaluateRules(typeName, parsed.value);
}
