/**
 * JSON pointer helpers: RFC 6901 escaping and resolution of the pointer patterns used by the
 * generated plans (`*` matches any array index).
 */

/** Escape one reference token (RFC 6901: `~` -> `~0`, `/` -> `~1`). */
export function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Append a token to a pointer. */
export function childPointer(pointer: string, token: string | number): string {
  return `${pointer}/${typeof token === "number" ? token : escapeToken(token)}`;
}

/**
 * Every concrete (pointer, value) in `root` that matches `pattern`, in document order. Tokens of the
 * pattern are field names (never escaped in our schemas) or `*`. Non-matching shapes yield nothing.
 */
export function* matchPattern(root: unknown, pattern: string): Generator<readonly [string, unknown]> {
  const tokens = pattern === "" ? [] : pattern.slice(1).split("/");
  function* walk(value: unknown, pointer: string, index: number): Generator<readonly [string, unknown]> {
    if (index === tokens.length) {
      yield [pointer, value];
      return;
    }
    const token = tokens[index] as string;
    if (token === "*") {
      if (!Array.isArray(value)) return;
      for (let i = 0; i < value.length; i++) yield* walk(value[i], `${pointer}/${i}`, index + 1);
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) return;
    if (!Object.prototype.hasOwnProperty.call(value, token)) return;
    yield* walk((value as Record<string, unknown>)[token], childPointer(pointer, token), index + 1);
  }
  yield* walk(root, "", 0);
}

/** True when a concrete pointer matches a pattern (same length; `*` matches a decimal index). */
export function pointerMatches(pointer: string, pattern: string): boolean {
  const a = pointer === "" ? [] : pointer.slice(1).split("/");
  const b = pattern === "" ? [] : pattern.slice(1).split("/");
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const p = b[i] as string;
    const t = a[i] as string;
    if (p === "*") {
      if (!/^(0|[1-9][0-9]*)$/.test(t)) return false;
    } else if (p !== t) return false;
  }
  return true;
}

/** True when `pointer` equals `pattern` or lies below it. */
export function pointerWithin(pointer: string, pattern: string): boolean {
  const a = pointer === "" ? [] : pointer.slice(1).split("/");
  const depth = pattern === "" ? 0 : pattern.slice(1).split("/").length;
  if (a.length < depth) return false;
  return pointerMatches(depth === 0 ? "" : `/${a.slice(0, depth).join("/")}`, pattern);
}
