/**
 * Issues of the strict scanner (error path only): recording the pending issue on the
 * {@link ScanState}, byte offsets of text indexes, escaped previews of the input, and the messages
 * for an unexpected character where a value or a structural character was due.
 *
 * @module
 */
import { PARSE_RULES, type StrictParseResult } from "./types.js";
import {
  C_APOS,
  C_BACKSLASH,
  C_COLON,
  C_COMMA,
  C_CR,
  C_DOT,
  C_HASH,
  C_LF,
  C_PLUS,
  C_QUOTE,
  C_RBRACE,
  C_RBRACKET,
  C_SLASH,
  C_TAB,
  hexCode,
  isNonJsonWhitespace,
  utf8Decoder,
  utf8Length,
} from "./chars.js";
import { containerPointer, currentSlotPointer, KIND_ARRAY, type ScanState } from "./state.js";

/** Maximum number of input bytes shown in a message preview. */
export const PREVIEW_BYTES = 32;

// ---------------------------------------------------------------------------
// Issues, offsets and previews (error path only)

/** Records an issue; always returns -1 so callers can `return fail(...)`. */
export function fail(st: ScanState, rule: string, message: string, index: number, pointer: string): number {
  st.issueRule = rule;
  st.issueMessage = message;
  st.issueIndex = index;
  st.issuePointer = pointer;
  return -1;
}

export function syntax(st: ScanState, message: string, index: number, pointer: string): number {
  return fail(st, PARSE_RULES.syntax, message, index, pointer);
}

/** Byte offset, in the UTF-8 input, of UTF-16 index `index` of `src` (of the window: from its base byte). */
export function byteOffsetOf(st: ScanState, index: number): number {
  return byteOffsetIn(st.src, st.srcIsAscii, st.winBaseBytes, index);
}

/** Byte offset of UTF-16 index `index` of `text`, a text (or window) that starts at byte `base`. */
export function byteOffsetIn(text: string, isAscii: boolean, base: number, index: number): number {
  if (isAscii) return base + index;
  return base + utf8Length(text, 0, Math.min(index, text.length));
}

