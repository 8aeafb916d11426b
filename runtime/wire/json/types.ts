/**
 * The public vocabulary of the strict JSON parser: limits, options, issues, results and the
 * `json.*` rule ids (the json.* rows of spec/tables/document-rules.json, generated into
 * generated/ts/spec/document-rules.ts; spec/wire-contract.md defines them).
 *
 * @module
 */
import type { AcceptCheck } from "../../../generated/ts/accept-checks.js";
import { PARSE_RULE_IDS } from "../../../generated/ts/spec/document-rules.js";

/**
 * Limits applied to one document.
 *
 * - `maxBytes`: maximum byte length of the raw (undecoded) input, inclusive.
 *   A longer input yields `json.max-bytes` without being decoded or scanned.
 * - `maxDepth`: maximum nesting of arrays/objects, inclusive. A top-level
 *   container is depth 1, a container inside it depth 2, and so on; top-level
 *   scalars are depth 0, so `maxDepth: 0` accepts only scalar documents.
 *   Exceeding it yields `json.max-depth`.
 */
export interface StrictJsonLimits {
  readonly maxBytes: number;
  readonly maxDepth: number;
  /**
   * Maximum number of JSON values (every string, number, literal, array and object, the root
   * included; member names are not values), inclusive. Exceeding it yields `json.max-values`.
   * Absent: no bound (callers judging untrusted input pass limits.max_values).
   */
  readonly maxValues?: number;
  /**
   * Maximum number of members of any one object (every member name of the text, a repeated one
   * too), inclusive. Exceeding it yields `json.max-members` at the first member past it, checked
   * before that name is compared with the earlier ones. Absent: no bound (callers judging
   * untrusted input pass limits.max_object_members).
   */
  readonly maxMembers?: number;
}

/**
 * One parse-layer problem.
 *
 * - `rule`: stable id, one of the values of {@link PARSE_RULES}.
 * - `pointer`: RFC 6901 JSON pointer of the value/member concerned (`""` is the
 *   document root). For problems inside a member name it is the pointer of the
 *   enclosing object.
 * - `message`: human-readable description naming the problem and its byte
 *   offset; for syntax/trailing-data problems it includes an escaped preview
 *   of at most 32 bytes of input. It never contains unbounded input.
 * - `offset`: byte offset (0-based, into the raw input `Uint8Array`) where the
 *   problem was detected, when known (absent for `json.max-bytes`).
 */
export interface ParseIssue {
  readonly rule: string;
  readonly pointer: string;
  readonly message: string;
  readonly offset?: number;
}

/**
 * Result of {@link parseStrictJson}.
 *
 * - `ok: true`: `value` is the document as produced by `JSON.parse` (so a
 *   `"__proto__"` member becomes an own property). `nonIntegerNumberPointers`
 *   lists, in input order, the JSON pointers of every number whose lexeme is
 *   not a plain integer: it has a fraction or an exponent (`1.0`, `1e2`,
 *   `2.5`), or it is negative zero `-0`. Array element tokens are decimal
 *   indexes; member names are escaped with {@link escapePointerToken}.
 *   `accepted: true` when `options.accept` passed on the value (see {@link StrictParseOptions}).
 * - `ok: false`: `issue` describes the first problem found.
 */
export type StrictParseResult =
  | {
      readonly ok: true;
      readonly value: unknown;
      readonly nonIntegerNumberPointers: readonly string[];
      readonly accepted?: true;
    }
  | { readonly ok: false; readonly issue: ParseIssue };

/**
 * Options of {@link parseStrictJson}.
 *
 * `nonIntegerPaths`: JSON pointer patterns (`*` matches any array index; tokens are unescaped member
 * names) of the only places where a non-integer number is recorded in `nonIntegerNumberPointers`,
 * typically the integer fields of the document's schema (INTEGER_PATHS). Numbers elsewhere are
 * scanned but cost no memory. When omitted, every non-integer number is recorded, up to
 * {@link MAX_RECORDED_NON_INTEGER} pointers (the rest are scanned but not recorded).
 */
export interface StrictParseOptions {
  readonly nonIntegerPaths?: readonly string[];
  /**
   * The accept check of the document's wire type (generated/ts/accept-checks.ts ACCEPT_CHECKS):
   * the fast accept path runs it on the value in place of its generic walk, and a result with
   * `accepted: true` says it passed (the value is then also valid under that type's schema and
   * rules). Never changes the result otherwise.
   */
  readonly accept?: AcceptCheck;
}

/** How many non-integer number pointers are recorded at most when no `nonIntegerPaths` are given. */
export const MAX_RECORDED_NON_INTEGER = 1024;

/**
 * The stable rule ids {@link parseStrictJson} can report in {@link ParseIssue.rule}: the json.* rows
 * of spec/tables/document-rules.json, keyed by lowerCamel name (e.g. `maxBytes: "json.max-bytes"`).
 */
export const PARSE_RULES = Object.freeze(PARSE_RULE_IDS);

/** Union of the rule id strings in {@link PARSE_RULES}. */
export type ParseRule = (typeof PARSE_RULES)[keyof typeof PARSE_RULES];

/** RFC 6901 escaping of one reference token (`~` -> `~0`, `/` -> `~1`). */
export { escapeToken as escapePointerToken } from "../pointer.js";
