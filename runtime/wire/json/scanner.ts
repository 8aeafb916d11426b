/**
 * The strict scanner's core: {@link scan}, one iterative (no JS-stack recursion) left-to-right pass
 * over a decoded document or window that validates it, records the pointers of non-integer numbers
 * and, in build mode, builds the value; it can pause at a value boundary (sliced mode) and resume
 * from its {@link ScanState}.
 *
 * @module
 */
import { defineMember } from "../own.js";
import { PARSE_RULES } from "./types.js";
import {
  C_0,
  C_9,
  C_COLON,
  C_COMMA,
  C_CR,
  C_LBRACE,
  C_LBRACKET,
  C_LF,
  C_MINUS,
  C_QUOTE,
  C_RBRACE,
  C_RBRACKET,
  C_SPACE,
  C_TAB,
  isNonJsonWhitespace,
  plainEnd,
  plainEndBefore,
  skipWs,
} from "./chars.js";
import {
  CLOCK_EVERY,
  containerPointer,
  currentSlotPointer,
  decodeKey,
  growStack,
  KIND_ARRAY,
  KIND_OBJECT,
  recordNonInteger,
  type ScanState,
} from "./state.js";
import { byteOffsetOf, fail, nonJsonWhitespace, previewAt, unexpectedStructural, unexpectedValue } from "./issues.js";
import {
  badLiteral,
  buildString,
  scanKey,
  scanNumber,
  scanStringFrom,
  STRING_PAUSED,
  STRING_PIECE,
} from "./lexemes.js";

/** {@link scan} failed: the issue is recorded on the state. */
export const SCAN_FAILED = 0;
/** {@link scan} reached the end of the document: it is valid. */
export const SCAN_DONE = 1;
/** {@link scan} paused (sliced mode); the state holds where it resumes. */
export const SCAN_PAUSED = 2;

// ---------------------------------------------------------------------------
// Build mode and resumable state (the sliced parser)

/** Build mode: puts a complete scalar, or a container just opened, into its slot (root, array element, member). */
export function attach(st: ScanState, v: unknown): void {
  if (st.depth === 0) {
    st.rootValue = v;
    return;
  }
  const parent = st.vals[st.depth] as unknown[] | Record<string, unknown>;
  if (st.kinds[st.depth] === KIND_ARRAY) (parent as unknown[]).push(v);
  // The slot's member name is the last one scanned: a value is attached right after its name
  // (a container when it opens, before any name inside it).
  else defineMember(parent, st.lastKey, v);
}

/** Arrays of at most this many elements are copied to their exact size when they close (build mode). */
export const TRIM_ELEMENTS = 16;

/**
 * Build mode: an array of a few elements built by push keeps a backing store of 17+ slots (about
 * 190 bytes for one element, against 60 for what JSON.parse builds); when it closes, its slot gets
 * an exact-size copy instead (the value of a document of small nested arrays takes a third of the
 * memory, and the young-generation GC copies a third of the bytes).
 */
export function trimArray(st: ScanState, d: number): void {
  const arr = st.vals[d] as unknown[];
  if (arr.length > TRIM_ELEMENTS) return;
  const exact = arr.slice();
  st.vals[d] = exact;
  const p = d - 1;
  if (p === 0) st.rootValue = exact;
  else if (st.kinds[p] === KIND_ARRAY) {
    const parent = st.vals[p] as unknown[];
    parent[parent.length - 1] = exact;
  } else
    defineMember(
      st.vals[p] as Record<string, unknown>,
      decodeKey(st, (st.keyBase[p] as number) + (st.counts[p] as number) - 1),
      exact,
    );
}

/** Records json.max-values for value number `count` (past the limit), at `i`; returns SCAN_FAILED. */
export function tooManyValues(st: ScanState, i: number, count: number): number {
  st.valueCount = count;
  fail(
    st,
    PARSE_RULES.maxValues,
    `value number ${count} at byte ${byteOffsetOf(st, i)} exceeds the limit of ${st.maxValuesLimit} values per document`,
    i,
    currentSlotPointer(st),
  );
  return SCAN_FAILED;
}

// ---------------------------------------------------------------------------
// The scanner

/** Sliced mode: records where the scan resumes (index, depth, whether a ',' was just read) and the values counted so far; returns SCAN_PAUSED. */
export function pauseScan(st: ScanState, at: number, d: number, afterComma: boolean, values: number): number {
  st.valueCount = values;
  st.resumeAt = at;
  st.resumeDepth = d;
  st.resumeAfterComma = afterComma;
  st.resuming = true;
  return SCAN_PAUSED;
}

