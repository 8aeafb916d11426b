/**
 * The identifier rule of CONTINUATION-001 §"Storage Layout" (thread, key, client id): the table's
 * pattern and maximum length. Checked before any file is touched, so no identifier can name a path
 * outside the store. The checks run in the reference's order (empty, length, leading dot, charset),
 * so the same input fails the same check; the `detail` words are ours.
 */
import { CONTINUATION, IDENTIFIER_PATTERN } from "./table.js";
import { invalidIdentifier, type IdentifierField } from "./errors.js";

/**
 * Throws ContinuationError `invalid_identifier` (with `field`) unless `value` matches the table's
 * identifier rule: 1 to `max_length` bytes of `[A-Za-z0-9_.-]`, not starting with `.`.
 */
export function checkIdentifier(value: string, field: IdentifierField): void {
  if (value.length === 0) throw invalidIdentifier(field, "is empty");
  const max = CONTINUATION.identifier.max_length;
  if (Buffer.byteLength(value, "utf8") > max) throw invalidIdentifier(field, `is longer than ${max} bytes`);
  if (value.startsWith(".")) throw invalidIdentifier(field, "starts with a dot, which would name a hidden file");
  if (!IDENTIFIER_PATTERN.test(value)) throw invalidIdentifier(field, "has a character outside A-Z a-z 0-9 _ . -");
}
