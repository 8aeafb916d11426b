/**
 * The one interface every generation target implements (TypeScript, Go, Python, docs, vectors):
 * a name and a function of the model (protocol facts) and of its own raw inputs (templates, prose
 * pages, read through {@link Inputs}) that returns output files. A target never writes the disk;
 * codegen/main.ts collects every target's files, checks that no two targets produce the same path
 * and writes (or, with --check, compares) them.
 */
import type { OutputFile } from "../emit/output.js";
import type { Inputs } from "../model/inputs.js";
import type { Model } from "../model/model.js";

/** A named generator: `generate` returns the files it owns (repository-relative paths, exact content). */
export interface Target {
  /** `<folder>/<file>` of the target under codegen/targets/, e.g. `ts/spec` or `vectors/corpus`. */
  readonly name: string;
  /**
   * Every output file of this target; throws ModelError (or Error) when the model cannot be rendered.
   * `inputs` reads the target's own files (e.g. the docs target's spec/*.md); most targets ignore it.
   */
  readonly generate: (model: Model, inputs: Inputs) => Promise<OutputFile[]>;
}
