/**
 * Strict JSON front-end for untrusted wire documents.
 *
 * `JSON.parse` alone is too lax for the wire: it silently keeps the last of
 * two duplicate member names, accepts lone UTF-16 surrogate escapes, turns
 * `1e400` into `Infinity`, and has no size or depth limits. This module runs
 * one fast, iterative (no JS-stack recursion) validating scan over the decoded
 * document and only then hands the text to `JSON.parse` to build the value.
 *
 * Rules (stable ids, see {@link PARSE_RULES}). Rules 1-3 are checked in that
 * order before anything is scanned; rules 4-9 are found by one left-to-right
 * scan, and the problem that occurs earliest in the input is reported:
 *
 * 1. `json.max-bytes`     input longer than `limits.maxBytes` (nothing is decoded)
 * 2. `json.bom`           input starts with the UTF-8 BOM `EF BB BF`
 * 3. `json.utf8`          input is not well-formed UTF-8
 * 4. `json.syntax`        anything RFC 8259 forbids
 * 5. `json.trailing-data` non-whitespace after the top-level value
 * 6. `json.duplicate-key` a member name repeated in one object (after unescaping)
 * 7. `json.max-depth`     array/object nesting deeper than `limits.maxDepth`
 * 8. `json.lone-surrogate` an unpaired `\uD800`-`\uDFFF` escape
 * 9. `json.number-range`  a number whose magnitude overflows an IEEE-754 double
 * 10. `json.max-values`   more values (scalars and containers, the root included) than `limits.maxValues`
 * 11. `json.max-members`  an object with more members than `limits.maxMembers` (every member name
 *     of the text counts, a repeated one too: the count is checked at each name, before the name is
 *     compared with the object's earlier ones)
 *
 * Two ways to run it:
 * - {@link parseStrictJson}: synchronous; one scan, then `JSON.parse` builds the value.
 * - {@link parseStrictJsonSliced}: the same scan builds the value itself while it validates, in
 *   slices of a few milliseconds with the event loop free in between (resumable scanner state), so
 *   a document at the limits never blocks the host for long and can be abandoned at a deadline.
 *   Both give the same result for every input.
 *
 * Both first try the fast accept path of runtime/wire/fast-parse.ts (the sync parser up to
 * limits.fast_parse_max_bytes, the sliced one up to limits.fast_parse_sliced_max_bytes): the
 * native `JSON.parse` plus native searches and one walk that prove every rule above, or decline;
 * the scan then judges the document, so an issue is always reported by the scan.
 *
 * @module
 */
import { constants as bufferConstants, isAscii, isUtf8 } from "node:buffer";
import { PARSE_RULE_IDS } from "../../generated/ts/spec/document-rules.js";
import { defineMember } from "./own.js";
import { deferToNextTurn, endTurn, runInSlices, SLICE_MS } from "../process/slices.js";
import { escapeToken } from "./pointer.js";
import type { AcceptCheck } from "../../generated/ts/accept-checks.js";
import { FAST_PARSE_MAX_BYTES, FAST_PARSE_SLICED_MAX_BYTES, type FastParse, fastParse } from "./fast-parse.js";

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
  | { readonly ok: true; readonly value: unknown; readonly nonIntegerNumberPointers: readonly string[]; readonly accepted?: true }
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
export { escapeToken as escapePointerToken } from "./pointer.js";


// ---------------------------------------------------------------------------
// Character codes

const C_TAB = 0x09;
const C_LF = 0x0a;
const C_CR = 0x0d;
const C_SPACE = 0x20;
const C_QUOTE = 0x22;
const C_HASH = 0x23;
const C_APOS = 0x27;
const C_PLUS = 0x2b;
const C_COMMA = 0x2c;
const C_MINUS = 0x2d;
const C_DOT = 0x2e;
const C_SLASH = 0x2f;
const C_0 = 0x30;
const C_1 = 0x31;
const C_9 = 0x39;
const C_COLON = 0x3a;
const C_E_UP = 0x45;
const C_LBRACKET = 0x5b;
const C_BACKSLASH = 0x5c;
const C_RBRACKET = 0x5d;
const C_E_LOW = 0x65;
const C_LBRACE = 0x7b;
const C_RBRACE = 0x7d;

const KIND_ARRAY = 0;
const KIND_OBJECT = 1;

/** Objects with more members than this switch from linear search to a Set for duplicate detection. */
const LINEAR_KEY_LIMIT = 16;

/** Maximum number of input bytes shown in a message preview. */
const PREVIEW_BYTES = 32;

/** A number lexeme at least this long is checked for double overflow even without an exponent. */
const LONG_NUMBER_CHARS = 309;

/**
 * PLAIN[c] === 1 for UTF-16 code units that stand for themselves inside a
 * string (everything but '"', '\\' and U+0000..U+001F). Indexing with NaN
 * (past the end of input) yields undefined, which also ends the fast loop.
 */
const PLAIN = new Uint8Array(0x10000).fill(1);
PLAIN.fill(0, 0, 0x20);
PLAIN[C_QUOTE] = 0;
PLAIN[C_BACKSLASH] = 0;

/**
 * Rule 3 is checked by `isUtf8` (node:buffer, a native validator), then the input is decoded
 * without the fatal flag: the same text for valid UTF-8, and faster on large inputs (the fatal
 * decoder takes a slower path, ~20% at 256 KB).
 */
const utf8Decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Runs longer than this many code units are finished by a sticky regular expression (native, ~10x faster per char). */
const SHORT_RUN = 32;
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
const DIGIT_RUN = /[0-9]*/y;
const WS_RUN = /[ \t\n\r]*/y;


/** Index of the first code unit at or after `j` that is not PLAIN (or s.length). */
function plainEnd(s: string, j: number): number {
  const stop = j + SHORT_RUN;
  while (j < stop) {
    if (PLAIN[s.charCodeAt(j)] !== 1) return j;
    j++;
  }
  PLAIN_RUN.lastIndex = j;
  PLAIN_RUN.test(s);
  return PLAIN_RUN.lastIndex;
}

