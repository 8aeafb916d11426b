/**
 * The text inputs of generation that are not tables or schemas, read once so that targets never
 * touch the disk: the normative prose pages (`spec/*.md`, whose generated regions the docs target
 * fills), the conformance corpus (`test/conformance/<fixture_kind>/*.json`, turned into vectors)
 * and the SDK templates (`sdk/<language>/templates/**`: handlebars templates and view-model schemas;
 * the hand-written SDK files beside them are never inputs of generation).
 *
 * Errors: throws {@link ModelError} for a corpus fixture that is not JSON.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { readJsonFile } from "./files.js";
import type { CorpusFixture, SourceFile } from "./model.js";

/** Folder of the conformance corpus, relative to the repository root. */
export const CORPUS_DIR = "test/conformance";

/** Folders whose files are the SDK sources (templates and view-model schemas). */
export const SDK_SOURCE_DIRS = ["sdk/go/templates", "sdk/python/templates"] as const;

/** Tool caches and build output that live next to the SDK sources but are never read. */
const SKIPPED = new Set(["__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"]);

/** The types of the sources (in model.ts, so model.ts imports nothing of the loaders). */
export type { CorpusFixture, SourceFile };

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

/** spec/*.md, sorted. */
export function loadSpecPages(root: string): SourceFile[] {
  return readdirSync(join(root, "spec"))
    .filter((n) => n.endsWith(".md"))
    .sort()
    .map((name) => ({ path: `spec/${name}`, text: readFileSync(join(root, "spec", name), "utf8") }));
}

/** The corpus fixtures of the given fixture kinds, sorted by kind then file name. */
export function loadCorpus(root: string, fixtureKinds: readonly string[]): CorpusFixture[] {
  return fixtureKinds.flatMap((kind) =>
    walk(root, `${CORPUS_DIR}/${kind}`)
      .filter((path) => path.endsWith(".json") && path.split("/").length === 4)
      .map((path) => ({ path, fixtureKind: kind, stem: (path.split("/")[3] as string).slice(0, -".json".length), fixture: readJsonFile(root, path) })),
  );
}

/** Every file of the SDK source folders, by repository-relative path. */
export function loadSdkSources(root: string): ReadonlyMap<string, string> {
  const files = new Map<string, string>();
  for (const dir of SDK_SOURCE_DIRS) for (const path of walk(root, dir)) files.set(path, readFileSync(join(root, path), "utf8"));
  return files;
}
