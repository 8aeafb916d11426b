/**
 * The README's `--ledger` example ("Durable receipts: --ledger") works as written: the block marked
 * `<!-- example: sh ledger -->` runs with bash, and its stdout must be the block's `# => ` lines.
 * As in the hook example's test: `npx lifeloop-callback` runs the built CLI, `/tmp` is a fresh
 * directory.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { readmeExample } from "../package/readme-examples.js";
import { CLI, REPO_ROOT } from "../support/cli-process.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-readme-ledger-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

it("the README's ledger example prints what it says", () => {
  const block = readmeExample(REPO_ROOT, "ledger").code;
  const expected = block.split("\n").filter((l) => l.startsWith("# => ")).map((l) => l.slice("# => ".length));
  expect(expected.length).toBeGreaterThanOrEqual(6);
  const script = block.replaceAll("/tmp", TMP).replaceAll("npx lifeloop-callback", `node ${JSON.stringify(CLI)}`);
  const r = spawnSync("bash", ["-c", script], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout.trimEnd().split("\n")).toEqual(expected);
});