/** Code units one bounded run of {@link plainEndBefore} reads (one native step of well under a millisecond). */
const PLAIN_STEP = 65536; // the bound written in PLAIN_RUN_STEP
const PLAIN_RUN_STEP = /[^"\\\u0000-\u001f]{0,65536}/y;

/**
 * {@link plainEnd} that stops reading once it is at or past `limit` (it may stop up to PLAIN_STEP
 * code units past it): the first non-PLAIN code unit at or after `j`, or an index >= `limit` inside
 * the run. A 16 MiB run is otherwise one native step of tens of milliseconds.
 */
function plainEndBefore(s: string, j: number, limit: number): number {
  for (;;) {
    PLAIN_RUN_STEP.lastIndex = j;
    PLAIN_RUN_STEP.test(s);
    const end = PLAIN_RUN_STEP.lastIndex;
    if (end - j < PLAIN_STEP || end >= limit) return end;
    j = end;
  }
}

/** Index of the first non-digit at or after `j` (or s.length). */
function digitsEnd(s: string, j: number): number {
  const stop = j + SHORT_RUN;
  while (j < stop) {
    const c = s.charCodeAt(j);
    if (!(c >= C_0 && c <= C_9)) return j;
    j++;
  }
  DIGIT_RUN.lastIndex = j;
  DIGIT_RUN.test(s);
  return DIGIT_RUN.lastIndex;
}

// ---------------------------------------------------------------------------
// Scanner state. The scanner is synchronous and non-reentrant, so its working
// storage lives at module level and is reused across calls (no per-call
// allocation for the container stack or member-name bookkeeping).

/** Per depth (1-based): KIND_ARRAY or KIND_OBJECT. */
let kinds = new Uint8Array(64);
/** Per depth: for arrays the index of the current element, for objects the number of member names seen. */
let counts = new Uint32Array(64);
/** Per depth, objects only: index in the key stack of the object's first member name. */
let keyBase = new Uint32Array(64);

/*
 * Key stack: one entry per member name of every open object, innermost last
 * (a nested object's names sit above its parent's and are dropped when it
 * closes). Names without escapes are never materialised as strings on the
 * fast path: an entry is the span of the raw name in `src` plus its decoded
 * length; names with escapes also keep their decoded string.
 */
/** Index of the first char after the opening quote. */
let kStart = new Uint32Array(256);
/** Index of the closing quote. */
let kEnd = new Uint32Array(256);
/** Decoded length in UTF-16 code units. */
let kLen = new Uint32Array(256);
/** 1 when the raw name contains a backslash escape (then kDecoded holds the name). */
let kEsc = new Uint8Array(256);
let kDecoded: (string | undefined)[] = [];
let keyTop = 0;
/** Per depth: Set of decoded member names, used once an object has more than LINEAR_KEY_LIMIT members. */
let keySets: (Set<string> | undefined)[] = [];

/**
 * Cached JSON pointers of open containers: prefixes[d] is the pointer of the
 * container open at depth d, valid for every d <= prefixValid. The root
 * container (depth 1) is always "" (index 0 is unused and also "").
 */
let prefixes: string[] = ["", ""];
let prefixValid = 1;

/** Document text being scanned (used by the error path and lazy key decoding). */
let src = "";
/** True when `src` is pure ASCII, so UTF-16 indexes equal byte offsets. */
let srcIsAscii = false;
/**
 * Windowed scan (the sliced parser on a large input, see {@link WindowedParse}): `src` is one
 * window of the text, starting at byte `winBaseBytes` of the input; the scan pauses at the first
 * value boundary at or past `softEnd` (a string value at or past it) so the next window can be
 * built. A whole text: 0 and Infinity.
 */
let winBaseBytes = 0;
let softEnd = Number.POSITIVE_INFINITY;
/**
 * Windowed scan: when the string value being built opened in an earlier window (then `strStart`
 * is -1), that window, its base byte and the quote's index in it (for messages only); the raw
 * input, for the preview of that quote.
 */
interface OpenedIn {
  readonly text: string;
  readonly isAscii: boolean;
  readonly base: number;
  readonly at: number;
}
let strOpen: OpenedIn | null = null;
let srcBytes: Uint8Array | null = null;
/** Current nesting depth (kept in sync by the scanner for the pointer/error helpers). */
let depth = 0;

/** Pending issue, set by `fail` and consumed by `parseStrictJson`. */
let issueRule = "";
let issueMessage = "";
let issueIndex = -1;
let issuePointer = "";

/** Set by scanNumber: whether the last scanned number is not a plain integer. */
let lastNumberNonInteger = false;
/** Set by scanNumber before its range check: the index past the lexeme (a windowed scan checks it did not reach the window's end). */
let lastNumberEnd = 0;

/** Token lists of the `nonIntegerPaths` option for the current call; null records every number (capped). */
let recordPatterns: (readonly string[])[] | null = null;

/** Values seen so far in the current document, and the limit (limits.maxValues, or Infinity). */
let valueCount = 0;
let maxValuesLimit = Number.POSITIVE_INFINITY;
/** The limit on one object's members (limits.maxMembers, or Infinity). */
let maxMembersLimit = Number.POSITIVE_INFINITY;

/** Build mode (the sliced parser): the scanner builds the value itself. `vals[d]` is the container open at depth d. */
let building = false;
/** Build mode: the member name scanned last (the name of the slot being filled). */
let lastKey = "";
const hasOwn = Object.prototype.hasOwnProperty;
let vals: unknown[] = [];
let rootValue: unknown = undefined;

/** Where a paused scan resumes: the index of the next value, its depth, whether a comma preceded it. */
let resuming = false;
let resumeAt = 0;
let resumeDepth = 0;
let resumeAfterComma = false;
/** Sliced mode: the scan pauses at the next value boundary once performance.now() passes this. */
let sliceUntil = Number.POSITIVE_INFINITY;
let clockBudget = 0;
/**
 * Build mode: a string value longer than STRING_PIECE is scanned and decoded in pieces, so that a
 * slice can end inside it (a 16 MiB string of escapes is otherwise one step of ~100 ms). What is
 * decoded so far (null: no string is open), its opening quote, the end of the last piece scanned.
 */
let strParts: string | null = null;
let strStart = 0;
let strPauseAt = 0;
/** The piece {@link scanStringFrom} scanned last held an escape (else it is its own decoding). */
let strEscaped = false;
/** The string value {@link buildString} finished last. */
let builtString = "";

/** A copy of `a` with twice the length (the scanner's stacks grow by doubling). */
function doubled<T extends Uint8Array | Uint32Array>(a: T): T {
  const b = new (a.constructor as new (length: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

function growStack(): void {
  kinds = doubled(kinds);
  counts = doubled(counts);
  keyBase = doubled(keyBase);
}

function growKeyStack(): void {
  kStart = doubled(kStart);
  kEnd = doubled(kEnd);
  kLen = doubled(kLen);
  kEsc = doubled(kEsc);
}

/** Decoded text of key-stack entry `k`. */
function decodeKey(k: number): string {
  return kEsc[k] === 1 ? (kDecoded[k] as string) : src.slice(kStart[k], kEnd[k]);
}

// ---------------------------------------------------------------------------
// JSON pointers (built lazily: only for issues and non-integer numbers)

/** JSON pointer of the open container at depth `d` (depth 0 and 1 both give the root pointer ""). */
function containerPointer(d: number): string {
  if (d <= prefixValid) return prefixes[d] as string;
  let p = prefixes[prefixValid] as string;
  for (let k = prefixValid + 1; k <= d; k++) {
    p = p + "/" + tokenAt(k - 1);
    prefixes[k] = p;
  }
  prefixValid = d;
  return p;
}

/** Current (escaped) reference token inside the open container at depth `d` (d >= 1). */
function tokenAt(d: number): string {
  if (kinds[d] === KIND_ARRAY) return String(counts[d]);
  return escapeToken(decodeKey((keyBase[d] as number) + (counts[d] as number) - 1));
}

/** Pointer of the value slot currently being parsed (the root, or the current element/member). */
function currentSlotPointer(): string {
  if (depth === 0) return "";
  return containerPointer(depth) + "/" + tokenAt(depth);
}

/**
 * Whether the value slot being parsed matches the pattern `tokens` (one token per open container;
 * `*` matches any array index). Compares member names by length first and never builds a pointer.
 */
function slotMatches(tokens: readonly string[]): boolean {
  if (tokens.length !== depth) return false;
  for (let k = 1; k <= depth; k++) {
    const token = tokens[k - 1] as string;
    if (kinds[k] === KIND_ARRAY) {
      if (token !== "*" && token !== String(counts[k])) return false;
    } else {
      const key = (keyBase[k] as number) + (counts[k] as number) - 1;
      if (kLen[key] !== token.length || decodeKey(key) !== token) return false;
    }
  }
  return true;
}

/** Whether the non-integer number just scanned is to be recorded (see StrictParseOptions). */
function recordNonInteger(recorded: number): boolean {
  if (recordPatterns === null) return recorded < MAX_RECORDED_NON_INTEGER;
  for (const tokens of recordPatterns) if (slotMatches(tokens)) return true;
  return false;
}

// ---------------------------------------------------------------------------
// Issues, offsets and previews (error path only)

/** Records an issue; always returns -1 so callers can `return fail(...)`. */
function fail(rule: string, message: string, index: number, pointer: string): number {
  issueRule = rule;
  issueMessage = message;
  issueIndex = index;
  issuePointer = pointer;
  return -1;
}

function syntax(message: string, index: number, pointer: string): number {
  return fail(PARSE_RULES.syntax, message, index, pointer);
}

/** Byte offset, in the UTF-8 input, of UTF-16 index `index` of `src` (of the window: from its base byte). */
function byteOffsetOf(index: number): number {
  return byteOffsetIn(src, srcIsAscii, winBaseBytes, index);
}

/** Byte offset of UTF-16 index `index` of `text`, a text (or window) that starts at byte `base`. */
function byteOffsetIn(text: string, isAscii: boolean, base: number, index: number): number {
  if (isAscii) return base + index;
  return base + utf8Length(text, 0, Math.min(index, text.length));
}

/** UTF-8 bytes of `text[from, to)`, decoded from well-formed UTF-8 (a high surrogate counts its pair's 4 bytes even when `to` falls inside the pair). */
function utf8Length(text: string, from: number, to: number): number {
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++; // low half of the pair (the input was well-formed UTF-8, so it is present)
    } else bytes += 3;
  }
  return bytes;
}

function hexCode(c: number): string {
  return c.toString(16).toUpperCase().padStart(4, "0");
}

/** Escapes text for display inside a double-quoted preview (control and invisible chars as \uXXXX). */
function escapeForPreview(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === C_QUOTE) out += '\\"';
    else if (c === C_BACKSLASH) out += "\\\\";
    else if (c === C_LF) out += "\\n";
    else if (c === C_CR) out += "\\r";
    else if (c === C_TAB) out += "\\t";
    else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0xad || c === 0x200b || isNonJsonWhitespace(c)) {
      out += "\\u" + hexCode(c);
    } else out += text[i];
  }
  return out;
}

/** `near "..."`: escaped preview of at most PREVIEW_BYTES bytes of `src` from UTF-16 index `index`. */
function previewAt(index: number): string {
  if (index >= src.length) return "at end of input";
  let bytes = 0;
  let i = index;
  while (i < src.length) {
    const c = src.charCodeAt(i);
    let w = 1;
    let units = 1;
    if (c >= 0x80) {
      if (c < 0x800) w = 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        w = 4;
        units = 2;
      } else w = 3;
    }
    if (bytes + w > PREVIEW_BYTES) break;
    bytes += w;
    i += units;
  }
  return 'near "' + escapeForPreview(src.slice(index, i)) + (i < src.length ? '..."' : '"');
}

/** {@link previewAt} of the character at byte `at` of the raw input `bytes` (a place in an earlier window of a windowed scan). */
function previewOfBytes(bytes: Uint8Array, at: number): string {
  if (at >= bytes.length) return "at end of input";
  let end = Math.min(at + PREVIEW_BYTES, bytes.length);
  while (end < bytes.length && end > at && ((bytes[end] as number) & 0xc0) === 0x80) end--; // whole characters only
  const text = utf8Decoder.decode(bytes.subarray(at, end));
  return 'near "' + escapeForPreview(text) + (end < bytes.length ? '..."' : '"');
}

/** Bounded, escaped, quoted rendering of a member name for messages. */
function quoteKey(key: string): string {
  let cut = key.length > PREVIEW_BYTES ? key.slice(0, PREVIEW_BYTES) : key;
  if (cut.length < key.length && (cut.charCodeAt(cut.length - 1) & 0xfc00) === 0xd800) cut = cut.slice(0, -1);
  return '"' + escapeForPreview(cut) + (cut.length < key.length ? '..."' : '"');
}

