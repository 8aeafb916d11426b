/**
 * The replay boundary (spec/host-runtime.md §"Receipts": idempotency). Receipts that carry an
 * `idempotency_key` are recorded under (client_id, adapter_id, idempotency_key). Recording the same
 * key again with the same content replays the prior receipt; different content is a conflict
 * (FailureClass `state_conflict`). "Content" is every field except the four minted per emission or
 * per transport attempt: `receipt_id`, `invocation_id`, `at_epoch_s` and `sequence` (a retry of the
 * same request under a new invocation id is a replay, as in lifeloop-cli 0.9.0). Presence is normalized first: an optional member that
 * is null equals an absent one, and an empty collection equals an absent one.
 */
import { defineMember } from "../wire/own.js";
import type { FailureClass, LifecycleReceipt, RetryClass } from "../../generated/ts/types.js";
import { defaultRetryClass } from "../invoker/failure.js";

/** The scope of an idempotency key: every field is a non-empty string. */
export interface IdempotencyKey {
  readonly client_id: string;
  readonly adapter_id: string;
  readonly idempotency_key: string;
}

/** Result of {@link IdempotencyStore.put}: first write, or a replay returning the prior receipt. */
export type StoreOutcome =
  | { readonly kind: "inserted" }
  | { readonly kind: "replayed"; readonly prior: LifecycleReceipt };

/**
 * Storage of recorded receipts; implement it to persist the boundary (e.g. in a database).
 * `put` MUST compare with {@link replayContentEqual} and throw {@link IdempotencyConflictError} on a
 * difference, and MUST NOT overwrite a prior receipt.
 */
export interface IdempotencyStore {
  get(key: IdempotencyKey): LifecycleReceipt | undefined;
  put(key: IdempotencyKey, receipt: LifecycleReceipt): StoreOutcome;
  /**
   * Optional, for a store shared between processes: run `body` (one whole emission: the replay
   * check, the sequence number, `put`, `record`) atomically, returning its value or rethrowing its
   * error after undoing its writes. Without it the emitter assumes one process owns the store.
   */
  transaction?<T>(body: () => T): T;
  /** Optional: keep a receipt that was not `put` (no idempotency key, or a host-side failure), e.g. for a durable receipt list. */
  record?(receipt: LifecycleReceipt): void;
}

/**
 * The same idempotency key was reused with different receipt content. `failure_class` is
 * `state_conflict` and `retry_class` its default (spec/tables/failure-retry-defaults.json).
 */
export class IdempotencyConflictError extends Error {
  readonly failure_class: FailureClass = "state_conflict";
  readonly retry_class: RetryClass = defaultRetryClass("state_conflict");

  constructor(
    readonly key: IdempotencyKey,
    readonly prior: LifecycleReceipt,
    readonly attempted: LifecycleReceipt,
  ) {
    super(
      `idempotency_key ${JSON.stringify(key.idempotency_key)} of client ${JSON.stringify(key.client_id)} and adapter ${JSON.stringify(key.adapter_id)} was reused with different receipt content`,
    );
    this.name = "IdempotencyConflictError";
  }
}

// invocation_id names one transport attempt: a retry gets a new one and is still the same receipt.
const PER_EMISSION: ReadonlySet<string> = new Set(["receipt_id", "invocation_id", "at_epoch_s", "sequence"]);
const OPEN_MAPS: ReadonlySet<string> = new Set(["telemetry_summary"]);

function canonical(value: unknown, dropNulls: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => canonical(item, dropNulls));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined || (dropNulls && member === null)) continue;
    defineMember(out, key, canonical(member, dropNulls && !OPEN_MAPS.has(key)));
  }
  return out;
}

function isEmptyCollection(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return value !== null && typeof value === "object" && Object.keys(value).length === 0;
}

/** The idempotency-invariant content of a receipt as canonical JSON text (sorted keys, normalized presence). */
export function replayContent(receipt: LifecycleReceipt): string {
  const content: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(receipt)) {
    if (PER_EMISSION.has(key) || isEmptyCollection(value)) continue;
    defineMember(content, key, value);
  }
  return JSON.stringify(canonical(content, true));
}

/** True when two receipts are equal in every field except receipt_id, invocation_id, at_epoch_s and sequence. */
export function replayContentEqual(a: LifecycleReceipt, b: LifecycleReceipt): boolean {
  return replayContent(a) === replayContent(b);
}

function storeKey(key: IdempotencyKey): string {
  return JSON.stringify([key.client_id, key.adapter_id, key.idempotency_key]);
}

/** An {@link IdempotencyStore} in memory, for one host process. */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, LifecycleReceipt>();

  get(key: IdempotencyKey): LifecycleReceipt | undefined {
    return this.entries.get(storeKey(key));
  }

  put(key: IdempotencyKey, receipt: LifecycleReceipt): StoreOutcome {
    const id = storeKey(key);
    const prior = this.entries.get(id);
    if (prior === undefined) {
      this.entries.set(id, receipt);
      return { kind: "inserted" };
    }
    if (replayContentEqual(prior, receipt)) return { kind: "replayed", prior };
    throw new IdempotencyConflictError(key, prior, receipt);
  }

  /** Number of recorded keys. */
  get size(): number {
    return this.entries.size;
  }
}
