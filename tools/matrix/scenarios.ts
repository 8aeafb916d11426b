/**
 * The rows of the cross-language matrix: every dispatchable lifecycle event (from the generated
 * event vocabulary) delivered with a payload or two, each failure a client can cause, and the
 * receipt.emitted guard. Each scenario states what every host must observe, independently of the
 * tables the hosts read (the classes below are the protocol's promises, written out).
 */
import { EVENT_VOCABULARY } from "../../generated/ts/spec.js";
import type { FailureVariant } from "../../generated/ts/spec.js";
import type {
  DispatchEnvelope,
  FailureClass,
  LifecycleEventKind,
  ReceiptStatus,
  RetryClass,
} from "../../generated/ts/types.js";
import type { Behaviour } from "../../test/support/fixture-clients.js";
import {
  callbackRequest,
  dispatchEnvelope,
  frameContext,
  requiresFrameContext,
  textPayload,
} from "../../test/support/dispatch.js";
import { type HostId, type Observation, REFERENCE_LINKAGE_REFUSAL } from "./hosts.js";

/** Deadline of a round trip that should succeed (ms): generous, for a loaded 2-core machine. */
export const NORMAL_TIMEOUT_MS = 10_000;
/**
 * Deadline of the hang scenario (ms). The cell also asks that the client was started, so the
 * deadline must cover the slowest client's start-up on a loaded 2-core machine: the Python client
 * (through pyenv's bash shim, then the SDK import) starts in about 0.3 s when quiet but missed
 * 1.5 s in 2 of 4 fresh-clone CI runs. 5 s adds about 7 s of matrix time (8 hang cells x 3.5 s,
 * concurrency 4).
 */
export const HANG_TIMEOUT_MS = 5_000;

/**
 * What one host must observe. `receipt`: the receipt status, or null when no receipt is made;
 * `failure_class` / `retry_class` as in {@link Observation} (`retry_class` undefined = not checked);
 * `variant`: the failure variant (ours) or reference variant name, null when the client answered;
 * `spawned`: whether the client process must have been started.
 */
export interface Expected {
  readonly receipt: ReceiptStatus | null;
  readonly failure_class: FailureClass | null;
  readonly retry_class?: RetryClass | null;
  readonly variant: string | null;
  readonly spawned: boolean;
}

/**
 * One row: how to build its envelope, the client behaviour, the deadline and each host's expectation.
 * `parentReceiptId` is the parent receipt both hosts are given (`invoke(envelope, { parentReceiptId })`,
 * `--parent-receipt-id`): a `subcall` frame needs one (frame→receipt linkage); undefined = none.
 */
export interface Scenario {
  readonly id: string;
  readonly label: string;
  readonly envelope: DispatchEnvelope;
  readonly parentReceiptId?: string;
  readonly behaviour: Behaviour;
  readonly timeoutMs: number;
  readonly expect: { readonly [H in HostId]: Expected };
}

const ANSWERED = { variant: null, spawned: true } as const;

function both(expected: Expected): Scenario["expect"] {
  return { ts: expected, ref: expected };
}

/**
 * A failure the host detects (the client misbehaved): our host receipts it as failed with the
 * class; the reference prints no receipt and exits 1.
 */
function hostDetected(failureClass: FailureClass, ours: FailureVariant, reference: string): Scenario["expect"] {
  return {
    ts: { receipt: "failed", failure_class: failureClass, variant: ours, spawned: true },
    ref: { receipt: null, failure_class: failureClass, variant: reference, spawned: true },
  };
}

/** The parent receipt of every `subcall` frame the matrix delivers. */
export const PARENT_RECEIPT_ID = "rcpt-matrix-root";

/** The parent receipt a host must be given for `envelope`: {@link PARENT_RECEIPT_ID} for a subcall frame. */
function parentFor(envelope: DispatchEnvelope): { parentReceiptId?: string } {
  return envelope.request.frame_context?.frame_class === "subcall" ? { parentReceiptId: PARENT_RECEIPT_ID } : {};
}

