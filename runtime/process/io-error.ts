/**
 * Prose for a failed file-system or stream operation, shared by every room that reads or writes
 * files (the CLI, hooks, diff).
 */

/**
 * Describe a failed file-system or stream operation in prose for a person, keeping the errno code as
 * detail: `cannot read x.json: no such file or directory (ENOENT)`.
 * @param action - what was attempted, e.g. `read x.json` or `write the output`
 * @param error - the thrown value (a Node SystemError or anything else)
 */
export function describeIoError(action: string, error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const code = typeof e?.code === "string" ? e.code : undefined;
  // Node's SystemError message is "CODE: description, syscall 'path'": keep the description only.
  const raw = typeof e?.message === "string" ? e.message : String(error);
  const match = /^[A-Z0-9_]+: ([^,]+)/.exec(raw);
  const prose = match ? match[1] : raw;
  return `cannot ${action}: ${prose}${code ? ` (${code})` : ""}`;
}
