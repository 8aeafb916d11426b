/**
 * The per-call options of `invoke` (runtime/invoker/types.ts InvokeOptions), checked: `invoke` never
 * throws or rejects, so options that cannot be used are a classified failure instead of a TypeError.
 */
import { makeFailure } from "./failure.js";
import type { InvocationFailure, InvokeOptions } from "./types.js";

/** Checked options: `nonIntegerNumberPointers` is an array of strings ([] when absent). */
export interface CheckedInvokeOptions {
  readonly nonIntegerNumberPointers: readonly string[];
}

/**
 * Check `options` (undefined and null mean none). A non-object, or a `nonIntegerNumberPointers`
 * that is not an array of strings, is an `invalid_request` failure (nothing is delivered).
 * Never throws, also for a hostile object.
 */
export function checkInvokeOptions(options: InvokeOptions | null | undefined): { ok: true; options: CheckedInvokeOptions } | { ok: false; failure: InvocationFailure } {
  if (options === undefined || options === null) return NO_OPTIONS;
  if (typeof options !== "object") return unusable(`options must be an object (got ${typeof options})`);
  let pointers: unknown;
  try {
    pointers = options.nonIntegerNumberPointers;
    if (pointers === undefined) return NO_OPTIONS;
    if (!Array.isArray(pointers) || !pointers.every((p) => typeof p === "string")) return unusable("nonIntegerNumberPointers must be an array of JSON pointer strings");
    return { ok: true, options: { nonIntegerNumberPointers: [...(pointers as string[])] } };
  } catch {
    return unusable("reading them threw");
  }
}

/** The outcome for no options (shared: nothing in it is ever changed). */
const NO_OPTIONS: { ok: true; options: CheckedInvokeOptions } = Object.freeze({ ok: true, options: Object.freeze({ nonIntegerNumberPointers: Object.freeze([]) as readonly string[] }) });

function unusable(why: string): { ok: false; failure: InvocationFailure } {
  return { ok: false, failure: makeFailure("invalid_request", `the invoke options are unusable: ${why}; nothing was delivered`) };
}
