/**
 * Lexeme scanners of the strict JSON scanner: strings ({@link scanStringFrom}, and the piecewise
 * {@link buildString} of build mode), numbers ({@link scanNumber}) and member names
 * ({@link scanKey}, with the duplicate and member-count checks). Each returns the index just past
 * what it consumed, or -1 after recording an issue on the state.
 *
 * @module
 */
import { PARSE_RULES } from "./types.js";
import {
  C_0,
  C_1,
  C_9,
  C_APOS,
  C_BACKSLASH,
  C_DOT,
  C_E_LOW,
  C_E_UP,
  C_MINUS,
  C_PLUS,
  C_QUOTE,
  C_RBRACE,
  C_SLASH,
  C_SPACE,
  digitsEnd,
  hex4,
  hexCode,
  isHex,
  plainEnd,
  plainEndBefore,
  spanEquals,
} from "./chars.js";
import {
  containerPointer,
  currentSlotPointer,
  decodeKey,
  growKeyStack,
  LINEAR_KEY_LIMIT,
  type ScanState,
} from "./state.js";
import {
  byteOffsetIn,
  byteOffsetOf,
  escapeForPreview,
  fail,
  PREVIEW_BYTES,
  previewAt,
  previewOfBytes,
  quoteKey,
  syntax,
  unexpectedStructural,
} from "./issues.js";

/** A number lexeme at least this long is checked for double overflow even without an exponent. */
export const LONG_NUMBER_CHARS = 309;

const hasOwn = Object.prototype.hasOwnProperty;

// ---------------------------------------------------------------------------
// Lexing helpers. Each returns the index just past what it consumed, or -1
// after recording an issue via `fail`.

/** Pointer for a problem inside a string: the enclosing object for member names, else the value slot. */
export function stringPointer(st: ScanState, isKey: boolean): string {
  return isKey ? containerPointer(st, st.depth) : currentSlotPointer(st);
}

/**
 * Slow path of string scanning: continues the string opened at `start` (its
 * quote) from index `i`, handling escapes, surrogate pairing, control
 * characters and end of input. Returns the index past the closing quote.
 */
