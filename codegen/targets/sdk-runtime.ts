/**
 * The hand-written part of each SDK: plain source files under `sdk-runtime/<language>/`, which
 * gofmt, go vet, ruff and mypy check directly (see sdk-runtime/README.md). Each file is copied
 * verbatim into the SDK's output folder, below a banner, the way lsprotocol copies its custom
 * classes; only what is generated from the model stays in `sdk-templates/`.
 *
 * The sources read every limit, rule id, failure class and wire version from the constants the
 * templates generate (e.g. Go `LimitMaxRequestBytes`, `RuleJSONMaxBytes`; Python
 * `LIMIT_MAX_REQUEST_BYTES` in `lifeloop_callback.spec`), never from placeholders.
 *
 * Errors: throws when the folder is missing or holds no source file.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { finalNewline, type OutputFile } from "../emit/output.js";

/** Folder of the plain SDK runtime sources, repository-relative. */
export const SDK_RUNTIME_DIR = "sdk-runtime";

/** Tool caches and build output that live next to the sources but are never copied. */
const SKIPPED = new Set(["__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"]);

/**
 * Copy every file under `sdk-runtime/<language>/` whose name ends in one of `extensions` to
 * `<outDir>/<same relative path>`, with `banner` (complete lines, comment syntax included) first.
 */
export function copyRuntimeSources(root: string, language: string, extensions: readonly string[], outDir: string, banner: string): OutputFile[] {
  const base = join(root, SDK_RUNTIME_DIR, language);
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (SKIPPED.has(name)) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (extensions.some((ext) => name.endsWith(ext))) files.push(path);
    }
  };
  walk(base);
  if (files.length === 0) throw new Error(`${SDK_RUNTIME_DIR}/${language} holds no ${extensions.join("/")} file`);
  return files.map((file) => ({
    path: `${outDir}/${relative(base, file).split(sep).join("/")}`,
    content: finalNewline(`${banner}${readFileSync(file, "utf8")}`),
  }));
}
