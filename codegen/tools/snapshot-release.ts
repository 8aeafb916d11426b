/**
 * `npm run snapshot-release [-- --retake] [-- --root DIR]`
 *
 * Freezes the current wire version (spec/wire-version.json `current`) as a release snapshot:
 * spec/releases/<version>/ receives a copy of every JSON file of spec/ (wire-version.json, tables/,
 * meta/, ...; not spec/releases/ itself) and of schemas/ (a project tree of its own, so
 * `lifeloop-callback diff --base spec/releases/<version> --head .` compares against it, and the
 * code generator can load it). A release never changes once it is
 * published, so an existing snapshot is refused unless `--retake` is given; `--retake` replaces it
 * with the current tree (for the maintainer who lands the release, before anyone depends on it).
 *
 * Prints the snapshot directory and the number of files. Exit codes: 0 written, 2 usage,
 * 3 refused (the snapshot exists and --retake was not given, or spec/wire-version.json is unreadable).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** What goes into a snapshot, relative to the repository root (JSON files only; spec/releases/ never). */
export const SNAPSHOT_SOURCES = ["spec", "schemas"] as const;

/** Options of one snapshot run. */
export interface SnapshotOptions {
  readonly root: string;
  readonly retake: boolean;
}

/** Thrown when the snapshot must not be written (exit 3). */
export class SnapshotError extends Error {
  override readonly name = "SnapshotError";
}

/** Repository-relative paths of the JSON files a snapshot holds, sorted. */
export function snapshotFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const child = `${rel}/${name}`;
      if (child === "spec/releases") continue;
      if (statSync(join(root, child)).isDirectory()) walk(child);
      else if (name.endsWith(".json")) out.push(child);
    }
  };
  for (const source of SNAPSHOT_SOURCES) if (existsSync(join(root, source))) walk(source);
  return out;
}

function countFiles(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    n += statSync(p).isDirectory() ? countFiles(p) : 1;
  }
  return n;
}

/** Write spec/releases/<current>/; returns its repository-relative path and file count. Throws SnapshotError. */
export function snapshotRelease(options: SnapshotOptions): { dir: string; files: number } {
  let version: string;
  try {
    version = (JSON.parse(readFileSync(join(options.root, "spec/wire-version.json"), "utf8")) as { current: string })
      .current;
  } catch (error) {
    throw new SnapshotError(`cannot read spec/wire-version.json: ${(error as Error).message}`);
  }
  if (typeof version !== "string" || !/^lifeloop\.v[0-9]+(\.[0-9]+)*$/.test(version))
    throw new SnapshotError(`spec/wire-version.json: current is not a wire version`);
  const target = join(options.root, "spec", "releases", version);
  if (existsSync(target) && !options.retake) {
    throw new SnapshotError(
      `spec/releases/${version} exists; a release never changes (pass --retake to replace it before it is published)`,
    );
  }
  // Written to a staging folder first, so a failed run leaves the previous snapshot in place.
  const staging = join(options.root, "spec", "releases", `.${version}.staging`);
  rmSync(staging, { recursive: true, force: true });
  for (const rel of snapshotFiles(options.root)) {
    mkdirSync(dirname(join(staging, rel)), { recursive: true });
    copyFileSync(join(options.root, rel), join(staging, rel));
  }
  rmSync(target, { recursive: true, force: true });
  renameSync(staging, target);
  return { dir: relative(options.root, target), files: countFiles(target) };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  let root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
  let retake = false;
  const argv = process.argv.slice(2);
  let usage = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--retake") retake = true;
    else if (argv[i] === "--root" && i + 1 < argv.length) root = resolve(argv[++i] as string);
    else usage = true;
  }
  if (usage) {
    process.stderr.write("usage: npm run snapshot-release [-- --retake] [-- --root DIR]\n");
    process.exitCode = 2;
  } else {
    try {
      const { dir, files } = snapshotRelease({ root, retake });
      process.stdout.write(`snapshot-release: wrote ${dir}/ (${files} files)\n`);
    } catch (error) {
      if (!(error instanceof SnapshotError)) throw error;
      process.stderr.write(`snapshot-release: ${error.message}\n`);
      process.exitCode = 3;
    }
  }
}
