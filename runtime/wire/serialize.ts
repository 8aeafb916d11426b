/**
 * The wire form of an in-memory value, made in one pass that reads every member exactly once:
 * the JSON bytes that will cross the boundary and a fresh copy of exactly what those bytes say
 * (spec/host-runtime.md §"Round trip" steps 1-3). The copy is the snapshot the host guards,
 * validates and hands on; a getter or Proxy that answers differently on a second read cannot
 * make the delivered bytes differ from what was judged.
 *
 * While it writes, the serializer enforces the document limits (spec/tables/limits.json) so that
 * nothing unbounded is ever built:
 * - `json.max-bytes`: the running UTF-8 byte count passes `maxBytes` (a 400 MB string is refused
 *   from its length, before it is escaped or copied);
 * - `json.max-depth`: a container nested deeper than `maxDepth` (the root container is level 1);
 * - `json.max-values`: more than `maxValues` values (scalars and containers, the root included);
 * - `json.max-members`: an object with more than `maxMembers` members written (an `undefined`
 *   member is absent and does not count), at the first member past the limit once its name is
 *   checked (as the strict parser reads the text: a lone surrogate in that name is json.lone-surrogate). Its keys are listed
 *   first, in one native step (see LARGE_OBJECT_KEYS): for an object beyond the limit that
 *   listing is beyond the limits too, and it is what a listing of up to `maxMembers` keys costs
 *   that the limit bounds (about 10 ms for limits.max_object_members keys);
 * - `json.lone-surrogate`: a string or member name with an unpaired UTF-16 surrogate (the bytes
 *   would carry a `\uD800` escape the strict parser refuses).
 * Values JSON cannot represent faithfully are a `serialize` problem: BigInt, NaN and ±Infinity,
 * functions, symbols, `undefined` array elements (holes included), cycles, Map, Set, WeakMap,
 * WeakSet, Promise, ArrayBuffer and its views, and any read that throws (getter, Proxy trap,
 * toJSON). An `undefined` object member is an absent member; `toJSON` is honoured as in
 * JSON.stringify; boxed primitives are unboxed; `-0` is written (and copied) as `0`.
 *
 * The work is resumable: {@link snapshotValue} runs it to the end synchronously, and
 * {@link snapshotValueSliced} runs it in slices with the event loop free in between, optionally
 * giving up at a deadline.
 */
import type { ValidationIssue } from "./issues.js";
import { defineMember } from "./own.js";
import { escapeToken } from "./pointer.js";
import { deferToNextTurn, endTurn, runInSlices, SLICE_MS, turnElapsedMs } from "../process/slices.js";

/**
 * Bounds of one serialized document: bytes (UTF-8), nesting levels, values, and members of any one
 * object (`maxMembers`; absent: no bound, the host passes limits.max_object_members). See the module doc.
 */
export interface SnapshotLimits {
  readonly maxBytes: number;
  readonly maxDepth: number;
  readonly maxValues: number;
  readonly maxMembers?: number;
}

/**
 * Why a value has no snapshot:
 * - `serialize`: the value cannot be written as JSON (`detail` says why and where);
 * - `invalid`: a document limit or `json.lone-surrogate` (`issue.pointer` is where);
 * - `deadline`: the sliced run reached its deadline first (nothing usable was produced).
 */
export type SnapshotProblem =
  | { readonly ok: false; readonly problem: "serialize"; readonly detail: string }
  | { readonly ok: false; readonly problem: "invalid"; readonly issue: ValidationIssue }
  | { readonly ok: false; readonly problem: "deadline" };

/** Outcome of serializing one value: `bytes` (UTF-8 JSON) and `value`, the copy of what the bytes say; or the problem. */
export type ValueSnapshot = { readonly ok: true; readonly bytes: Buffer; readonly value: unknown } | SnapshotProblem;

/**
 * The JSON of a finished serialization, in one of two forms: `text` (well-formed UTF-16, no lone
 * surrogate), for a writer that frames the document before encoding it (one encoding of the whole
 * frame instead of one of the document and a copy into the frame); or `bytes` (UTF-8), for a
 * serializer that wrote the output in pieces. `byteLength` is the UTF-8 length either way.
 */
