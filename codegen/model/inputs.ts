/**
 * The raw file inputs of the targets (templates, prose pages), apart from the protocol model: a
 * target that needs files of its own reads them through {@link Inputs}, so the model holds facts
 * (enums, types, tables, rules, plans) and each target names the files it renders from. Targets never
 * touch the disk themselves: main.ts hands them {@link diskInputs} of the repository root, a test may
 * hand them files from memory.
 *
 * Errors: `read` and `list` throw the file system's error (ENOENT, EACCES) for a path that cannot be read.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SourceFile } from "./model.js";

/** Read access to the repository's files, by repository-relative path with `/` separators. */
export interface Inputs {
  /** The repository-relative paths of the files directly in `dir` whose names end with `suffix`, sorted. */
  readonly list: (dir: string, suffix: string) => string[];
  /** The UTF-8 text of a repository-relative file. */
  readonly read: (path: string) => string;
}

/** {@link Inputs} over the files below `root`. */
export function diskInputs(root: string): Inputs {
  return {
    list: (dir, suffix) =>
      readdirSync(join(root, dir))
        .filter((name) => name.endsWith(suffix))
        .sort()
        .map((name) => `${dir}/${name}`),
    read: (path) => readFileSync(join(root, path), "utf8"),
  };
}

/** The files directly in `dir` whose names end with `suffix`, with their text, sorted by path. */
export function readAll(inputs: Inputs, dir: string, suffix: string): SourceFile[] {
  return inputs.list(dir, suffix).map((path) => ({ path, text: inputs.read(path) }));
}
