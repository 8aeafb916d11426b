/**
 * Whole-document validation: parse layer (`json.*`), schema layer (`schema.*`), then the cross-field
 * rules of spec/tables/rules.json. A later layer runs only when the earlier ones found nothing, so the
 * first issue is always the primary one (spec/README.md, "Validation issues").
 */
import { ACCEPT_CHECKS } from "../../generated/ts/accept-checks.js";
import { LIMITS } from "../../generated/ts/spec/limits.js";
import { INTEGER_PATHS, type WireObjectTypeName, type WireTypeMap } from "../../generated/ts/spec/plans.js";
import type { ValidationIssue } from "./issues.js";
import { WireValidationError } from "./issues.js";
import { evaluateRules } from "./rules.js";
import { integerLexemeIssues, schemaIssues } from "./schema.js";
import {
  parseStrictJson,
  type StrictJsonLimits,
  type StrictParseOptions,
  type StrictParseResult,
} from "./json/parse.js";
import { parseStrictJsonSliced, type StrictSliceOptions } from "./json/sliced.js";

/** Byte and depth bounds of one document (bytes; levels, the root container being level 1). */
export type DocumentLimits = StrictJsonLimits;

/** Default limits for a document read from a peer: limits.max_request_bytes, limits.max_depth, limits.max_values and limits.max_object_members. */
export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = Object.freeze({
  maxBytes: LIMITS.max_request_bytes,
  maxDepth: LIMITS.max_depth,
  maxValues: LIMITS.max_values,
  maxMembers: LIMITS.max_object_members,
});

/** Outcome of judging one document: the typed value, or every issue found (the first is primary). */
export type WireResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/**
 * Validate an in-memory value (schema layer, then rules). Use for values that did not come from
 * bytes, e.g. an in-process handler's response. Returns [] when valid.
 */
export function validateValue(typeName: WireObjectTypeName, value: unknown): ValidationIssue[] {
  const schema = schemaIssues(typeName, value);
  if (schema.length > 0) return schema;
  return evaluateRules(typeName, value);
}

/**
 * Judge a value that came out of the strict parser: schema layer, integer lexemes (the parser's
 * `nonIntegerNumberPointers`, relative to `value`), then rules. Returns [] when valid.
 */
export function validateParsed(
  typeName: WireObjectTypeName,
  value: unknown,
  nonIntegerNumberPointers: readonly string[],
): ValidationIssue[] {
  const schema = schemaIssues(typeName, value);
  if (schema.length > 0) return schema;
  const lexemes = integerLexemeIssues(typeName, nonIntegerNumberPointers);
  if (lexemes.length > 0) return lexemes;
  return evaluateRules(typeName, value);
}

/** Strict-parser options per wire type: its integer paths and its accept check (built once per type). */
const PARSE_OPTIONS = new Map<WireObjectTypeName, StrictParseOptions>();

function parseOptions(typeName: WireObjectTypeName): StrictParseOptions {
  let options = PARSE_OPTIONS.get(typeName);
  if (options === undefined) {
    options = Object.freeze({ nonIntegerPaths: INTEGER_PATHS[typeName], accept: ACCEPT_CHECKS[typeName] });
    PARSE_OPTIONS.set(typeName, options);
  }
  return options;
}

/**
 * Parse and validate the bytes of one wire document of type `typeName`.
 * Never throws for bad input: every problem comes back as issues with rule ids and JSON pointers.
 */
export function parseWireDocument<K extends WireObjectTypeName>(
  typeName: K,
  bytes: Uint8Array,
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
): WireResult<WireTypeMap[K]> {
  return judgeParsed(typeName, parseStrictJson(bytes, limits, parseOptions(typeName)));
}

/**
 * Judge a strict parse of a `typeName` document: parse issue, or schema, integer lexemes and rules
 * (none of which can report when the type's accept check passed on the fast path).
 */
function judgeParsed<K extends WireObjectTypeName>(typeName: K, parsed: StrictParseResult): WireResult<WireTypeMap[K]> {
  if (parsed.ok && parsed.accepted === true) return { ok: true, value: parsed.value as WireTypeMap[K] };
  if (!parsed.ok) {
    // A ValidationIssue is exactly {rule, pointer, message}; the parser's byte offset stays in the message.
    const { rule, pointer, message } = parsed.issue;
    return { ok: false, issues: [{ rule, pointer, message }] };
  }
  const issues = validateParsed(typeName, parsed.value, parsed.nonIntegerNumberPointers);
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: parsed.value as WireTypeMap[K] };
}

/**
 * {@link parseWireDocument} without blocking the event loop: the strict parse runs in slices
 * (parseStrictJsonSliced), then the schema and rules (bounded by the schemas' maxItems/maxLength
 * and limits.max_values). Same result as parseWireDocument for every input; resolves `"deadline"`
 * when `slice.deadlineAt` (performance.now() ms) passes before the parse ends. Never rejects.
 */
export async function parseWireDocumentSliced<K extends WireObjectTypeName>(
  typeName: K,
  bytes: Uint8Array,
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
  slice: StrictSliceOptions = {},
): Promise<WireResult<WireTypeMap[K]> | "deadline"> {
  const parsed = await parseStrictJsonSliced(bytes, limits, parseOptions(typeName), slice);
  if (parsed === "deadline") return parsed;
  return judgeParsed(typeName, parsed);
}

/** Like {@link parseWireDocument} but throws {@link WireValidationError} on any issue. */
export function parseWireDocumentOrThrow<K extends WireObjectTypeName>(
  typeName: K,
  bytes: Uint8Array,
  limits?: DocumentLimits,
): WireTypeMap[K] {
  const result = parseWireDocument(typeName, bytes, limits);
  if (!result.ok) throw new WireValidationError(typeName, result.issues);
  return result.value;
}
