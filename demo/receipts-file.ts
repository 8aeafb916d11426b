/**
 * The demo's files, JSON Lines (one compact JSON document per line) under .cache/demo/ (gitignored):
 * the receipts file (every LifecycleReceipt it made) and the session file (the ten
 * DispatchEnvelopes of one session, the FILE of `lifeloop-callback session`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DispatchEnvelope, LifecycleReceipt } from "../generated/ts/types.js";

/** A file-name-safe UTC timestamp, e.g. `20261129T145551Z`. */
export function fileStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

/** Write `docs` as JSON Lines to `<root>/.cache/demo/<name>-<stamp>.jsonl`; returns the absolute path. */
function writeJsonLines(root: string, name: string, stamp: string, docs: readonly unknown[]): string {
  const dir = join(root, ".cache", "demo");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}-${stamp}.jsonl`);
  writeFileSync(path, docs.map((d) => `${JSON.stringify(d)}\n`).join(""));
  return path;
}

/** Write `receipts` to `<root>/.cache/demo/receipts-<stamp>.jsonl`; returns the absolute path. */
export function writeReceipts(root: string, stamp: string, receipts: readonly LifecycleReceipt[]): string {
  return writeJsonLines(root, "receipts", stamp, receipts);
}

/** Write a session's envelopes to `<root>/.cache/demo/session-<stamp>.jsonl` (input of `lifeloop-callback session`); returns the absolute path. */
export function writeSessionFile(root: string, stamp: string, envelopes: readonly DispatchEnvelope[]): string {
  return writeJsonLines(root, "session", stamp, envelopes);
}