/** Offset of the first byte at which `input` stops being well-formed UTF-8, or -1. */
function firstInvalidUtf8(input: Uint8Array): number {
  const n = input.length;
  let i = 0;
  while (i < n) {
    const b = input[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // overlong
      else if (b === 0xed) hi = 0x9f; // UTF-16 surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // overlong
      else if (b === 0xf4) hi = 0x8f; // > U+10FFFF
    } else return i;
    const b1 = input[i + 1];
    if (b1 === undefined || b1 < lo || b1 > hi) return i;
    for (let k = 2; k <= need; k++) {
      const bk = input[i + k];
      if (bk === undefined || bk < 0x80 || bk > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

function hexBytes(input: Uint8Array, at: number, count: number): string {
  let out = "";
  const end = Math.min(input.length, at + count);
  for (let i = at; i < end; i++) out += (out ? " " : "") + (input[i] as number).toString(16).toUpperCase().padStart(2, "0");
  return out;
}

function isNonJsonWhitespace(c: number): boolean {
  return (
    c === 0x0b ||
    c === 0x0c ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function nonJsonWhitespace(c: number, i: number, ptr: string): number {
  return syntax(
    `non-JSON whitespace U+${hexCode(c)} at byte ${byteOffsetOf(i)} (only space, tab, LF and CR are allowed), ${previewAt(i)}`,
    i,
    ptr,
  );
}

function describeChar(s: string, i: number): string {
  const cp = s.codePointAt(i) as number;
  return `'${escapeForPreview(String.fromCodePoint(cp))}' (U+${hexCode(cp)})`;
}

/** Explains an unexpected character where a value was expected. */
function unexpectedValue(s: string, i: number, afterComma: boolean): number {
  const c = s.charCodeAt(i);
  const at = byteOffsetOf(i);
  const ptr = currentSlotPointer();
  if (c !== c) {
    if (depth === 0 && i === 0) return syntax("empty document (no JSON value) at byte 0", 0, "");
    if (depth === 0) return syntax(`whitespace-only document (no JSON value) at byte ${at}, at end of input`, i, "");
    const what = kinds[depth] === KIND_ARRAY ? "array" : "object";
    return syntax(`unterminated ${what}: expected a value at byte ${at}, at end of input`, i, ptr);
  }
  if (afterComma && c === (kinds[depth] === KIND_ARRAY ? C_RBRACKET : C_RBRACE)) {
    return syntax(
      `trailing comma before '${String.fromCharCode(c)}' at byte ${at}, ${previewAt(i)}`,
      i,
      containerPointer(depth),
    );
  }
  if (c === C_RBRACKET || c === C_RBRACE || c === C_COMMA || c === C_COLON) {
    return syntax(`expected a value but found '${String.fromCharCode(c)}' at byte ${at}, ${previewAt(i)}`, i, ptr);
  }
  if (c === C_APOS) return syntax(`single-quoted strings are not allowed at byte ${at}, ${previewAt(i)}`, i, ptr);
  if (c === C_SLASH || c === C_HASH) return syntax(`comments are not allowed at byte ${at}, ${previewAt(i)}`, i, ptr);
  if (c === C_PLUS) return syntax(`numbers must not start with '+' at byte ${at}, ${previewAt(i)}`, i, ptr);
  if (c === C_DOT) return syntax(`numbers must have a digit before '.' at byte ${at}, ${previewAt(i)}`, i, ptr);
  if (s.startsWith("NaN", i)) return syntax(`NaN is not valid JSON at byte ${at}, ${previewAt(i)}`, i, ptr);
  if (s.startsWith("Infinity", i)) return syntax(`Infinity is not valid JSON at byte ${at}, ${previewAt(i)}`, i, ptr);
  if (isNonJsonWhitespace(c)) return nonJsonWhitespace(c, i, ptr);
  return syntax(
    `unexpected character ${describeChar(s, i)} where a value was expected at byte ${at}, ${previewAt(i)}`,
    i,
    ptr,
  );
}

/** Explains an unexpected character where a structural character was expected. */
function unexpectedStructural(s: string, i: number, expected: string, ptr: string): number {
  const c = s.charCodeAt(i);
  const at = byteOffsetOf(i);
  if (c !== c) {
    const what = kinds[depth] === KIND_ARRAY ? "array" : "object";
    return syntax(`unterminated ${what}: expected ${expected} at byte ${at}, at end of input`, i, ptr);
  }
  if (c === C_SLASH || c === C_HASH) return syntax(`comments are not allowed at byte ${at}, ${previewAt(i)}`, i, ptr);
  if (isNonJsonWhitespace(c)) return nonJsonWhitespace(c, i, ptr);
  return syntax(`expected ${expected} but found ${describeChar(s, i)} at byte ${at}, ${previewAt(i)}`, i, ptr);
}

// ---------------------------------------------------------------------------
// Lexing helpers. Each returns the index just past what it consumed, or -1
// after recording an issue via `fail`.

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Value of the 4 hex digits at s[i..i+4), or -1 if any is not a hex digit. */
function hex4(s: string, i: number): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const c = s.charCodeAt(i + k);
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else return -1;
    v = (v << 4) | d;
  }
  return v;
}

/** Pointer for a problem inside a string: the enclosing object for member names, else the value slot. */
function stringPointer(isKey: boolean): string {
  return isKey ? containerPointer(depth) : currentSlotPointer();
}

/**
 * Slow path of string scanning: continues the string opened at `start` (its
 * quote) from index `i`, handling escapes, surrogate pairing, control
 * characters and end of input. Returns the index past the closing quote.
 */
function scanStringFrom(s: string, start: number, i: number, isKey: boolean, limit = Number.POSITIVE_INFINITY): number {
  for (;;) {
    // Between two escapes or runs (a surrogate pair is one step): a place where the string may be cut.
    if (i >= limit) {
      // Never between the halves of a surrogate pair (a cut of plain characters may fall there):
      // a windowed scan's next window is decoded from the byte where the string was cut.
      strPauseAt = (s.charCodeAt(i) & 0xfc00) === 0xdc00 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800 ? i + 1 : i;
      return STRING_PAUSED;
    }
    const c = s.charCodeAt(i);
    if (c === C_QUOTE) return i + 1;
    if (c === C_BACKSLASH) {
      strEscaped = true;
      const e = s.charCodeAt(i + 1);
      if (e === 0x75 /* u */) {
        const v = hex4(s, i + 2);
        if (v < 0) return badUnicodeEscape(s, start, i, isKey);
        if (v >= 0xd800 && v <= 0xdfff) {
          if (v >= 0xdc00) {
            return fail(
              PARSE_RULES.loneSurrogate,
              `lone low-surrogate escape \\u${s.slice(i + 2, i + 6)} (not preceded by a high-surrogate escape) at byte ${byteOffsetOf(i)}`,
              i,
              stringPointer(isKey),
            );
          }
          const w = s.charCodeAt(i + 6) === C_BACKSLASH && s.charCodeAt(i + 7) === 0x75 ? hex4(s, i + 8) : -1;
          if (w < 0xdc00 || w > 0xdfff) {
            return fail(
              PARSE_RULES.loneSurrogate,
              `lone high-surrogate escape \\u${s.slice(i + 2, i + 6)} (not followed by a \\uDC00-\\uDFFF escape) at byte ${byteOffsetOf(i)}`,
              i,
              stringPointer(isKey),
            );
          }
          i += 12;
        } else {
          i += 6;
        }
        continue;
      }
      if (
        e === C_QUOTE ||
        e === C_BACKSLASH ||
        e === C_SLASH ||
        e === 0x62 /* b */ ||
        e === 0x66 /* f */ ||
        e === 0x6e /* n */ ||
        e === 0x72 /* r */ ||
        e === 0x74 /* t */
      ) {
        i += 2;
        continue;
      }
      if (e !== e) return unterminatedString(start, i + 1, isKey);
      return syntax(
        `invalid escape sequence "\\${escapeForPreview(String.fromCodePoint(s.codePointAt(i + 1) as number))}" in string at byte ${byteOffsetOf(i)}, ${previewAt(i)}`,
        i,
        stringPointer(isKey),
      );
    }
    if (c < C_SPACE) {
      return syntax(
        `unescaped control character U+${hexCode(c)} in string at byte ${byteOffsetOf(i)} (must be written as an escape), ${previewAt(i)}`,
        i,
        stringPointer(isKey),
      );
    }
    if (c !== c) return unterminatedString(start, i, isKey);
    const run = i + 1;
    i = limit === Number.POSITIVE_INFINITY ? plainEnd(s, run) : plainEndBefore(s, run, limit);
    // Any place inside a run of plain characters is a place to cut.
    if (i > limit) i = Math.max(limit, run);
  }
}

/** Code units of a string value scanned and decoded per piece in build mode (see {@link strParts}). */
const STRING_PIECE = 1 << 18;
/** {@link scanStringFrom} stopped at `limit` (at {@link strPauseAt}); not an index. */
const STRING_PAUSED = -2;

/**
 * Build mode: scans and decodes the string value opened at `start` (its quote) from `i` (where the
 * plain run after the quote ended, or where the last piece ended when {@link strParts} is set), one
 * piece of STRING_PIECE code units at a time, until it closes or the slice's clock (`sliceUntil`)
 * passes. Returns the index past the closing quote ({@link builtString} is the value), -1 (the
 * issue is recorded) or STRING_PAUSED (the pieces so far are kept; resume at {@link strPauseAt}).
 */
function buildString(s: string, start: number, i: number): number {
  // Pieces are joined by `+` (a rope: no 16 MiB copy in one step; whoever reads the characters
  // first flattens it). A piece without an escape is a slice of the text.
  let from = strParts === null ? start + 1 : i;
  for (;;) {
    strEscaped = false;
    // A windowed scan also stops the string at the window's soft end (the next window goes on).
    const end = scanStringFrom(s, start, i, false, Math.min(i + STRING_PIECE, softEnd));
    if (end === -1) {
      strParts = null;
      return -1;
    }
    const to = end === STRING_PAUSED ? strPauseAt : end - 1;
    const piece = strEscaped ? (JSON.parse(`"${s.slice(from, to)}"`) as string) : s.slice(from, to);
    if (end !== STRING_PAUSED) {
      builtString = strParts === null ? piece : strParts + piece;
      strParts = null;
      return end;
    }
    strParts = strParts === null ? piece : strParts + piece;
    from = i = strPauseAt;
    if (i >= softEnd || performance.now() >= sliceUntil) {
      strStart = start;
      return STRING_PAUSED;
    }
  }
}

function unterminatedString(start: number, i: number, isKey: boolean): number {
  // A windowed scan: a string value that opened in an earlier window (start -1) is described from it.
  const opened = start >= 0 || strOpen === null ? byteOffsetOf(start) : byteOffsetIn(strOpen.text, strOpen.isAscii, strOpen.base, strOpen.at);
  const preview = start >= 0 || srcBytes === null ? previewAt(start) : previewOfBytes(srcBytes, opened);
  return syntax(
    `unterminated string (opened at byte ${opened}): end of input at byte ${byteOffsetOf(i)}, ${preview}`,
    i,
    stringPointer(isKey),
  );
}

function badUnicodeEscape(s: string, start: number, i: number, isKey: boolean): number {
  let n = 0;
  while (n < 4 && isHex(s.charCodeAt(i + 2 + n))) n++;
  if (i + 2 + n >= s.length) return unterminatedString(start, s.length, isKey);
  return syntax(
    `invalid \\u escape (expected 4 hex digits) in string at byte ${byteOffsetOf(i)}, ${previewAt(i)}`,
    i,
    stringPointer(isKey),
  );
}

/** Scans a number starting at `start` (a '-' or digit); sets lastNumberNonInteger. */
function scanNumber(s: string, start: number): number {
  let i = start;
  let c = s.charCodeAt(i);
  let nonInteger = false;
  if (c === C_MINUS) {
    c = s.charCodeAt(++i);
    if (c === 0x49 /* I */ && s.startsWith("Infinity", i)) {
      return syntax(`-Infinity is not valid JSON at byte ${byteOffsetOf(start)}, ${previewAt(start)}`, start, currentSlotPointer());
    }
  }
  if (c === C_0) {
    c = s.charCodeAt(++i);
    if (c >= C_0 && c <= C_9) {
      return syntax(`number with a leading zero at byte ${byteOffsetOf(start)}, ${previewAt(start)}`, start, currentSlotPointer());
    }
    if (i - start === 2) nonInteger = true; // "-0" (negative zero)
  } else if (c >= C_1 && c <= C_9) {
    i = digitsEnd(s, i + 1);
    c = s.charCodeAt(i);
  } else {
    return syntax(`expected a digit after '-' at byte ${byteOffsetOf(i)}, ${previewAt(start)}`, i, currentSlotPointer());
  }
  if (c === C_DOT) {
    c = s.charCodeAt(++i);
    if (!(c >= C_0 && c <= C_9)) {
      return syntax(
        `expected a digit after the decimal point at byte ${byteOffsetOf(i)}, ${previewAt(start)}`,
        i,
        currentSlotPointer(),
      );
    }
    i = digitsEnd(s, i + 1);
    c = s.charCodeAt(i);
    nonInteger = true;
  }
  let hasExponent = false;
  if (c === C_E_LOW || c === C_E_UP) {
    c = s.charCodeAt(++i);
    if (c === C_PLUS || c === C_MINUS) c = s.charCodeAt(++i);
    if (!(c >= C_0 && c <= C_9)) {
      return syntax(`expected a digit in the exponent at byte ${byteOffsetOf(i)}, ${previewAt(start)}`, i, currentSlotPointer());
    }
    i = digitsEnd(s, i + 1);
    c = s.charCodeAt(i);
    nonInteger = true;
    hasExponent = true;
  }
  if (hasExponent || i - start >= LONG_NUMBER_CHARS) {
    lastNumberEnd = i;
    const v = Number(s.slice(start, i));
    if (v === Infinity || v === -Infinity) {
      const lexeme = i - start > PREVIEW_BYTES ? s.slice(start, start + PREVIEW_BYTES) + "..." : s.slice(start, i);
      return fail(
        PARSE_RULES.numberRange,
        `number ${lexeme} at byte ${byteOffsetOf(start)} overflows an IEEE-754 double (magnitude above 1.7976931348623157e308)`,
        start,
        currentSlotPointer(),
      );
    }
  }
  lastNumberNonInteger = nonInteger;
  return i;
}

/** Reports a malformed `true`/`false`/`null` literal at `i`; returns false. */
function badLiteral(i: number, word: string): false {
  syntax(`invalid literal at byte ${byteOffsetOf(i)} (expected '${word}'), ${previewAt(i)}`, i, currentSlotPointer());
  return false;
}

/** Skips JSON whitespace (space, tab, LF, CR) from `i`. */
function skipWs(s: string, i: number): number {
  const stop = i + SHORT_RUN;
  while (i < stop) {
    const c = s.charCodeAt(i);
    if (c === C_SPACE || c === C_LF || c === C_CR || c === C_TAB) i++;
    else return i;
  }
  WS_RUN.lastIndex = i;
  WS_RUN.test(s);
  return WS_RUN.lastIndex;
}

/** True when s[a..a+n) === s[b..b+n). */
function spanEquals(s: string, a: number, b: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (s.charCodeAt(a + k) !== s.charCodeAt(b + k)) return false;
  return true;
}

/**
 * Scans a member name at `i` of the object open at depth `d` (== `depth`),
 * checks it against the object's earlier names and pushes it on the key
 * stack. Returns the index past the closing quote, or -1.
 */
function scanKey(s: string, i: number, d: number): number {
  let c = s.charCodeAt(i);
  if (c !== C_QUOTE) {
    if (c === C_APOS) {
      return syntax(
        `single-quoted member names are not allowed at byte ${byteOffsetOf(i)}, ${previewAt(i)}`,
        i,
        containerPointer(d),
      );
    }
    if (c === C_RBRACE) {
      return syntax(`trailing comma before '}' at byte ${byteOffsetOf(i)}, ${previewAt(i)}`, i, containerPointer(d));
    }
    return unexpectedStructural(s, i, "a double-quoted member name", containerPointer(d));
  }
  const start = i + 1;
  let j = plainEnd(s, start);
  c = s.charCodeAt(j);
  let esc = 0;
  let decoded: string | undefined;
  let len: number;
  if (c === C_QUOTE) {
    len = j - start;
  } else {
    // Escape, control character or end of input.
    const end = scanStringFrom(s, i, j, true);
    if (end < 0) return -1;
    j = end - 1;
    esc = 1;
    decoded = JSON.parse(s.slice(i, end)) as string;
    len = decoded.length;
  }
  // Every name of the text counts, a repeated one too: the count comes before the comparison.
  if ((counts[d] as number) >= maxMembersLimit) return tooManyMembers(i, start, j, len, esc, decoded);
  if (building) {
    // Build mode: the object being built already holds every earlier member, as own properties.
    const key = decoded ?? s.slice(start, j);
    if (hasOwn.call(vals[d], key)) return duplicateKey(i, start, j, len, esc, decoded);
    lastKey = key;
    pushKey(d, start, j, len, esc, decoded);
    return j + 1;
  }
  const base = keyBase[d] as number;
  const n = counts[d] as number;
  if (n < LINEAR_KEY_LIMIT) {
    const top = base + n;
    for (let k = base; k < top; k++) {
      if (kLen[k] !== len) continue;
      if (esc === 0 && kEsc[k] === 0) {
        if (spanEquals(s, kStart[k] as number, start, len)) return duplicateKey(i, start, j, len, esc, decoded);
      } else if (decodeKey(k) === (decoded ?? s.slice(start, j))) {
        return duplicateKey(i, start, j, len, esc, decoded);
      }
    }
  } else {
    let set = keySets[d];
    if (set === undefined) {
      set = new Set<string>();
      for (let k = base; k < base + n; k++) set.add(decodeKey(k));
      keySets[d] = set;
    }
    const key = decoded ?? s.slice(start, j);
    if (set.has(key)) return duplicateKey(i, start, j, len, esc, decoded);
    set.add(key);
  }
  pushKey(d, start, j, len, esc, decoded);
  return j + 1;
}

function pushKey(d: number, start: number, end: number, len: number, esc: number, decoded: string | undefined): void {
  if (keyTop >= kStart.length) growKeyStack();
  kStart[keyTop] = start;
  kEnd[keyTop] = end;
  kLen[keyTop] = len;
  kEsc[keyTop] = esc;
  if (esc === 1) kDecoded[keyTop] = decoded;
  keyTop++;
  counts[d] = (counts[d] as number) + 1;
}

/** Records json.max-members for the member name at `i` (pushed first, so that the pointer names it). */
function tooManyMembers(i: number, start: number, end: number, len: number, esc: number, decoded: string | undefined): number {
  pushKey(depth, start, end, len, esc, decoded);
  return fail(
    PARSE_RULES.maxMembers,
    `member number ${counts[depth] as number} at byte ${byteOffsetOf(i)} exceeds the limit of ${maxMembersLimit} members per object`,
    i,
    currentSlotPointer(),
  );
}

function duplicateKey(
  i: number,
  start: number,
  end: number,
  len: number,
  esc: number,
  decoded: string | undefined,
): number {
  pushKey(depth, start, end, len, esc, decoded);
  const key = decoded ?? src.slice(start, end);
  return fail(
    PARSE_RULES.duplicateKey,
    `duplicate member name ${quoteKey(key)} at byte ${byteOffsetOf(i)} (each name may appear only once per object)`,
    i,
    currentSlotPointer(),
  );
}

/**
 * Drops references into the last document (so it can be collected) and
 * shrinks scratch storage that a pathological document grew.
 */
function releaseScratch(): void {
  recordPatterns = null;
  valueCount = 0;
  maxValuesLimit = Number.POSITIVE_INFINITY;
  maxMembersLimit = Number.POSITIVE_INFINITY;
  building = false;
  resuming = false;
  sliceUntil = Number.POSITIVE_INFINITY;
  strParts = null;
  builtString = "";
  if (vals.length !== 0) vals = [];
  rootValue = undefined;
  lastKey = "";
  src = "";
  winBaseBytes = 0;
  softEnd = Number.POSITIVE_INFINITY;
  strOpen = null;
  srcBytes = null;
  depth = 0;
  keyTop = 0;
  issueMessage = "";
  issuePointer = "";
  if (kDecoded.length !== 0) kDecoded.length = 0;
  if (keySets.length !== 0) keySets.length = 0;
  if (prefixes.length !== 2) prefixes.length = 2;
  prefixValid = 1;
  if (kinds.length > 4096) {
    kinds = new Uint8Array(64);
    counts = new Uint32Array(64);
    keyBase = new Uint32Array(64);
  }
  if (kStart.length > 65536) {
    kStart = new Uint32Array(256);
    kEnd = new Uint32Array(256);
    kLen = new Uint32Array(256);
    kEsc = new Uint8Array(256);
  }
}

// ---------------------------------------------------------------------------
// Build mode and resumable state (the sliced parser)

/** Build mode: puts a complete scalar, or a container just opened, into its slot (root, array element, member). */
function attach(v: unknown): void {
  if (depth === 0) {
    rootValue = v;
    return;
  }
  const parent = vals[depth] as unknown[] | Record<string, unknown>;
  if (kinds[depth] === KIND_ARRAY) (parent as unknown[]).push(v);
  // The slot's member name is the last one scanned: a value is attached right after its name
  // (a container when it opens, before any name inside it).
  else defineMember(parent, lastKey, v);
}

/** Arrays of at most this many elements are copied to their exact size when they close (build mode). */
const TRIM_ELEMENTS = 16;

/**
 * Build mode: an array of a few elements built by push keeps a backing store of 17+ slots (about
 * 190 bytes for one element, against 60 for what JSON.parse builds); when it closes, its slot gets
 * an exact-size copy instead (the value of a document of small nested arrays takes a third of the
 * memory, and the young-generation GC copies a third of the bytes).
 */
function trimArray(d: number): void {
  const arr = vals[d] as unknown[];
  if (arr.length > TRIM_ELEMENTS) return;
  const exact = arr.slice();
  vals[d] = exact;
  const p = d - 1;
  if (p === 0) rootValue = exact;
  else if (kinds[p] === KIND_ARRAY) {
    const parent = vals[p] as unknown[];
    parent[parent.length - 1] = exact;
  } else defineMember(vals[p] as Record<string, unknown>, decodeKey((keyBase[p] as number) + (counts[p] as number) - 1), exact);
}

function tooManyValues(i: number): number {
  return fail(
    PARSE_RULES.maxValues,
    `value number ${valueCount} at byte ${byteOffsetOf(i)} exceeds the limit of ${maxValuesLimit} values per document`,
    i,
    currentSlotPointer(),
  );
}

/** Everything a paused scan needs to resume; the module-level scratch is handed over to it. */
interface ScanState {
  kinds: typeof kinds;
  counts: typeof counts;
  keyBase: typeof keyBase;
  kStart: typeof kStart;
  kEnd: typeof kEnd;
  kLen: typeof kLen;
  kEsc: typeof kEsc;
  kDecoded: (string | undefined)[];
  keySets: (Set<string> | undefined)[];
  prefixes: string[];
  keyTop: number;
  prefixValid: number;
  src: string;
  srcIsAscii: boolean;
  depth: number;
  recordPatterns: (readonly string[])[] | null;
  valueCount: number;
  maxValuesLimit: number;
  maxMembersLimit: number;
  vals: unknown[];
  rootValue: unknown;
  lastKey: string;
  resumeAt: number;
  resumeDepth: number;
  resumeAfterComma: boolean;
  strParts: string | null;
  strStart: number;
  winBaseBytes: number;
  softEnd: number;
  strOpen: OpenedIn | null;
  srcBytes: Uint8Array | null;
}

/** Takes the scanner's state out of the module (which gets fresh scratch for whoever scans next). */
function saveState(): ScanState {
  const state: ScanState = {
    kinds, counts, keyBase, kStart, kEnd, kLen, kEsc, kDecoded, keySets, prefixes, keyTop, prefixValid, src, srcIsAscii, depth,
    recordPatterns, valueCount, maxValuesLimit, maxMembersLimit, vals, rootValue, lastKey, resumeAt, resumeDepth, resumeAfterComma, strParts, strStart,
    winBaseBytes, softEnd, strOpen, srcBytes,
  };
  kinds = new Uint8Array(64);
  counts = new Uint32Array(64);
  keyBase = new Uint32Array(64);
  kStart = new Uint32Array(256);
  kEnd = new Uint32Array(256);
  kLen = new Uint32Array(256);
  kEsc = new Uint8Array(256);
  kDecoded = [];
  keySets = [];
  prefixes = ["", ""];
  vals = [];
  rootValue = undefined;
  building = false;
  resuming = false;
  releaseScratch();
  return state;
}

/** Puts a paused scan's state back into the module. */
function loadState(state: ScanState): void {
  ({ kinds, counts, keyBase, kStart, kEnd, kLen, kEsc, kDecoded, keySets, prefixes, keyTop, prefixValid, src, srcIsAscii, depth } = state);
  ({ recordPatterns, valueCount, maxValuesLimit, maxMembersLimit, vals, rootValue, lastKey, resumeAt, resumeDepth, resumeAfterComma, strParts, strStart } = state);
  ({ winBaseBytes, softEnd, strOpen, srcBytes } = state);
  building = true;
  resuming = true;
}

// ---------------------------------------------------------------------------
// The scanner

const SCAN_FAILED = 0;
const SCAN_DONE = 1;
const SCAN_PAUSED = 2;
/** Values scanned between two clock reads in sliced mode. */
const CLOCK_EVERY = 1024;

/** Sliced mode: records where the scan resumes (index, depth, whether a ',' was just read) and returns SCAN_PAUSED. */
function pauseScan(at: number, d: number, afterComma: boolean): number {
  resumeAt = at;
  resumeDepth = d;
  resumeAfterComma = afterComma;
  return SCAN_PAUSED;
}

/**
 * Validates `s` with an explicit container stack (no recursion), appending the
 * pointers of non-integer numbers to `nonInt` (and, in build mode, building
 * the value). Returns SCAN_DONE on success, SCAN_FAILED with the issue left in
 * the module-level issue fields, or SCAN_PAUSED (sliced mode: the clock passed
 * `sliceUntil`; the resume point is saved, and a later call continues there).
 */
function scan(s: string, maxDepth: number, nonInt: string[]): number {
  let i = 0;
  let d = 0;
  let afterComma = false;
  if (resuming) {
    i = resumeAt;
    d = resumeDepth;
    afterComma = resumeAfterComma;
    resuming = false;
  } else {
    depth = 0;
    keyTop = 0;
    prefixValid = 1;
  }
  let K = kinds;
  let N = counts;
  let KB = keyBase;

  // Each turn of `value` parses one value at `i` (after optional whitespace);
  // the inner loop then consumes ',' and closers until another value is due.
  value: for (;;) {
    if (--clockBudget <= 0) {
      clockBudget = CLOCK_EVERY;
      if (performance.now() >= sliceUntil) return pauseScan(i, d, afterComma);
    }
    // A windowed scan pauses near its window's end, at a value boundary, for the next window.
    if (i >= softEnd && strParts === null) return pauseScan(i, d, afterComma);
    let c = s.charCodeAt(i);
    if (strParts === null && c <= C_SPACE && (c === C_SPACE || c === C_LF || c === C_CR || c === C_TAB)) {
      i = skipWs(s, i + 1);
      c = s.charCodeAt(i);
    }
    if (strParts !== null) {
      // Resuming inside a long string value (build mode).
      i = buildString(s, strStart, i);
      if (i === -1) return SCAN_FAILED;
      if (i === STRING_PAUSED) return pauseScan(strPauseAt, d, afterComma);
      attach(builtString);
    } else if (c === C_QUOTE) {
      if (++valueCount > maxValuesLimit) {
        tooManyValues(i);
        return SCAN_FAILED;
      }
      const start = i;
      // Build mode reads a run of at most about STRING_PIECE code units before a slice may end.
      i = building ? plainEndBefore(s, i + 1, i + 1 + STRING_PIECE) : plainEnd(s, i + 1);
      c = s.charCodeAt(i);
      if (c === C_QUOTE) {
        i++;
        if (building) attach(s.slice(start + 1, i - 1));
      } else if (building) {
        i = buildString(s, start, i);
        if (i === -1) return SCAN_FAILED;
        if (i === STRING_PAUSED) return pauseScan(strPauseAt, d, afterComma);
        attach(builtString);
      } else {
        i = scanStringFrom(s, start, i, false);
        if (i < 0) return SCAN_FAILED;
      }
    } else if ((c >= C_0 && c <= C_9) || c === C_MINUS) {
      if (++valueCount > maxValuesLimit) {
        tooManyValues(i);
        return SCAN_FAILED;
      }
      const start = i;
      i = scanNumber(s, i);
      if (i < 0) return SCAN_FAILED;
      if (lastNumberNonInteger && recordNonInteger(nonInt.length)) nonInt.push(currentSlotPointer());
      if (building) attach(Number(s.slice(start, i)));
    } else if (c === C_LBRACE || c === C_LBRACKET) {
      if (++valueCount > maxValuesLimit) {
        tooManyValues(i);
        return SCAN_FAILED;
      }
      if (d >= maxDepth) {
        fail(
          PARSE_RULES.maxDepth,
          `nesting depth ${d + 1} at byte ${byteOffsetOf(i)} exceeds the limit of ${maxDepth}`,
          i,
          currentSlotPointer(),
        );
        return SCAN_FAILED;
      }
      let container: unknown[] | Record<string, unknown> | undefined;
      if (building) {
        container = c === C_LBRACKET ? [] : {};
        attach(container);
      }
      d++;
      if (d >= K.length) {
        growStack();
        K = kinds;
        N = counts;
        KB = keyBase;
      }
      if (building) vals[d] = container;
      if (prefixValid >= d && d > 1) prefixValid = d - 1;
      N[d] = 0;
      depth = d;
      afterComma = false;
      i++;
      const open = c;
      c = s.charCodeAt(i);
      if (c <= C_SPACE && (c === C_SPACE || c === C_LF || c === C_CR || c === C_TAB)) {
        i = skipWs(s, i + 1);
        c = s.charCodeAt(i);
      }
      if (open === C_LBRACKET) {
        K[d] = KIND_ARRAY;
        if (c !== C_RBRACKET) continue value;
        i++;
        d--;
        depth = d;
      } else {
        K[d] = KIND_OBJECT;
        KB[d] = keyTop;
        if (keySets[d] !== undefined) keySets[d] = undefined;
        if (c !== C_RBRACE) {
          i = scanKey(s, i, d);
          if (i < 0) return SCAN_FAILED;
          c = s.charCodeAt(i);
          if (c !== C_COLON) {
            i = skipWs(s, i);
            if (s.charCodeAt(i) !== C_COLON) {
              unexpectedStructural(s, i, "':' after member name", currentSlotPointer());
              return SCAN_FAILED;
            }
          }
          i++;
          continue value;
        }
        i++;
        d--;
        depth = d;
      }
    } else if (c === 0x74 /* t */) {
      if (s.charCodeAt(i + 1) === 0x72 && s.charCodeAt(i + 2) === 0x75 && s.charCodeAt(i + 3) === 0x65) {
        if (++valueCount > maxValuesLimit) {
        tooManyValues(i);
        return SCAN_FAILED;
      }
        i += 4;
        if (building) attach(true);
      } else {
        badLiteral(i, "true");
        return SCAN_FAILED;
      }
    } else if (c === 0x66 /* f */) {
      if (
        s.charCodeAt(i + 1) === 0x61 &&
        s.charCodeAt(i + 2) === 0x6c &&
        s.charCodeAt(i + 3) === 0x73 &&
        s.charCodeAt(i + 4) === 0x65
      ) {
        if (++valueCount > maxValuesLimit) {
        tooManyValues(i);
        return SCAN_FAILED;
      }
        i += 5;
        if (building) attach(false);
      } else {
        badLiteral(i, "false");
        return SCAN_FAILED;
      }
    } else if (c === 0x6e /* n */) {
      if (s.charCodeAt(i + 1) === 0x75 && s.charCodeAt(i + 2) === 0x6c && s.charCodeAt(i + 3) === 0x6c) {
        if (++valueCount > maxValuesLimit) {
        tooManyValues(i);
        return SCAN_FAILED;
      }
        i += 4;
        if (building) attach(null);
      } else {
        badLiteral(i, "null");
        return SCAN_FAILED;
      }
    } else {
      unexpectedValue(s, i, afterComma);
      return SCAN_FAILED;
    }

    // A value just ended: consume ',' (then loop for the next value) or closers.
    for (;;) {
      if (d === 0) break value;
      c = s.charCodeAt(i);
      if (c <= C_SPACE && (c === C_SPACE || c === C_LF || c === C_CR || c === C_TAB)) {
        i = skipWs(s, i + 1);
        c = s.charCodeAt(i);
      }
      const kind = K[d];
      if (c === C_COMMA) {
        i++;
        afterComma = true;
        if (kind === KIND_ARRAY) {
          N[d] = (N[d] as number) + 1;
          continue value;
        }
        c = s.charCodeAt(i);
        if (c <= C_SPACE && (c === C_SPACE || c === C_LF || c === C_CR || c === C_TAB)) i = skipWs(s, i + 1);
        i = scanKey(s, i, d);
        if (i < 0) return SCAN_FAILED;
        c = s.charCodeAt(i);
        if (c !== C_COLON) {
          i = skipWs(s, i);
          if (s.charCodeAt(i) !== C_COLON) {
            unexpectedStructural(s, i, "':' after member name", currentSlotPointer());
            return SCAN_FAILED;
          }
        }
        i++;
        afterComma = false;
        continue value;
      }
      if (kind === KIND_ARRAY) {
        if (c === C_RBRACKET) {
          if (building) trimArray(d);
          i++;
          d--;
          depth = d;
          continue;
        }
        unexpectedStructural(s, i, "',' or ']' after array element", containerPointer(d));
        return SCAN_FAILED;
      }
      if (c === C_RBRACE) {
        i++;
        keyTop = KB[d] as number;
        d--;
        depth = d;
        continue;
      }
      unexpectedStructural(s, i, "',' or '}' after object member", containerPointer(d));
      return SCAN_FAILED;
    }
  }

  // Only whitespace may follow the top-level value.
  i = skipWs(s, i);
  if (i < s.length) {
    const c = s.charCodeAt(i);
    if (isNonJsonWhitespace(c)) {
      nonJsonWhitespace(c, i, "");
      return SCAN_FAILED;
    }
    fail(
      PARSE_RULES.trailingData,
      `unexpected data after the top-level JSON value at byte ${byteOffsetOf(i)} (only whitespace may follow it), ${previewAt(i)}`,
      i,
      "",
    );
    return SCAN_FAILED;
  }
  return SCAN_DONE;
}

/**
 * Strictly parses one untrusted JSON wire document.
 *
 * @param input raw document bytes (UTF-8 without BOM).
 * @param limits `maxBytes` (byte length of `input`) and `maxDepth` (container
 *   nesting; a top-level array/object is depth 1), both inclusive.
 * @param options `nonIntegerPaths`: where non-integer numbers are recorded
 *   (see {@link StrictParseOptions}); pass the schema's integer paths for
 *   untrusted documents so memory stays bounded by the input size.
 * @returns `{ ok: true, value, nonIntegerNumberPointers }` when the document
 *   is acceptable: `value` comes from `JSON.parse` (no reviver; `__proto__`
 *   members become own properties) and `nonIntegerNumberPointers` are the
 *   RFC 6901 pointers, in input order, of numbers written with a fraction or
 *   exponent, or as `-0` (only at `options.nonIntegerPaths` when given). Otherwise `{ ok: false, issue }` describing the
 *   first problem: `json.max-bytes` (checked before anything is decoded),
 *   `json.bom`, `json.utf8`, then whichever of `json.syntax`,
 *   `json.duplicate-key`, `json.max-depth`, `json.max-values`, `json.max-members`,
 *   `json.lone-surrogate`, `json.number-range` occurs first in the input, then
 *   `json.trailing-data`. `issue.offset` is a byte offset into `input`
 *   (absent for `json.max-bytes`).
 *
 * Never throws for any input, including pathologically deep nesting: the
 * scanner is iterative and bounded by `maxDepth`. Synchronous and
 * self-contained (scratch state is module-level but never spans calls).
 */
export function parseStrictJson(input: Uint8Array, limits: StrictJsonLimits, options: StrictParseOptions = {}): StrictParseResult {
  const decoded = decodeDocument(input, limits);
  if (typeof decoded !== "string") return decoded;
  // Most documents are valid: prove it natively first (fast-parse.ts); the scanner judges the rest.
  const fast = input.length <= FAST_PARSE_MAX_BYTES ? fastParse(decoded, input.length, limits.maxDepth, limits.maxValues ?? Number.POSITIVE_INFINITY, limits.maxMembers ?? Number.POSITIVE_INFINITY, options.nonIntegerPaths, options.accept) : undefined;
  if (fast !== undefined) return fastResult(fast);
  const nonInt: string[] = [];
  beginScan(decoded, input.length, limits, options, false);
  try {
    if (scan(decoded, limits.maxDepth, nonInt) !== SCAN_DONE) return failedResult();
  } finally {
    releaseScratch();
  }
  let value: unknown;
  try {
    value = JSON.parse(decoded);
  } catch (e) {
    // Unreachable for documents the scanner accepted; reported rather than thrown.
    return {
      ok: false,
      issue: {
        rule: PARSE_RULES.syntax,
        pointer: "",
        message: `JSON.parse rejected the document: ${String((e as Error).message).slice(0, 120)}`,
      },
    };
  }
  return { ok: true, value, nonIntegerNumberPointers: nonInt };
}

/** The longest string V8 holds (UTF-16 code units): a longer text cannot be decoded. */
const MAX_STRING_LENGTH = bufferConstants.MAX_STRING_LENGTH;

/** `input` as a Buffer over the same memory (no copy): the latin1 and subarray reads of the sliced paths need one. */
function bufferOf(input: Uint8Array): Buffer {
  return Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.length);
}

/** Inputs above this many bytes are scanned one window at a time (parseStrictJsonSliced, {@link WindowedParse}). */
const LARGE_INPUT_BYTES = 1 << 20;
/** Bytes per piece of a large input's decoding: one window of the windowed scan (about 1 ms of latin1 copy, 2.5 to 4 ms of UTF-8 decoding). */
const DECODE_PIECE_BYTES = 1 << 20;

/**
 * The sliced parser's flat text of a large input, only when its windowed scan could not judge it
 * (see {@link WindowedParse}; rules 1-3 as {@link decodeDocument}): the checks
 * (native UTF-8 and ASCII validation, about 2 ms each for 16 MiB), then the text: ASCII as one
 * latin1 copy (about 1 ms per MiB with the page faults of the fresh memory), other UTF-8 in
 * pieces of DECODE_PIECE_BYTES cut at character boundaries, in slices of the scheduler, whose
 * rope is then flattened into the flat string the scanner reads (one native copy of the same
 * cost). The one long copy is a step alone in its turn. Resolves `"deadline"` when `deadlineAt` passes first.
 */
async function decodeDocumentSliced(input: Uint8Array, limits: StrictJsonLimits, deadlineAt: number): Promise<string | StrictParseResult | "deadline"> {
  const refused = checkDocument(input, limits);
  if (refused !== null) return refused;
  const bytes = bufferOf(input);
  // ASCII (the common case) is copied at once, in a step alone in its turn: as fast as flattening
  // a rope of pieces would be, without holding the pieces and the flat copy at the same time.
  const ascii = isAscii(bytes);
  let text = "";
  let at = 0;
  let alone = false;
  let failed: StrictParseResult | null = null;
  // A step must not throw (the scheduler would count it as finished, with the text partial).
  const step = (budgetMs: number): boolean => {
    if (ascii || at >= bytes.length) {
      if (!alone) {
        alone = true;
        deferToNextTurn();
        return false;
      }
      if (ascii) text = bytes.toString("latin1");
      else text.charCodeAt(0); // flattens the rope of pieces
      endTurn();
      return true;
    }
    const until = performance.now() + budgetMs;
    do {
      let end = Math.min(at + DECODE_PIECE_BYTES, bytes.length);
      while (end < bytes.length && ((bytes[end] as number) & 0xc0) === 0x80) end--; // not inside a UTF-8 sequence
      text += utf8Decoder.decode(bytes.subarray(at, end));
      at = end;
    } while (at < bytes.length && performance.now() < until);
    return false;
  };
  const finished = await runInSlices((budgetMs) => {
    try {
      return step(budgetMs);
    } catch {
      failed = tooLongToDecode(bytes.length);
      return true;
    }
  }, deadlineAt);
  return failed ?? (finished ? text : "deadline");
}

/** Code units before a window's end where a windowed scan pauses at the next value boundary (every token but a string value is read whole, so it must fit in what is left). */
const WINDOW_MARGIN_UNITS = 1 << 16;
/**
 * A windowed scan's issue is trusted when it lies at least this many code units before its
 * window's end: what its message reads past its index (a preview of 32 bytes, a surrogate pair's
 * 12 code units) is then inside the window, and no token was cut by the window's end.
 */
const WINDOW_TRUST_UNITS = 64;

/** Set by {@link runSlice}: the result it returned came from a window that is not the last, and may depend on where the window was cut. */
let outcomeUntrusted = false;

/** Observer of the texts handed to the scanner; see {@link observeScanInputs}. */
let scanInputObserver: ((units: number) => void) | null = null;

/**
 * For verification: `observer` is called with the length (UTF-16 code units) of every text the
 * strict scanner is handed: a whole document, or one window of a large one. null removes it.
 * Tests use it to show that a large document is never flattened into one text.
 */
export function observeScanInputs(observer: ((units: number) => void) | null): void {
  scanInputObserver = observer;
}

/**
 * The sliced parser's scan of a large input (spec/host-runtime.md §"Bounds"): the text is never
 * built whole. It is decoded in pieces of `pieceBytes` cut at character boundaries (ASCII by a
 * latin1 copy, other UTF-8 by the decoder), and the scanner reads one window at a time: the rest
 * of the last window from where its scan paused (at most WINDOW_MARGIN_UNITS code units, or the
 * tail of a string value, never inside a character) and the next piece, decoded from the bytes in
 * one step of about a piece. The scan pauses at the first value boundary within
 * WINDOW_MARGIN_UNITS of a window's end, and a string value at that point (its pieces are a rope of slices of the windows, never flattened here), so no token
 * but an absurd one (a member name, number or whitespace run longer than the margin) meets a
 * window's end. Positions are the window's: byte offsets count from its base byte, the member
 * names of open objects are kept as strings when the window moves, and a string value that
 * opened in an earlier window keeps that window for its messages.
 *
 * Exactness: the scan of a window that is not the last reads nothing past the window's end
 * without failing in the same step or stopping a string piece there, so a result that comes from
 * it is trusted only when it is an issue at least WINDOW_TRUST_UNITS before the end (and no number
 * checked for range ran to the end), or a value that ended there with only whitespace after it,
 * to the window's end and in the rest of the input (checked one piece per step). Anything else (a
 * token cut by the end, an issue near it, data after a value that ended early) sets {@link redo}:
 * the caller then judges the flat text as before. Each step is one window's decoding, one slice of
 * the scan or one piece of the whitespace after the value. A step never throws.
 */
class WindowedParse {
  /** The result, once {@link step} returned true (unless {@link redo}). */
  result: StrictParseResult | undefined = undefined;
  /** The windows could not judge the document: judge the flat text. */
  redo = false;
  private state: ScanState | null = null;
  private at = 0;
  /** The value, complete in a window that is not the last: trusted once the bytes after that window are all JSON whitespace (checked one piece per step). */
  private done: StrictParseResult | null = null;
  private readonly nonInt: string[] = [];
  private readonly margin: number;

  constructor(
    private readonly bytes: Buffer,
    private readonly ascii: boolean,
    private readonly limits: StrictJsonLimits,
    private readonly options: StrictParseOptions,
    private readonly pieceBytes: number,
  ) {
    // At least the 12 code units of an escaped surrogate pair; small pieces (tests) get a small margin.
    this.margin = Math.min(WINDOW_MARGIN_UNITS, Math.max(16, pieceBytes >> 4));
  }

  /** Builds the next window, or scans the current one until `until` (performance.now() ms, read every `clockEvery` values); true when finished. */
  step(until: number, clockEvery: number): boolean {
    try {
      if (this.done !== null) return this.checkTail();
      const state = this.state;
      if (state === null || state.resumeAt >= state.softEnd) {
        // Paused at a value boundary past the window's end: the last step read past it (a token was cut).
        if (state !== null && state.strParts === null && state.resumeAt >= state.src.length) return this.giveUp();
        this.nextWindow(state);
        return false;
      }
      const outcome = runSlice(state.src, this.limits, this.nonInt, state, until, clockEvery);
      if ("kinds" in outcome) {
        this.state = outcome;
        return false;
      }
      this.state = null;
      if (outcomeUntrusted) {
        // The value ended, and only whitespace followed it to the window's end: the document is
        // judged once the rest of the input is whitespace too (a long whitespace tail is not
        // worth a second, flat parse); anything else there is judged by the flat text.
        if (!outcome.ok) return this.giveUp();
        this.done = outcome;
        return false;
      }
      this.result = outcome;
      return true;
    } catch {
      return this.giveUp(); // unreachable; the flat path judges the document
    }
  }

  /** One piece of the bytes after the window the value ended in: true (judged) at the input's end, or at a byte other than JSON whitespace (then {@link redo}). */
  private checkTail(): boolean {
    const bytes = this.bytes;
    const end = Math.min(this.at + this.pieceBytes, bytes.length);
    for (let i = this.at; i < end; i++) {
      const b = bytes[i] as number;
      if (b !== C_SPACE && b !== C_LF && b !== C_CR && b !== C_TAB) return this.giveUp();
    }
    this.at = end;
    if (end < bytes.length) return false;
    this.result = this.done as StrictParseResult;
    this.done = null;
    return true;
  }

  private giveUp(): true {
    this.done = null;
    this.state = null;
    this.redo = true;
    return true;
  }

  private nextWindow(state: ScanState | null): void {
    const bytes = this.bytes;
    // The window goes on from where the scan paused: its bytes (at most the margin, or the tail of a string value) are decoded again.
    const carry = state === null ? "" : state.src.slice(state.resumeAt);
    const from = this.at - (this.ascii ? carry.length : utf8Length(carry, 0, carry.length));
    let end = Math.min(this.at + this.pieceBytes, bytes.length);
    while (end < bytes.length && ((bytes[end] as number) & 0xc0) === 0x80) end--; // not inside a UTF-8 sequence
    const text = this.ascii ? bytes.toString("latin1", from, end) : utf8Decoder.decode(bytes.subarray(from, end));
    this.at = end;
    const soft = end >= bytes.length ? Number.POSITIVE_INFINITY : text.length - this.margin;
    if (state === null) {
      beginScan(text, end, this.limits, this.options, true);
      srcBytes = bytes;
      softEnd = soft;
      this.state = saveState();
      return;
    }
    scanInputObserver?.(text.length);
    const old = state.src;
    // Build mode reads only the last member name of each open object again (pointers, trimArray).
    for (let d = 1; d <= state.resumeDepth; d++) {
      if (state.kinds[d] !== KIND_OBJECT || state.counts[d] === 0) continue;
      const k = (state.keyBase[d] as number) + (state.counts[d] as number) - 1;
      if (state.kEsc[k] === 1) continue;
      state.kDecoded[k] = old.slice(state.kStart[k], state.kEnd[k]);
      state.kEsc[k] = 1;
    }
    if (state.strParts === null) state.strOpen = null;
    else {
      if (state.strStart >= 0) state.strOpen = { text: old, isAscii: state.srcIsAscii, base: state.winBaseBytes, at: state.strStart };
      state.strStart = -1;
    }
    state.src = text;
    state.srcIsAscii = text.length === end - from;
    state.winBaseBytes = from;
    state.resumeAt = 0;
    state.softEnd = soft;
  }
}

/**
 * For verification: the windowed scan of a large input ({@link WindowedParse}) of any size, with
 * pieces of `pieceBytes` (at least 16) and a pause after every `valuesPerStep` values, driven
 * synchronously. `redo` is true when the windows could not judge it (the sliced parser then judges
 * the flat text; `result` is then that judgement); `windows` are the windows' lengths (code units).
 */
export function parseStrictJsonWindowed(
  input: Uint8Array,
  limits: StrictJsonLimits,
  options: StrictParseOptions,
  pieceBytes: number,
  valuesPerStep = Number.POSITIVE_INFINITY,
): { readonly result: StrictParseResult; readonly redo: boolean; readonly windows: readonly number[] } {
  const refused = checkDocument(input, limits);
  if (refused !== null) return { result: refused, redo: false, windows: [] };
  const bytes = bufferOf(input);
  const windows: number[] = [];
  const outer = scanInputObserver;
  scanInputObserver = (units) => windows.push(units);
  try {
    const parse = new WindowedParse(bytes, isAscii(bytes), limits, options, Math.max(16, pieceBytes));
    const until = Number.isFinite(valuesPerStep) ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    while (!parse.step(until, Number.isFinite(valuesPerStep) ? valuesPerStep + 1 : CLOCK_EVERY));
    if (!parse.redo) return { result: parse.result as StrictParseResult, redo: false, windows };
  } finally {
    scanInputObserver = outer;
  }
  return { result: parseStrictJsonStepwise(input, limits, options, undefined, 1 << 20), redo: true, windows };
}

/** Options of {@link parseStrictJsonSliced}: the longest slice in ms (default: the scheduler's, runtime/wire/slices.ts) and an absolute deadline (performance.now() ms). */
export interface StrictSliceOptions {
  readonly sliceMs?: number;
  readonly deadlineAt?: number;
}

/**
 * {@link parseStrictJson} without blocking the event loop: the scanner validates and builds the
 * value in one pass (no `JSON.parse`), in slices scheduled by runtime/wire/slices.ts (all sliced
 * work of the process shares about 10 ms per event-loop turn, up to 20 ms when the loop is busy with other work; a slice ends at the next value
 * boundary once its budget, at most `slice.sliceMs`, is used; one string or number is never split,
 * and is scanned by native regular expressions). Several sliced parses, and synchronous ones, may
 * interleave: each keeps its own scanner state.
 *
 * The result is the same as {@link parseStrictJson}'s for every input (members defined as own
 * properties, `__proto__` included). Resolves `"deadline"` when `slice.deadlineAt` passes before
 * the document is judged. Never rejects. The text of an input above 1 MiB is never built whole:
 * it is decoded and scanned one window of about 1 MiB at a time ({@link WindowedParse}); only when
 * that cannot judge it (a token longer than 64 Ki code units across a window's end, an issue at a
 * window's end, anything but whitespace after a value that ends before the last window) is the flat text judged, its one
 * copy alone in its turn.
 */
export async function parseStrictJsonSliced(
  input: Uint8Array,
  limits: StrictJsonLimits,
  options: StrictParseOptions = {},
  slice: StrictSliceOptions = {},
): Promise<StrictParseResult | "deadline"> {
  // Decoding 16 MiB at once is one native step of 20-30 ms: a large input is decoded in slices.
  const large = input.length > LARGE_INPUT_BYTES;
  const deadlineAt = slice.deadlineAt ?? Number.POSITIVE_INFINITY;
  // A large input is scanned one window at a time, never flattened (a text longer than a string can
  // be is refused by the flat path's decoding, as by the synchronous parser).
  if (large && input.length <= MAX_STRING_LENGTH) {
    const refused = checkDocument(input, limits);
    if (refused !== null) return refused;
    const bytes = bufferOf(input);
    const parse = new WindowedParse(bytes, isAscii(bytes), limits, options, DECODE_PIECE_BYTES);
    const finished = await runInSlices((budgetMs) => parse.step(performance.now() + Math.min(budgetMs, slice.sliceMs ?? budgetMs), CLOCK_EVERY), deadlineAt);
    if (!finished) return "deadline";
    if (!parse.redo) return parse.result as StrictParseResult;
    // Rare (a token longer than the windows' margin, an issue at a window's end): the flat text.
  }
  const decoded = large ? await decodeDocumentSliced(input, limits, deadlineAt) : decodeDocument(input, limits);
  if (typeof decoded !== "string") return decoded;
  // Up to limits.fast_parse_sliced_max_bytes, one JSON.parse costs at most about one slice (fast-parse.ts).
  const fast = input.length > FAST_PARSE_SLICED_MAX_BYTES ? undefined : fastParse(decoded, input.length, limits.maxDepth, limits.maxValues ?? Number.POSITIVE_INFINITY, limits.maxMembers ?? Number.POSITIVE_INFINITY, options.nonIntegerPaths, options.accept);
  if (fast !== undefined) return fastResult(fast);
  const nonInt: string[] = [];
  beginScan(decoded, input.length, limits, options, true);
  // A small document is judged within one slice, at once: no turn of the event loop is spent
  // waiting. A large one starts on a later turn (this one decoded it).
  let state: ScanState;
  if (large) state = saveState(); // other parses may run before the first slice
  else {
    const first = runSlice(decoded, limits, nonInt, null, performance.now() + (slice.sliceMs ?? SLICE_MS), CLOCK_EVERY);
    if (!("kinds" in first)) return first;
    state = first;
  }
  let result: StrictParseResult | "deadline" = "deadline";
  const finished = await runInSlices((budgetMs) => {
    const outcome = runSlice(decoded, limits, nonInt, state, performance.now() + Math.min(budgetMs, slice.sliceMs ?? budgetMs), CLOCK_EVERY);
    if ("kinds" in outcome) {
      state = outcome;
      return false;
    }
    result = outcome;
    return true;
  }, deadlineAt);
  return finished ? result : "deadline";
}

/**
 * One slice of a build-mode scan: resumes `state` (null: the scan set up by beginScan), scans until
 * `until` (performance.now() ms, read every `clockEvery` values) and returns the result, or the
 * state to resume from. The module scratch is free again when it returns.
 */
function runSlice(text: string, limits: StrictJsonLimits, nonInt: string[], state: ScanState | null, until: number, clockEvery: number): StrictParseResult | ScanState {
  let status: number;
  let window = false;
  try {
    if (state !== null) loadState(state);
    // A window that is not the last: see WindowedParse (the end of input may lie further on).
    window = softEnd !== Number.POSITIVE_INFINITY;
    sliceUntil = until;
    clockBudget = clockEvery;
    status = scan(text, limits.maxDepth, nonInt);
  } catch (error) {
    // Unreachable (the scanner reports, never throws); releases the scratch either way.
    outcomeUntrusted = window;
    releaseScratch();
    return { ok: false, issue: { rule: PARSE_RULES.syntax, pointer: "", message: `the strict parser failed: ${String((error as Error)?.message).slice(0, 120)}` } };
  }
  outcomeUntrusted = false;
  if (status === SCAN_DONE) {
    outcomeUntrusted = window;
    const value = rootValue;
    releaseScratch();
    return { ok: true, value, nonIntegerNumberPointers: nonInt };
  }
  if (status === SCAN_FAILED) {
    outcomeUntrusted = window && (issueIndex + WINDOW_TRUST_UNITS >= text.length || (issueRule === PARSE_RULES.numberRange && lastNumberEnd >= text.length));
    const result = failedResult();
    releaseScratch();
    return result;
  }
  return saveState();
}

/**
 * The sliced parser's build mode driven synchronously with a pause after every value (the most
 * resumes possible; `valuesPerStep` values per slice), calling `between()` at each pause. For verification: tests compare it with
 * {@link parseStrictJson} on every case and run other parses inside `between` to show that paused
 * scans keep their own state.
 */
export function parseStrictJsonStepwise(input: Uint8Array, limits: StrictJsonLimits, options: StrictParseOptions = {}, between: () => void = () => undefined, valuesPerStep = 1): StrictParseResult {
  const decoded = decodeDocument(input, limits);
  if (typeof decoded !== "string") return decoded;
  const nonInt: string[] = [];
  beginScan(decoded, input.length, limits, options, true);
  let state: ScanState | null = null;
  for (;;) {
    // A budget of n + 1 reads the (always expired) clock at value-loop turn n + 1: n values per slice.
    const outcome = runSlice(decoded, limits, nonInt, state, Number.NEGATIVE_INFINITY, valuesPerStep + 1);
    if (!("kinds" in outcome)) return outcome;
    state = outcome;
    between();
  }
}

/** Sets up the module scratch for a new document (sync or build mode). */
/** Split pointer patterns, cached per (readonly) array: callers pass the same constant lists on every parse. */
const splitCache = new WeakMap<readonly string[], string[][]>();
function splitPatterns(paths: readonly string[]): string[][] {
  let split = splitCache.get(paths);
  if (split === undefined || split.length !== paths.length) {
    split = paths.map((p) => (p === "" ? [] : p.slice(1).split("/")));
    splitCache.set(paths, split);
  }
  return split;
}

function beginScan(text: string, byteLength: number, limits: StrictJsonLimits, options: StrictParseOptions, build: boolean): void {
  scanInputObserver?.(text.length);
  src = text;
  srcIsAscii = text.length === byteLength; // every char one byte iff no multi-byte sequence
  winBaseBytes = 0;
  softEnd = Number.POSITIVE_INFINITY;
  strOpen = null;
  srcBytes = null;
  recordPatterns = options.nonIntegerPaths === undefined ? null : splitPatterns(options.nonIntegerPaths);
  valueCount = 0;
  maxValuesLimit = limits.maxValues ?? Number.POSITIVE_INFINITY;
  maxMembersLimit = limits.maxMembers ?? Number.POSITIVE_INFINITY;
  building = build;
  resuming = false;
  resumeAt = 0;
  resumeDepth = 0;
  resumeAfterComma = false;
  rootValue = undefined;
  sliceUntil = Number.POSITIVE_INFINITY;
  clockBudget = CLOCK_EVERY;
}

/** No pointers: the fast path proves there is no non-integer number at the recorded paths. */
const NO_POINTERS: readonly string[] = Object.freeze([]);

/** The result of a document the fast accept path proved. */
function fastResult(fast: FastParse): StrictParseResult {
  return fast.accepted ? { ok: true, value: fast.value, nonIntegerNumberPointers: NO_POINTERS, accepted: true } : { ok: true, value: fast.value, nonIntegerNumberPointers: NO_POINTERS };
}

/** The failed result of the issue the scan left in the module fields. */
function failedResult(): StrictParseResult {
  return { ok: false, issue: { rule: issueRule, pointer: issuePointer, message: issueMessage, offset: byteOffsetOf(issueIndex) } };
}

/** Rules 1-3: the decoded text, or the failed result (`json.max-bytes`, `json.bom`, `json.utf8`). */
function decodeDocument(input: Uint8Array, limits: StrictJsonLimits): string | StrictParseResult {
  const refused = checkDocument(input, limits);
  if (refused !== null) return refused;
  try {
    // A Buffer (every frame and pipe read) is decoded by its own native slice: the same text for
    // valid UTF-8, without the TextDecoder wrapper and its second validation (about 1 µs a frame).
    return Buffer.isBuffer(input) ? input.toString() : utf8Decoder.decode(input);
  } catch {
    return tooLongToDecode(input.length);
  }
}

/**
 * `json.max-bytes` for a document whose text is longer than a JavaScript string can be
 * (buffer.constants.MAX_STRING_LENGTH UTF-16 code units; only reachable when a byte limit was
 * raised above it): decoding it throws, and the host cannot judge it.
 */
function tooLongToDecode(bytes: number): StrictParseResult {
  return {
    ok: false,
    issue: {
      rule: PARSE_RULES.maxBytes,
      pointer: "",
      message: `document is ${bytes} bytes, whose text is longer than the longest string this host can hold (${MAX_STRING_LENGTH} UTF-16 code units); lower the byte limit to at most that`,
    },
  };
}

/** Rules 1-3: the failed result (`json.max-bytes`, `json.bom`, `json.utf8`), or null when the input may be decoded. */
function checkDocument(input: Uint8Array, limits: StrictJsonLimits): StrictParseResult | null {
  const n = input.length;
  if (n > limits.maxBytes) {
    return {
      ok: false,
      issue: {
        rule: PARSE_RULES.maxBytes,
        pointer: "",
        message: `document is ${n} bytes, which exceeds the limit of ${limits.maxBytes} bytes`,
      },
    };
  }
  if (n >= 3 && input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf) {
    return {
      ok: false,
      issue: {
        rule: PARSE_RULES.bom,
        pointer: "",
        message: "document starts with a UTF-8 byte-order mark (EF BB BF) at byte 0; JSON on the wire must not have a BOM",
        offset: 0,
      },
    };
  }
  if (isUtf8(input)) return null;
  const offset = Math.max(firstInvalidUtf8(input), 0);
  return {
    ok: false,
    issue: {
      rule: PARSE_RULES.utf8,
      pointer: "",
      message: `invalid UTF-8 at byte ${offset} (bytes ${hexBytes(input, offset, 4)})`,
      offset,
    },
  };
}
