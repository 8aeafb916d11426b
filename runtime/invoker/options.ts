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
  const bad = (why: string): { ok: false; failure: InvocationFailure } => ({ ok: false, failure: makeFailure("invalid_request", `the invoke options are unusable: ${why}; nothing was delivered`) });
  if (options === undefined || options === null) return { ok: true, options: { nonIntegerNumberPointers: [] } };
  if (typeof options !== "object") return bad(`options must be an object (got ${typeof options})`);
  let pointers: unknown;
  try {
    pointers = options.nonIntegerNumberPointers;
    if (pointers === undefined) return { ok: true, options: { nonIntegerNumberPointers: [] } };
    if (!Array.isArray(pointers) || !pointers.every((p) => typeof p === "string")) return bad("nonIntegerNumberPointers must be an array of JSON pointer strings");
    return { ok: true, options: { nonIntegerNumberPointers: [...(pointers as string[])] } };
  } catch {
    return bad("reading them threw");
  }
}
