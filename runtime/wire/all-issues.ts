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
import { INTEGER_PATHS, RULE_PLANS, type WireObjectTypeName } from "../../generated/ts/spec/plans.js";
import type { ValidationIssue } from "./issues.js";
import { evaluateRulePlan } from "./rules.js";
import { integerLexemeIssues, toIssue, type AjvError } from "./schema.js";
import { parseStrictJson } from "./json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument } from "./validate.js";
import { DEFAULT_WIRE_WINDOW, outsideWindowIssue, selectVersion, type WireWindow } from "./window.js";
import { packageRoot } from "../process/package-root.js";

/** All-errors validators by schemas folder (package-relative), compiled once per process each. */
const compiled = new Map<string, Map<string, ValidateFunction>>();

/**
 * The all-errors validator of a wire type, compiled once per process from `<folder>/*.schema.json`
 * (`schemas` for current, `spec/releases/<version>/schemas` for an accepted version with its own).
 */
function allErrorsValidator(typeName: WireObjectTypeName, folder: string): ValidateFunction {
  let validators = compiled.get(folder);
  if (validators === undefined) {
    // strict: false only tolerates this project's annotation keywords; the checks are the schemas'.
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const dir = join(packageRoot(), folder);
    const schemas = readdirSync(dir)
      .filter((f) => f.endsWith(".schema.json"))
      .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as { title?: string });
    for (const schema of schemas) ajv.addSchema(schema);
    validators = new Map();
    for (const schema of schemas)
      if (typeof schema.title === "string") validators.set(schema.title, ajv.compile(schema));
    compiled.set(folder, validators);
  }
  const validate = validators.get(typeName);
  if (!validate) throw new Error(`no schema titled ${typeName} under ${folder}/`);
  return validate;
}

/**
 * Every issue of one document of type `typeName`, in layer order (JSON, schema, integer lexemes,
 * rules) of the version `window` selects for it (spec/wire-window.md); [] when valid. Never throws
 * for bad input.
 */
export function allIssues(
  typeName: WireObjectTypeName,
  bytes: Uint8Array,
  window: WireWindow = DEFAULT_WIRE_WINDOW,
): ValidationIssue[] {
  // The default path first: a valid document, or a JSON issue, is reported exactly as `validate` does.
  const first = parseWireDocument(typeName, bytes, DEFAULT_DOCUMENT_LIMITS, window);
  if (first.ok) return [];
  if (first.issues[0]?.rule.startsWith("json.")) return [...first.issues];
  let parsed = parseStrictJson(bytes, DEFAULT_DOCUMENT_LIMITS, { nonIntegerPaths: INTEGER_PATHS[typeName] });
  if (!parsed.ok) return [...first.issues];
  const { reader, outside } = selectVersion(parsed.value, window);
  const integerPaths = reader?.integerPaths[typeName] ?? INTEGER_PATHS[typeName];
  const plan = reader === null ? RULE_PLANS[typeName] : reader.rulePlans[typeName];
  if (plan === undefined) return [...first.issues];
  // Parsed again only for a version whose integer fields differ from current's.
  if (integerPaths !== INTEGER_PATHS[typeName]) {
    parsed = parseStrictJson(bytes, DEFAULT_DOCUMENT_LIMITS, { nonIntegerPaths: integerPaths });
    if (!parsed.ok) return [...first.issues];
  }
  const folder = reader?.validators ? `${reader.snapshot}/schemas` : "schemas";
  const validate = allErrorsValidator(typeName, folder);
  const schema = validate(parsed.value)
    ? []
    : ((validate.errors ?? []) as unknown as AjvError[]).map(toIssue).filter((i): i is ValidationIssue => i !== null);
  const lexemes = parsed.nonIntegerNumberPointers.flatMap((p) => integerLexemeIssues(typeName, [p], integerPaths));
  if (schema.length > 0 || lexemes.length > 0) return [...schema, ...lexemes];
  if (outside !== null) return [outsideWindowIssue(outside, window)];
  return evaluateRulePlan(plan, parsed.value);
}
