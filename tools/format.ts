/**
 * `npm run format` / `npm run format:check`: the repository's formatters.
 *   Biome     TypeScript, JavaScript and the configuration JSON (settings and scope: biome.jsonc)
 *   ruff      Python (settings and scope: ruff.toml, passed with --config so that it applies to
 *             every file, whatever pyproject.toml sits closer)
 *   gofmt     Go (every tracked or new .go file but codegen's golden outputs), when Go is installed
 *
 * Usage: tsx tools/format.ts [--check] [--python]
 *   --check   write nothing; exit 1 when a file would change (and list it)
 *   --python  ruff only, and fail when ruff is missing (CI's second run, after .cache/venv exists)
 * Without --python a missing ruff (or gofmt) is reported and skipped: `npm run check` runs first in
 * CI, from a clean clone, before npm test's pretest installs ruff into .cache/venv.
 * While biome.jsonc has `formatter.enabled: false` (before the one reformat commit) nothing is
 * formatted or checked, so the switch turns on everything at once (codegen/emit/format.ts reads it too).
 * Exit codes: 0 clean / written, 1 a file would change or a formatter failed, 2 usage.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { biomeFormatSettings } from "../codegen/emit/format.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The ruff to run: LIFELOOP_RUFF, then ruff on PATH, then .cache/venv/bin/ruff; null when none exists. */
export function findRuff(root: string = ROOT): string | null {
  if (process.env.LIFELOOP_RUFF) return process.env.LIFELOOP_RUFF;
  const onPath = spawnSync("ruff", ["--version"], { stdio: "ignore" });
  if (onPath.status === 0) return "ruff";
  const venv = join(root, ".cache", "venv", "bin", "ruff");
  return existsSync(venv) ? venv : null;
}

/** The Go files gofmt owns: tracked or new, not ignored, but the golden outputs of codegen's tests. */
function goFiles(): string[] {
  const listed = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.go"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (listed.status !== 0) return [];
  return listed.stdout
    .split("\n")
    .filter((f) => f !== "" && !/^test\/codegen\/fixtures\/.*\/expected\//.test(f) && existsSync(join(ROOT, f)));
}

/** `gofmt -l` (check) or `gofmt -w` over the Go files; 0 clean / written, 1 a file would change or gofmt failed. */
function gofmt(check: boolean): number {
  const files = goFiles();
  if (files.length === 0) return 0;
  const r = spawnSync("gofmt", [check ? "-l" : "-w", ...files], { cwd: ROOT, encoding: "utf8" });
  if (r.error) {
    process.stdout.write(`format: gofmt not found: Go skipped (${r.error.message})\n`);
    return 0;
  }
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    return 1;
  }
  if (check && r.stdout.trim() !== "") {
    process.stdout.write(`gofmt would change:\n${r.stdout}`);
    return 1;
  }
  return 0;
}

/** Run one formatter in the repository root with inherited stdio; 0 when it exits 0, else 1. */
function run(label: string, command: string, args: readonly string[]): number {
  const r = spawnSync(command, args, { cwd: ROOT, stdio: "inherit" });
  if (r.error) {
    process.stderr.write(`format: ${label} could not start: ${r.error.message}\n`);
    return 1;
  }
  return r.status === 0 ? 0 : 1;
}

function main(argv: readonly string[]): number {
  const check = argv.includes("--check");
  const pythonOnly = argv.includes("--python");
  if (argv.some((a) => a !== "--check" && a !== "--python")) {
    process.stderr.write("usage: tsx tools/format.ts [--check] [--python]\n");
    return 2;
  }
  if (biomeFormatSettings(ROOT) === null) {
    process.stdout.write("format: off (biome.jsonc formatter.enabled is false until the reformat commit)\n");
    return 0;
  }
  let status = 0;
  if (!pythonOnly) {
    const biome = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
    status |= run("biome", process.execPath, [biome, "format", ...(check ? [] : ["--write"]), "."]);
    status |= gofmt(check);
  }
  const ruff = findRuff();
  if (ruff === null) {
    if (pythonOnly) {
      process.stderr.write("format: ruff not found (PATH, .cache/venv/bin/ruff or LIFELOOP_RUFF)\n");
      return 1;
    }
    process.stdout.write("format: ruff not found: Python skipped (CI checks it after npm test installs .cache/venv)\n");
  } else {
    status |= run("ruff", ruff, ["format", ...(check ? ["--check"] : []), "--config", "ruff.toml", "."]);
  }
  return status;
}

process.exitCode = main(process.argv.slice(2));
