/**
 * The strict scanner's state as one object ({@link ScanState}): its container and member-name
 * stacks, the document (or window) it reads, the pending issue, the limits and the resume point of
 * a paused (sliced) scan. A synchronous parse borrows a pooled state and gives it back; a sliced
 * parse keeps its own between slices, so several parses may interleave. Also the helpers that read
 * the stacks: member names, JSON pointers of the slot being scanned, the non-integer record filter.
 *
 * @module
 */
import { escapeToken } from "../pointer.js";
import { MAX_RECORDED_NON_INTEGER, type StrictJsonLimits, type StrictParseOptions } from "./types.js";

/** A container's kind on the stack ({@link ScanState.kinds}): an array. */
export const KIND_ARRAY = 0;
/** A container's kind on the stack ({@link ScanState.kinds}): an object. */
export const KIND_OBJECT = 1;

/** Objects with more members than this switch from linear search to a Set for duplicate detection. */
export const LINEAR_KEY_LIMIT = 16;

/** Values scanned between two clock reads in sliced mode. */
export const CLOCK_EVERY = 1024;

/**
 * Windowed scan: when the string value being built opened in an earlier window (then
 * {@link ScanState.strStart} is -1), that window, its base byte and the quote's index in it (for
 * messages only).
 */
export interface OpenedIn {
  readonly text: string;
  readonly isAscii: boolean;
  readonly base: number;
  readonly at: number;
}

/**
 * Everything one scan works on and everything a paused scan needs to resume. Fields are public and
 * mutable: the scanner and its helpers (lexemes.ts, issues.ts, scanner.ts) read and write them
 * directly, and the hot loop of scanner.ts keeps its position and depth in locals.
 */
export class ScanState {
  /** Per depth (1-based): KIND_ARRAY or KIND_OBJECT. */
  kinds = new Uint8Array(64);
  /** Per depth: for arrays the index of the current element, for objects the number of member names seen. */
  counts = new Uint32Array(64);
  /** Per depth, objects only: index in the key stack of the object's first member name. */
  keyBase = new Uint32Array(64);

  /*
   * Key stack: one entry per member name of every open object, innermost last (a nested object's
   * names sit above its parent's and are dropped when it closes). Names without escapes are never
   * materialised as strings on the fast path: an entry is the span of the raw name in `src` plus
   * its decoded length; names with escapes also keep their decoded string.
   */
  /** Index of the first char after the opening quote. */
  kStart = new Uint32Array(256);
  /** Index of the closing quote. */
  kEnd = new Uint32Array(256);
  /** Decoded length in UTF-16 code units. */
  kLen = new Uint32Array(256);
  /** 1 when the raw name contains a backslash escape (then kDecoded holds the name). */
  kEsc = new Uint8Array(256);
  /** Decoded names of the entries with an escape (or kept when a window moved). */
  kDecoded: (string | undefined)[] = [];
  /** Number of entries on the key stack. */
  keyTop = 0;
  /** Per depth: Set of decoded member names, used once an object has more than LINEAR_KEY_LIMIT members. */
  keySets: (Set<string> | undefined)[] = [];

  /**
   * Cached JSON pointers of open containers: prefixes[d] is the pointer of the container open at
   * depth d, valid for every d <= prefixValid. The root container (depth 1) is always "" (index 0
   * is unused and also "").
   */
  prefixes: string[] = ["", ""];
  prefixValid = 1;

  /** Document text being scanned (used by the error path and lazy key decoding). */
  src = "";
  /** True when `src` is pure ASCII, so UTF-16 indexes equal byte offsets. */
  srcIsAscii = false;
  /**
   * Windowed scan (the sliced parser on a large input, see sliced.ts WindowedParse): `src` is one
   * window of the text, starting at byte `winBaseBytes` of the input; the scan pauses at the first
   * value boundary at or past `softEnd` (a string value at or past it) so the next window can be
   * built. A whole text: 0 and Infinity.
   */
  winBaseBytes = 0;
  softEnd = Number.POSITIVE_INFINITY;
  /** Windowed scan: where the string value being built opened, when in an earlier window. */
  strOpen: OpenedIn | null = null;
  /** Windowed scan: the raw input, for the preview of a quote in an earlier window. */
  srcBytes: Uint8Array | null = null;
  /** Current nesting depth (kept in sync by the scanner for the pointer/error helpers). */
  depth = 0;

  /** Pending issue, set by issues.ts `fail` and read by `failedResult`. */
  issueRule = "";
  issueMessage = "";
  issueIndex = -1;
  issuePointer = "";

