/**
 * Strict JSON front-end for untrusted wire documents: the synchronous entry point.
 *
 * `JSON.parse` alone is too lax for the wire: it silently keeps the last of two duplicate member
 * names, accepts lone UTF-16 surrogate escapes, turns `1e400` into `Infinity`, and has no size or
 * depth limits. {@link parseStrictJson} runs one fast, iterative (no JS-stack recursion) validating
 * scan (scanner.ts) over the decoded document and only then hands the text to `JSON.parse` to build
 * the value. The rules it reports are the `json.*` rows of spec/tables/document-rules.json
 * ({@link PARSE_RULES}; defined in spec/wire-contract.md): the byte limit, BOM and UTF-8 rules are
 * checked in that order before anything is scanned, the others by one left-to-right scan, and the
 * problem that occurs earliest in the input is reported.
 *
 * The sliced parser (sliced.ts, {@link parseStrictJsonSliced}) gives the same result for every
 * input without blocking the event loop. Both first try the fast accept path of
 * runtime/wire/fast-parse.ts (the sync parser up to limits.fast_parse_max_bytes, the sliced one up
 * to limits.fast_parse_sliced_max_bytes): the native `JSON.parse` plus native searches and one walk
 * that prove every rule, or decline; the scan then judges the document, so an issue is always
 * reported by the scan.
 *
 * @module
 */
import { constants as bufferConstants, isUtf8 } from "node:buffer";
import { FAST_PARSE_MAX_BYTES, type FastParse, fastParse } from "../fast-parse.js";
import { PARSE_RULES, type StrictJsonLimits, type StrictParseOptions, type StrictParseResult } from "./types.js";
import { firstInvalidUtf8, hexBytes, utf8Decoder } from "./chars.js";
import { acquireState, beginScan, releaseState } from "./state.js";
import { failedResult } from "./issues.js";
import { scan, SCAN_DONE } from "./scanner.js";

export {
  escapePointerToken,
  MAX_RECORDED_NON_INTEGER,
  PARSE_RULES,
  type ParseIssue,
  type ParseRule,
  type StrictJsonLimits,
  type StrictParseOptions,
  type StrictParseResult,
} from "./types.js";

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
 * self-contained (the scanner's state is a pooled object, never shared between calls).
 */
export function parseStrictJson(
  input: Uint8Array,
  limits: StrictJsonLimits,
  options: StrictParseOptions = {},
): StrictParseResult {
  const decoded = decodeDocument(input, limits);
  if (typeof decoded !== "string") return decoded;
  // Most documents are valid: prove it natively first (fast-parse.ts); the scanner judges the rest.
  const fast =
    input.length <= FAST_PARSE_MAX_BYTES
      ? fastParse(
          decoded,
          input.length,
          limits.maxDepth,
          limits.maxValues ?? Number.POSITIVE_INFINITY,
          limits.maxMembers ?? Number.POSITIVE_INFINITY,
          options.nonIntegerPaths,
          options.accept,
        )
      : undefined;
  if (fast !== undefined) return fastResult(fast);
  const nonInt: string[] = [];
  const st = acquireState();
  beginScan(st, decoded, input.length, limits, options, false);
  try {
    if (scan(st, decoded, limits.maxDepth, nonInt) !== SCAN_DONE) return failedResult(st);
  } finally {
    releaseState(st);
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
export const MAX_STRING_LENGTH = bufferConstants.MAX_STRING_LENGTH;

/** No pointers: the fast path proves there is no non-integer number at the recorded paths. */
const NO_POINTERS: readonly string[] = Object.freeze([]);

/** The result of a document the fast accept path proved. */
export function fastResult(fast: FastParse): StrictParseResult {
  return fast.accepted
    ? { ok: true, value: fast.value, nonIntegerNumberPointers: NO_POINTERS, accepted: true }
    : { ok: true, value: fast.value, nonIntegerNumberPointers: NO_POINTERS };
}

/** Rules 1-3: the decoded text, or the failed result (`json.max-bytes`, `json.bom`, `json.utf8`). */
export function decodeDocument(input: Uint8Array, limits: StrictJsonLimits): string | StrictParseResult {
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
export function tooLongToDecode(bytes: number): StrictParseResult {
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
export function checkDocument(input: Uint8Array, limits: StrictJsonLimits): StrictParseResult | null {
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
        message:
          "document starts with a UTF-8 byte-order mark (EF BB BF) at byte 0; JSON on the wire must not have a BOM",
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
