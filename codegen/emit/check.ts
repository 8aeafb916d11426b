/**
 * Writing outputs to disk, and the in-memory drift check behind `generate --check`.
 *
 * Owned paths: every file under `generated/` is owned by the generator (a file there that no target
 * produces is stale and is reported, or deleted on write). Files outside `generated/` (marked regions
 * of `spec/*.md`) are only ever compared or rewritten, never deleted.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { createTwoFilesPatch } from "diff";
import type { OutputFile } from "./output.js";

/** Directory names under generated/ that tools create and the generator ignores. */
const IGNORED_DIRS = new Set(["__pycache__", "node_modules", "target", "bin", "build", "dist"]);

/** Folders under generated/ that another step owns: `npm run docs` (codegen/tools/reference-docs.ts). */
const OTHER_STEPS = new Set(["generated/docs/reference"]);

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

/** Compare outputs with the files on disk without writing anything. */
export function findDrift(root: string, outputs: readonly OutputFile[], ownedDir = "generated"): Drift[] {
  const drift: Drift[] = [];
  const produced = new Set(outputs.map((o) => o.path));
  for (const out of outputs) {
    const abs = join(root, out.path);
    if (!existsSync(abs)) {
      drift.push({ path: out.path, kind: "missing", diff: createTwoFilesPatch(out.path, out.path, "", out.content, "committed", "generated") });
      continue;
    }
    const current = readFileSync(abs, "utf8");
    if (current !== out.content) {
      drift.push({ path: out.path, kind: "changed", diff: createTwoFilesPatch(out.path, out.path, current, out.content, "committed", "generated") });
    }
  }
  for (const path of listOwned(root, ownedDir)) {
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
