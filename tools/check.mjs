/**
 * `npm run check`: the seconds-long loop before a commit (and CI's first gate). Runs, at the same time:
 *   typecheck        tsc over runtime/, codegen/, tools/, test/ (incremental: .cache/tsc/)
 *   lint             Biome's recommended rules, warnings fail
 *   format:check     Biome's formatter and ruff format (ruff only where it is installed)
 *   generate --check generated/ matches spec/ and schemas/
 *   docs --check     generated/docs/reference/ matches the CLI and runtime/
 * Each step is its own `npm run` script, so any one can be run alone. A step's output is printed only
 * when it fails; every step's time is printed. No tests run here: `npm test` does that.
 * Exit codes: 0 every step passed, 1 a step failed.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The steps, longest first so that the longest one starts at once. */
export const STEPS = [
  ["typecheck", ["run", "--silent", "typecheck"]],
  ["docs --check", ["run", "--silent", "docs", "--", "--check"]],
  ["generate --check", ["run", "--silent", "generate", "--", "--check"]],
  ["lint", ["run", "--silent", "lint"]],
  ["format:check", ["run", "--silent", "format:check"]],
];

/** Run one step; resolves to its name, exit status, combined output and seconds taken. */
function runStep([name, args]) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", args, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, FORCE_COLOR: "0" },
    });
    const chunks = [];
    child.stdout.on("data", (c) => chunks.push(c));
    child.stderr.on("data", (c) => chunks.push(c));
    const done = (status) =>
      resolve({
        name,
        status,
        output: Buffer.concat(chunks).toString("utf8"),
        seconds: (performance.now() - started) / 1000,
      });
    child.on("error", (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      done(-1);
    });
    child.on("close", (code, signal) => done(code ?? (signal ? -1 : 0)));
  });
}

const started = performance.now();
const results = await Promise.all(
  STEPS.map((step) =>
    runStep(step).then((r) => {
      process.stdout.write(
        `${r.status === 0 ? "ok  " : "FAIL"} ${r.name.padEnd(17)} ${r.seconds.toFixed(1).padStart(5)} s\n`,
      );
      return r;
    }),
  ),
);
const failed = results.filter((r) => r.status !== 0);
for (const r of failed) process.stdout.write(`\n== ${r.name} (exit ${r.status})\n${r.output}`);
const total = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(
  failed.length === 0
    ? `check: all ${results.length} steps passed in ${total} s\n`
    : `check: ${failed.length} of ${results.length} steps failed (${total} s)\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
