/**
 * Own-member definition for documents rebuilt in memory. `obj[key] = value` is not a faithful copy
 * of a JSON member: for the key `"__proto__"` it changes the object's prototype instead of adding a
 * member (and the member is lost). Every place that rebuilds a document uses {@link defineMember}.
 */

/** Define `key` on `obj` as an own enumerable, writable, configurable data property (as JSON.parse does). Returns `obj`. */
export function defineMember<T extends object>(obj: T, key: string, value: unknown): T {
  if (key === "__proto__")
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else (obj as Record<string, unknown>)[key] = value;
  return obj;
}
