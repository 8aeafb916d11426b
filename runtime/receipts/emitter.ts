/**
 * Receipt emission (spec/host-runtime.md §"Receipts"): synthesize, validate with our own validator
 * (the accept check's proof for a receipt of the host's own parts, else ajv and the rule plans),
 * number per run, and pass through the idempotency boundary.
 *
 * - No receipt for a notification-only event (`receipt.emitted`), whatever the outcome.
 * - An `invalid_request` failure gets a receipt only when its CallbackRequest is valid on its own
 *   (the fault was elsewhere in the envelope); otherwise there is nothing trustworthy to receipt.
 * - Only receipts of a client's answer (a valid CallbackResponse) are recorded under their
 *   idempotency key: a host-side failure (transport, timeout, ...) does not consume the key, so a
 *   retry of the same request can still be receipted. A recorded key seen again replays the prior
 *   receipt (same receipt_id, at_epoch_s and sequence) when the content is equal, and throws
 *   {@link IdempotencyConflictError} otherwise.
 * - `sequence`: a replay reuses the prior receipt's; otherwise the next number of the receipt's
 *   `harness_run_id` (allocated only once the receipt is valid, so rejected receipts leave no gap),
 *   or null without a run id, and always null for an emitter made with `sequencer: null` (a host
 *   with no run scope of its own, such as the one-shot `invoke` CLI).
 * - Linkage (runtime/wire/linkage.ts): a receipt that the receipt tree cannot hold (a `subcall`
 *   frame without a parent receipt, a receipt that is its own parent) is never made: for an
 *   `invalid_request` failure (the invoker's refusal) `emit` returns null, otherwise it throws
 *   {@link ReceiptSynthesisError}.
 * - With a durable store (e.g. {@link ReceiptLedger} as both store and sequencer) the whole emission
 *   runs in the store's transaction, and a receipt that is not `put` is passed to its `record`.
 * - Version (spec/wire-window.md, "Who speaks which version"): receipts carry the emitter's
 *   `wireVersion` (the version its host speaks, default current) and are judged, like the request
 *   of a refused call, with the window closed to it.
 */
import { ACCEPT_CHECKS } from "../../generated/ts/accept-checks.js";
import { EVENT_VOCABULARY } from "../../generated/ts/spec/event-vocabulary.js";
import { LIMITS } from "../../generated/ts/spec/limits.js";
import { INTEGRATION_MODE_VALUES } from "../../generated/ts/spec/plans.js";
import { OUTSIDE_WINDOW, WIRE_VERSION } from "../../generated/ts/spec/wire-version.js";
import type { CallbackRequest, DispatchEnvelope, LifecycleReceipt } from "../../generated/ts/types.js";
import { issueText } from "../invoker/failure.js";
import { isNotificationOnly } from "../invoker/request.js";
import type { InvocationResult } from "../invoker/types.js";
import { acceptsSerialized } from "../wire/fast-parse.js";
import type { ValidationIssue } from "../wire/issues.js";
import { validateValue } from "../wire/validate.js";
import { closedWindow, type WireWindow } from "../wire/window.js";
import { InMemoryIdempotencyStore, type IdempotencyKey, type IdempotencyStore } from "./idempotency.js";
import { linkageIssue, RECEIPT_NOT_OWN_PARENT } from "../wire/linkage.js";
import { SequenceGenerator, type SequenceSource } from "./sequence.js";
import { harnessId, synthesizeReceipt, type ReceiptContext } from "./synthesize.js";

/** The synthesized receipt is not wire-valid (a bad ReceiptContext, e.g. an empty client_id). Carries every issue. */
export class ReceiptSynthesisError extends Error {
  /**
   * `what`: why no receipt is made — the receipt that would be made is invalid (default), or the
   * host refuses the exchange by its own policy (linkage, a version it does not speak).
   */
  constructor(
    readonly issues: readonly ValidationIssue[],
    what = "the synthesized LifecycleReceipt is invalid",
  ) {
    super(`${what}: ${issues[0] ? issueText(issues[0]) : "unknown problem"}`);
    this.name = "ReceiptSynthesisError";
  }
}

