/**
 * Writing outputs to disk, and the in-memory drift check behind `generate --check`.
 *
 * Owned paths: every file under `generated/` is owned by the generator, and so are the files of the
 * SDK folders with a generated name ({@link SDK_GENERATED}: `sdk/go/zz_*.go`,
 * `sdk/python/lifeloop_callback/_gen_*.py`, ...); a file there that no target produces is stale and
 * is reported, or deleted on write. Every other file of `sdk/` is hand-written: an output there,
 * or an output over an existing file that lacks the generated banner, is refused
 * ({@link HandWrittenFileError}). Files outside these (marked regions of `spec/*.md`) are only ever
 * compared or rewritten, never deleted.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { createTwoFilesPatch } from "diff";
import { BANNER, type OutputFile } from "./output.js";

/** Directory names under generated/ that tools create and the generator ignores. */
const IGNORED_DIRS = new Set(["__pycache__", "node_modules", "target", "bin", "build", "dist"]);

/**
 * Folders and files under generated/ that another step owns: `npm run docs` (codegen/tools/reference-docs.ts;
 * the window page is built from the diff gate in runtime/, which the generator may not import).
 */
const OTHER_STEPS = new Set(["generated/docs/reference", "generated/docs/wire-window.md"]);

/**
 * The files of the SDK folders that the generator owns, by repository-relative path: generated
 * sources carry a generated name (`zz_` in Go, `_gen_` in Python); `go.mod`, `__init__.py`,
 * `pyproject.toml` and the SDK READMEs keep the names their tools require. Everything else under
 * `sdk/` (sdk/README.md, sdk/check.sh, templates, hand-written sources and tests) is hand-written.
 */
export const SDK_GENERATED: readonly RegExp[] = [
  /^sdk\/go\/(zz_[^/]+\.go|go\.mod|README\.md)$/,
  /^sdk\/python\/(pyproject\.toml|README\.md|lifeloop_callback\/(__init__|_gen_[^/]+)\.py)$/,
];

/** The SDK folders {@link SDK_GENERATED} patterns apply to. */
const SDK_DIRS = ["sdk/go", "sdk/python"];

/** True when `path` (repository-relative) is a generated file of an SDK folder. */
export function isSdkGenerated(path: string): boolean {
  return SDK_GENERATED.some((pattern) => pattern.test(path));
}

/** A target would write over a hand-written file of `sdk/`. */
export class HandWrittenFileError extends Error {}

/**
 * Refuse outputs that would overwrite a hand-written file: under `sdk/`, every output must have a
 * generated name, and a file already at that path must carry the generated banner.
 */
function checkHandWritten(root: string, outputs: readonly OutputFile[]): void {
  for (const out of outputs) {
    if (!out.path.startsWith("sdk/")) continue;
    if (!isSdkGenerated(out.path)) {
      throw new HandWrittenFileError(
        `${out.path}: a target writes a file without a generated name into sdk/ (generated files are zz_*.go, _gen_*.py, go.mod, __init__.py, pyproject.toml, README.md; see SDK_GENERATED in codegen/emit/check.ts)`,
      );
    }
    const abs = join(root, out.path);
    if (existsSync(abs) && !readFileSync(abs, "utf8").includes(BANNER)) {
      throw new HandWrittenFileError(
        `${out.path}: the file on disk has no generated banner, so it is hand-written; rename it or the template's output`,
      );
    }
  }
}

/** The generated files on disk in the SDK folders (see {@link SDK_GENERATED}). */
function listSdkGenerated(root: string): string[] {
  return SDK_DIRS.flatMap((dir) => listOwned(root, dir)).filter(isSdkGenerated);
}

function listOwned(root: string, dir: string): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path).sort()) {
      if (name.startsWith(".") || IGNORED_DIRS.has(name) || name.endsWith(".egg-info")) continue;
      const child = join(path, name);
      const rel = relative(root, child).split(sep).join("/");
      if (dir === "generated" && OTHER_STEPS.has(rel)) continue;
      if (statSync(child).isDirectory()) walk(child);
      else out.push(relative(root, child).split(sep).join("/"));
    }
  };
  walk(abs);
  return out;
}

/** One difference between the committed tree and a fresh generation. */
export interface Drift {
  readonly path: string;
  readonly kind: "changed" | "missing" | "stale";
  /** Unified diff (committed -> generated); empty for stale files. */
  readonly diff: string;
}

/**
 * Compare outputs with the files on disk without writing anything. With the default `ownedDir`
 * (`npm run generate`), the generated files of the SDK folders are owned too. Throws
 * {@link HandWrittenFileError} when an output would overwrite a hand-written file of `sdk/`.
 */
export function findDrift(root: string, outputs: readonly OutputFile[], ownedDir = "generated"): Drift[] {
  checkHandWritten(root, outputs);
  const drift: Drift[] = [];
  const produced = new Set(outputs.map((o) => o.path));
  for (const out of outputs) {
    const abs = join(root, out.path);
    if (!existsSync(abs)) {
      drift.push({
        path: out.path,
        kind: "missing",
        diff: createTwoFilesPatch(out.path, out.path, "", out.content, "committed", "generated"),
      });
      continue;
    }
    const current = readFileSync(abs, "utf8");
    if (current !== out.content) {
      drift.push({
        path: out.path,
        kind: "changed",
        diff: createTwoFilesPatch(out.path, out.path, current, out.content, "committed", "generated"),
      });
    }
  }
  const owned =
    ownedDir === "generated" ? [...listOwned(root, ownedDir), ...listSdkGenerated(root)] : listOwned(root, ownedDir);
  for (const path of owned) {
    if (!produced.has(path)) drift.push({ path, kind: "stale", diff: "" });
  }
  return drift;
}

/** Write every output whose content changed and delete stale files under `ownedDir`. Returns the paths touched. */
export function writeOutputs(root: string, outputs: readonly OutputFile[], ownedDir = "generated"): string[] {
  const touched: string[] = [];
  for (const drift of findDrift(root, outputs, ownedDir)) {
    const abs = join(root, drift.path);
    if (drift.kind === "stale") {
      rmSync(abs);
    } else {
      const out = outputs.find((o) => o.path === drift.path) as OutputFile;
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, out.content);
    }
    touched.push(`${drift.kind === "stale" ? "deleted" : "wrote"} ${drift.path}`);
  }
  return touched;
}
