/**
 * One side of a `lifeloop-callback diff`: the spec files of a project tree, read from a directory
 * or from a git revision (`git:REF` or `git:REF:PATH`), without checking them out.
 *
 * What is read (tree-relative paths): `schemas/**\/*.json`, `spec/wire-version.json`,
 * `spec/tables/*.json`, `spec/compat-allowlist.json` and every file under `spec/releases/`.
 * Errors: throws {@link TreeError} (exit 3, unreadable input) naming the tree and the file.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { readRegularFile } from "../process/regular-file.js";
import { join, relative, sep } from "node:path";
import { deeperThan, MAX_JSON_DEPTH } from "./json.js";

/** A tree that cannot be read: no spec/ or schemas/, a git revision that does not exist, a file that is not JSON. */
export class TreeError extends Error {
  override readonly name = "TreeError";
}

/** The spec files of one side, by tree-relative path (forward slashes). */
export interface ProjectTree {
  /** How the user named it (`DIR` or `git:REF`). */
  readonly label: string;
  readonly files: ReadonlyMap<string, Buffer>;
  /** How messages name one of its files; default `<label>: <path>` (`--schema` names the file's own path). */
  readonly describe?: (path: string) => string;
}

/** How messages name file `path` of `tree`. */
export function describeFile(tree: ProjectTree, path: string): string {
  return tree.describe ? tree.describe(path) : `${tree.label}: ${path}`;
}

/** Largest single schema document read by `--schema` (bytes). */
export const MAX_SCHEMA_BYTES = 16 * 1024 * 1024;

/**
 * The bytes of `path`, at most `max` bytes, read without blocking (regular-file.ts: a FIFO is
 * opened non-blocking, a device such as /dev/zero stops at the bound). Throws TreeError for a file
 * that is too large (naming it `shown`), and the file system's error when it cannot be read.
 */
export function readBounded(path: string, max: number, shown = path): Buffer {
  const read = readRegularFile(path, max, false);
  if (read.ok) return read.bytes;
  if (read.problem === "too_large") throw new TreeError(`${shown}: larger than ${max} bytes`);
  // Not reached for "not_regular": every kind is read here.
  throw read.problem === "not_regular" ? new TreeError(`${shown} is ${read.kind}`) : read.error;
}

/** Whether a tree-relative path is one the diff reads. */
export function isSpecPath(path: string): boolean {
  return (
    (path.startsWith("schemas/") && path.endsWith(".json")) ||
    path === "spec/wire-version.json" ||
    path === "spec/compat-allowlist.json" ||
    /^spec\/tables\/[^/]+\.json$/.test(path) ||
    path.startsWith("spec/releases/")
  );
}

/** Largest total size read from one tree (bytes): a guard against pointing the diff at a huge directory. */
export const MAX_TREE_BYTES = 64 * 1024 * 1024;

function walk(root: string, dir: string, out: Map<string, Buffer>, budget: { left: number }): void {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    // Symbolic links to directories are not followed (no loops); links to files are read.
    const link = lstatSync(full).isSymbolicLink();
    const stat = statSync(full);
    if (link && stat.isDirectory()) continue;
    const rel = relative(root, full).split(sep).join("/");
    if (stat.isDirectory()) walk(root, full, out, budget);
    else if (stat.isFile() && isSpecPath(rel)) {
      budget.left -= stat.size;
      if (budget.left < 0) throw new TreeError(`${root}: more than ${MAX_TREE_BYTES} bytes of spec files`);
      out.set(rel, readFileSync(full));
    }
  }
}

/** Read a tree from a directory holding spec/ and schemas/. */
export function readDirectoryTree(dir: string): ProjectTree {
  if (!existsSync(join(dir, "spec")) && !existsSync(join(dir, "schemas"))) {
    throw new TreeError(`${dir}: not a project tree (no spec/ and no schemas/)`);
  }
  const files = new Map<string, Buffer>();
  const budget = { left: MAX_TREE_BYTES };
  for (const top of ["spec", "schemas"]) {
    if (existsSync(join(dir, top))) walk(dir, join(dir, top), files, budget);
  }
  return { label: dir, files };
}

/**
 * Read a tree from git: `spec` is `REF` or `REF:PATH` (PATH a folder of the repository holding
 * spec/ and schemas/), resolved in the repository that contains `cwd`.
 */
export function readGitTree(spec: string, cwd: string): ProjectTree {
  const colon = spec.indexOf(":");
  const ref = colon < 0 ? spec : spec.slice(0, colon);
  const prefix = colon < 0 ? "" : spec.slice(colon + 1).replace(/^\/+|\/+$/g, "");
  const git = (args: string[], input?: string): Buffer => {
    try {
      return execFileSync("git", args, { cwd, input, maxBuffer: MAX_TREE_BYTES * 2, stdio: ["pipe", "pipe", "pipe"] });
    } catch (error) {
      const stderr = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
      // `rev-parse --verify --quiet` fails without a word: say what failed.
      throw new TreeError(
        `git:${spec}: ${stderr.split("\n")[0] || `git ${args[0]} failed (no such revision or path)`}`,
      );
    }
  };
  git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  const listing = git([
    "ls-tree",
    "-r",
    "-z",
    "--full-tree",
    ref,
    "--",
    ...(prefix ? [prefix] : ["spec", "schemas"]),
  ]).toString("utf8");
  const wanted: { path: string; object: string }[] = [];
  for (const entry of listing.split("\0")) {
    if (!entry) continue;
    const [meta, path] = entry.split("\t") as [string, string];
    const [, type, object] = meta.split(" ") as [string, string, string];
    if (type !== "blob") continue;
    const rel = prefix ? path.slice(prefix.length + 1) : path;
    if (isSpecPath(rel)) wanted.push({ path: rel, object });
  }
  if (wanted.length === 0) throw new TreeError(`git:${spec}: no spec/ or schemas/ files at that revision`);
  // One `git cat-file --batch` for every blob: "<oid> blob <size>\n<bytes>\n" per object.
  const batch = git(["cat-file", "--batch"], `${wanted.map((w) => w.object).join("\n")}\n`);
  const files = new Map<string, Buffer>();
  let offset = 0;
  for (const w of wanted) {
    const newline = batch.indexOf(10, offset);
    const header = batch.subarray(offset, newline).toString("utf8").split(" ");
    const size = Number(header[2]);
    files.set(w.path, batch.subarray(newline + 1, newline + 1 + size));
    offset = newline + 1 + size + 1;
  }
  return { label: `git:${spec}`, files };
}

/** Read `DIR` or `git:REF[:PATH]`. */
export function readTree(source: string, cwd: string): ProjectTree {
  return source.startsWith("git:") ? readGitTree(source.slice(4), cwd) : readDirectoryTree(source);
}

/** Parse one JSON file of a tree; throws TreeError naming it when it is not JSON. */
export function treeJson(tree: ProjectTree, path: string): unknown {
  const bytes = tree.files.get(path);
  if (bytes === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8")) as unknown;
  } catch (error) {
    throw new TreeError(`${describeFile(tree, path)} is not valid JSON: ${(error as Error).message}`);
  }
  if (deeperThan(value, MAX_JSON_DEPTH))
    throw new TreeError(`${describeFile(tree, path)} nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

/** Tree-relative paths under a folder prefix (e.g. `schemas/`), sorted. */
export function pathsUnder(tree: ProjectTree, prefix: string): string[] {
  return [...tree.files.keys()].filter((p) => p.startsWith(prefix)).sort();
}
