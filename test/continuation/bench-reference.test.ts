/**
 * `npm run bench -- continuation` without the reference CLI installed (issue 25, item 9): it died
 * with `exit null: null` (spawnSync of a missing binary) after building; now it stops before
 * measuring anything and says which binary is missing and what to run.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../tools/bench/continuation.js";
import { CONTINUATION_REFERENCE_CLI } from "../support/continuation-reference.js";
import { REPO_ROOT } from "../support/cli-process.js";

describe("the continuation bench without the reference CLI", () => {
  it("names the missing binary and bash tools/setup/prepare.sh", async () => {
    const missing = join(REPO_ROOT, ".cache", "no-such-reference", "bin", "lifeloop");
    await expect(run({ reference: missing })).rejects.toThrow(
      `the reference CLI with the continuation commands (lifeloop-cli 0.5.0) is missing at ${missing}; install it from the repository root with: bash tools/setup/prepare.sh`,
    );
  });

  it("looks for the 0.5.0 reference where prepare.sh installs it", () => {
    expect(CONTINUATION_REFERENCE_CLI).toBe(join(REPO_ROOT, ".cache", "lifeloop-ref-0.5.0", "bin", "lifeloop"));
  });
});
