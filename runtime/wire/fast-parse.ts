/**
 * Fast accept path of the strict parser (runtime/wire/json/parse.ts and sliced.ts): proves that a decoded
 * document passes every parse-layer rule with the native `JSON.parse`, native string searches
 * and one walk over the parsed value, instead of the strict scanner, and gives `undefined` ("not
 * proved", never "invalid") whenever it cannot, so the scanner judges the document and reports its
 * first issue with rule id, pointer and offset. It must never accept what the scanner rejects, nor
 * accept with a different value or `nonIntegerNumberPointers`: test/wire/fast-parse.test.ts
 * checks that on every shared vector, on mutants of the conformance fixtures and on cases aimed at
 * each shortcut.
 *
 * What `JSON.parse` allows and the parse layer (spec/wire-contract.md, "Bytes and JSON") does not,
 * and how each is ruled out (rules 1-3, bytes, BOM and UTF-8, are checked before, on the bytes):
 * - `json.syntax`, `json.trailing-data`: `JSON.parse` implements the same grammar (RFC 8259) and
 *   throws on anything else, which declines;
 * - `json.duplicate-key`: `JSON.parse` keeps one entry per distinct name. Two proofs, the first
 *   that holds is taken. (a) The walk measures the shortest text of the value (no whitespace,
 *   strings without escapes, numbers as `String(x)`); when the text has no backslash (every string
 *   token is then its value in quotes) and no number has a shorter lexeme than `String(x)` (see
 *   isExactNumber), the text is at least that long, longer by every whitespace, duplicate member or
 *   longer lexeme: equal lengths prove there is none. (b) Every member of the text has
 *   one colon right after its name's closing quote (or whitespace); the colons of the text that
 *   follow a '"' or whitespace are therefore at least the text's members, duplicates included, and
 *   the walk counts the entries: equal counts prove there is no duplicate (a colon inside a string
 *   after a quote or a space, or a duplicate, makes them differ and declines);
 * - `json.lone-surrogate`: raw surrogates are not valid UTF-8, so only escapes write them; when the
 *   text has a `\uD800`-`\uDFFF` escape, every parsed string and name must be well-formed UTF-16;
 * - `json.number-range` (`1e400` parses as `Infinity`): a non-finite number declines;
 * - `json.max-depth`, `json.max-values`: the walk counts levels and values;
 * - `json.max-members`: the walk counts the entries of each object and declines above the limit
 *   (the text may have more names than entries only by duplicates, which decline anyway);
 * - `nonIntegerNumberPointers` (the lexemes `1.0`, `1e2`, `-0` at `nonIntegerPaths`): a `-0`
 *   number (JSON.parse keeps it) declines; a member value at an integer path is checked where its
 *   colon is counted (its name, literal when the text has no `\u` escape, is the path's last
 *   token) or, under proof (a), because every number is written as `String(x)` of an integer;
 *   array elements, the root and texts with `\u` escapes by tracing every digit followed by '.',
 *   'e' or 'E' back to where its number would start. Either way the list is then empty.
 *
 * With a wire type's accept check (generated/ts/accept-checks.ts), the check walks the value in
 * place of the generic walk and also proves the schema and the rules; it counts and measures only
 * its schema's members, so either proof also shows there is no unknown member.
 *
 * Cost bounds: the synchronous parser takes this path up to limits.fast_parse_max_bytes, the sliced
 * one up to limits.fast_parse_sliced_max_bytes (one JSON.parse is not interruptible). Above
 * 2 * maxValues - 1 bytes (below, the text cannot hold more values than maxValues) the text's '['
 * and '{' bound the containers before JSON.parse builds any, so it never builds more of them than
 * the exact path may.
 *
 * @module
 */
import type { AcceptCheck, AcceptContext } from "../../generated/ts/accept-checks.js";
import { LIMITS } from "../../generated/ts/spec/limits.js";

/** Largest document (bytes) the synchronous strict parser judges by the fast path first (limits.fast_parse_max_bytes). */
export const FAST_PARSE_MAX_BYTES: number = LIMITS.fast_parse_max_bytes;
/** Largest document (bytes) the sliced strict parser judges by the fast path first, in one go (limits.fast_parse_sliced_max_bytes). */
export const FAST_PARSE_SLICED_MAX_BYTES: number = LIMITS.fast_parse_sliced_max_bytes;

/**
 * The deepest `maxDepth` the walk below serves (it recurses once per level): four times the
 * wire's limits.max_depth leaves room for callers that allow a level more (stream frames, fixtures)
 * and keeps the JS stack shallow; a larger `maxDepth` goes to the iterative scanner.
 */
const WALK_MAX_DEPTH = 4 * LIMITS.max_depth;