const PROBE_EVENT = (
  EVENT_VOCABULARY.find((e) => e.dispatchable && !e.requires_frame_context) as (typeof EVENT_VOCABULARY)[number]
).event;
const PROBE_REQUEST: CallbackRequest = {
  schema_version: WIRE_VERSION,
  event: PROBE_EVENT,
  event_id: "probe",
  adapter_id: "probe",
  adapter_version: "probe",
  integration_mode: INTEGRATION_MODE_VALUES[0],
  invocation_id: "probe",
};

/**
 * Check a ReceiptContext on its own (before any invocation): the issues a receipt would have
 * because of the context's fields (e.g. `non-empty-identifier` at `/client_id`, `schema.type` at
 * `/at_epoch_s`). Returns [] when the context is usable. The parent (an empty one, or one equal to
 * the receipt id: `receipt-not-own-parent`) is left to the invokers' linkage check
 * ({@link linkageIssue}), which refuses the invocation itself as `invalid_request` before anything
 * is spawned, as the reference does.
 */
export function contextIssues(ctx: ReceiptContext): ValidationIssue[] {
  const result: InvocationResult = {
    ok: true,
    response: { schema_version: WIRE_VERSION, status: "observed" },
    stderrTail: "",
    elapsedMs: 0,
  };
  return validateValue("LifecycleReceipt", synthesizeReceipt(PROBE_REQUEST, result, ctx, null)).filter(
    (issue) => issue.rule !== RECEIPT_NOT_OWN_PARENT && issue.pointer !== "/parent_receipt_id",
  );
}

/**
 * Optional collaborators: a persistent store, a shared sequence source (null: no run scope, every
 * `sequence` is null). Defaults are in memory. A store shared between processes must also be the
 * sequencer (as a ReceiptLedger is), so that the sequence number is taken inside the store's
 * transaction (and a ReceiptLedger must be opened with the same `wireVersion`). `wireVersion`: the
 * version receipts carry, the one the host speaks (a version of generated/ts/window.ts
 * WIRE_WINDOW; default current).
 */
export interface ReceiptEmitterOptions {
  readonly store?: IdempotencyStore;
  readonly sequencer?: SequenceSource | null;
  readonly wireVersion?: string;
}

/** An emitted receipt and whether it is the replay of a prior one (the prior receipt, unchanged). */
export interface EmitOutcome {
  readonly receipt: LifecycleReceipt;
  readonly replayed: boolean;
}

/** Makes the receipt of each invocation; one emitter per host (it owns the sequences and the store). */
export class ReceiptEmitter {
  readonly store: IdempotencyStore;
  /** The run-scoped numbering, or null when this emitter numbers nothing (`sequence` is always null). */
  readonly sequencer: SequenceSource | null;
  /** The `schema_version` of every receipt this emitter makes. */
  readonly wireVersion: string;
  /** The window closed to {@link wireVersion}. */
  private readonly window: WireWindow;
  /** The receipt's accept check proves a current-version receipt: it counts only when this emitter writes current. */
  private readonly acceptProves: boolean;

  /** @throws WireWindowError (runtime/wire/window.ts) for a `wireVersion` this build does not speak */
  constructor(options: ReceiptEmitterOptions = {}) {
    this.store = options.store ?? new InMemoryIdempotencyStore();
    this.sequencer = options.sequencer === null ? null : (options.sequencer ?? new SequenceGenerator());
    this.wireVersion = options.wireVersion ?? WIRE_VERSION;
    this.window = closedWindow(this.wireVersion);
    this.acceptProves = this.window.includes(WIRE_VERSION);
  }

  /**
   * The receipt of one invocation of `envelope` that ended with `result`, or null when none is made
   * (receipt.emitted; an invalid_request failure whose request is itself invalid).
   * Throws {@link ReceiptSynthesisError} (bad context; a request of another version than
   * {@link wireVersion}), {@link IdempotencyConflictError}, or the
   * store's own errors (a ReceiptLedger: ReceiptLedgerError).
   */
  emit(envelope: DispatchEnvelope, result: InvocationResult, ctx: ReceiptContext): LifecycleReceipt | null {
    return this.emitOutcome(envelope, result, ctx)?.receipt ?? null;
  }

