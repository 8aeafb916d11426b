/**
 * Demo step 1: regenerate everything codegen owns from spec/ and schemas/ (the same generateAll /
 * findDrift / writeOutputs as `npm run generate`) and report whether the committed output drifted.
 * On a clean clone nothing drifts and nothing is written; after an edit to spec/ or schemas/ the
 * drifted files are rewritten (and listed), exactly as `npm run generate` would.
 */
import { performance } from "node:perf_hooks";
import { findDrift, writeOutputs, type Drift } from "../codegen/emit/check.js";
import { generateAll } from "../codegen/main.js";

/** What regeneration found: how many files the targets produce, which drifted, and how long it took (ms). */
export interface RegenerateReport {
  readonly files: number;
  readonly drift: readonly Drift[];
  readonly ms: number;
}

/**
 * Regenerate at `root`. Throws the codegen's ModelError (naming the file and JSON pointer) when the
 * sources are invalid.
 */
export async function regenerate(root: string): Promise<RegenerateReport> {
  const started = performance.now();
  const outputs = await generateAll(root);
  const drift = findDrift(root, outputs);
  if (drift.length > 0) writeOutputs(root, outputs);
  return { files: outputs.length, drift, ms: performance.now() - started };
}
