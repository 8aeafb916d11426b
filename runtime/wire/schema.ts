/**
 * The schema layer: the precompiled ajv validators (generated/ts/validators.ts, one module per type,
 * loaded on first use) with their errors
 * mapped to `schema.*` rule ids, plus the integer-lexeme check that ajv cannot make because
 * JSON.parse has already turned `1.0` into `1`.
 */
import { INTEGER_PATHS, type WireObjectTypeName } from "../../generated/ts/spec/plans.js";
import { loadValidator } from "../../generated/ts/validators.js";
import type { ValidationIssue } from "./issues.js";
import { childPointer, pointerMatches } from "./pointer.js";

/** The shape of an ajv error object as the standalone validators produce it. */
export interface AjvError {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string;
}

type StandaloneValidator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

const KEYWORD_RULES: Readonly<Record<string, string>> = {
  required: "schema.required",
  additionalProperties: "schema.additional-properties",
  type: "schema.type",
  enum: "schema.enum",
  maxLength: "schema.max-length",
  minimum: "schema.minimum",
  maximum: "schema.maximum",
  maxItems: "schema.max-items",
};

/** Validators found so far (a computed lookup on the module namespace costs microseconds per call). */
const VALIDATORS = new Map<WireObjectTypeName, StandaloneValidator>();

function validatorFor(typeName: WireObjectTypeName): StandaloneValidator {
  const known = VALIDATORS.get(typeName);
  if (known !== undefined) return known;
  // Loaded on first use (issue 30): a command reads the validators of the types it judges only.
  const validator = loadValidator(typeName) as StandaloneValidator | undefined;
  if (!validator) throw new Error(`no generated validator for ${typeName}; run npm run generate`);
  VALIDATORS.set(typeName, validator);
  return validator;
}

/** The validator of `typeName` among an accepted version's own validators (loaded on first use, as current's). */
function versionValidator(
  validators: { readonly loadValidator: (typeName: string) => unknown },
  typeName: string,
): StandaloneValidator {
  const validator = validators.loadValidator(typeName);
  if (typeof validator !== "function") throw new Error(`no generated validator for ${typeName}; run npm run generate`);
  return validator as StandaloneValidator;
}

/** Map one ajv error to an issue; `null` for bookkeeping errors (an `anyOf` summary, the null branch of a nullable ref). Also used by `validate --all`. */
export function toIssue(error: AjvError): ValidationIssue | null {
  if (error.keyword === "anyOf") return null;
  if (error.keyword === "type" && error.schemaPath.endsWith("/anyOf/1/type")) return null;
  const rule =
    KEYWORD_RULES[error.keyword] ?? `schema.${error.keyword.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  if (error.keyword === "required") {
    const missing = String(error.params.missingProperty);
    return {
      rule,
      pointer: childPointer(error.instancePath, missing),
      message: `missing required member \`${missing}\``,
    };
  }
  if (error.keyword === "additionalProperties") {
    const extra = String(error.params.additionalProperty);
    return {
      rule,
      pointer: childPointer(error.instancePath, extra),
      message: `unknown member \`${extra}\` (the object is closed)`,
    };
  }
  if (error.keyword === "enum") {
    const allowed = (error.params.allowedValues as unknown[] | undefined) ?? [];
    return {
      rule,
      pointer: error.instancePath,
      message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`,
    };
  }
  return { rule, pointer: error.instancePath, message: error.message ?? error.keyword };
}

/**
 * Run the schema of `typeName` (first error only, by design: bounded work on untrusted input).
 * `validators`: the validators index of an accepted older version with its own schemas
 * (generated/ts/window.ts `AcceptedReader.validators`); omitted or null: current's.
 */
export function schemaIssues(
  typeName: WireObjectTypeName,
  value: unknown,
  validators: { readonly loadValidator: (typeName: string) => unknown } | null = null,
): ValidationIssue[] {
  const validate = validators === null ? validatorFor(typeName) : versionValidator(validators, typeName);
  if (validate(value)) return [];
  const issues = (validate.errors ?? []).map(toIssue).filter((i): i is ValidationIssue => i !== null);
  return issues.length > 0
    ? issues.slice(0, 1)
    : [{ rule: "schema.type", pointer: "", message: "does not match the schema" }];
}

const integerNameSets = new WeakMap<readonly string[], ReadonlySet<string>>();

/** The last tokens of integer path `patterns` (`*` for an array index), worked out once per array. */
function integerNames(patterns: readonly string[]): ReadonlySet<string> {
  let names = integerNameSets.get(patterns);
  if (names === undefined) {
    names = new Set(patterns.map((pattern) => pattern.slice(pattern.lastIndexOf("/") + 1)));
    integerNameSets.set(patterns, names);
  }
  return names;
}

/**
 * Issues for numbers written with a fraction, an exponent or as `-0` where the schema of `typeName`
 * wants an integer (`pointers` come from the strict parser). The reference rejects these; JSON.parse
 * cannot tell `1.0` from `1`, so this check uses the lexemes the parser recorded. `patterns`: the
 * integer paths of the judging version (default: current's).
 */
export function integerLexemeIssues(
  typeName: WireObjectTypeName,
  pointers: readonly string[],
  patterns: readonly string[] = INTEGER_PATHS[typeName],
): ValidationIssue[] {
  if (pointers.length === 0) return [];
  const names = integerNames(patterns);
  for (const pointer of pointers) {
    // Only a pointer whose last token names an integer field (or is an index, for `*`) can match:
    // a cheap test first, so a long list of other pointers costs O(1) each.
    const last = pointer.slice(pointer.lastIndexOf("/") + 1);
    if (!names.has(last) && !(names.has("*") && /^(0|[1-9][0-9]*)$/.test(last))) continue;
    if (patterns.some((pattern) => pointerMatches(pointer, pattern))) {
      return [
        {
          rule: "schema.type",
          pointer,
          message: "must be an integer written without fraction, exponent or minus zero",
        },
      ];
    }
  }
  return [];
}
