/**
 * `npm run matrix` before the test setup (tools/setup/prepare.sh) has installed the reference CLI:
 * it names each missing prerequisite once, with the command that provides it, runs nothing and
 * exits 1, instead of failing every cell of the reference's columns with the same reason (76 lines).
 * Run in a scratch copy of the repository, which has no .cache/ (so no reference CLI).
 */
import { rmSync } from "node:fs";
import { afterAll, expect, it } from "vitest";
import { copyRepo, runTs } from "../support/cli-process.js";

const copy = copyRepo("lifeloop-matrix-prereq-");
afterAll(() => rmSync(copy, { recursive: true, force: true }));

it("names the missing reference CLI once, with what to run, and runs no cell", () => {
  const r = runTs("tools/matrix/main.ts", [], { cwd: copy, timeoutMs: 300_000 });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines[0]).toBe("npm run matrix: missing prerequisites, nothing was run:");
  expect(lines.filter((l) => l.includes("the reference CLI is missing"))).toHaveLength(1);
  expect(r.stderr).toContain("bash tools/setup/prepare.sh");
  expect(lines.length).toBeLessThanOrEqual(6);
});
