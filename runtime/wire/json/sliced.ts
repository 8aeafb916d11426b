/**
 * The sliced strict parser: {@link parseStrictJsonSliced} builds the value in the same scan that
 * validates it, in slices of a few milliseconds with the event loop free in between (the scan's
 * {@link ScanState} pauses and resumes), so a document at the limits never blocks the host for long
 * and can be abandoned at a deadline. An input above 1 MiB is decoded and scanned one window at a
 * time ({@link WindowedParse}). Also the synchronous drivers tests use to prove it equal to
 * parse.ts {@link parseStrictJson} on every input.
 *
 * @module
 */
import { isAscii } from "node:buffer";
import { FAST_PARSE_SLICED_MAX_BYTES, fastParse } from "../fast-parse.js";
import { deferToNextTurn, endTurn, runInSlices, SLICE_MS } from "../../process/slices.js";
import { PARSE_RULES, type StrictJsonLimits, type StrictParseOptions, type StrictParseResult } from "./types.js";
import { C_CR, C_LF, C_SPACE, C_TAB, utf8Decoder, utf8Length } from "./chars.js";
import {
  acquireState,
  beginScan,
  CLOCK_EVERY,
  KIND_OBJECT,
  noteScanInput,
  observeScanInputs,
  releaseState,
  ScanState,
} from "./state.js";
import { failedResult } from "./issues.js";
import { scan, SCAN_DONE, SCAN_FAILED } from "./scanner.js";
import { checkDocument, decodeDocument, fastResult, MAX_STRING_LENGTH, tooLongToDecode } from "./parse.js";