/**
 * A member name at `i` (no whitespace before it) of the object open at depth `d`, then the `:`
 * after it (whitespace allowed between): the index past the `:`, or -1 with the issue recorded.
 */
function memberName(st: ScanState, s: string, i: number, d: number): number {
  i = scanKey(st, s, i, d);
  if (i < 0) return -1;
  if (s.charCodeAt(i) !== C_COLON) {
    i = skipWs(s, i);
    if (s.charCodeAt(i) !== C_COLON)
      return unexpectedStructural(st, s, i, "':' after member name", currentSlotPointer(st));
  }
  return i + 1;
}

/**
 * Validates `s` with an explicit container stack (no recursion), appending the
 * pointers of non-integer numbers to `nonInt` (and, in build mode, building
 * the value). Returns SCAN_DONE on success, SCAN_FAILED with the issue left in
 * the state's issue fields, or SCAN_PAUSED (sliced mode: the clock passed
 * `sliceUntil`; the resume point is saved in `st`, and a later call continues there).
 *
 * The hot loop keeps its position, depth and the state's fixed settings in locals; the state
 * object holds what the helpers read (depth, key stack, counters) and the resume point.
 */
export function scan(st: ScanState, s: string, maxDepth: number, nonInt: string[]): number {
  let i = 0;
  let d = 0;
  let afterComma = false;
  if (st.resuming) {
    i = st.resumeAt;
    d = st.resumeDepth;
    afterComma = st.resumeAfterComma;
    st.resuming = false;
  } else {
    st.depth = 0;
    st.keyTop = 0;
    st.prefixValid = 1;
  }
  let K = st.kinds;
  let N = st.counts;
  let KB = st.keyBase;
  const building = st.building;
  const softEnd = st.softEnd;
  const sliceUntil = st.sliceUntil;
  const maxValues = st.maxValuesLimit;
  let values = st.valueCount;
  let clock = st.clockBudget;
  // A string value left open by the last slice (build mode) is only ever resumed at the first turn.
  let openString = st.strParts !== null;

  // Each turn of `value` parses one value at `i` (after optional whitespace);
  // the inner loop then consumes ',' and closers until another value is due.
  value: for (;;) {
    if (--clock <= 0) {
      clock = CLOCK_EVERY;
      if (performance.now() >= sliceUntil) return pauseScan(st, i, d, afterComma, values);
    }
    // A windowed scan pauses near its window's end, at a value boundary, for the next window.
    if (i >= softEnd && !openString) return pauseScan(st, i, d, afterComma, values);
    let c = s.charCodeAt(i);
    if (!openString && c <= C_SPACE && (c === C_SPACE || c === C_LF || c === C_CR || c === C_TAB)) {
      i = skipWs(s, i + 1);
      c = s.charCodeAt(i);
    }
    if (openString) {
      // Resuming inside a long string value (build mode).
      openString = false;
      i = buildString(st, s, st.strStart, i);
      if (i === -1) return SCAN_FAILED;
      if (i === STRING_PAUSED) return pauseScan(st, st.strPauseAt, d, afterComma, values);
      attach(st, st.builtString);
    } else if (c === C_QUOTE) {
      if (++values > maxValues) return tooManyValues(st, i, values);
      const start = i;
      // Build mode reads a run of at most about STRING_PIECE code units before a slice may end.
      i = building ? plainEndBefore(s, i + 1, i + 1 + STRING_PIECE) : plainEnd(s, i + 1);
      c = s.charCodeAt(i);
      if (c === C_QUOTE) {
        i++;
        if (building) attach(st, s.slice(start + 1, i - 1));
      } else if (building) {
        i = buildString(st, s, start, i);
        if (i === -1) return SCAN_FAILED;
        if (i === STRING_PAUSED) return pauseScan(st, st.strPauseAt, d, afterComma, values);
        attach(st, st.builtString);
      } else {
        i = scanStringFrom(st, s, start, i, false);
        if (i < 0) return SCAN_FAILED;
      }
    } else if ((c >= C_0 && c <= C_9) || c === C_MINUS) {
      if (++values > maxValues) return tooManyValues(st, i, values);
      const start = i;
      i = scanNumber(st, s, i);
      if (i < 0) return SCAN_FAILED;
      if (st.lastNumberNonInteger && recordNonInteger(st, nonInt.length)) nonInt.push(currentSlotPointer(st));
      if (building) attach(st, Number(s.slice(start, i)));
    } else if (c === C_LBRACE || c === C_LBRACKET) {
      if (++values > maxValues) return tooManyValues(st, i, values);
      if (d >= maxDepth) {
        fail(
          st,
          PARSE_RULES.maxDepth,
          `nesting depth ${d + 1} at byte ${byteOffsetOf(st, i)} exceeds the limit of ${maxDepth}`,
          i,
          currentSlotPointer(st),
        );
        return SCAN_FAILED;
      }
      let container: unknown[] | Record<string, unknown> | undefined;
      if (building) {
        container = c === C_LBRACKET ? [] : {};
        attach(st, container);
      }
      d++;
      if (d >= K.length) {
        growStack(st);
        K = st.kinds;
        N = st.counts;
        KB = st.keyBase;
      }
      if (building) st.vals[d] = container;
      if (st.prefixValid >= d && d > 1) st.prefixValid = d - 1;
      N[d] = 0;
      st.depth = d;
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
        st.depth = d;
      } else {
        K[d] = KIND_OBJECT;
        KB[d] = st.keyTop;
        if (st.keySets[d] !== undefined) st.keySets[d] = undefined;
        if (c !== C_RBRACE) {
          i = memberName(st, s, i, d);
          if (i < 0) return SCAN_FAILED;
          continue value;
        }
        i++;
        d--;
        st.depth = d;
      }
    } else if (c === 0x74 /* t */) {
      if (s.charCodeAt(i + 1) === 0x72 && s.charCodeAt(i + 2) === 0x75 && s.charCodeAt(i + 3) === 0x65) {
        if (++values > maxValues) return tooManyValues(st, i, values);
        i += 4;
        if (building) attach(st, true);
      } else {
        badLiteral(st, i, "true");
        return SCAN_FAILED;
      }
    } else if (c === 0x66 /* f */) {
      if (
        s.charCodeAt(i + 1) === 0x61 &&
        s.charCodeAt(i + 2) === 0x6c &&
        s.charCodeAt(i + 3) === 0x73 &&
        s.charCodeAt(i + 4) === 0x65
      ) {
        if (++values > maxValues) return tooManyValues(st, i, values);
        i += 5;
        if (building) attach(st, false);
      } else {
        badLiteral(st, i, "false");
        return SCAN_FAILED;
      }
    } else if (c === 0x6e /* n */) {
      if (s.charCodeAt(i + 1) === 0x75 && s.charCodeAt(i + 2) === 0x6c && s.charCodeAt(i + 3) === 0x6c) {
        if (++values > maxValues) return tooManyValues(st, i, values);
        i += 4;
        if (building) attach(st, null);
      } else {
        badLiteral(st, i, "null");
        return SCAN_FAILED;
      }
    } else {
      unexpectedValue(st, s, i, afterComma);
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
        i = memberName(st, s, i, d);
        if (i < 0) return SCAN_FAILED;
        afterComma = false;
        continue value;
      }
      if (kind === KIND_ARRAY) {
        if (c === C_RBRACKET) {
          if (building) trimArray(st, d);
          i++;
          d--;
          st.depth = d;
          continue;
        }
        unexpectedStructural(st, s, i, "',' or ']' after array element", containerPointer(st, d));
        return SCAN_FAILED;
      }
      if (c === C_RBRACE) {
        i++;
        st.keyTop = KB[d] as number;
        d--;
        st.depth = d;
        continue;
      }
      unexpectedStructural(st, s, i, "',' or '}' after object member", containerPointer(st, d));
      return SCAN_FAILED;
    }
  }

  // Only whitespace may follow the top-level value.
  i = skipWs(s, i);
  if (i < s.length) {
    const c = s.charCodeAt(i);
    if (isNonJsonWhitespace(c)) {
      nonJsonWhitespace(st, c, i, "");
      return SCAN_FAILED;
    }
    fail(
      st,
      PARSE_RULES.trailingData,
      `unexpected data after the top-level JSON value at byte ${byteOffsetOf(st, i)} (only whitespace may follow it), ${previewAt(st, i)}`,
      i,
      "",
    );
    return SCAN_FAILED;
  }
  return SCAN_DONE;
}
