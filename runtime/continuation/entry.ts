/**
 * The on-disk entry (CONTINUATION-001 §"Storage Layout", the reference's single-file framing): one
 * file `<root>/<thread>/<key>` holding a u32 big-endian meta length, the meta JSON, then the blob
 * bytes. The meta members and their order come from the table's `entry_format.meta_fields`, so a file
 * written here is byte-for-byte what the reference writes for the same put, and each side reads the
 * other's files.
 *
 * Reading is tolerant exactly where the reference is (unknown meta members, a missing `ttl_s`, any
 * `schema_version`) and strict elsewhere: a short file, a meta length past the end, meta that is not
 * a JSON object with a string `client_id` and u64 `written_at_epoch_s`, are corrupt entries.
 */
import { CONTINUATION } from "./table.js";
import { U64_MAX } from "./u64.js";

/** The meta of one entry; u64 members are exact. */
export interface EntryMeta {
  readonly schema_version: string;
  readonly client_id: string;
  readonly written_at_epoch_s: bigint;
  readonly ttl_s: bigint | null;
}

/** A decoded entry, or why it is corrupt (`reason` is a sentence for a storage_failure). */
export type DecodedEntry =
  | { readonly ok: true; readonly meta: EntryMeta; readonly blobOffset: number }
  | { readonly ok: false; readonly reason: string };

const HEADER_BYTES = CONTINUATION.entry_format.header_bytes;

/** The meta JSON of `meta`, members in table order (the reference's struct order). */
export function encodeMeta(meta: EntryMeta): Buffer {
  const parts = CONTINUATION.entry_format.meta_fields.map((f) => {
    const value = meta[f.field as keyof EntryMeta];
    const text = value === null ? "null" : typeof value === "bigint" ? value.toString() : JSON.stringify(value);
    return `${JSON.stringify(f.field)}:${text}`;
  });
  return Buffer.from(`{${parts.join(",")}}`, "utf8");
}

/** The whole file: header, meta JSON, blob. */
export function encodeEntry(meta: EntryMeta, blob: Uint8Array): Buffer[] {
  const metaBytes = encodeMeta(meta);
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32BE(metaBytes.length, 0);
  return [header, metaBytes, Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength)];
}

/**
 * Decode the header and meta of a file whose first bytes are `head` and whose total size is
 * `fileBytes` (`head` may be a prefix of the file: it must hold at least header + meta).
 */
export function decodeEntry(head: Uint8Array, fileBytes: number): DecodedEntry {
  if (fileBytes < HEADER_BYTES)
    return { ok: false, reason: `truncated: ${fileBytes} bytes, shorter than the ${HEADER_BYTES}-byte header` };
  const metaLength = Buffer.from(head.buffer, head.byteOffset, head.byteLength).readUInt32BE(0);
  const blobOffset = HEADER_BYTES + metaLength;
  if (blobOffset > fileBytes)
    return {
      ok: false,
      reason: `truncated: the header declares ${metaLength} meta bytes but the file has ${fileBytes} bytes`,
    };
  if (blobOffset > head.byteLength)
    return { ok: false, reason: `meta of ${metaLength} bytes is larger than this store reads` };
  const meta = decodeMeta(head.subarray(HEADER_BYTES, blobOffset));
  if (typeof meta === "string") return { ok: false, reason: `meta JSON: ${meta}` };
  return { ok: true, meta, blobOffset };
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** An unpaired UTF-16 surrogate (a `\\ud800` escape alone): serde refuses it in a string it keeps. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Parse meta JSON with exact u64 members; a string says why it is not a valid meta. As strict as the
 * reference's serde reader and no laxer: one JSON document (RFC 8259, no BOM), a top-level object, each
 * known member (the table's meta_fields) at most once, strings well-formed UTF-16, u64 members plain
 * integer lexemes (no sign, fraction or exponent). Unknown members are skipped as serde skips them
 * (duplicates and any JSON value allowed there).
 */
export function decodeMeta(bytes: Uint8Array): EntryMeta | string {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return "not UTF-8";
  }
  // Types come from the document as written; exact integers from a second parse in which every
  // number token was turned into a string of its lexeme (JSON.parse loses integers above 2^53).
  // A member is read from the second parse only when the first says it is a number, so no string in
  // the document can pose as a number.
  let typed: unknown;
  let lexemes: unknown;
  let topLevelNames: string[];
  try {
    typed = JSON.parse(text);
    const scanned = quoteNumbers(text);
    lexemes = JSON.parse(scanned.text);
    topLevelNames = scanned.topLevelNames;
  } catch (error) {
    return (error as Error).message;
  }
  if (typeof typed !== "object" || typed === null || Array.isArray(typed)) return "not a JSON object";
  const object = typed as Record<string, unknown>;
  const exact = lexemes as Record<string, unknown>;
  const fields: Record<string, string | bigint | null> = {};
  for (const f of CONTINUATION.entry_format.meta_fields) {
    if (topLevelNames.filter((n) => n === f.field).length > 1) return `duplicate member ${f.field}`;
    const raw = Object.hasOwn(object, f.field) ? object[f.field] : undefined;
    if (f.type === "string") {
      if (typeof raw !== "string" || LONE_SURROGATE.test(raw)) return `${f.field} must be a string`;
      fields[f.field] = raw;
    } else {
      if (raw === undefined || raw === null) {
        if (f.type === "u64") return `${f.field} is missing`;
        fields[f.field] = null;
        continue;
      }
      const n = typeof raw === "number" ? exact[f.field] : null;
      if (typeof n !== "string" || !/^(0|[1-9][0-9]*)$/.test(n) || BigInt(n) > U64_MAX)
        return `${f.field} must be an unsigned 64-bit integer`;
      fields[f.field] = BigInt(n);
    }
  }
  return fields as unknown as EntryMeta;
}

/**
 * Wrap each JSON number token outside strings in a string holding the token, and collect the member
 * names of the top-level object (unescaped), so duplicates can be found. `text` is valid JSON.
 */
function quoteNumbers(text: string): { text: string; topLevelNames: string[] } {
  let out = "";
  const topLevelNames: string[] = [];
  let depth = 0;
  let expectName = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const literal = text.slice(i, j + 1);
      if (depth === 1 && expectName) topLevelNames.push(JSON.parse(literal) as string);
      expectName = false;
      out += literal;
      i = j + 1;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      let j = i + 1;
      while (j < text.length && /[0-9eE.+-]/.test(text[j] as string)) j++;
      out += JSON.stringify(text.slice(i, j));
      i = j;
    } else {
      if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") depth--;
      if ((c === "{" && depth === 1) || (c === "," && depth === 1)) expectName = true;
      out += c;
      i++;
    }
  }
  return { text: out, topLevelNames };
}
