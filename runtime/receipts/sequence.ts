/**
 * Per-run receipt sequence numbers (spec/host-runtime.md §"Receipts": sequence): one counter per
 * `harness_run_id`, starting at 1; a receipt without a run id has `sequence: null`. Counters are
 * independent (run A, run B, run A gives 1, 1, 2) and live as long as the generator.
 */

/**
 * Where a {@link ReceiptEmitter} gets sequence numbers: {@link SequenceGenerator} in memory, or a
 * durable source such as {@link ReceiptLedger} (shared by every process that opens its file).
 */
export interface SequenceSource {
  /** Hand out the next sequence number of `runId` (the first is 1). */
  next(runId: string): number;
  /** The last number handed out for `runId`, or 0 when none was. */
  current(runId: string): number;
}

/** Hands out 1, 2, 3, ... per run id, in memory. */
export class SequenceGenerator implements SequenceSource {
  private readonly counters = new Map<string, number>();

  /** The next sequence number of `runId` (the first is 1). */
  next(runId: string): number {
    const value = (this.counters.get(runId) ?? 0) + 1;
    this.counters.set(runId, value);
    return value;
  }

  /** The last number handed out for `runId`, or 0 when none was. */
  current(runId: string): number {
    return this.counters.get(runId) ?? 0;
  }
}
