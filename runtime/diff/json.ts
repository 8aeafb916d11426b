/** Small JSON helpers of the diff: canonical text (key order and number spelling do not matter), equality, RFC 6901 tokens. */

/** Canonical JSON text: object keys sorted, numbers as JavaScript prints them (so `1.0` and `1` agree). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Deep equality of two JSON values (JSON Schema's instance equality). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** Escape one RFC 6901 reference token. */
export function token(name: string | number): string {
  return String(name).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Deepest nesting of arrays and objects a schema or table file may have (the comparison recurses on it). */
export const MAX_JSON_DEPTH = 256;

/** True when `value` nests arrays/objects deeper than `limit` levels (checked without recursion). */
export function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(v as object)) stack.push([child, depth + 1]);
  }
  return false;
}
