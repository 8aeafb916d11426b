/**
 * Whether a `--program` path can be run, checked before it is used (conform refuses it, `hook
 * config` warns about it).
 */
import { accessSync, constants as fsConstants, statSync } from "node:fs";

/**
 * Why `path` cannot be run as a program: "no such file", "not a regular file", "not executable"
 * or "cannot be run (CODE)"; null when it is an executable regular file. Never throws.
 */
export function executableProblem(path: string): string | null {
  try {
    if (!statSync(path).isFile()) return "not a regular file";
    accessSync(path, fsConstants.X_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT"
      ? "no such file"
      : code === "EACCES"
        ? "not executable"
        : `cannot be run (${code ?? String(error)})`;
  }
}
