/**
 * The README's worked example of "Use it from Claude Code / Codex" works as written: the shell
 * block marked `<!-- example: sh hook -->` is run with bash, and its stdout must be the block's
 * `# => ` lines, in order. Two substitutions keep it hermetic: `npx lifeloop-callback` runs the
 * built CLI directly (npx would look the name up first), and `/tmp` is a fresh directory.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { readmeExample } from "../../package/readme-examples.js";
import { CLI, REPO_ROOT } from "../../support/cli-process.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-readme-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

it("the README's hook example prints what it says", () => {
  const block = readmeExample(REPO_ROOT, "hook").code;
  const expected = block.split("\n").filter((l) => l.startsWith("# => ")).map((l) => l.slice("# => ".length));
  expect(expected.length).toBeGreaterThanOrEqual(3);
  // /tmp first: the CLI's own path may lie under /tmp (a clone there) and must stay as it is.
  const script = block.replaceAll("/tmp", TMP).replaceAll("npx lifeloop-callback", `node ${JSON.stringify(CLI)}`);
  const r = spawnSync("bash", ["-c", script], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout.trimEnd().split("\n")).toEqual(expected);
});
