/**
 * The per-call options of `invoke` (runtime/invoker/types.ts InvokeOptions), checked: `invoke` never
 * throws or rejects, so options that cannot be used are a classified failure instead of a TypeError.
 */
import { LIMITS } from "../../generated/ts/spec/limits.js";
import { makeFailure } from "./failure.js";
import type { InvocationFailure, InvokeOptions } from "./types.js";

/** Checked options: `nonIntegerNumberPointers` is an array of strings ([] when absent). */
export interface CheckedInvokeOptions {
  readonly nonIntegerNumberPointers: readonly string[];
}

/**
 * Check `options` (undefined and null mean none). A non-object, or a `nonIntegerNumberPointers`
 * that is not an array of strings (a hole counts as a non-string) or holds more pointers than a
 * document within limits.max_values has values, is an `invalid_request` failure (nothing is
 * delivered). The pointers are copied, each element read once. Never throws, also for a hostile
 * object; O(1) work per pointer.
 */
export function checkInvokeOptions(options: InvokeOptions | null | undefined): { ok: true; options: CheckedInvokeOptions } | { ok: false; failure: InvocationFailure } {
  if (options === undefined || options === null) return NO_OPTIONS;
  if (typeof options !== "object") return unusable(`options must be an object (got ${typeof options})`);
  try {
    const pointers: unknown = options.nonIntegerNumberPointers;
    if (pointers === undefined) return NO_OPTIONS;
    if (!Array.isArray(pointers)) return unusable("nonIntegerNumberPointers must be an array of JSON pointer strings");
    const length = pointers.length;
    if (length > LIMITS.max_values) return unusable(`nonIntegerNumberPointers holds ${length} pointers, more than a document within limits.max_values (${LIMITS.max_values}) has values`);
    const copy: string[] = new Array(length);
    for (let i = 0; i < length; i++) {
      const pointer: unknown = pointers[i];
      if (typeof pointer !== "string") return unusable(`nonIntegerNumberPointers[${i}] is not a JSON pointer string`);
      copy[i] = pointer;
    }
    return { ok: true, options: { nonIntegerNumberPointers: copy } };
  } catch {
    return unusable("reading them threw");
  }
}

/** The outcome for no options (shared: nothing in it is ever changed). */
const NO_OPTIONS: { ok: true; options: CheckedInvokeOptions } = Object.freeze({ ok: true, options: Object.freeze({ nonIntegerNumberPointers: Object.freeze([]) as readonly string[] }) });

function unusable(why: string): { ok: false; failure: InvocationFailure } {
  return { ok: false, failure: makeFailure("invalid_request", `the invoke options are unusable: ${why}; nothing was delivered`) };
}
