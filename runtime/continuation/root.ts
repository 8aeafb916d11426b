/**
 * Where the store lives (CONTINUATION-001 §"Storage Layout"): the first variable of the table's
 * `root_resolution` that is set and non-empty, with its path segments appended
 * (`LIFELOOP_CONTINUATION_ROOT` verbatim, then `$XDG_STATE_HOME/lifeloop/continuation`, then
 * `$HOME/.local/state/lifeloop/continuation`). A relative root is relative to the working directory.
 */
import { join } from "node:path";
import { CONTINUATION } from "./table.js";
import { blobTooLarge, storageFailure } from "./errors.js";
import { ContinuationStore } from "./store.js";
import { parseU64 } from "./u64.js";

/** Variables the store reads (a subset of process.env). */
export type ContinuationEnvironment = Readonly<Record<string, string | undefined>>;

/** The root resolution in words, for usage texts: `$LIFELOOP_CONTINUATION_ROOT, else $XDG_STATE_HOME/lifeloop/continuation, else ...`. */
export function rootResolutionText(): string {
  const [first, ...rest] = CONTINUATION.root_resolution;
  return [`$${first?.environment}`, ...rest.map((r) => `$${r.environment}/${r.append.join("/")}`)].join(", else ");
}

/** The store root, or throws ContinuationError `storage_failure` when no variable of the table is set. */
export function resolveRoot(env: ContinuationEnvironment): string {
  for (const rule of CONTINUATION.root_resolution) {
    const value = env[rule.environment];
    if (value !== undefined && value !== "") return rule.append.length === 0 ? value : join(value, ...rule.append);
  }
  throw storageFailure(
    `cannot find the store: none of ${CONTINUATION.root_resolution.map((r) => `$${r.environment}`).join(", ")} is set`,
  );
}

/** Why the max-bytes variable is unusable: a usage error (exit 2), as in the reference. */
export class MaxBytesSettingError extends Error {
  constructor(readonly variable: string) {
    super(`$${variable} must be a non-negative integer`);
    this.name = "MaxBytesSettingError";
  }
}

/**
 * The blob limit in bytes: `$LIFELOOP_CONTINUATION_MAX_BYTES` when set and non-empty (a u64), else the
 * table's default. Throws {@link MaxBytesSettingError} for a value that is not a u64.
 */
export function resolveMaxBlobBytes(env: ContinuationEnvironment): bigint {
  const name = CONTINUATION.limits.max_blob_bytes_environment;
  const value = env[name];
  if (value === undefined || value === "") return BigInt(CONTINUATION.limits.max_blob_bytes);
  const parsed = parseU64(value);
  if (parsed === null) throw new MaxBytesSettingError(name);
  return parsed;
}

/**
 * The store the environment names, as `continuation get` and `list` open it: {@link resolveRoot},
 * then {@link resolveMaxBlobBytes} (so a missing root is reported before a bad limit). Throws
 * ContinuationError `storage_failure` or {@link MaxBytesSettingError}.
 */
export function storeFromEnvironment(env: ContinuationEnvironment): ContinuationStore {
  const root = resolveRoot(env);
  return new ContinuationStore({ root, maxBlobBytes: resolveMaxBlobBytes(env) });
}

/** What a command needs of the environment, for {@link storeForCommand}. */
export type StoreUse =
  | { readonly command: "put"; readonly blobBytes: number }
  | { readonly command: "get" | "list" | "drop-thread" }
  | { readonly command: "drop"; readonly guarded: boolean };

/**
 * The store the environment names for one command, with the variables read in the reference's order
 * (spec/continuation-store.md §"Parsing the command line"; identifiers are checked before this):
 * `put` reads the max-bytes variable, checks the size (`blob_too_large`), and only then resolves the
 * root; `get`, `list` and a guarded `drop` resolve the root, then read the max-bytes variable; an
 * unguarded `drop` and `drop-thread` never read it. Throws ContinuationError `storage_failure` /
 * `blob_too_large` or {@link MaxBytesSettingError}.
 */
export function storeForCommand(env: ContinuationEnvironment, use: StoreUse): ContinuationStore {
  if (use.command === "put") {
    const max = resolveMaxBlobBytes(env);
    if (BigInt(use.blobBytes) > max) throw blobTooLarge(max);
    return new ContinuationStore({ root: resolveRoot(env), maxBlobBytes: max });
  }
  if (use.command === "drop-thread" || (use.command === "drop" && !use.guarded))
    return new ContinuationStore({ root: resolveRoot(env) });
  return storeFromEnvironment(env);
}