export function scanStringFrom(
  st: ScanState,
  s: string,
  start: number,
  i: number,
  isKey: boolean,
  limit = Number.POSITIVE_INFINITY,
): number {
  for (;;) {
    // Between two escapes or runs (a surrogate pair is one step): a place where the string may be cut.
    if (i >= limit) {
      // Never between the halves of a surrogate pair (a cut of plain characters may fall there):
      // a windowed scan's next window is decoded from the byte where the string was cut.
      st.strPauseAt = (s.charCodeAt(i) & 0xfc00) === 0xdc00 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800 ? i + 1 : i;
      return STRING_PAUSED;
    }
    const c = s.charCodeAt(i);
    if (c === C_QUOTE) return i + 1;
    if (c === C_BACKSLASH) {
      st.strEscaped = true;
      const e = s.charCodeAt(i + 1);
      if (e === 0x75 /* u */) {
        const v = hex4(s, i + 2);
        if (v < 0) return badUnicodeEscape(st, s, start, i, isKey);
        if (v >= 0xd800 && v <= 0xdfff) {
          if (v >= 0xdc00) {
            return fail(
              st,
              PARSE_RULES.loneSurrogate,
              `lone low-surrogate escape \\u${s.slice(i + 2, i + 6)} (not preceded by a high-surrogate escape) at byte ${byteOffsetOf(st, i)}`,
              i,
              stringPointer(st, isKey),
            );
          }
          const w = s.charCodeAt(i + 6) === C_BACKSLASH && s.charCodeAt(i + 7) === 0x75 ? hex4(s, i + 8) : -1;
          if (w < 0xdc00 || w > 0xdfff) {
            return fail(
              st,
              PARSE_RULES.loneSurrogate,
              `lone high-surrogate escape \\u${s.slice(i + 2, i + 6)} (not followed by a \\uDC00-\\uDFFF escape) at byte ${byteOffsetOf(st, i)}`,
              i,
              stringPointer(st, isKey),
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
      if (e !== e) return unterminatedString(st, start, i + 1, isKey);
      return syntax(
        st,
        `invalid escape sequence "\\${escapeForPreview(String.fromCodePoint(s.codePointAt(i + 1) as number))}" in string at byte ${byteOffsetOf(st, i)}, ${previewAt(st, i)}`,
        i,
        stringPointer(st, isKey),
      );
    }
    if (c < C_SPACE) {
      return syntax(
        st,
        `unescaped control character U+${hexCode(c)} in string at byte ${byteOffsetOf(st, i)} (must be written as an escape), ${previewAt(st, i)}`,
        i,
        stringPointer(st, isKey),
      );
    }
    if (c !== c) return unterminatedString(st, start, i, isKey);
    const run = i + 1;
    i = limit === Number.POSITIVE_INFINITY ? plainEnd(s, run) : plainEndBefore(s, run, limit);
    // Any place inside a run of plain characters is a place to cut.
    if (i > limit) i = Math.max(limit, run);
  }
}

/** Code units of a string value scanned and decoded per piece in build mode (see {@link strParts}). */
export const STRING_PIECE = 1 << 18;
/** {@link scanStringFrom} stopped at `limit` (at {@link strPauseAt}); not an index. */
export const STRING_PAUSED = -2;

/**
 * Build mode: scans and decodes the string value opened at `start` (its quote) from `i` (where the
 * plain run after the quote ended, or where the last piece ended when {@link strParts} is set), one
 * piece of STRING_PIECE code units at a time, until it closes or the slice's clock (`sliceUntil`)
 * passes. Returns the index past the closing quote ({@link builtString} is the value), -1 (the
 * issue is recorded) or STRING_PAUSED (the pieces so far are kept; resume at {@link strPauseAt}).
 */
export function buildString(st: ScanState, s: string, start: number, i: number): number {
  // Pieces are joined by `+` (a rope: no 16 MiB copy in one step; whoever reads the characters
  // first flattens it). A piece without an escape is a slice of the text.
  let from = st.strParts === null ? start + 1 : i;
  for (;;) {
    st.strEscaped = false;
    // A windowed scan also stops the string at the window's soft end (the next window goes on).
    const end = scanStringFrom(st, s, start, i, false, Math.min(i + STRING_PIECE, st.softEnd));
    if (end === -1) {
      st.strParts = null;
      return -1;
    }
    const to = end === STRING_PAUSED ? st.strPauseAt : end - 1;
    const piece = st.strEscaped ? (JSON.parse(`"${s.slice(from, to)}"`) as string) : s.slice(from, to);
    if (end !== STRING_PAUSED) {
      st.builtString = st.strParts === null ? piece : st.strParts + piece;
      st.strParts = null;
      return end;
    }
    st.strParts = st.strParts === null ? piece : st.strParts + piece;
    from = i = st.strPauseAt;
    if (i >= st.softEnd || performance.now() >= st.sliceUntil) {
      st.strStart = start;
      return STRING_PAUSED;
    }
  }
}

export function unterminatedString(st: ScanState, start: number, i: number, isKey: boolean): number {
  // A windowed scan: a string value that opened in an earlier window (start -1) is described from it.
  const opened =
    start >= 0 || st.strOpen === null
      ? byteOffsetOf(st, start)
      : byteOffsetIn(st.strOpen.text, st.strOpen.isAscii, st.strOpen.base, st.strOpen.at);
  const preview = start >= 0 || st.srcBytes === null ? previewAt(st, start) : previewOfBytes(st.srcBytes, opened);
  return syntax(
    st,
    `unterminated string (opened at byte ${opened}): end of input at byte ${byteOffsetOf(st, i)}, ${preview}`,
    i,
    stringPointer(st, isKey),
  );
}

export function badUnicodeEscape(st: ScanState, s: string, start: number, i: number, isKey: boolean): number {
  let n = 0;
  while (n < 4 && isHex(s.charCodeAt(i + 2 + n))) n++;
  if (i + 2 + n >= s.length) return unterminatedString(st, start, s.length, isKey);
  return syntax(
    st,
    `invalid \\u escape (expected 4 hex digits) in string at byte ${byteOffsetOf(st, i)}, ${previewAt(st, i)}`,
    i,
    stringPointer(st, isKey),
  );
}

/** Scans a number starting at `start` (a '-' or digit); sets lastNumberNonInteger. */
export function scanNumber(st: ScanState, s: string, start: number): number {
  let i = start;
  let c = s.charCodeAt(i);
  let nonInteger = false;
  if (c === C_MINUS) {
    c = s.charCodeAt(++i);
    if (c === 0x49 /* I */ && s.startsWith("Infinity", i)) {
      return syntax(
        st,
        `-Infinity is not valid JSON at byte ${byteOffsetOf(st, start)}, ${previewAt(st, start)}`,
        start,
        currentSlotPointer(st),
      );
    }
  }
  if (c === C_0) {
    c = s.charCodeAt(++i);
    if (c >= C_0 && c <= C_9) {
      return syntax(
        st,
        `number with a leading zero at byte ${byteOffsetOf(st, start)}, ${previewAt(st, start)}`,
        start,
        currentSlotPointer(st),
      );
    }
    if (i - start === 2) nonInteger = true; // "-0" (negative zero)
  } else if (c >= C_1 && c <= C_9) {
    i = digitsEnd(s, i + 1);
    c = s.charCodeAt(i);
  } else {
    return syntax(
      st,
      `expected a digit after '-' at byte ${byteOffsetOf(st, i)}, ${previewAt(st, start)}`,
      i,
      currentSlotPointer(st),
    );
  }
  if (c === C_DOT) {
    c = s.charCodeAt(++i);
    if (!(c >= C_0 && c <= C_9)) {
      return syntax(
        st,
        `expected a digit after the decimal point at byte ${byteOffsetOf(st, i)}, ${previewAt(st, start)}`,
        i,
        currentSlotPointer(st),
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
      return syntax(
        st,
        `expected a digit in the exponent at byte ${byteOffsetOf(st, i)}, ${previewAt(st, start)}`,
        i,
        currentSlotPointer(st),
      );
    }
    i = digitsEnd(s, i + 1);
    c = s.charCodeAt(i);
    nonInteger = true;
    hasExponent = true;
  }
  if (hasExponent || i - start >= LONG_NUMBER_CHARS) {
    st.lastNumberEnd = i;
    const v = Number(s.slice(start, i));
    if (v === Infinity || v === -Infinity) {
      const lexeme = i - start > PREVIEW_BYTES ? s.slice(start, start + PREVIEW_BYTES) + "..." : s.slice(start, i);
      return fail(
        st,
        PARSE_RULES.numberRange,
        `number ${lexeme} at byte ${byteOffsetOf(st, start)} overflows an IEEE-754 double (magnitude above 1.7976931348623157e308)`,
        start,
        currentSlotPointer(st),
      );
    }
  }
  st.lastNumberNonInteger = nonInteger;
  return i;
}

/** Reports a malformed `true`/`false`/`null` literal at `i`; returns false. */
export function badLiteral(st: ScanState, i: number, word: string): false {
  syntax(
    st,
    `invalid literal at byte ${byteOffsetOf(st, i)} (expected '${word}'), ${previewAt(st, i)}`,
    i,
    currentSlotPointer(st),
  );
  return false;
}
/**
 * Scans a member name at `i` of the object open at depth `d` (== `depth`),
 * checks it against the object's earlier names and pushes it on the key
 * stack. Returns the index past the closing quote, or -1.
 */
export function scanKey(st: ScanState, s: string, i: number, d: number): number {
  let c = s.charCodeAt(i);
  if (c !== C_QUOTE) {
    if (c === C_APOS) {
      return syntax(
        st,
        `single-quoted member names are not allowed at byte ${byteOffsetOf(st, i)}, ${previewAt(st, i)}`,
        i,
        containerPointer(st, d),
      );
    }
    if (c === C_RBRACE) {
      return syntax(
        st,
        `trailing comma before '}' at byte ${byteOffsetOf(st, i)}, ${previewAt(st, i)}`,
        i,
        containerPointer(st, d),
      );
    }
    return unexpectedStructural(st, s, i, "a double-quoted member name", containerPointer(st, d));
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
    const end = scanStringFrom(st, s, i, j, true);
    if (end < 0) return -1;
    j = end - 1;
    esc = 1;
    decoded = JSON.parse(s.slice(i, end)) as string;
    len = decoded.length;
  }
  // Every name of the text counts, a repeated one too: the count comes before the comparison.
  if ((st.counts[d] as number) >= st.maxMembersLimit) return tooManyMembers(st, i, start, j, len, esc, decoded);
  if (st.building) {
    // Build mode: the object being built already holds every earlier member, as own properties.
    const key = decoded ?? s.slice(start, j);
    if (hasOwn.call(st.vals[d], key)) return duplicateKey(st, i, start, j, len, esc, decoded);
    st.lastKey = key;
    pushKey(st, d, start, j, len, esc, decoded);
    return j + 1;
  }
  const base = st.keyBase[d] as number;
  const n = st.counts[d] as number;
  if (n < LINEAR_KEY_LIMIT) {
    const top = base + n;
    for (let k = base; k < top; k++) {
      if (st.kLen[k] !== len) continue;
      if (esc === 0 && st.kEsc[k] === 0) {
        if (spanEquals(s, st.kStart[k] as number, start, len)) return duplicateKey(st, i, start, j, len, esc, decoded);
      } else if (decodeKey(st, k) === (decoded ?? s.slice(start, j))) {
        return duplicateKey(st, i, start, j, len, esc, decoded);
      }
    }
  } else {
    let set = st.keySets[d];
    if (set === undefined) {
      set = new Set<string>();
      for (let k = base; k < base + n; k++) set.add(decodeKey(st, k));
      st.keySets[d] = set;
    }
    const key = decoded ?? s.slice(start, j);
    if (set.has(key)) return duplicateKey(st, i, start, j, len, esc, decoded);
    set.add(key);
  }
  pushKey(st, d, start, j, len, esc, decoded);
  return j + 1;
}

/** Pushes a member name (its span, decoded length and escape flag) on the key stack and counts it in the object at depth `d`. */
export function pushKey(
  st: ScanState,
  d: number,
  start: number,
  end: number,
  len: number,
  esc: number,
  decoded: string | undefined,
): void {
  const top = st.keyTop;
  if (top >= st.kStart.length) growKeyStack(st);
  st.kStart[top] = start;
  st.kEnd[top] = end;
  st.kLen[top] = len;
  st.kEsc[top] = esc;
  if (esc === 1) st.kDecoded[top] = decoded;
  st.keyTop = top + 1;
  st.counts[d] = (st.counts[d] as number) + 1;
}

/** Records json.max-members for the member name at `i` (pushed first, so that the pointer names it). */
export function tooManyMembers(
  st: ScanState,
  i: number,
  start: number,
  end: number,
  len: number,
  esc: number,
  decoded: string | undefined,
): number {
  pushKey(st, st.depth, start, end, len, esc, decoded);
  return fail(
    st,
    PARSE_RULES.maxMembers,
    `member number ${st.counts[st.depth] as number} at byte ${byteOffsetOf(st, i)} exceeds the limit of ${st.maxMembersLimit} members per object`,
    i,
    currentSlotPointer(st),
  );
}

export function duplicateKey(
  st: ScanState,
  i: number,
  start: number,
  end: number,
  len: number,
  esc: number,
  decoded: string | undefined,
): number {
  pushKey(st, st.depth, start, end, len, esc, decoded);
  const key = decoded ?? st.src.slice(start, end);
  return fail(
    st,
    PARSE_RULES.duplicateKey,
    `duplicate member name ${quoteKey(key)} at byte ${byteOffsetOf(st, i)} (each name may appear only once per object)`,
    i,
    currentSlotPointer(st),
  );
}