/** Escapes text for display inside a double-quoted preview (control and invisible chars as \uXXXX). */
export function escapeForPreview(text: string): string {
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
export function previewAt(st: ScanState, index: number): string {
  if (index >= st.src.length) return "at end of input";
  let bytes = 0;
  let i = index;
  while (i < st.src.length) {
    const c = st.src.charCodeAt(i);
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
  return 'near "' + escapeForPreview(st.src.slice(index, i)) + (i < st.src.length ? '..."' : '"');
}

/** {@link previewAt} of the character at byte `at` of the raw input `bytes` (a place in an earlier window of a windowed scan). */
export function previewOfBytes(bytes: Uint8Array, at: number): string {
  if (at >= bytes.length) return "at end of input";
  let end = Math.min(at + PREVIEW_BYTES, bytes.length);
  while (end < bytes.length && end > at && ((bytes[end] as number) & 0xc0) === 0x80) end--; // whole characters only
  const text = utf8Decoder.decode(bytes.subarray(at, end));
  return 'near "' + escapeForPreview(text) + (end < bytes.length ? '..."' : '"');
}

/** Bounded, escaped, quoted rendering of a member name for messages. */
export function quoteKey(key: string): string {
  let cut = key.length > PREVIEW_BYTES ? key.slice(0, PREVIEW_BYTES) : key;
  if (cut.length < key.length && (cut.charCodeAt(cut.length - 1) & 0xfc00) === 0xd800) cut = cut.slice(0, -1);
  return '"' + escapeForPreview(cut) + (cut.length < key.length ? '..."' : '"');
}

export function nonJsonWhitespace(st: ScanState, c: number, i: number, ptr: string): number {
  return syntax(
    st,
    `non-JSON whitespace U+${hexCode(c)} at byte ${byteOffsetOf(st, i)} (only space, tab, LF and CR are allowed), ${previewAt(st, i)}`,
    i,
    ptr,
  );
}

export function describeChar(s: string, i: number): string {
  const cp = s.codePointAt(i) as number;
  return `'${escapeForPreview(String.fromCodePoint(cp))}' (U+${hexCode(cp)})`;
}

/** Explains an unexpected character where a value was expected. */
export function unexpectedValue(st: ScanState, s: string, i: number, afterComma: boolean): number {
  const c = s.charCodeAt(i);
  const at = byteOffsetOf(st, i);
  const ptr = currentSlotPointer(st);
  if (c !== c) {
    if (st.depth === 0 && i === 0) return syntax(st, "empty document (no JSON value) at byte 0", 0, "");
    if (st.depth === 0)
      return syntax(st, `whitespace-only document (no JSON value) at byte ${at}, at end of input`, i, "");
    const what = st.kinds[st.depth] === KIND_ARRAY ? "array" : "object";
    return syntax(st, `unterminated ${what}: expected a value at byte ${at}, at end of input`, i, ptr);
  }
  if (afterComma && c === (st.kinds[st.depth] === KIND_ARRAY ? C_RBRACKET : C_RBRACE)) {
    return syntax(
      st,
      `trailing comma before '${String.fromCharCode(c)}' at byte ${at}, ${previewAt(st, i)}`,
      i,
      containerPointer(st, st.depth),
    );
  }
  if (c === C_RBRACKET || c === C_RBRACE || c === C_COMMA || c === C_COLON) {
    return syntax(
      st,
      `expected a value but found '${String.fromCharCode(c)}' at byte ${at}, ${previewAt(st, i)}`,
      i,
      ptr,
    );
  }
  if (c === C_APOS)
    return syntax(st, `single-quoted strings are not allowed at byte ${at}, ${previewAt(st, i)}`, i, ptr);
  if (c === C_SLASH || c === C_HASH)
    return syntax(st, `comments are not allowed at byte ${at}, ${previewAt(st, i)}`, i, ptr);
  if (c === C_PLUS) return syntax(st, `numbers must not start with '+' at byte ${at}, ${previewAt(st, i)}`, i, ptr);
  if (c === C_DOT) return syntax(st, `numbers must have a digit before '.' at byte ${at}, ${previewAt(st, i)}`, i, ptr);
  if (s.startsWith("NaN", i)) return syntax(st, `NaN is not valid JSON at byte ${at}, ${previewAt(st, i)}`, i, ptr);
  if (s.startsWith("Infinity", i))
    return syntax(st, `Infinity is not valid JSON at byte ${at}, ${previewAt(st, i)}`, i, ptr);
  if (isNonJsonWhitespace(c)) return nonJsonWhitespace(st, c, i, ptr);
  return syntax(
    st,
    `unexpected character ${describeChar(s, i)} where a value was expected at byte ${at}, ${previewAt(st, i)}`,
    i,
    ptr,
  );
}

/** Explains an unexpected character where a structural character was expected. */
export function unexpectedStructural(st: ScanState, s: string, i: number, expected: string, ptr: string): number {
  const c = s.charCodeAt(i);
  const at = byteOffsetOf(st, i);
  if (c !== c) {
    const what = st.kinds[st.depth] === KIND_ARRAY ? "array" : "object";
    return syntax(st, `unterminated ${what}: expected ${expected} at byte ${at}, at end of input`, i, ptr);
  }
  if (c === C_SLASH || c === C_HASH)
    return syntax(st, `comments are not allowed at byte ${at}, ${previewAt(st, i)}`, i, ptr);
  if (isNonJsonWhitespace(c)) return nonJsonWhitespace(st, c, i, ptr);
  return syntax(st, `expected ${expected} but found ${describeChar(s, i)} at byte ${at}, ${previewAt(st, i)}`, i, ptr);
}

/** The failed result of the issue the scan left in the module fields. */
export function failedResult(st: ScanState): StrictParseResult {
  return {
    ok: false,
    issue: {
      rule: st.issueRule,
      pointer: st.issuePointer,
      message: st.issueMessage,
      offset: byteOffsetOf(st, st.issueIndex),
    },
  };
}