/** An escape that writes a surrogate (then every parsed string and name must be well-formed UTF-16). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** `String.prototype.isWellFormed` (ES2024; Node 20 has it, the ES2023 lib types do not). */
const isWellFormed = (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed;
/** A digit followed by '.', 'e' or 'E': where a number has a fraction or an exponent, this is its first match. */
const NON_INTEGER_MARKS = /[0-9][.eE]/g;

const C_COLON = 0x3a;
const C_QUOTE = 0x22;
const C_DOT = 0x2e;
const C_E_LOW = 0x65;
const C_E_UP = 0x45;
const C_COMMA = 0x2c;
const C_LBRACKET = 0x5b;
const C_MINUS = 0x2d;
const C_0 = 0x30;
const C_9 = 0x39;

/**
 * Walk state (the walk is synchronous and non-reentrant): the depth limit and the array elements
 * counted so far, shared with the accept checks (generated/ts/accept-checks.ts), which call
 * {@link walk} for open objects through `open`.
 */
const context: AcceptContext = {
  maxDepth: 0,
  elements: 0,
  chars: 0,
  exact: true,
  open: (value, level) => walk(value, level),
};
/** Whether the walk checks strings and names for lone surrogates (the text has a surrogate escape). */
let walkSurrogates = false;
/** The most entries one object may have (limits.max_object_members, or Infinity): above it the walk declines. */
let walkMaxMembers = Number.POSITIVE_INFINITY;

/** Occurrences of `ch` in `s` (native searches, one per occurrence). */
function occurrences(s: string, ch: string): number {
  let n = 0;
  for (let i = s.indexOf(ch); i !== -1; i = s.indexOf(ch, i + 1)) n++;
  return n;
}

/**
 * The colons of `text` right after a '"' or JSON whitespace. Every member of the text has exactly
 * one such colon after its name (a colon inside a string that follows anything else is not
 * counted), so this is at least the number of members the text holds, duplicates included.
 *
 * With `names` (quoted member names, e.g. `"byte_size"`), also the lexeme check of member values:
 * -1 when the value after such a colon is a number with a fraction or an exponent and the name
 * before it is one of `names`. Every real member is seen (its colon is counted), and its name is
 * literal when the text has no `\u` escape (the caller's condition for passing `names`); a colon
 * inside a string only makes the check stricter.
 */
function memberColons(text: string, names: readonly string[] | null): number {
  let n = 0;
  for (let i = text.indexOf(":"); i !== -1; i = text.indexOf(":", i + 1)) {
    const c = text.charCodeAt(i - 1);
    if (c !== C_QUOTE && !isWhitespace(c)) continue;
    n++;
    if (names === null) continue;
    let j = i + 1;
    let v = text.charCodeAt(j);
    while (isWhitespace(v)) v = text.charCodeAt(++j);
    if (v === C_MINUS) v = text.charCodeAt(++j);
    if (!isDigit(v)) continue;
    do v = text.charCodeAt(++j);
    while (isDigit(v));
    if (v !== C_DOT && v !== C_E_LOW && v !== C_E_UP) continue;
    let k = i;
    while (k > 0 && isWhitespace(text.charCodeAt(k - 1))) k--;
    for (const name of names) if (text.startsWith(name, k - name.length)) return -1;
  }
  return n;
}

/**
 * Whether no JSON lexeme of `x` (finite, not -0) is shorter than `String(x)` (`modulus` 1000), or
 * every other one is longer (`modulus` 100): true for safe integers (|x| <= 2^53 - 1) with at
 * most two trailing zeros, or one. `1e3` is shorter than `1000`; `12e2` is as long as `1200`, so
 * under modulus 100 a fraction or an exponent always makes the text longer, and the length proof
 * also proves there is none (needed wherever such a lexeme must be found: at integer paths).
 * Above 2^53 doubles are further apart than 1 and `String(x)` pads its shortest digits with
 * zeros: `7378697629483821e4` is 2 ** 66, two characters shorter than `73786976294838210000`.
 */
export function isExactNumber(x: number, modulus: 100 | 1000): boolean {
  return Number.isSafeInteger(x) && (x % modulus !== 0 || x === 0);
}

/**
 * The modulus of {@link isExactNumber} the walk applies, set before each walk: 1000 while it walks
 * the open objects of an accept check (no integer path is inside one), 100 as the whole walk.
 */
let exactModulus: 100 | 1000 = 100;

/**
 * The members held by `value` (a container at nesting `level`, or a scalar) and everything below
 * it, adding every array's length to `context.elements` and the length of the shortest text that
 * writes it (no whitespace, no escapes) to `context.chars` (`context.exact` false for a number
 * {@link isExactNumber} does not clear under `exactModulus`); -1 at anything the
 * scanner must judge (a level above the limit, an object of more than `walkMaxMembers` entries, a
 * non-finite number, `-0`, a lone surrogate when the text escapes one). Every value but the root is a member value or an element, so a document
 * holds 1 + members + elements values.
 */
function walk(value: unknown, level: number): number {
  if (typeof value !== "object") {
    if (typeof value === "string") {
      context.chars += value.length + 2;
      return !walkSurrogates || isWellFormed.call(value) ? 0 : -1;
    }
    if (typeof value === "number") {
      if (!Number.isFinite(value) || (value === 0 && 1 / value < 0)) return -1;
      if (isExactNumber(value, exactModulus)) context.chars += String(value).length;
      else context.exact = false;
      return 0;
    }
    context.chars += value === false ? 5 : 4;
    return 0;
  }
  if (value === null) {
    context.chars += 4;
    return 0;
  }
  if (level > context.maxDepth) return -1;
  let n = 0;
  if (Array.isArray(value)) {
    context.elements += value.length;
    context.chars += value.length === 0 ? 2 : 1 + value.length;
    for (let i = 0; i < value.length; i++) {
      const k = walk(value[i], level + 1);
      if (k < 0) return -1;
      n += k;
    }
    return n;
  }
  // JSON.parse gives plain objects whose members are all own and enumerable (`__proto__` too).
  let members = 0;
  for (const key in value) {
    if (walkSurrogates && !isWellFormed.call(key)) return -1;
    if (++members > walkMaxMembers) return -1;
    context.chars += key.length + 4;
    const k = walk((value as Record<string, unknown>)[key], level + 1);
    if (k < 0) return -1;
    n += 1 + k;
  }
  context.chars += members === 0 ? 2 : 1;
  return n;
}

/**
 * Per `nonIntegerPaths` list: the quoted member names (`"byte_size"`) that end a pattern, and
 * whether a pattern ends in `*` (an array index, or a member named "*") or is the root; null when a name could be written
 * with an escape other than `\u` (then any fraction or exponent declines).
 */
interface IntegerSlots {
  readonly names: readonly string[];
  readonly elements: boolean;
}

const integerSlots = new WeakMap<readonly string[], IntegerSlots | null>();

function integerSlotsOf(patterns: readonly string[]): IntegerSlots | null {
  let slots = integerSlots.get(patterns);
  if (slots === undefined) {
    const last = patterns.map((pattern) => (pattern === "" ? "" : pattern.slice(pattern.lastIndexOf("/") + 1)));
    // A trailing "*" matches an array index and also a member named "*" (the scanner's slotMatches).
    const names = last.filter((token) => token !== "");
    slots = names.every((token) => !/["\\/\u0000-\u001f]/.test(token))
      ? {
          names: [...new Set(names)].map((token) => `"${token}"`),
          elements: last.some((token) => token === "" || token === "*"),
        }
      : null;
    integerSlots.set(patterns, slots);
  }
  return slots;
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= C_0 && c <= C_9;
}

/**
 * Whether `text` may hold a number with a fraction or an exponent at one of the slots (null: at
 * any slot). Each digit followed by '.', 'e' or 'E' is traced back over digits, '-' and
 * whitespace: only where that ends at a ':' (a member value), ',' or '[' (an array element) or
 * the start of the text (the root) can it be a number lexeme (elsewhere it is inside a string).
 * A member value counts when the quoted name before the ':' is one of the slots' names, which
 * holds for every real member because `text` has no `\u` escape (the caller checks). Inside a
 * string such a trace may also end at ':' or ','; that only makes the answer "may".
 */
function mayHoldNonInteger(text: string, slots: IntegerSlots | null): boolean {
  NON_INTEGER_MARKS.lastIndex = 0;
  for (let m = NON_INTEGER_MARKS.exec(text); m !== null; m = NON_INTEGER_MARKS.exec(text)) {
    let j = m.index;
    while (j > 0 && isDigit(text.charCodeAt(j - 1))) j--;
    if (j > 0 && text.charCodeAt(j - 1) === C_MINUS) j--;
    while (j > 0 && isWhitespace(text.charCodeAt(j - 1))) j--;
    if (j === 0) return true;
    const c = text.charCodeAt(j - 1);
    if (c === C_COMMA || c === C_LBRACKET) {
      if (slots === null || slots.elements) return true;
    } else if (c === C_COLON) {
      if (slots === null) return true;
      let k = j - 1;
      while (k > 0 && isWhitespace(text.charCodeAt(k - 1))) k--;
      for (const name of slots.names) if (text.startsWith(name, k - name.length)) return true;
    }
  }
  return false;
}

/** What the fast path proved: the value (`JSON.parse(text)`), and whether the caller's accept check passed on it. */
export interface FastParse {
  readonly value: unknown;
  readonly accepted: boolean;
}

/**
 * The value of the decoded document `text` (of `byteLength` bytes, already past rules 1-3) when it
 * provably passes every parse-layer rule under `maxDepth`, `maxValues` and `maxMembers` (per object) and has no non-integer
 * number at `nonIntegerPaths` (every non-integer number when absent), else `undefined`: then the
 * strict scanner must judge it. The value is `JSON.parse(text)`, as the scanner's result would be,
 * and its `nonIntegerNumberPointers` are empty. Never throws.
 *
 * With `accept` (the accept check of the document's type, generated/ts/accept-checks.ts), the
 * check walks the value in place of the generic walk, and `accepted` tells whether it passed
 * (then the value is also valid under the type's schema and rules); when it does not pass, or the
 * text escapes a surrogate, the generic walk judges the same value (`accepted` false).
 */
export function fastParse(
  text: string,
  byteLength: number,
  maxDepth: number,
  maxValues: number,
  maxMembers: number,
  nonIntegerPaths: readonly string[] | undefined,
  accept?: AcceptCheck,
): FastParse | undefined {
  if (maxDepth > WALK_MAX_DEPTH) return undefined;
  const backslash = text.indexOf("\\");
  const escapes = backslash !== -1 && text.indexOf("\\u", backslash) !== -1;
  const slots = escapes || nonIntegerPaths === undefined ? null : integerSlotsOf(nonIntegerPaths);
  // Member values are checked by memberColons below; array elements and the root only here.
  const names = slots === null || slots.elements ? null : slots.names;
  if (names === null && mayHoldNonInteger(text, slots)) return undefined;
  // A document of n bytes holds at most (n + 1) / 2 values. Above that, bound what costs JSON.parse
  // time and memory, the containers (an empty object ~100 bytes; scalars are small or shared), by
  // the text's '[' and '{', so it never builds more of them than the exact path would.
  if (byteLength > 2 * maxValues - 1 && occurrences(text, "[") + occurrences(text, "{") > maxValues) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  context.maxDepth = maxDepth;
  walkMaxMembers = maxMembers;
  walkSurrogates = escapes && SURROGATE_ESCAPE.test(text);
  // The accept check counts only its schema's members (and the open objects'): when the text is
  // exactly as long as they need, or has as many member colons, they are all of its members, so
  // there is no duplicate and no unknown member.
  let colons = -2;
  if (accept !== undefined && !walkSurrogates) {
    resetWalk();
    exactModulus = 1000;
    const members = accept(value, context);
    if (members >= 0 && 1 + members + context.elements <= maxValues) {
      if (isShortestText(text, backslash)) return { value, accepted: true };
      colons = memberColons(text, names);
      if (colons === members) return { value, accepted: true };
    }
  }
  // Recursion is bounded by maxDepth (a level above it stops the walk).
  resetWalk();
  exactModulus = 100;
  const members = walk(value, 1);
  if (members < 0 || 1 + members + context.elements > maxValues) return undefined;
  if (isShortestText(text, backslash)) return { value, accepted: false };
  if (colons === -2) colons = memberColons(text, names);
  if (colons !== members) return undefined;
  return { value, accepted: false };
}

/**
 * Whether `accept` (a wire type's accept check) proves `value` valid under its schema and rules,
 * where `text` is what runtime/wire/serialize.ts wrote for `value` (no whitespace, numbers as
 * `String(x)`, no lone surrogate): the check passes and `text` is exactly as long as the shortest
 * text the check measured, which proves `value` holds no member the check did not count (an
 * unknown one). Texts with a backslash (string lengths differ from their escapes) are not proved;
 * `escaped` (default: searched in `text`) says whether it has one, when the writer knows.
 * false means "not proved", never "invalid": the caller validates the value then. Never throws.
 */
export function acceptsSerialized(
  value: unknown,
  text: string,
  accept: AcceptCheck,
  maxDepth: number,
  escaped: boolean = text.indexOf("\\") !== -1,
): boolean {
  if (maxDepth > WALK_MAX_DEPTH || escaped) return false;
  context.maxDepth = maxDepth;
  walkMaxMembers = Number.POSITIVE_INFINITY; // the serializer has counted the members it wrote
  walkSurrogates = false;
  resetWalk();
  exactModulus = 1000;
  return accept(value, context) >= 0 && isShortestText(text, -1);
}

/** Clears the counters of {@link context} before a walk. */
function resetWalk(): void {
  context.elements = 0;
  context.chars = 0;
  context.exact = true;
}

/**
 * Whether `text` (whose first backslash is at `backslash`) is the shortest text of the value the
 * last walk measured. Then every token of the text is the shortest one of its value and nothing
 * else is there: no whitespace, no member the walk did not count (a duplicate, or one the accept
 * check does not know), no number written other than `String(x)` (so none with a fraction or an
 * exponent). Without a backslash every string token is its value between quotes; a text with
 * whitespace, escapes or such numbers is judged by its member colons instead.
 */
function isShortestText(text: string, backslash: number): boolean {
  return backslash === -1 && context.exact && context.chars === text.length;
}