  /** Set by scanNumber: whether the last scanned number is not a plain integer. */
  lastNumberNonInteger = false;
  /** Set by scanNumber before its range check: the index past the lexeme (a windowed scan checks it did not reach the window's end). */
  lastNumberEnd = 0;

  /** Token lists of the `nonIntegerPaths` option for the current call; null records every number (capped). */
  recordPatterns: (readonly string[])[] | null = null;

  /** Values seen so far in the current document, and the limit (limits.maxValues, or Infinity). */
  valueCount = 0;
  maxValuesLimit = Number.POSITIVE_INFINITY;
  /** The limit on one object's members (limits.maxMembers, or Infinity). */
  maxMembersLimit = Number.POSITIVE_INFINITY;

  /** Build mode (the sliced parser): the scanner builds the value itself. `vals[d]` is the container open at depth d. */
  building = false;
  /** Build mode: the member name scanned last (the name of the slot being filled). */
  lastKey = "";
  vals: unknown[] = [];
  /** Build mode: the document's value (the root slot). */
  rootValue: unknown = undefined;

  /** Where a paused scan resumes: the index of the next value, its depth, whether a comma preceded it. */
  resuming = false;
  resumeAt = 0;
  resumeDepth = 0;
  resumeAfterComma = false;
  /** Sliced mode: the scan pauses at the next value boundary once performance.now() passes this. */
  sliceUntil = Number.POSITIVE_INFINITY;
  /** Values left before the next clock read. */
  clockBudget = 0;
  /**
   * Build mode: a string value longer than STRING_PIECE is scanned and decoded in pieces, so that a
   * slice can end inside it (a 16 MiB string of escapes is otherwise one step of ~100 ms). What is
   * decoded so far (null: no string is open), its opening quote, the end of the last piece scanned.
   */
  strParts: string | null = null;
  strStart = 0;
  strPauseAt = 0;
  /** The piece lexemes.ts scanStringFrom scanned last held an escape (else it is its own decoding). */
  strEscaped = false;
  /** The string value lexemes.ts buildString finished last. */
  builtString = "";
}

/** Spare state for the next scan (at most one: a synchronous parse takes it and gives it back). */
const spare: ScanState[] = [new ScanState()];

/** A state for a new scan (the spare one, or a fresh one while it is in use); set it up with {@link beginScan}. */
export function acquireState(): ScanState {
  return spare.pop() ?? new ScanState();
}

/** Gives back a state whose scan ended: drops its references into the document and keeps it as the spare. */
export function releaseState(st: ScanState): void {
  releaseScratch(st);
  if (spare.length === 0) spare.push(st);
}

/** Observer of the texts handed to the scanner; see {@link observeScanInputs}. */
let scanInputObserver: ((units: number) => void) | null = null;

/**
 * For verification: `observer` is called with the length (UTF-16 code units) of every text the
 * strict scanner is handed: a whole document, or one window of a large one. null removes it.
 * Tests use it to show that a large document is never flattened into one text. Returns the
 * observer it replaces.
 */
export function observeScanInputs(observer: ((units: number) => void) | null): ((units: number) => void) | null {
  const previous = scanInputObserver;
  scanInputObserver = observer;
  return previous;
}

/** Tells the observer of {@link observeScanInputs} that the scanner is handed a text of `units` code units. */
export function noteScanInput(units: number): void {
  scanInputObserver?.(units);
}