let counter = 0;
function envelopeFor(event: LifecycleEventKind, payloadCount: 0 | 1 | 2): DispatchEnvelope {
  const n = ++counter;
  const payloads = [
    textPayload({
      payload_id: `note-${n}`,
      client_id: "matrix",
      payload_kind: "receipt_note",
      format: "text",
      body: `note for ${event}`,
      placement: "receipt_only",
    }),
    textPayload({
      payload_id: `frame-${n}`,
      client_id: "matrix",
      payload_kind: "instruction_frame",
      format: "markdown",
      body: `# ${event}\nKeep answers short. — ✓`,
      placement: "developer_equivalent_frame",
    }),
  ].slice(0, payloadCount);
  const request = callbackRequest(event, {
    event_id: `evt-matrix-${n}`,
    invocation_id: `inv-matrix-${n}`,
    harness_session_id: "sess-matrix",
    ...(requiresFrameContext(event)
      ? { frame_context: n % 2 === 0 ? frameContext(`frame-${n}`, "frame-root") : frameContext(`frame-${n}`) }
      : {}),
  });
  return dispatchEnvelope(request, payloads);
}

/** One row per dispatchable event; odd rows carry one payload, even rows two. */
function eventScenarios(): Scenario[] {
  return EVENT_VOCABULARY.filter((e) => e.dispatchable).map((e, i) => {
    const envelope = envelopeFor(e.event, i % 2 === 0 ? 1 : 2);
    return {
      id: e.event,
      label: e.event,
      envelope,
      ...parentFor(envelope),
      behaviour: { kind: "echo" },
      timeoutMs: NORMAL_TIMEOUT_MS,
      expect: both({ receipt: "delivered", failure_class: null, retry_class: null, ...ANSWERED }),
    };
  });
}

/** Failed class and retry class a client declares in the client-failure row (retry deliberately not the class's default). */
export const DECLARED_FAILURE = { failureClass: "payload_rejected", retryClass: "do_not_retry" } as const satisfies {
  failureClass: FailureClass;
  retryClass: RetryClass;
};
/** The exit code of the crash row. */
export const CRASH_EXIT_CODE = 3;

function failureScenarios(): Scenario[] {
  const event = (): DispatchEnvelope => envelopeFor("session.started", 1);
  const receiptEmitted = envelopeFor("receipt.emitted", 0);
  const orphan = envelopeFor("frame.opening", 0);
  orphan.request.frame_context = frameContext(`frame-orphan-${counter}`, "frame-root");
  return [
    {
      id: "client-failed",
      label: "client answers failed",
      envelope: event(),
      behaviour: { kind: "fail", ...DECLARED_FAILURE },
      timeoutMs: NORMAL_TIMEOUT_MS,
      expect: both({
        receipt: "failed",
        failure_class: DECLARED_FAILURE.failureClass,
        retry_class: DECLARED_FAILURE.retryClass,
        ...ANSWERED,
      }),
    },
    {
      id: "exit",
      label: `client exits ${CRASH_EXIT_CODE}`,
      envelope: event(),
      behaviour: { kind: "exit", code: CRASH_EXIT_CODE },
      timeoutMs: NORMAL_TIMEOUT_MS,
      expect: hostDetected("transport_error", "non_zero_exit", "NonZeroExit"),
    },
    {
      id: "hang",
      label: `client hangs (${HANG_TIMEOUT_MS} ms)`,
      envelope: event(),
      behaviour: { kind: "hang" },
      timeoutMs: HANG_TIMEOUT_MS,
      expect: hostDetected("timeout", "timeout", "Timeout"),
    },
    {
      id: "garbage",
      label: "garbage on stdout",
      envelope: event(),
      behaviour: { kind: "garbage" },
      timeoutMs: NORMAL_TIMEOUT_MS,
      expect: hostDetected("invalid_request", "parse_response", "ParseResponse"),
    },
    {
      // The reference's reader denies unknown fields while parsing, so it names ParseResponse; ours
      // parses the JSON first and reports the schema violation as invalid_response. Same class.
      id: "unknown-field",
      label: "unknown response field",
      envelope: event(),
      behaviour: { kind: "unknown-field" },
      timeoutMs: NORMAL_TIMEOUT_MS,
      expect: hostDetected("invalid_request", "invalid_response", "ParseResponse"),
    },
    {
      id: "receipt.emitted",
      label: "receipt.emitted, no spawn",
      envelope: receiptEmitted,
      behaviour: { kind: "echo" },
      timeoutMs: NORMAL_TIMEOUT_MS,
      expect: {
        ts: { receipt: null, failure_class: "invalid_request", variant: "receipt_emitted_rejected", spawned: false },
        ref: { receipt: null, failure_class: "invalid_request", variant: "ReceiptEmittedRejected", spawned: false },
      },
    },
    {
      // Frame→receipt linkage: a subcall frame's receipt needs a parent, so both hosts refuse the
      // request before spawning anything (no parent receipt is given here).
      id: "subcall-no-parent",
      label: "subcall frame, no parent receipt, no spawn",
      envelope: orphan,
      behaviour: { kind: "echo" },
      timeoutMs: NORMAL_TIMEOUT_MS,
      expect: {
        ts: { receipt: null, failure_class: "invalid_request", variant: "invalid_request", spawned: false },
        ref: { receipt: null, failure_class: "invalid_request", variant: REFERENCE_LINKAGE_REFUSAL, spawned: false },
      },
    },
  ];
}

