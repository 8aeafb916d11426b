/**
 * The README's worked example of "Use it from Claude Code / Codex" works as written: the shell
 * block marked `<!-- example: sh hook -->` is run with bash, and its stdout must be the block's
 * `# => ` lines, in order. Two substitutions keep it hermetic: the CLI runs by its installed name,
 * `lifeloop-callback`, a shim on PATH for the built CLI (readme-examples.ts), and `/tmp` is a fresh directory.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { installCliShim, readmeExample, withInstalledCli } from "../../package/readme-examples.js";
import { CLI, REPO_ROOT } from "../../support/cli-process.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-readme-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

it("the README's hook example prints what it says", () => {
  const block = readmeExample(REPO_ROOT, "hook").code;
  const expected = block
    .split("\n")
    .filter((l) => l.startsWith("# => "))
    .map((l) => l.slice("# => ".length));
  expect(expected.length).toBeGreaterThanOrEqual(3);
  // /tmp first: the CLI's own path may lie under /tmp (a clone there) and must stay as it is.
  const script = withInstalledCli(block.replaceAll("/tmp", TMP));
  const bin = installCliShim(join(TMP, "bin"), CLI);
  const r = spawnSync("bash", ["-c", script], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
  });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout.trimEnd().split("\n")).toEqual(expected);
});