export { observeScanInputs } from "./state.js";

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
async function decodeDocumentSliced(
  input: Uint8Array,
  limits: StrictJsonLimits,
  deadlineAt: number,
): Promise<string | StrictParseResult | "deadline"> {
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

/** Set by {@link runSlice} when it returns a result: whether it came from a window that is not the last, and may depend on where the window was cut. */
interface SliceTrust {
  untrusted: boolean;
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
  private readonly trust: SliceTrust = { untrusted: false };

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
      const outcome = runSlice(state, state.src, this.limits, this.nonInt, until, clockEvery, this.trust);
      if (outcome instanceof ScanState) {
        this.state = outcome;
        return false;
      }
      this.state = null;
      if (this.trust.untrusted) {
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
    if (this.state !== null) releaseState(this.state);
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
      const st = acquireState();
      beginScan(st, text, end, this.limits, this.options, true);
      st.srcBytes = bytes;
      st.softEnd = soft;
      this.state = st;
      return;
    }
    noteScanInput(text.length);
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
      if (state.strStart >= 0)
        state.strOpen = { text: old, isAscii: state.srcIsAscii, base: state.winBaseBytes, at: state.strStart };
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
  const outer = observeScanInputs((units) => windows.push(units));
  try {
    const parse = new WindowedParse(bytes, isAscii(bytes), limits, options, Math.max(16, pieceBytes));
    const until = Number.isFinite(valuesPerStep) ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    while (!parse.step(until, Number.isFinite(valuesPerStep) ? valuesPerStep + 1 : CLOCK_EVERY));
    if (!parse.redo) return { result: parse.result as StrictParseResult, redo: false, windows };
  } finally {
    observeScanInputs(outer);
  }
  return { result: parseStrictJsonStepwise(input, limits, options, undefined, 1 << 20), redo: true, windows };
}

/** Options of {@link parseStrictJsonSliced}: the longest slice in ms (default: the scheduler's, runtime/process/slices.ts) and an absolute deadline (performance.now() ms). */
export interface StrictSliceOptions {
  readonly sliceMs?: number;
  readonly deadlineAt?: number;
}

/**
 * {@link parseStrictJson} without blocking the event loop: the scanner validates and builds the
 * value in one pass (no `JSON.parse`), in slices scheduled by runtime/process/slices.ts (all sliced
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
    const finished = await runInSlices(
      (budgetMs) => parse.step(performance.now() + Math.min(budgetMs, slice.sliceMs ?? budgetMs), CLOCK_EVERY),
      deadlineAt,
    );
    if (!finished) return "deadline";
    if (!parse.redo) return parse.result as StrictParseResult;
    // Rare (a token longer than the windows' margin, an issue at a window's end): the flat text.
  }
  const decoded = large ? await decodeDocumentSliced(input, limits, deadlineAt) : decodeDocument(input, limits);
  if (typeof decoded !== "string") return decoded;
  // Up to limits.fast_parse_sliced_max_bytes, one JSON.parse costs at most about one slice (fast-parse.ts).
  const fast =
    input.length > FAST_PARSE_SLICED_MAX_BYTES
      ? undefined
      : fastParse(
          decoded,
          input.length,
          limits.maxDepth,
          limits.maxValues ?? Number.POSITIVE_INFINITY,
          limits.maxMembers ?? Number.POSITIVE_INFINITY,
          options.nonIntegerPaths,
          options.accept,
        );
  if (fast !== undefined) return fastResult(fast);
  const nonInt: string[] = [];
  const st = acquireState();
  beginScan(st, decoded, input.length, limits, options, true);
  // A small document is judged within one slice, at once: no turn of the event loop is spent
  // waiting. A large one starts on a later turn (this one decoded it; other parses may run
  // before its first slice).
  if (!large) {
    const first = runSlice(st, decoded, limits, nonInt, performance.now() + (slice.sliceMs ?? SLICE_MS), CLOCK_EVERY);
    if (!(first instanceof ScanState)) return first;
  }
  let result: StrictParseResult | "deadline" = "deadline";
  const finished = await runInSlices((budgetMs) => {
    const outcome = runSlice(
      st,
      decoded,
      limits,
      nonInt,
      performance.now() + Math.min(budgetMs, slice.sliceMs ?? budgetMs),
      CLOCK_EVERY,
    );
    if (outcome instanceof ScanState) return false;
    result = outcome;
    return true;
  }, deadlineAt);
  if (!finished) releaseState(st);
  return finished ? result : "deadline";
}

/**
 * One slice of a build-mode scan: starts or resumes the scan of `st` (set up by beginScan), scans
 * until `until` (performance.now() ms, read every `clockEvery` values) and returns the result (and
 * gives `st` back, releaseState), or `st` itself, paused, to resume from. `trust` (windowed scans)
 * is told whether a result may depend on where the window was cut.
 */
function runSlice(
  st: ScanState,
  text: string,
  limits: StrictJsonLimits,
  nonInt: string[],
  until: number,
  clockEvery: number,
  trust?: SliceTrust,
): StrictParseResult | ScanState {
  let status: number;
  let window = false;
  try {
    // A window that is not the last: see WindowedParse (the end of input may lie further on).
    window = st.softEnd !== Number.POSITIVE_INFINITY;
    st.sliceUntil = until;
    st.clockBudget = clockEvery;
    status = scan(st, text, limits.maxDepth, nonInt);
  } catch (error) {
    // Unreachable (the scanner reports, never throws); releases the scratch either way.
    if (trust !== undefined) trust.untrusted = window;
    releaseState(st);
    return {
      ok: false,
      issue: {
        rule: PARSE_RULES.syntax,
        pointer: "",
        message: `the strict parser failed: ${String((error as Error)?.message).slice(0, 120)}`,
      },
    };
  }
  if (status === SCAN_DONE) {
    if (trust !== undefined) trust.untrusted = window;
    const value = st.rootValue;
    releaseState(st);
    return { ok: true, value, nonIntegerNumberPointers: nonInt };
  }
  if (status === SCAN_FAILED) {
    if (trust !== undefined)
      trust.untrusted =
        window &&
        (st.issueIndex + WINDOW_TRUST_UNITS >= text.length ||
          (st.issueRule === PARSE_RULES.numberRange && st.lastNumberEnd >= text.length));
    const result = failedResult(st);
    releaseState(st);
    return result;
  }
  return st;
}

/**
 * The sliced parser's build mode driven synchronously with a pause after every value (the most
 * resumes possible; `valuesPerStep` values per slice), calling `between()` at each pause. For verification: tests compare it with
 * {@link parseStrictJson} on every case and run other parses inside `between` to show that paused
 * scans keep their own state.
 */
export function parseStrictJsonStepwise(
  input: Uint8Array,
  limits: StrictJsonLimits,
  options: StrictParseOptions = {},
  between: () => void = () => undefined,
  valuesPerStep = 1,
): StrictParseResult {
  const decoded = decodeDocument(input, limits);
  if (typeof decoded !== "string") return decoded;
  const nonInt: string[] = [];
  const st = acquireState();
  beginScan(st, decoded, input.length, limits, options, true);
  for (;;) {
    // A budget of n + 1 reads the (always expired) clock at value-loop turn n + 1: n values per slice.
    const outcome = runSlice(st, decoded, limits, nonInt, Number.NEGATIVE_INFINITY, valuesPerStep + 1);
    if (!(outcome instanceof ScanState)) return outcome;
    between();
  }
}
