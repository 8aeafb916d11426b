/**
 * Helpers for suites that run the real `lifeloop-callback` CLI (dist/, built by `npm run build`) or a
 * TypeScript entry point (through tsx) as child processes, and make scratch copies of the repository
 * for tools that take `--root` (codegen, bump-version).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The compiled CLI entry point (run it as `node CLI ...`: tsc leaves it without the exec bit). */
export const CLI = join(REPO_ROOT, "dist", "runtime", "cli", "main.js");
/**
 * The package's `bin` (package.json, `lifeloop-callback`): the bundled CLI the build marks
 * executable, for suites that exec the CLI as a program (as an SDK helper or a harness does).
 */
export const BIN = join(
  REPO_ROOT,
  (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }).bin[
    "lifeloop-callback"
  ] as string,
);

/** What a finished child process left behind. */
export interface ProcessResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of one run: standard input, working directory, extra environment, a kill deadline in ms (default 120000). */
export interface RunOptions {
  readonly input?: string | Uint8Array;
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

/** Run `node <args>` to completion (the child is killed at the deadline and always reaped). */
export function runNode(args: readonly string[], options: RunOptions = {}): ProcessResult {
  const r = spawnSync(process.execPath, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env },
    input: options.input ?? "",
    encoding: "utf8",
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error && (r.error as NodeJS.ErrnoException).code !== "ETIMEDOUT") throw r.error;
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** Run the built CLI: `lifeloop-callback <args>`. */
export function runCli(args: readonly string[], options: RunOptions = {}): ProcessResult {
  return runNode([CLI, ...args], options);
}

/**
 * Run a TypeScript entry point through tsx: `script` is relative to `options.cwd` (default: this
 * repository), so a scratch copy from {@link copyRepo} runs its own sources.
 */
export function runTs(script: string, args: readonly string[], options: RunOptions = {}): ProcessResult {
  return runNode(["--import", "tsx", join(options.cwd ?? REPO_ROOT, script), ...args], options);
}

/** Top-level entries never copied: VCS data, installed packages, build output, caches. */
const NOT_COPIED = new Set([".git", "node_modules", "dist", ".cache", "target", "__pycache__", ".venv"]);

/**
 * Copy the repository's sources (spec/, schemas/, generated/, codegen/, sdk/, test/, ...) to a
 * fresh temporary directory and return its path. Build output and caches stay behind; node_modules is
 * a symlink to this repository's, so the copy's own tools run (`runTs(script, args, { cwd: copy })`)
 * unaffected by later edits here. `from` copies another copy instead. The caller removes the copy.
 */
export function copyRepo(prefix = "lifeloop-repo-", from = REPO_ROOT): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(from, dir, { recursive: true, filter: (src) => !NOT_COPIED.has(basename(src)) });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}
