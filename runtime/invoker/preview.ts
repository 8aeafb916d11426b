/**
 * A short, safe quotation of untrusted bytes for failure details: the first `maxBytes` bytes with
 * printable ASCII kept and everything else escaped (`\n`, `\t`, `\xNN`), so a detail shows exactly
 * what a client wrote (a BOM, a log line, invalid UTF-8) without carrying unbounded or binary text.
 */

/** Quote the first `maxBytes` bytes of `bytes` (limits.failure_detail_preview_bytes), e.g. `"\xef\xbb\xbf{..." (120 bytes)`. */
export function previewBytes(bytes: Uint8Array, maxBytes: number): string {
  const shown = bytes.subarray(0, maxBytes);
  let text = "";
  for (const byte of shown) {
    if (byte === 0x0a) text += "\\n";
    else if (byte === 0x0d) text += "\\r";
    else if (byte === 0x09) text += "\\t";
    else if (byte === 0x22) text += '\\"';
    else if (byte === 0x5c) text += "\\\\";
    else if (byte >= 0x20 && byte < 0x7f) text += String.fromCharCode(byte);
    else text += `\\x${byte.toString(16).padStart(2, "0")}`;
  }
  const more = bytes.length > shown.length ? "..." : "";
  return `"${text}${more}" (${bytes.length} byte${bytes.length === 1 ? "" : "s"})`;
}