/** Every row of the matrix, events first. */
export function scenarios(): Scenario[] {
  counter = 0;
  return [...eventScenarios(), ...failureScenarios()];
}

function show(value: string | null | undefined): string {
  return value ?? "none";
}

/**
 * Compare one observation with its expectation. Returns the reasons the cell fails ([] = pass),
 * most telling first: problems the host reported, then spawn, receipt, classes, variant, identity.
 */
export function judge(scenario: Scenario, host: HostId, observed: Observation, spawned: boolean): string[] {
  const want = scenario.expect[host];
  const reasons = [...observed.problems];
  if (spawned !== want.spawned) reasons.push(want.spawned ? "client was never started" : "client was started");
  if (observed.status !== want.receipt)
    reasons.push(`receipt ${show(want.receipt)} wanted, got ${show(observed.status)}`);
  if (observed.failure_class !== want.failure_class)
    reasons.push(`failure_class ${show(want.failure_class)} wanted, got ${show(observed.failure_class)}`);
  if (want.retry_class !== undefined && observed.retry_class !== want.retry_class)
    reasons.push(`retry_class ${show(want.retry_class)} wanted, got ${show(observed.retry_class)}`);
  if (observed.variant !== want.variant)
    reasons.push(
      `variant ${show(want.variant)} wanted, got ${show(observed.variant)}${observed.detail ? ` (${observed.detail})` : ""}`,
    );
  const receipt = observed.receipt;
  const request = scenario.envelope.request;
  if (
    receipt !== null &&
    (receipt.event !== request.event ||
      receipt.event_id !== request.event_id ||
      receipt.invocation_id !== request.invocation_id)
  ) {
    reasons.push(`receipt names ${receipt.event}/${receipt.event_id}/${receipt.invocation_id}, not the request's`);
  }
  return reasons;
}

/** The expected outcome as table text: `delivered`, `failed payload_rejected/do_not_retry`, `timeout`, ... */
export function expectedText(scenario: Scenario): string {
  const { ts } = scenario.expect;
  if (ts.variant === null)
    return ts.failure_class === null
      ? show(ts.receipt)
      : `${show(ts.receipt)} ${ts.failure_class}/${show(ts.retry_class)}`;
  return ts.failure_class ?? "none";
}

/** The expected variants as table text (`ours | reference`), "" when the client answers. */
export function variantText(scenario: Scenario): string {
  const { ts, ref } = scenario.expect;
  return ts.variant === null && ref.variant === null ? "" : `${show(ts.variant)} | ${show(ref.variant)}`;
}
