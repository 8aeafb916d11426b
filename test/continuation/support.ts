/**
 * Helpers of the continuation suites: run our CLI (dist/) and the reference `lifeloop` binary as
 * real processes with bytes in and out, on scratch stores; snapshot a store's files.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, lstatSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "../support/cli-process.js";
import { spawnChild } from "../support/spawn-child.js";
import {
  CONTINUATION_REFERENCE_CLI as REFERENCE_CLI,
  requireContinuationReference,
} from "../support/continuation-reference.js";

/** The reference side of the continuation suites: lifeloop-cli 0.5.0, the last release with the store. */
export { CLI, REFERENCE_CLI };

/** Which CLI runs a step. */
export type Side = "ours" | "reference";

/** What a finished CLI left: exit code, signal, raw stdout, stderr text. */
export interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Throws with the install command when the reference binary is missing. */
export function requireReference(): void {
  requireContinuationReference();
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: npm run build`);
}

/** The environment of a CLI run: only what is given plus PATH (no inherited store variables). */
export function storeEnv(extra: Readonly<Record<string, string>>): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", ...extra };
}

/**
 * Run `continuation <args>` on one side; killed at `timeoutMs` (default 30000) and always reaped.
 * With `fileSizeLimit` (bytes) it runs under `prlimit --fsize`: a write to a regular file is cut
 * short at that size and the next one fails with EFBIG, as on a full disk.
 */
export async function runSide(
  side: Side,
  args: readonly string[],
  options: {
    readonly input?: Uint8Array | string;
    readonly env: Readonly<Record<string, string>>;
    readonly cwd?: string;
    readonly timeoutMs?: number;
    readonly fileSizeLimit?: number;
  },
): Promise<Run> {
  const [command, commandArgv] =
    side === "ours" ? [process.execPath, [CLI, "continuation", ...args]] : [REFERENCE_CLI, ["continuation", ...args]];
  const [program, argv] =
    options.fileSizeLimit === undefined
      ? [command, commandArgv]
      : ["prlimit", [`--fsize=${options.fileSizeLimit}`, "--", command, ...commandArgv]];
  const r = await spawnChild({
    command: program,
    args: argv,
    env: options.env,
    cwd: options.cwd ?? tmpdir(),
    input: options.input ?? "",
    watchdogMs: options.timeoutMs ?? 30_000,
  });
  return { code: r.code, signal: r.signal, stdout: r.stdoutBytes, stderr: r.stderr };
}

/** Run `tasks` with at most `limit` at a time; results in task order. */
export async function limited<T>(limit: number, tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** A fresh scratch directory; remove it with {@link removeDir}. */
export function scratch(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** One file or directory of a store snapshot: relative path, kind, mode bits, bytes for files. */
export interface TreeItem {
  readonly path: string;
  readonly kind: "file" | "dir" | "other";
  readonly mode: number;
  readonly bytes?: Buffer;
}

/** Every item under `dir`, sorted by path (`dir` itself excluded). */
export function snapshot(dir: string): TreeItem[] {
  const items: TreeItem[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel === "" ? name : `${rel}/${name}`;
      const st = lstatSync(join(dir, path));
      if (st.isDirectory()) {
        items.push({ path, kind: "dir", mode: st.mode & 0o777 });
        walk(path);
      } else if (st.isFile())
        items.push({ path, kind: "file", mode: st.mode & 0o777, bytes: readFileSync(join(dir, path)) });
      else items.push({ path, kind: "other", mode: st.mode & 0o777 });
    }
  };
  if (existsSync(dir)) walk("");
  return items;
}

/** Frame an entry the way both CLIs write it (for planting files and checking bytes). */
export function frameEntry(metaJson: string, blob: Uint8Array): Buffer {
  const meta = Buffer.from(metaJson, "utf8");
  const header = Buffer.alloc(4);
  header.writeUInt32BE(meta.length, 0);
  return Buffer.concat([header, meta, blob]);
}
