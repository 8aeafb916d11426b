/**
 * The Python interpreter suites run (resolved as test/sdk/python.test.ts does): $LIFELOOP_PYTHON,
 * else the tool venv tools/setup/prepare.sh makes (.cache/venv/bin/python), else `python3` on PATH.
 * Resolved to an absolute path, for APIs that take no PATH lookup (SubprocessInvoker's `program`).
 */
import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { REPO_ROOT } from "./cli-process.js";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Absolute path of the Python interpreter; throws naming what was tried when there is none. */
export function pythonInterpreter(): string {
  const fromEnv = process.env.LIFELOOP_PYTHON;
  if (fromEnv !== undefined && fromEnv !== "") return isAbsolute(fromEnv) ? fromEnv : onPath(fromEnv);
  const venv = join(REPO_ROOT, ".cache", "venv", "bin", "python");
  if (existsSync(venv)) return venv;
  return onPath("python3");
}

function onPath(name: string): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && executable(join(dir, name))) return join(dir, name);
  }
  throw new Error(
    `no ${name} on PATH (${process.env.PATH ?? ""}); set LIFELOOP_PYTHON or run bash tools/setup/prepare.sh`,
  );
}
