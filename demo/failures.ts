/**
 * "When things go wrong": the demo drives misbehaving clients and shows how each failure is
 * classified and receipted — a hanging client (timeout), a crashing client (transport_error),
 * garbage on stdout (invalid_request), and receipt.emitted, which is refused before any process is
 * started and never receipted. One ReceiptEmitter for the whole section (its own harness run).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FailureVariant } from "../generated/ts/spec.js";
import type { FailureClass, LifecycleEventKind, LifecycleReceipt, ReceiptStatus } from "../generated/ts/types.js";
import { SubprocessInvoker } from "../runtime/invoker/subprocess.js";
import { ReceiptEmitter } from "../runtime/receipts/emitter.js";
import { callbackRequest, dispatchEnvelope } from "../test/support/dispatch.js";
import { clientArgs, FIXTURE_CLIENTS, type Behaviour, type ClientLang } from "../test/support/fixture-clients.js";
import { SESSION_TIMEOUT_MS } from "./session.js";

/** Deadline of the hanging client's round trip (ms). */
export const HANG_TIMEOUT_MS = 1_500;

/** One misbehaving case and what must come of it. `receipt`: whether a receipt is made. */
export interface FailureCase {
  readonly title: string;
  readonly lang: ClientLang;
  readonly event: LifecycleEventKind;
  readonly behaviour: Behaviour;
  readonly timeoutMs: number;
  readonly expect: {
    readonly failure_class: FailureClass;
    readonly variant: FailureVariant;
    readonly receipt: boolean;
    readonly spawned: boolean;
  };
}

/** The cases, in the order they are shown. */
export const FAILURE_CASES: readonly FailureCase[] = [
  {
    title: `hanging client (deadline ${HANG_TIMEOUT_MS} ms)`,
    lang: "go",
    event: "supervisor.tick",
    behaviour: { kind: "hang" },
    timeoutMs: HANG_TIMEOUT_MS,
    expect: { failure_class: "timeout", variant: "timeout", receipt: true, spawned: true },
  },
  {
    title: "crashing client (exit 3)",
    lang: "python",
    event: "session.started",
    behaviour: { kind: "exit", code: 3 },
    timeoutMs: SESSION_TIMEOUT_MS,
    expect: { failure_class: "transport_error", variant: "non_zero_exit", receipt: true, spawned: true },
  },
  {
    title: "garbage on stdout",
    lang: "go",
    event: "context.pressure_observed",
    behaviour: { kind: "garbage" },
    timeoutMs: SESSION_TIMEOUT_MS,
    expect: { failure_class: "invalid_request", variant: "parse_response", receipt: true, spawned: true },
  },
  {
    title: "receipt.emitted sent to a client",
    lang: "python",
    event: "receipt.emitted",
    behaviour: { kind: "echo" },
    timeoutMs: SESSION_TIMEOUT_MS,
    expect: { failure_class: "invalid_request", variant: "receipt_emitted_rejected", receipt: false, spawned: false },
  },
];

/** What came of one case. `variant` null: the client answered; `problems`: what was not as expected. */
export interface FailureRow {
  readonly failureCase: FailureCase;
  readonly status: ReceiptStatus | null;
  readonly failure_class: FailureClass | null;
  readonly variant: FailureVariant | null;
  readonly receipt_id: string | null;
  readonly spawned: boolean;
  readonly elapsedMs: number;
  readonly problems: readonly string[];
}

/** Drive every case (run id `run-<tag>`); returns the rows and the receipts made. */
export async function runFailureCases(tag: string): Promise<{ rows: FailureRow[]; receipts: LifecycleReceipt[] }> {
  const emitter = new ReceiptEmitter();
  const marks = mkdtempSync(join(tmpdir(), "lifeloop-demo-"));
  const rows: FailureRow[] = [];
  const receipts: LifecycleReceipt[] = [];
  try {
    for (const [i, c] of FAILURE_CASES.entries()) {
      const mark = join(marks, `case-${i}`);
      const client = FIXTURE_CLIENTS[c.lang];
      const request = callbackRequest(c.event, {
        event_id: `evt-${tag}-${i + 1}`,
        invocation_id: `inv-${tag}-${i + 1}`,
        harness_session_id: `sess-${tag}`,
        harness_run_id: `run-${tag}`,
      });
      const envelope = dispatchEnvelope(request);
      const result = await new SubprocessInvoker({
        program: client.program,
        args: clientArgs(c.behaviour, mark),
        timeoutMs: c.timeoutMs,
      }).invoke(envelope);
      const receipt = emitter.emit(envelope, result, {
        client_id: `demo-${c.lang}-echo`,
        receipt_id: `rcpt-${tag}-${String(i + 1).padStart(2, "0")}`,
        at_epoch_s: Math.floor(Date.now() / 1000),
      });
      if (receipt !== null) receipts.push(receipt);
      const spawned = existsSync(mark);
      const failureClass = receipt?.failure_class ?? (result.ok ? null : result.failure.failure_class);
      const variant = result.ok ? null : result.failure.variant;
      const problems: string[] = [];
      if (failureClass !== c.expect.failure_class || variant !== c.expect.variant) {
        problems.push(
          `${c.expect.variant} (${c.expect.failure_class}) expected, got ${variant ?? "an answer"} (${failureClass ?? "no failure class"})`,
        );
      }
      if ((receipt !== null) !== c.expect.receipt)
        problems.push(c.expect.receipt ? "no receipt was made" : "a receipt was made");
      if (spawned !== c.expect.spawned)
        problems.push(c.expect.spawned ? "the client was never started" : "the client was started");
      rows.push({
        failureCase: c,
        status: receipt?.status ?? null,
        failure_class: failureClass,
        variant,
        receipt_id: receipt?.receipt_id ?? null,
        spawned,
        elapsedMs: result.elapsedMs,
        problems,
      });
    }
  } finally {
    rmSync(marks, { recursive: true, force: true });
  }
  return { rows, receipts };
}