  /** As {@link emit}, saying whether the receipt is a replay of a prior one. */
  emitOutcome(envelope: DispatchEnvelope, result: InvocationResult, ctx: ReceiptContext): EmitOutcome | null {
    if (isNotificationOnly(envelope)) return null;
    const request = envelope?.request;
    if (
      !result.ok &&
      result.failure.variant === "invalid_request" &&
      validateValue("CallbackRequest", request, this.window).length > 0
    )
      return null;
    // One host, one version: a receipt never mixes a request of one version with another's rules.
    const version = (request as { readonly schema_version?: unknown } | undefined)?.schema_version;
    if (typeof version === "string" && version !== this.wireVersion)
      throw new ReceiptSynthesisError(
        [
          {
            rule: OUTSIDE_WINDOW.rule,
            pointer: "/request/schema_version",
            message: `the request is ${version}; this emitter writes ${this.wireVersion} receipts (give the ReceiptEmitter, like the invoker and the ledger, the wireVersion the host speaks)`,
          },
        ],
        "the exchange is in another wire version than the emitter's",
      );
    const unlinked = linkageIssue(envelope, ctx.parent_receipt_id ?? null, ctx.receipt_id);
    if (unlinked !== null) {
      if (!result.ok && result.failure.variant === "invalid_request") return null;
      // Host policy in every wire version (spec/host-runtime.md, "Linkage"), not a document rule.
      throw new ReceiptSynthesisError([unlinked], "the receipt linkage is refused (host policy)");
    }
    const emission = (): EmitOutcome => this.emitValid(request, result, ctx);
    return this.store.transaction !== undefined ? this.store.transaction(emission) : emission();
  }

  private emitValid(request: CallbackRequest, result: InvocationResult, ctx: ReceiptContext): EmitOutcome {
    const idem = request.idempotency_key ?? null;
    const key: IdempotencyKey | null =
      result.ok && idem !== null
        ? { client_id: ctx.client_id, adapter_id: request.adapter_id, idempotency_key: idem }
        : null;
    const prior = key !== null ? this.store.get(key) : undefined;
    const sequencer = this.sequencer;
    const runId = sequencer === null ? null : harnessId("harness_run_id", request, ctx);
    const sequence =
      prior !== undefined ? prior.sequence : runId !== null && sequencer !== null ? sequencer.current(runId) + 1 : null;

    const receipt = synthesizeReceipt(request, result, ctx, sequence, this.wireVersion);
    // Only a receipt made of the host's own parts is proved: a response's warnings are the caller's
    // objects (a getter or toJSON could show JSON.stringify something else than the check saw).
    const ownParts = !result.ok || receipt.warnings === undefined;
    const issues =
      this.acceptProves && ownParts && provedValid(receipt)
        ? NO_ISSUES
        : validateValue("LifecycleReceipt", receipt, this.window);
    if (issues.length > 0) throw new ReceiptSynthesisError(issues);

    if (key !== null) {
      const stored = this.store.put(key, receipt);
      if (stored.kind === "replayed") return { receipt: stored.prior, replayed: true };
    } else {
      this.store.record?.(receipt);
    }
    if (prior === undefined && runId !== null && sequencer !== null) sequencer.next(runId);
    return { receipt, replayed: false };
  }
}

const NO_ISSUES: readonly ValidationIssue[] = Object.freeze([]);

/**
 * Whether the LifecycleReceipt accept check (generated/ts/accept-checks.ts: schema and rules of the
 * current version in one walk) proves `receipt` valid, measured against its JSON text (which proves
 * it holds no member the check did not count). `receipt` must be one synthesizeReceipt made of
 * primitives and warnings of its own (fresh objects), so that JSON.stringify writes exactly the
 * values the check read. The common receipt is proved for a fraction of the validator's cost
 * (issue 30: the validator was about two thirds of what the receipt cost a `session` event, and a
 * session whose receipts are all proved never loads the LifecycleReceipt validator); false means "not proved" (e.g. a
 * text with escapes, a value JSON cannot write), never "invalid": the caller validates then.
 * Never throws.
 */
function provedValid(receipt: LifecycleReceipt): boolean {
  let text: string;
  try {
    text = JSON.stringify(receipt);
  } catch {
    return false;
  }
  return acceptsSerialized(receipt, text, ACCEPT_CHECKS.LifecycleReceipt, LIMITS.max_depth);
}
