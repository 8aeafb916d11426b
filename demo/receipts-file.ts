/**
 * The demo's receipts file: every LifecycleReceipt it made, one compact JSON document per line
 * (JSON Lines), under .cache/demo/ (gitignored).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LifecycleReceipt } from "../generated/ts/types.js";

/** A file-name-safe UTC timestamp, e.g. `20261129T145551Z`. */
export function fileStamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

/** Write `receipts` to `<root>/.cache/demo/receipts-<stamp>.jsonl`; returns the absolute path. */
export function writeReceipts(root: string, stamp: string, receipts: readonly LifecycleReceipt[]): string {
  const dir = join(root, ".cache", "demo");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `receipts-${stamp}.jsonl`);
  writeFileSync(path, receipts.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return path;
}
