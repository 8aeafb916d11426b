/**
 * Unsigned 64-bit integers as the reference parses and stores them (`--ttl-s`, the max-bytes
 * variable, the meta's `written_at_epoch_s` and `ttl_s`): exact, as bigint.
 */

/** The largest u64, 2^64 - 1. */
export const U64_MAX = (1n << 64n) - 1n;

/**
 * Parse decimal text the way Rust's `u64::from_str` does: an optional `+`, then one or more ASCII
 * digits, at most 2^64 - 1. Returns null for anything else (a `-` sign, spaces, an empty string).
 */
export function parseU64(text: string): bigint | null {
  if (!/^\+?[0-9]+$/.test(text)) return null;
  const value = BigInt(text.startsWith("+") ? text.slice(1) : text);
  return value > U64_MAX ? null : value;
}

/** `true` when an entry written at `writtenAt` with `ttl` has expired at `now` (an overflowing sum counts as expired). */
export function isExpired(writtenAt: bigint, ttl: bigint | null, now: bigint): boolean {
  if (ttl === null) return false;
  const expiry = writtenAt + ttl;
  return expiry > U64_MAX || now >= expiry;
}
