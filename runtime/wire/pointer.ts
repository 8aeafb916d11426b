/**
 * JSON pointer helpers: RFC 6901 escaping and matching of the pointer patterns used by the
 * generated plans (`*` matches any array index).
 */

/** Escape one reference token (RFC 6901: `~` -> `~0`, `/` -> `~1`). */
export function escapeToken(token: string): string {
  if (token.indexOf("~") === -1 && token.indexOf("/") === -1) return token;
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Append a token to a pointer. */
export function childPointer(pointer: string, token: string | number): string {
  return `${pointer}/${typeof token === "number" ? token : escapeToken(token)}`;
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
