/**
 * Strict base64 for the blobs the stream carries (`blob_base64`, spec/stream-protocol.md): only
 * canonical RFC 4648 base64 with padding is accepted, so every binding reads the same bytes from
 * the same text (no base64url, no missing padding, no whitespace, no stray bits).
 */

/**
 * The bytes of `text` when it is canonical RFC 4648 base64 with padding (what encoding them gives
 * back exactly), else null. Linear in the length: a regular expression with a repeated group
 * overflowed the stack on a blob of a few megabytes.
 */
export function canonicalBase64(text: string): Buffer | null {
  if (text.length % 4 !== 0) return null;
  const bytes = Buffer.from(text, "base64");
  return bytes.toString("base64") === text ? bytes : null;
}
