/**
 * The README's `--ledger` example ("Durable receipts: --ledger") works as written: the block marked
 * `<!-- example: sh ledger -->` runs with bash, and its stdout must be the block's `# => ` lines.
 * As in the hook example's test: `lifeloop-callback` is a shim on PATH for the built CLI, `/tmp` is
 * a fresh directory.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { installCliShim, readmeExample, withInstalledCli } from "../package/readme-examples.js";
import { CLI, REPO_ROOT } from "../support/cli-process.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-readme-ledger-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

it("the README's ledger example prints what it says", () => {
  const block = readmeExample(REPO_ROOT, "ledger").code;
  const expected = block
    .split("\n")
    .filter((l) => l.startsWith("# => "))
    .map((l) => l.slice("# => ".length));
  expect(expected.length).toBeGreaterThanOrEqual(6);
  const script = withInstalledCli(block.replaceAll("/tmp", TMP));
  const bin = installCliShim(join(TMP, ".bin"), CLI);
  const r = spawnSync("bash", ["-c", script], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
  });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout.trimEnd().split("\n")).toEqual(expected);
});
