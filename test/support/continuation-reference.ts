/**
 * Where the continuation suites and the continuation bench find the reference CLI: lifeloop-cli
 * 0.5.0, the last reference with the `continuation` command group, which tools/setup/prepare.sh
 * installs into `.cache/lifeloop-ref-0.5.0` (one constant, so the suites and the bench agree).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./cli-process.js";

/** The reference `lifeloop` binary with the continuation group (0.5.0). */
export const CONTINUATION_REFERENCE_CLI = join(REPO_ROOT, ".cache", "lifeloop-ref-0.5.0", "bin", "lifeloop");

/** What to run when {@link CONTINUATION_REFERENCE_CLI} is missing. */
export const CONTINUATION_REFERENCE_SETUP = "bash tools/setup/prepare.sh";

/**
 * Throws an Error naming the missing binary and the command that installs it, unless `path`
 * (default {@link CONTINUATION_REFERENCE_CLI}) exists.
 */
export function requireContinuationReference(path: string = CONTINUATION_REFERENCE_CLI): void {
  if (!existsSync(path)) {
    throw new Error(
      `the reference CLI with the continuation commands (lifeloop-cli 0.5.0) is missing at ${path}; install it from the repository root with: ${CONTINUATION_REFERENCE_SETUP}`,
    );
  }
}