/** A copy of `a` with twice the length (the scanner's stacks grow by doubling). */
function doubled<T extends Uint8Array | Uint32Array>(a: T): T {
  const b = new (a.constructor as new (length: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

/** Doubles the container stack. */
export function growStack(st: ScanState): void {
  st.kinds = doubled(st.kinds);
  st.counts = doubled(st.counts);
  st.keyBase = doubled(st.keyBase);
}

/** Doubles the key stack. */
export function growKeyStack(st: ScanState): void {
  st.kStart = doubled(st.kStart);
  st.kEnd = doubled(st.kEnd);
  st.kLen = doubled(st.kLen);
  st.kEsc = doubled(st.kEsc);
}

/** Decoded text of key-stack entry `k`. */
export function decodeKey(st: ScanState, k: number): string {
  return st.kEsc[k] === 1 ? (st.kDecoded[k] as string) : st.src.slice(st.kStart[k], st.kEnd[k]);
}

// ---------------------------------------------------------------------------
// JSON pointers (built lazily: only for issues and non-integer numbers)

/** JSON pointer of the open container at depth `d` (depth 0 and 1 both give the root pointer ""). */
export function containerPointer(st: ScanState, d: number): string {
  if (d <= st.prefixValid) return st.prefixes[d] as string;
  let p = st.prefixes[st.prefixValid] as string;
  for (let k = st.prefixValid + 1; k <= d; k++) {
    p = p + "/" + tokenAt(st, k - 1);
    st.prefixes[k] = p;
  }
  st.prefixValid = d;
  return p;
}

/** Current (escaped) reference token inside the open container at depth `d` (d >= 1). */
export function tokenAt(st: ScanState, d: number): string {
  if (st.kinds[d] === KIND_ARRAY) return String(st.counts[d]);
  return escapeToken(decodeKey(st, (st.keyBase[d] as number) + (st.counts[d] as number) - 1));
}

/** Pointer of the value slot currently being parsed (the root, or the current element/member). */
export function currentSlotPointer(st: ScanState): string {
  if (st.depth === 0) return "";
  return containerPointer(st, st.depth) + "/" + tokenAt(st, st.depth);
}

/**
 * Whether the value slot being parsed matches the pattern `tokens` (one token per open container;
 * `*` matches any array index). Compares member names by length first and never builds a pointer.
 */
function slotMatches(st: ScanState, tokens: readonly string[]): boolean {
  if (tokens.length !== st.depth) return false;
  for (let k = 1; k <= st.depth; k++) {
    const token = tokens[k - 1] as string;
    if (st.kinds[k] === KIND_ARRAY) {
      if (token !== "*" && token !== String(st.counts[k])) return false;
    } else {
      const key = (st.keyBase[k] as number) + (st.counts[k] as number) - 1;
      if (st.kLen[key] !== token.length || decodeKey(st, key) !== token) return false;
    }
  }
  return true;
}

/** Whether the non-integer number just scanned is to be recorded (see StrictParseOptions). */
export function recordNonInteger(st: ScanState, recorded: number): boolean {
  if (st.recordPatterns === null) return recorded < MAX_RECORDED_NON_INTEGER;
  for (const tokens of st.recordPatterns) if (slotMatches(st, tokens)) return true;
  return false;
}

/**
 * Drops references into the last document (so it can be collected) and
 * shrinks scratch storage that a pathological document grew.
 */
function releaseScratch(st: ScanState): void {
  st.recordPatterns = null;
  st.valueCount = 0;
  st.maxValuesLimit = Number.POSITIVE_INFINITY;
  st.maxMembersLimit = Number.POSITIVE_INFINITY;
  st.building = false;
  st.resuming = false;
  st.sliceUntil = Number.POSITIVE_INFINITY;
  st.strParts = null;
  st.builtString = "";
  if (st.vals.length !== 0) st.vals = [];
  st.rootValue = undefined;
  st.lastKey = "";
  st.src = "";
  st.winBaseBytes = 0;
  st.softEnd = Number.POSITIVE_INFINITY;
  st.strOpen = null;
  st.srcBytes = null;
  st.depth = 0;
  st.keyTop = 0;
  st.issueMessage = "";
  st.issuePointer = "";
  if (st.kDecoded.length !== 0) st.kDecoded.length = 0;
  if (st.keySets.length !== 0) st.keySets.length = 0;
  if (st.prefixes.length !== 2) st.prefixes.length = 2;
  st.prefixValid = 1;
  if (st.kinds.length > 4096) {
    st.kinds = new Uint8Array(64);
    st.counts = new Uint32Array(64);
    st.keyBase = new Uint32Array(64);
  }
  if (st.kStart.length > 65536) {
    st.kStart = new Uint32Array(256);
    st.kEnd = new Uint32Array(256);
    st.kLen = new Uint32Array(256);
    st.kEsc = new Uint8Array(256);
  }
}

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

/** Sets up `st` for a new document (sync or build mode). */
export function beginScan(
  st: ScanState,
  text: string,
  byteLength: number,
  limits: StrictJsonLimits,
  options: StrictParseOptions,
  build: boolean,
): void {
  noteScanInput(text.length);
  st.src = text;
  st.srcIsAscii = text.length === byteLength; // every char one byte iff no multi-byte sequence
  st.winBaseBytes = 0;
  st.softEnd = Number.POSITIVE_INFINITY;
  st.strOpen = null;
  st.srcBytes = null;
  st.recordPatterns = options.nonIntegerPaths === undefined ? null : splitPatterns(options.nonIntegerPaths);
  st.valueCount = 0;
  st.maxValuesLimit = limits.maxValues ?? Number.POSITIVE_INFINITY;
  st.maxMembersLimit = limits.maxMembers ?? Number.POSITIVE_INFINITY;
  st.building = build;
  st.resuming = false;
  st.resumeAt = 0;
  st.resumeDepth = 0;
  st.resumeAfterComma = false;
  st.rootValue = undefined;
  st.sliceUntil = Number.POSITIVE_INFINITY;
  st.clockBudget = CLOCK_EVERY;
}
