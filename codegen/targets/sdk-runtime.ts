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
import { finalNewline, type OutputFile } from "../emit/output.js";
import type { Model } from "../model/model.js";
import { sdkFilesUnder } from "../model/sources.js";

/** Folder of the plain SDK runtime sources, repository-relative. */
export const SDK_RUNTIME_DIR = "sdk-runtime";

/**
 * Copy every file under `sdk-runtime/<language>/` (from the model's SDK sources) whose name ends in
 * one of `extensions` to `<outDir>/<same relative path>`, with `banner` (complete lines, comment
 * syntax included) first.
 */
export function copyRuntimeSources(model: Model, language: string, extensions: readonly string[], outDir: string, banner: string): OutputFile[] {
  const files = sdkFilesUnder(model.sdkSources, `${SDK_RUNTIME_DIR}/${language}`).filter((f) => extensions.some((ext) => f.path.endsWith(ext)));
  if (files.length === 0) throw new Error(`${SDK_RUNTIME_DIR}/${language} holds no ${extensions.join("/")} file`);
  return files.map((f) => ({ path: `${outDir}/${f.path}`, content: finalNewline(`${banner}${f.text}`) }));
}

/** A file of the model's SDK sources by repository-relative path; throws naming it when it is missing. */
export function sdkSource(model: Model, path: string): string {
  const text = model.sdkSources.get(path);
  if (text === undefined) throw new Error(`${path} is missing`);
  return text;
}