export type JsonOutput =
  | { readonly text: string; readonly bytes: null; readonly byteLength: number }
  | { readonly text: null; readonly bytes: Buffer; readonly byteLength: number };

/**
 * {@link ValueSnapshot} with the JSON as a {@link JsonOutput} (text unless written in pieces).
 * `escaped`: the JSON holds a backslash (an escape in a string or a member name), known from what
 * was written, so a reader of `text` need not search it.
 */
export type TextSnapshot =
  | ({ readonly ok: true; readonly value: unknown; readonly escaped: boolean } & JsonOutput)
  | SnapshotProblem;

/** Options of {@link snapshotValueSliced}: the longest slice (ms, default: the scheduler's, runtime/process/slices.ts) and an absolute deadline (performance.now() ms). */
export interface SliceOptions {
  readonly sliceMs?: number;
  readonly deadlineAt?: number;
}

/** Values handled between two clock reads inside a slice. */
const CLOCK_EVERY = 512;
/**
 * Listing an object's keys is one native step that no API splits, and it grows faster than the
 * count (measured: 16,384 keys 4 ms, 32,768 keys 10 ms, 131,060 keys 60-70 ms); limits.max_object_members
 * bounds it for every object within the limits. In sliced runs the keys of an object are
 * therefore listed only within the first OPEN_OBJECT_MS of a scheduler turn (later, the run sits
 * out the rest of the turn and starts the next one with the listing), and after listing more than
 * LARGE_OBJECT_KEYS keys the turn ends at once: a large listing is alone in its turn.
 */
const OPEN_OBJECT_MS = 1;
const LARGE_OBJECT_KEYS = 4096;

const LONE_SURROGATE_FAST = /[\ud800-\udfff]/;

/** Index of the first unpaired surrogate of `s`, or -1. */
function loneSurrogateAt(s: string): number {
  if (!LONE_SURROGATE_FAST.test(s)) return -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}

const ASCII = /^[\x00-\x7f]*$/;
/** ASCII without `"`, `\\` and control characters: JSON writes such a string as it is, between quotes. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7f]*$/;

/**
 * Strings up to this many characters are tested for {@link PLAIN_JSON_STRING} by a loop over their
 * code units: the common wire string (ids, names, enum values) is short, and a regex test costs a
 * call into the regex engine per string (measured: about 3 µs of a stream event's 14 strings).
 */
export const PLAIN_LOOP_MAX = 64;

