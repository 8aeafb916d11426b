/**
 * The SDK templates (`sdk/<language>/templates/**`: handlebars templates and view-model schemas), read
 * once into `Model.sdkSources` so that the SDK targets never touch the disk; the hand-written SDK files
 * beside them are never inputs of generation. (Other targets read their own files through inputs.ts.)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { SourceFile } from "./model.js";

/** Folders whose files are the SDK sources (templates and view-model schemas). */
export const SDK_SOURCE_DIRS = ["sdk/go/templates", "sdk/python/templates"] as const;

/** Tool caches and build output that live next to the SDK sources but are never read. */
const SKIPPED = new Set(["__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"]);

/** The types of the sources (in model.ts, so model.ts imports nothing of the loaders). */
export type { SourceFile };

/** Every file below `dir` (repository-relative), sorted by path. */
function walk(root: string, dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir)).sort()) {
    if (SKIPPED.has(name)) continue;
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) out.push(...walk(root, rel));
    else out.push(rel);
  }
  return out;
}

/** Every file of the SDK source folders, by repository-relative path. */
export function loadSdkSources(root: string): ReadonlyMap<string, string> {
  const files = new Map<string, string>();
  for (const dir of SDK_SOURCE_DIRS)
    for (const path of walk(root, dir)) files.set(path, readFileSync(join(root, path), "utf8"));
  return files;
}
