/**
 * Whole-document validation: parse layer (`json.*`), version selection in the reader's window
 * (spec/wire-window.md), then the schema layer (`schema.*`) and the cross-field rules of the
 * selected version (spec/tables/rules.json for current, the release snapshot's for an older one). A later layer runs only when the earlier ones found nothing, so the
 * first issue is always the primary one (spec/README.md, "Validation issues").
 */
import { ACCEPT_CHECKS } from "../../generated/ts/accept-checks.js";
import { LIMITS } from "../../generated/ts/spec/limits.js";
import { WIRE_VERSION } from "../../generated/ts/spec/wire-version.js";
import { INTEGER_PATHS, type WireObjectTypeName, type WireTypeMap } from "../../generated/ts/spec/plans.js";
import type { ValidationIssue } from "./issues.js";
import { WireValidationError } from "./issues.js";
import { evaluateRulePlan, evaluateRules } from "./rules.js";
import { integerLexemeIssues, schemaIssues } from "./schema.js";
import {
  parseStrictJson,
  type StrictJsonLimits,
  type StrictParseOptions,
  type StrictParseResult,
} from "./json/parse.js";
import { parseStrictJsonSliced, type StrictSliceOptions } from "./json/sliced.js";
import {
  DEFAULT_WIRE_WINDOW,
  outsideWindowIssue,
  selectVersion,
  type VersionSelection,
  type WireWindow,
} from "./window.js";

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
 * Validate an in-memory value (version selection, schema layer, then rules) by the rules of the
 * version it carries, among `window`'s (spec/wire-window.md). Use for values that did not come from
 * bytes, e.g. an in-process handler's response. Returns [] when valid.
 */
export function validateValue(
  typeName: WireObjectTypeName,
  value: unknown,
  window: WireWindow = DEFAULT_WIRE_WINDOW,
): ValidationIssue[] {
  return judgeValue(typeName, value, NO_POINTERS, window);
}

const NO_POINTERS: readonly string[] = Object.freeze([]);

/**
 * Judge a value that came out of the strict parser: version selection in `window`, schema layer,
 * integer lexemes (the parser's `nonIntegerNumberPointers`, relative to `value`), then rules, all of
 * the selected version (spec/wire-window.md, "How a document is judged"). Returns [] when valid.
 */
export function validateParsed(
  typeName: WireObjectTypeName,
  value: unknown,
  nonIntegerNumberPointers: readonly string[],
  window: WireWindow = DEFAULT_WIRE_WINDOW,
): ValidationIssue[] {
  return judgeValue(typeName, value, nonIntegerNumberPointers, window);
}

/** The layers after the parse, of the version `window` selects for `value`. */
function judgeValue(
  typeName: WireObjectTypeName,
  value: unknown,
  pointers: readonly string[],
  window: WireWindow,
  selection: VersionSelection = selectVersion(value, window),
): ValidationIssue[] {
  const { reader, outside, version } = selection;
  if (reader === null) {
    const schema = schemaIssues(typeName, value);
    if (schema.length > 0) return schema;
    const lexemes = integerLexemeIssues(typeName, pointers);
    if (lexemes.length > 0) return lexemes;
    if (outside !== null) return [outsideWindowIssue(outside, window)];
    return evaluateRules(typeName, value);
  }
  const plan = reader.rulePlans[typeName];
  // A type the accepted version did not have: no document of it can be of that version.
  if (plan === undefined)
    return [
      outsideWindowIssue(
        version,
        window.filter((v) => v !== version),
      ),
    ];
  const schema = schemaIssues(typeName, value, reader.validators);
  if (schema.length > 0) return schema;
  const lexemes = integerLexemeIssues(typeName, pointers, reader.integerPaths[typeName]);
  if (lexemes.length > 0) return lexemes;
  if (outside !== null) return [outsideWindowIssue(outside, window)];
  return evaluateRulePlan(plan, value);
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
 * Parse and validate the bytes of one wire document of type `typeName`, judged by the version its
 * `schema_version` names among `window`'s (default: every version this build reads; spec/wire-window.md).
 * Never throws for bad input: every problem comes back as issues with rule ids and JSON pointers.
 */
export function parseWireDocument<K extends WireObjectTypeName>(
  typeName: K,
  bytes: Uint8Array,
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
  window: WireWindow = DEFAULT_WIRE_WINDOW,
): WireResult<WireTypeMap[K]> {
  return judgeParsed(typeName, bytes, limits, parseStrictJson(bytes, limits, parseOptions(typeName)), window);
}

/**
 * Judge a strict parse of a `typeName` document: parse issue, or version selection, schema, integer
 * lexemes and rules. The parse's accept check proves a current-version document valid on the fast
 * path; it counts only when `window` reads current.
 */
function judgeParsed<K extends WireObjectTypeName>(
  typeName: K,
  bytes: Uint8Array,
  limits: DocumentLimits,
  parsed: StrictParseResult,
  window: WireWindow,
): WireResult<WireTypeMap[K]> {
  if (parsed.ok && parsed.accepted === true && (window === DEFAULT_WIRE_WINDOW || window.includes(WIRE_VERSION)))
    return { ok: true, value: parsed.value as WireTypeMap[K] };
  if (!parsed.ok) {
    // A ValidationIssue is exactly {rule, pointer, message}; the parser's byte offset stays in the message.
    const { rule, pointer, message } = parsed.issue;
    return { ok: false, issues: [{ rule, pointer, message }] };
  }
  let pointers = parsed.nonIntegerNumberPointers;
  const selection = selectVersion(parsed.value, window);
  const paths = selection.reader?.integerPaths[typeName];
  if (paths !== undefined && !samePaths(paths, INTEGER_PATHS[typeName])) {
    // The parser recorded non-integer lexemes at current's integer paths; an older version with
    // other integer fields needs its own (rare: only when a version changed a field's type).
    const again = parseStrictJson(bytes, limits, { nonIntegerPaths: paths });
    if (again.ok) pointers = again.nonIntegerNumberPointers;
  }
  const issues = judgeValue(typeName, parsed.value, pointers, window, selection);
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: parsed.value as WireTypeMap[K] };
}

function samePaths(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
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
  window: WireWindow = DEFAULT_WIRE_WINDOW,
): Promise<WireResult<WireTypeMap[K]> | "deadline"> {
  const parsed = await parseStrictJsonSliced(bytes, limits, parseOptions(typeName), slice);
  if (parsed === "deadline") return parsed;
  return judgeParsed(typeName, bytes, limits, parsed, window);
}

/** Like {@link parseWireDocument} but throws {@link WireValidationError} on any issue. */
export function parseWireDocumentOrThrow<K extends WireObjectTypeName>(
  typeName: K,
  bytes: Uint8Array,
  limits?: DocumentLimits,
  window?: WireWindow,
): WireTypeMap[K] {
  const result = parseWireDocument(typeName, bytes, limits, window);
  if (!result.ok) throw new WireValidationError(typeName, result.issues);
  return result.value;
}
