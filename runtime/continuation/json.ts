/**
 * JSON output of the continuation commands, byte-compatible with the reference: compact, one line,
 * object members sorted by name (serde_json without preserve_order), u64 values exact (bigint).
 */

/** A JSON value the continuation commands print; bigint prints as an exact integer. */
export type OutputValue =
  | string
  | number
  | bigint
  | boolean
  | null
  | readonly OutputValue[]
  | { readonly [name: string]: OutputValue | undefined };

/** Serialize `value` compactly with object members in code-unit order; `undefined` members are left out. */
export function sortedJson(value: OutputValue): string {
  if (value === null) return "null";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`not a JSON number: ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v: OutputValue) => sortedJson(v)).join(",")}]`;
  const object = value as { readonly [name: string]: OutputValue | undefined };
  const names = Object.keys(object)
    .filter((n) => object[n] !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${names.map((n) => `${JSON.stringify(n)}:${sortedJson(object[n] as OutputValue)}`).join(",")}}`;
}

/** {@link sortedJson} plus a newline: one output line. */
export function sortedJsonLine(value: OutputValue): string {
  return `${sortedJson(value)}\n`;
}
