/**
 * The per-call options of `invoke` (runtime/invoker/types.ts InvokeOptions), checked: `invoke` never
 * throws or rejects, so options that cannot be used are a classified failure instead of a TypeError.
 */
import { LIMITS } from "../../generated/ts/spec/limits.js";
import { linkageIssue } from "../wire/linkage.js";
import { issueText, makeFailure } from "./failure.js";
import type { InvocationFailure, InvokeOptions } from "./types.js";

/**
 * Checked options: `nonIntegerNumberPointers` is an array of strings ([] when absent);
 * `parentReceiptId` a string or null (null when absent); `receiptId` a string or undefined.
 */
export interface CheckedInvokeOptions {
  readonly nonIntegerNumberPointers: readonly string[];
  readonly parentReceiptId: string | null;
  readonly receiptId?: string;
}

/**
 * Check `options` (undefined and null mean none). A non-object, or a `nonIntegerNumberPointers`
 * that is not an array of strings (a hole counts as a non-string) or holds more pointers than a
 * document within limits.max_values has values, is an `invalid_request` failure (nothing is
 * delivered), and so is a `parentReceiptId` that is neither a string nor null, or a `receiptId`
 * that is not a string. The pointers are copied, each element read once. Never throws, also for a
 * hostile object; O(1) work per pointer.
 */
export function checkInvokeOptions(
  options: InvokeOptions | null | undefined,
): { ok: true; options: CheckedInvokeOptions } | { ok: false; failure: InvocationFailure } {
  if (options === undefined || options === null) return NO_OPTIONS;
  if (typeof options !== "object") return unusable(`options must be an object (got ${typeof options})`);
  try {
    const parent: unknown = options.parentReceiptId;
    const receiptId: unknown = options.receiptId;
    if (parent !== undefined && parent !== null && typeof parent !== "string")
      return unusable(`parentReceiptId must be a receipt id string or null (got ${typeof parent})`);
    if (receiptId !== undefined && typeof receiptId !== "string")
      return unusable(`receiptId must be a string (got ${typeof receiptId})`);
    const linkage = {
      parentReceiptId: (parent ?? null) as string | null,
      ...(receiptId === undefined ? {} : { receiptId }),
    };
    const pointers: unknown = options.nonIntegerNumberPointers;
    if (pointers === undefined)
      return linkage.parentReceiptId === null && receiptId === undefined
        ? NO_OPTIONS
        : { ok: true, options: { nonIntegerNumberPointers: NO_POINTERS, ...linkage } };
    if (!Array.isArray(pointers)) return unusable("nonIntegerNumberPointers must be an array of JSON pointer strings");
    const length = pointers.length;
    if (length > LIMITS.max_values)
      return unusable(
        `nonIntegerNumberPointers holds ${length} pointers, more than a document within limits.max_values (${LIMITS.max_values}) has values`,
      );
    const copy: string[] = new Array(length);
    for (let i = 0; i < length; i++) {
      const pointer: unknown = pointers[i];
      if (typeof pointer !== "string") return unusable(`nonIntegerNumberPointers[${i}] is not a JSON pointer string`);
      copy[i] = pointer;
    }
    return { ok: true, options: { nonIntegerNumberPointers: copy, ...linkage } };
  } catch {
    return unusable("reading them threw");
  }
}

const NO_POINTERS = Object.freeze([]) as readonly string[];
/** The outcome for no options (shared: nothing in it is ever changed). */
const NO_OPTIONS: { ok: true; options: CheckedInvokeOptions } = Object.freeze({
  ok: true,
  options: Object.freeze({ nonIntegerNumberPointers: NO_POINTERS, parentReceiptId: null }),
});

/**
 * The refusal of a call whose receipt could not be linked into the receipt tree (a `subcall` frame
 * without a parent receipt, an empty parent, a receipt that would be its own parent; runtime/wire/linkage.ts):
 * an `invalid_request` failure naming the rule, or null. Every invoker asks it after the envelope
 * was judged valid and before anything is spawned or written.
 */
export function linkageFailure(envelope: unknown, options: CheckedInvokeOptions): InvocationFailure | null {
  const issue = linkageIssue(envelope, options.parentReceiptId, options.receiptId);
  if (issue === null) return null;
  return makeFailure("invalid_request", `the receipt linkage is unsound: ${issueText(issue)}; nothing was delivered`, {
    issues: [issue],
  });
}

function unusable(why: string): { ok: false; failure: InvocationFailure } {
  return {
    ok: false,
    failure: makeFailure("invalid_request", `the invoke options are unusable: ${why}; nothing was delivered`),
  };
}