/** Whether JSON writes `s` as it is between quotes: {@link PLAIN_JSON_STRING}, by a loop for short strings. */
export function isPlainJsonString(s: string): boolean {
  if (s.length > PLAIN_LOOP_MAX) return PLAIN_JSON_STRING.test(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7f || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** UTF-8 byte length of a well-formed (no lone surrogate) string. */
function utf8Bytes(s: string): number {
  return s.length < 64 && ASCII.test(s) ? s.length : Buffer.byteLength(s, "utf8");
}

/** What an object is when JSON.stringify would silently write it as `{}` (Map, Set, ...), else null. May throw for a hostile Proxy. */
export function exoticKind(value: object): string | null {
  if (value instanceof Map) return "a Map";
  if (value instanceof Set) return "a Set";
  if (value instanceof WeakMap) return "a WeakMap";
  if (value instanceof WeakSet) return "a WeakSet";
  if (value instanceof Promise) return "a Promise";
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return "binary data (ArrayBuffer or a view)";
  if (typeof SharedArrayBuffer !== "undefined" && value instanceof SharedArrayBuffer) return "a SharedArrayBuffer";
  return null;
}

/** Thrown inside the serializer for a `serialize` problem (caught by the run). */
class Unrepresentable extends Error {}
/** Thrown inside the serializer for a limit or a lone surrogate (caught by the run). */
class LimitReached extends Error {
  constructor(readonly issue: ValidationIssue) {
    super(issue.message);
  }
}

interface Frame {
  /** The container being written (as read), its copy. */
  readonly source: object;
  readonly copy: unknown[] | Record<string, unknown>;
  /** The enclosing container and this container's member name or index in it (null, "" at the root). */
  readonly parent: Frame | null;
  readonly token: string | number;
  /** The container's JSON pointer, built only when an issue or a detail needs it. */
  pointer: string | null;
  readonly isArray: boolean;
  /** Member names (objects; null until listed, on the container's first step) or null (arrays). */
  keys: readonly string[] | null;
  /** Entries to write (array length or key count; 0 until an object's keys are listed). */
  length: number;
  /** Next entry to write. */
  next: number;
  /** Entries written so far (objects skip `undefined` members). */
  written: number;
}

/** What {@link Serializer.write} returns for a value JSON.stringify would skip (undefined, function, symbol). */
const SKIP: unique symbol = Symbol("skip");

/** The pointer of a container (built once, on first need). */
function framePointer(frame: Frame): string {
  if (frame.pointer === null) frame.pointer = pointerIn(frame.parent, frame.token);
  return frame.pointer;
}

/** The pointer of the entry `token` of `parent` ("" for the root value). */
function pointerIn(parent: Frame | null, token: string | number): string {
  if (parent === null) return "";
  return `${framePointer(parent)}/${typeof token === "number" ? token : escapeToken(token)}`;
}

/**
 * Member names already written, as `"name":` with their UTF-8 byte count: the names of wire
 * objects repeat in every document, so each is escaped, checked and measured once. Bounded (a
 * document with many distinct names only stops filling it).
 */
const NAME_CACHE = new Map<string, MemberName>();

/** A member name as written: `"name":` (`text`, `bytes` UTF-8 bytes) and `,"name":` after another member (`separated`); `escaped`: the text has an escape. */
interface MemberName {
  readonly text: string;
  readonly separated: string;
  readonly bytes: number;
  readonly escaped: boolean;
}
const NAME_CACHE_MAX = 4096;

/** Levels of open containers whose cycle check is a scan of the stack (deeper ones are in a Set). */
const SCANNED_LEVELS = 8;

/**
 * Characters of output kept as one rope before it is flattened and set aside: a rope node per
 * token (32 bytes each) would otherwise outlive the whole run (2 nodes per array element: 8 MB for
 * a 131,072-element array, 10 times its JSON).
 */
const OUT_PIECE = 1 << 16;

/** The resumable serializer of one value. */
class Serializer {
  private out = "";
  /** Flat pieces of the output before `out` (large documents only, see OUT_PIECE). */
  private readonly pieces: string[] = [];
  private bytes = 0;
  private values = 0;
  /** A string or member name was written with an escape (a backslash is in the output). */
  private escaped = false;
  private readonly stack: Frame[] = [];
  /**
   * The open containers below the first {@link SCANNED_LEVELS} levels (made on first need): a
   * container's cycle check scans those first levels' frames (cheaper than a Set for the shallow
   * wire documents) and looks the deeper ones up here.
   */
  private deepPath: Set<object> | null = null;
  private root: unknown = undefined;
  private started = false;
  private done = false;
  /** Sliced run: where the running slice began (performance.now() ms); -1 in a synchronous run. */
  private sliceStart = -1;
  /** A large key listing just ran: the slice ends now. */
  private yieldNow = false;

  constructor(
    private readonly value: unknown,
    private readonly limits: SnapshotLimits,
  ) {}

  /** Run for at most `budgetMs` (Infinity: to the end). Returns the outcome, or null when more work is left. */
  run(budgetMs: number): TextSnapshot | null {
    try {
      // One clock read for both: the slice's start and its end.
      const now = budgetMs === Number.POSITIVE_INFINITY ? -1 : performance.now();
      const until = budgetMs === Number.POSITIVE_INFINITY ? Number.POSITIVE_INFINITY : now + budgetMs;
      this.sliceStart = now;
      if (!this.started) {
        this.started = true;
        const first = this.write(this.value, null, "", "", 0);
        if (first === SKIP) this.done = true;
        else this.root = first;
      }
      let n = 0;
      while (!this.done && this.stack.length > 0) {
        if (++n === CLOCK_EVERY) {
          n = 0;
          if (performance.now() >= until) return null;
        }
        this.step();
        if (this.yieldNow) {
          this.yieldNow = false;
          if (this.stack.length > 0) return null;
        }
      }
      if (this.root === undefined)
        return {
          ok: false,
          problem: "serialize",
          detail: "the value is undefined (or a function or symbol), which JSON cannot represent",
        };
      // A small output stays text (the stream frames it before encoding); one written in pieces is joined into bytes.
      if (this.pieces.length === 0)
        return {
          ok: true,
          text: this.out,
          bytes: null,
          byteLength: this.bytes,
          value: this.root,
          escaped: this.escaped,
        };
      const bytes = this.joinPieces();
      return { ok: true, text: null, bytes, byteLength: bytes.length, value: this.root, escaped: this.escaped };
    } catch (error) {
      this.out = "";
      this.pieces.length = 0;
      this.stack.length = 0;
      if (error instanceof LimitReached) return { ok: false, problem: "invalid", issue: error.issue };
      if (error instanceof Unrepresentable) return { ok: false, problem: "serialize", detail: error.message };
      return { ok: false, problem: "serialize", detail: `reading the value threw: ${safeText(error)}` };
    }
  }

  /** Write the next entry of the innermost open container, or close it. */
  private step(): void {
    const frame = this.stack[this.stack.length - 1] as Frame;
    if (!frame.isArray && frame.keys === null) {
      this.listKeys(frame);
      return;
    }
    if (frame.next >= frame.length) {
      this.emit(frame.isArray ? "]" : "}", 1, null, "");
      this.stack.pop();
      if (this.stack.length >= SCANNED_LEVELS) this.deepPath?.delete(frame.source);
      return;
    }
    const index = frame.next++;
    if (frame.isArray) {
      const element = (frame.source as Record<number, unknown>)[index];
      if (element === undefined)
        throw new Unrepresentable(
          `array element ${pointerIn(frame, index)} is undefined (or a hole), which JSON cannot represent`,
        );
      const written =
        frame.written > 0 ? this.write(element, frame, index, ",", 1) : this.write(element, frame, index, "", 0);
      if (written === SKIP)
        throw new Unrepresentable(
          `array element ${pointerIn(frame, index)} is a ${typeof element}, which JSON cannot represent`,
        );
      (frame.copy as unknown[]).push(written);
      frame.written++;
      return;
    }
    const key = (frame.keys as readonly string[])[index] as string;
    const member = (frame.source as Record<string, unknown>)[key];
    if (member === undefined) return; // an absent member, as in JSON.stringify
    let name = NAME_CACHE.get(key);
    if (name === undefined) {
      if (loneSurrogateAt(key) >= 0)
        this.limit(
          "json.lone-surrogate",
          framePointer(frame),
          `member name at ${JSON.stringify(pointerIn(frame, key))} has an unpaired UTF-16 surrogate`,
        );
      const text = `${JSON.stringify(key)}:`;
      // JSON.stringify writes a string as its characters in quotes, longer by each escape.
      name = { text, separated: `,${text}`, bytes: utf8Bytes(text), escaped: text.length !== key.length + 3 };
      if (NAME_CACHE.size < NAME_CACHE_MAX) NAME_CACHE.set(key, name);
    }
    // As the strict parser judges the text: the name first (json.lone-surrogate), then the count.
    if (frame.written >= (this.limits.maxMembers ?? Number.POSITIVE_INFINITY)) {
      const pointer = pointerIn(frame, key);
      this.limit(
        "json.max-members",
        pointer,
        `the member at ${JSON.stringify(pointer)} is member number ${frame.written + 1} of its object, above the limit of ${this.limits.maxMembers} members per object`,
      );
    }
    if (name.escaped) this.escaped = true;
    const written =
      frame.written > 0
        ? this.write(member, frame, key, name.separated, name.bytes + 1)
        : this.write(member, frame, key, name.text, name.bytes);
    if (written === SKIP)
      throw new Unrepresentable(`member ${pointerIn(frame, key)} is a ${typeof member}, which JSON cannot represent`);
    defineMember(frame.copy as Record<string, unknown>, key, written);
    frame.written++;
  }

  /**
   * Write one value, entry `token` of `parent`, after `prefix` (`prefixBytes` UTF-8 bytes); a
   * container is opened (its frame pushed) and its copy returned empty. Returns the copy, or
   * {@link SKIP} for a value JSON.stringify would skip (undefined, function, symbol).
   */
  private write(
    value: unknown,
    parent: Frame | null,
    token: string | number,
    prefix: string,
    prefixBytes: number,
  ): unknown {
    if (value !== null && typeof value === "object") {
      if (typeof (value as { toJSON?: unknown }).toJSON === "function")
        value = (value as { toJSON: (key: string) => unknown }).toJSON(String(token));
      // Only objects can be boxed primitives (a toJSON result included); primitives skip the checks.
      // As JSON.stringify: ToNumber / ToString of a boxed number / string (an overridden valueOf,
      // toString or Symbol.toPrimitive is honoured), a boxed boolean's own value.
      if (value instanceof Number) value = Number(value);
      else if (value instanceof String) value = String(value);
      else if (value instanceof Boolean) value = Boolean.prototype.valueOf.call(value);
    }
    switch (typeof value) {
      case "string": {
        this.count(parent, token);
        if (this.bytes + prefix.length + value.length + 2 > this.limits.maxBytes)
          this.tooLarge(pointerIn(parent, token));
        if (isPlainJsonString(value)) {
          // The common wire string (ids, names, enum values): its JSON text is itself in quotes,
          // as many bytes as characters, and it has no surrogate at all.
          this.emitAfter(prefix, prefixBytes, `"${value}"`, value.length + 2, parent, token);
          return value;
        }
        // An ASCII string has no surrogate, and its JSON text is as many bytes as characters.
        const ascii = ASCII.test(value);
        if (!ascii && loneSurrogateAt(value) >= 0) {
          const pointer = pointerIn(parent, token);
          this.limit(
            "json.lone-surrogate",
            pointer,
            `the string at ${JSON.stringify(pointer)} has an unpaired UTF-16 surrogate`,
          );
        }
        const text = JSON.stringify(value);
        // Its characters in quotes, longer by each escape.
        if (text.length !== value.length + 2) this.escaped = true;
        this.emitAfter(prefix, prefixBytes, text, ascii ? text.length : utf8Bytes(text), parent, token);
        return value;
      }
      case "number": {
        if (!Number.isFinite(value))
          throw new Unrepresentable(
            `the value at ${JSON.stringify(pointerIn(parent, token))} is ${value}, which JSON cannot represent`,
          );
        this.count(parent, token);
        const number = Object.is(value, -0) ? 0 : value;
        const text = String(number);
        this.emitAfter(prefix, prefixBytes, text, text.length, parent, token);
        return number;
      }
      case "boolean":
        this.count(parent, token);
        this.emitAfter(prefix, prefixBytes, value ? "true" : "false", value ? 4 : 5, parent, token);
        return value;
      case "bigint":
        throw new Unrepresentable(
          `the value at ${JSON.stringify(pointerIn(parent, token))} is a BigInt, which JSON cannot represent`,
        );
      case "undefined":
      case "function":
      case "symbol":
        return SKIP;
    }
    if (value === null) {
      this.count(parent, token);
      this.emitAfter(prefix, prefixBytes, "null", 4, parent, token);
      return null;
    }
    const obj = value as object;
    const exotic = exoticKind(obj);
    if (exotic !== null)
      throw new Unrepresentable(
        `the value at ${JSON.stringify(pointerIn(parent, token))} is ${exotic}, which JSON cannot represent`,
      );
    if (this.onPath(obj))
      throw new Unrepresentable(
        `the value at ${JSON.stringify(pointerIn(parent, token))} refers to one of its own containers (a cycle)`,
      );
    this.count(parent, token);
    if (this.stack.length + 1 > this.limits.maxDepth) {
      const pointer = pointerIn(parent, token);
      this.limit(
        "json.max-depth",
        pointer,
        `nesting depth ${this.stack.length + 1} at ${JSON.stringify(pointer)} exceeds the limit of ${this.limits.maxDepth}`,
      );
    }
    const isArray = Array.isArray(obj);
    this.emitAfter(prefix, prefixBytes, isArray ? "[" : "{", 1, parent, token);
    const copy: unknown[] | Record<string, unknown> = isArray ? [] : {};
    // An object's keys are listed on its first step (listKeys), where a sliced run can yield first.
    this.stack.push({
      source: obj,
      copy,
      parent,
      token,
      pointer: null,
      isArray,
      keys: null,
      length: isArray ? (obj as unknown[]).length : 0,
      next: 0,
      written: 0,
    });
    if (this.stack.length > SCANNED_LEVELS) {
      this.deepPath ??= new Set();
      this.deepPath.add(obj);
    }
    return copy;
  }

  /** Is `obj` one of the open containers (a cycle)? */
  private onPath(obj: object): boolean {
    const stack = this.stack;
    const scanned = Math.min(stack.length, SCANNED_LEVELS);
    for (let i = 0; i < scanned; i++) if ((stack[i] as Frame).source === obj) return true;
    return this.deepPath?.has(obj) === true;
  }

  /**
   * List the keys of the object `frame` opened. In a sliced run, late in a scheduler turn this
   * defers instead (the listing runs first thing in the next turn, see OPEN_OBJECT_MS), and a
   * large listing ends the turn after it.
   */
  private listKeys(frame: Frame): void {
    // The root's listing is the first step of the first slice, never late in a turn: deferring it
    // would only cost a small value its synchronous outcome when the machine is slow (snapshotValueSoon).
    if (this.sliceStart >= 0 && this.values > 1 && turnElapsedMs(this.sliceStart) > OPEN_OBJECT_MS) {
      deferToNextTurn();
      this.yieldNow = true;
      return;
    }
    const keys = Object.keys(frame.source);
    frame.keys = keys;
    frame.length = keys.length;
    if (this.sliceStart >= 0 && keys.length > LARGE_OBJECT_KEYS) {
      endTurn();
      this.yieldNow = true;
    }
  }

  private count(parent: Frame | null, token: string | number): void {
    if (++this.values > this.limits.maxValues) {
      const pointer = pointerIn(parent, token);
      this.limit(
        "json.max-values",
        pointer,
        `the value at ${JSON.stringify(pointer)} is value number ${this.values}, above the limit of ${this.limits.maxValues} values per document`,
      );
    }
  }

  /** {@link emit} of `prefix` (no entry) and then of `text` (`byteLength` ≥ 1), appended at once. */
  private emitAfter(
    prefix: string,
    prefixBytes: number,
    text: string,
    byteLength: number,
    parent: Frame | null,
    token: string | number,
  ): void {
    if (prefixBytes === 0) {
      this.emit(text, byteLength, parent, token);
      return;
    }
    this.bytes += prefixBytes;
    if (this.bytes > this.limits.maxBytes) this.tooLarge("");
    this.emit(prefix + text, byteLength, parent, token);
  }

  /** Append `text` (`byteLength` UTF-8 bytes), written for entry `token` of `parent` (null, "": no entry, the pointer shown is ""). */
  private emit(text: string, byteLength: number, parent: Frame | null, token: string | number): void {
    if (byteLength === 0) return;
    this.bytes += byteLength;
    if (this.bytes > this.limits.maxBytes) this.tooLarge(pointerIn(parent, token));
    this.out += text;
    if (this.out.length > OUT_PIECE) {
      this.out.charCodeAt(0); // flattens the rope: its nodes die young
      this.pieces.push(this.out);
      this.out = "";
    }
  }

  /** The UTF-8 bytes of the pieces and `out`, written into one buffer. */
  private joinPieces(): Buffer {
    this.pieces.push(this.out);
    const buf = Buffer.allocUnsafe(this.bytes);
    let at = 0;
    for (const piece of this.pieces) at += buf.write(piece, at, "utf8");
    this.pieces.length = 0;
    return at === buf.length ? buf : buf.subarray(0, at);
  }

  private tooLarge(pointer: string): never {
    this.limit(
      "json.max-bytes",
      "",
      `the document is larger than the limit of ${this.limits.maxBytes} bytes (reached while writing ${JSON.stringify(pointer)})`,
    );
  }

  private limit(rule: string, pointer: string, message: string): never {
    throw new LimitReached({ rule, pointer, message });
  }
}

function safeText(error: unknown): string {
  try {
    if (error instanceof Error) return `${String(error.name)}: ${String(error.message)}`.slice(0, 512);
    return String(error).slice(0, 512);
  } catch {
    return "a value that cannot be shown";
  }
}

/**
 * Serialize `value` within `limits`, synchronously, and return the bytes and the copy (or the
 * problem). Never throws. Time is bounded by `limits.maxValues` and `limits.maxBytes`; the one
 * step no slice cuts, listing an object's keys, by `limits.maxMembers` for an object within it.
 */
export function snapshotValue(value: unknown, limits: SnapshotLimits): ValueSnapshot {
  return withBytes(snapshotText(value, limits));
}

/** {@link snapshotValue} with the JSON as text ({@link TextSnapshot}). */
export function snapshotText(value: unknown, limits: SnapshotLimits): Exclude<TextSnapshot, { problem: "deadline" }> {
  return new Serializer(value, limits).run(Number.POSITIVE_INFINITY) as Exclude<TextSnapshot, { problem: "deadline" }>;
}

/** The {@link ValueSnapshot} of a {@link TextSnapshot} (text encoded once, bytes as they are). */
export function withBytes<S extends TextSnapshot>(
  snap: S,
): Exclude<ValueSnapshot, { ok: false }> | Extract<S, { ok: false }> {
  if (!snap.ok) return snap as Extract<S, { ok: false }>;
  return { ok: true, bytes: outputBytes(snap), value: snap.value };
}

/** The UTF-8 bytes of a {@link JsonOutput}. */
export function outputBytes(output: JsonOutput): Buffer {
  return output.text !== null ? Buffer.from(output.text, "utf8") : output.bytes;
}

/**
 * {@link snapshotValue} in slices (runtime/process/slices.ts: all sliced work of the process shares
 * about TURN_MS (10 ms, up to TURN_MAX_MS when the loop is busy) per event-loop turn) with the event loop free in between; resolves `{problem: "deadline"}` when `deadlineAt`
 * (performance.now() ms) passes first. Never rejects.
 */
export async function snapshotValueSliced(
  value: unknown,
  limits: SnapshotLimits,
  options: SliceOptions = {},
): Promise<ValueSnapshot> {
  return snapshotValueSoon(value, limits, options);
}

/**
 * {@link snapshotValueSliced} without a promise when the first slice finishes the value (the
 * common small value): the outcome itself then, else a promise of it. Never throws or rejects.
 */
export function snapshotValueSoon(
  value: unknown,
  limits: SnapshotLimits,
  options: SliceOptions = {},
): ValueSnapshot | Promise<ValueSnapshot> {
  const snap = snapshotTextSoon(value, limits, options);
  return snap instanceof Promise ? snap.then(withBytes) : withBytes(snap);
}

/** {@link snapshotValueSoon} with the JSON as text ({@link TextSnapshot}). */
export function snapshotTextSoon(
  value: unknown,
  limits: SnapshotLimits,
  options: SliceOptions = {},
): TextSnapshot | Promise<TextSnapshot> {
  const serializer = new Serializer(value, limits);
  // A small value is done within one slice: no turn of the event loop is spent waiting.
  const first = serializer.run(options.sliceMs ?? SLICE_MS);
  if (first !== null) return first;
  let result: TextSnapshot = { ok: false, problem: "deadline" };
  return runInSlices((budgetMs) => {
    const outcome = serializer.run(Math.min(budgetMs, options.sliceMs ?? budgetMs));
    if (outcome === null) return false;
    result = outcome;
    return true;
  }, options.deadlineAt).then((finished) => (finished ? result : { ok: false, problem: "deadline" }));
}
