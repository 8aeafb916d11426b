/**
 * Character codes and the byte-run helpers of the strict JSON scanner: runs of plain string
 * characters, digits and whitespace (short runs by a loop, long ones by native sticky regular
 * expressions), hex digits, UTF-8 lengths and checks, and the whitespace JSON does not allow.
 *
 * @module
 */

/** tab (U+0009). */
export const C_TAB = 0x09;
/** line feed (U+000A). */
export const C_LF = 0x0a;
/** carriage return (U+000D). */
export const C_CR = 0x0d;
/** space (U+0020). */
export const C_SPACE = 0x20;
/** '"' (U+0022). */
export const C_QUOTE = 0x22;
/** '#' (U+0023). */
export const C_HASH = 0x23;
/** ''' (U+0027). */
export const C_APOS = 0x27;
/** '+' (U+002B). */
export const C_PLUS = 0x2b;
/** ',' (U+002C). */
export const C_COMMA = 0x2c;
/** '-' (U+002D). */
export const C_MINUS = 0x2d;
/** '.' (U+002E). */
export const C_DOT = 0x2e;
/** '/' (U+002F). */
export const C_SLASH = 0x2f;
/** '0' (U+0030). */
export const C_0 = 0x30;
/** '1' (U+0031). */
export const C_1 = 0x31;
/** '9' (U+0039). */
export const C_9 = 0x39;
/** ':' (U+003A). */
export const C_COLON = 0x3a;
/** 'E' (U+0045). */
export const C_E_UP = 0x45;
/** '[' (U+005B). */
export const C_LBRACKET = 0x5b;
/** '\' (U+005C). */
export const C_BACKSLASH = 0x5c;
/** ']' (U+005D). */
export const C_RBRACKET = 0x5d;
/** 'e' (U+0065). */
export const C_E_LOW = 0x65;
/** '{' (U+007B). */
export const C_LBRACE = 0x7b;
/** '}' (U+007D). */
export const C_RBRACE = 0x7d;

/**
 * PLAIN[c] === 1 for UTF-16 code units that stand for themselves inside a
 * string (everything but '"', '\\' and U+0000..U+001F). Indexing with NaN
 * (past the end of input) yields undefined, which also ends the fast loop.
 */
export const PLAIN = new Uint8Array(0x10000).fill(1);
PLAIN.fill(0, 0, 0x20);
PLAIN[C_QUOTE] = 0;
PLAIN[C_BACKSLASH] = 0;

/**
 * Rule 3 is checked by `isUtf8` (node:buffer, a native validator), then the input is decoded
 * without the fatal flag: the same text for valid UTF-8, and faster on large inputs (the fatal
 * decoder takes a slower path, ~20% at 256 KB).
 */
export const utf8Decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Runs longer than this many code units are finished by a sticky regular expression (native, ~10x faster per char). */
export const SHORT_RUN = 32;
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
const DIGIT_RUN = /[0-9]*/y;
const WS_RUN = /[ \t\n\r]*/y;

/** Index of the first code unit at or after `j` that is not PLAIN (or s.length). */
export function plainEnd(s: string, j: number): number {
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
export function plainEndBefore(s: string, j: number, limit: number): number {
  for (;;) {
    PLAIN_RUN_STEP.lastIndex = j;
    PLAIN_RUN_STEP.test(s);
    const end = PLAIN_RUN_STEP.lastIndex;
    if (end - j < PLAIN_STEP || end >= limit) return end;
    j = end;
  }
}

/** Index of the first non-digit at or after `j` (or s.length). */
export function digitsEnd(s: string, j: number): number {
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

/** UTF-8 bytes of `text[from, to)`, decoded from well-formed UTF-8 (a high surrogate counts its pair's 4 bytes even when `to` falls inside the pair). */
export function utf8Length(text: string, from: number, to: number): number {
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

/** `c` as 4 upper-case hex digits (`U+XXXX` without the prefix). */
export function hexCode(c: number): string {
  return c.toString(16).toUpperCase().padStart(4, "0");
}

/** Offset of the first byte at which `input` stops being well-formed UTF-8, or -1. */
export function firstInvalidUtf8(input: Uint8Array): number {
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
      if (b === 0xe0)
        lo = 0xa0; // overlong
      else if (b === 0xed) hi = 0x9f; // UTF-16 surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0)
        lo = 0x90; // overlong
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

/** Up to `count` bytes of `input` from `at`, as space-separated upper-case hex pairs (messages). */
export function hexBytes(input: Uint8Array, at: number, count: number): string {
  let out = "";
  const end = Math.min(input.length, at + count);
  for (let i = at; i < end; i++)
    out += (out ? " " : "") + (input[i] as number).toString(16).toUpperCase().padStart(2, "0");
  return out;
}

/** Whether `c` is a Unicode space or invisible separator that JSON does not accept as whitespace. */
export function isNonJsonWhitespace(c: number): boolean {
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

/** Whether `c` is an ASCII hex digit. */
export function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Value of the 4 hex digits at s[i..i+4), or -1 if any is not a hex digit. */
export function hex4(s: string, i: number): number {
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

/** Skips JSON whitespace (space, tab, LF, CR) from `i`. */
export function skipWs(s: string, i: number): number {
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
export function spanEquals(s: string, a: number, b: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (s.charCodeAt(a + k) !== s.charCodeAt(b + k)) return false;
  return true;
}
