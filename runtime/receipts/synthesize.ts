/**
 * Building one LifecycleReceipt from a request, the outcome of its invocation and the caller's
 * context (spec/host-runtime.md §"Receipts"). Pure: no validation, no sequence allocation, no
 * idempotency (runtime/receipts/emitter.ts does those).
 *
 * Status:
 * - the client answered (a valid CallbackResponse): the receipt takes the response's `status`; when
 *   it is `failed`, the response's `failure_class` and its `retry_class` (or the class's default);
 *   the response's `warnings` are carried over;
 * - the invocation failed: `status: failed`, the failure's class and retry class, and two warnings:
 *   {@link INVOCATION_FAILED_WARNING} (`<variant>: <detail>`) and, when the client wrote stderr,
 *   {@link CLIENT_STDERR_TAIL_WARNING} (the bounded tail).
 * `payload_receipts`, `capability_degradations` and `telemetry_summary` stay empty: this host does
 * no placement negotiation and measures nothing that belongs in replayed content.
 */
import { RECEIPT_WARNINGS_TABLE } from "../../generated/ts/spec/receipt-warnings.js";
import { WIRE_VERSION } from "../../generated/ts/spec/wire-version.js";
import type {
  CallbackRequest,
  FailureClass,
  LifecycleReceipt,
  ReceiptStatus,
  RetryClass,
  Warning,
} from "../../generated/ts/types.js";
import { defaultRetryClass } from "../invoker/failure.js";
import type { InvocationResult } from "../invoker/types.js";

// spec/tables/receipt-warnings.json lists the warnings of a failure receipt in the order written.
const [invocationFailed, clientStderrTail] = RECEIPT_WARNINGS_TABLE.warnings;
/** Warning code of a failure receipt (`invocation_failed`): the message is `<variant>: <detail>` of the failure. */
export const INVOCATION_FAILED_WARNING = invocationFailed.code;
/** Warning code of a failure receipt whose client wrote stderr (`client_stderr_tail`): the message is the stderr tail (limits.stderr_tail_bytes). */
export const CLIENT_STDERR_TAIL_WARNING = clientStderrTail.code;

/**
 * What the host knows that the request does not say (units: `at_epoch_s` in whole seconds since the
 * Unix epoch). `client_id` and `receipt_id` are required non-empty; `parent_receipt_id` is null for
 * a root receipt. A harness id given here (even null) wins over the request's; when absent
 * (undefined) the request's value is used. Receipts of one `harness_run_id` share a sequence.
 */
export interface ReceiptContext {
  readonly client_id: string;
  readonly receipt_id: string;
  readonly parent_receipt_id?: string | null;
  readonly at_epoch_s: number;
  readonly harness_session_id?: string | null;
  readonly harness_run_id?: string | null;
  readonly harness_task_id?: string | null;
}

type HarnessField = "harness_session_id" | "harness_run_id" | "harness_task_id";

/** The harness id a receipt carries: the context's when given, else the request's; null when none. */
export function harnessId(field: HarnessField, request: CallbackRequest, ctx: ReceiptContext): string | null {
  const fromContext = ctx[field];
  if (fromContext !== undefined) return fromContext;
  return request[field] ?? null;
}

function outcomeClasses(result: InvocationResult): {
  status: ReceiptStatus;
  failure_class: FailureClass | null;
  retry_class: RetryClass | null;
  warnings: Warning[];
} {
  if (!result.ok) {
    const { failure } = result;
    const warnings: Warning[] = [{ code: INVOCATION_FAILED_WARNING, message: `${failure.variant}: ${failure.detail}` }];
    if (failure.stderr_tail !== undefined && failure.stderr_tail !== "")
      warnings.push({ code: CLIENT_STDERR_TAIL_WARNING, message: failure.stderr_tail });
    return { status: "failed", failure_class: failure.failure_class, retry_class: failure.retry_class, warnings };
  }
  const { response } = result;
  const warnings = [...(response.warnings ?? [])];
  if (response.status !== "failed")
    return { status: response.status, failure_class: null, retry_class: null, warnings };
  const failureClass = response.failure_class ?? "internal_error";
  return {
    status: "failed",
    failure_class: failureClass,
    retry_class: response.retry_class ?? defaultRetryClass(failureClass),
    warnings,
  };
}

/**
 * Build the receipt (fields in schema order; optional members omitted when none, empty collections
 * omitted). `wireVersion` is its `schema_version`: the version the host speaks (spec/wire-window.md,
 * "Who speaks which version"; default current).
 */
export function synthesizeReceipt(
  request: CallbackRequest,
  result: InvocationResult,
  ctx: ReceiptContext,
  sequence: number | null,
  wireVersion: string = WIRE_VERSION,
): LifecycleReceipt {
  const classes = outcomeClasses(result);
  const harness: Partial<Record<HarnessField, string>> = {};
  for (const field of ["harness_session_id", "harness_run_id", "harness_task_id"] as const) {
    const value = harnessId(field, request, ctx);
    if (value !== null) harness[field] = value;
  }
  return {
    schema_version: wireVersion,
    receipt_id: ctx.receipt_id,
    idempotency_key: request.idempotency_key ?? null,
    client_id: ctx.client_id,
    adapter_id: request.adapter_id,
    invocation_id: request.invocation_id,
    event: request.event,
    event_id: request.event_id,
    sequence,
    parent_receipt_id: ctx.parent_receipt_id ?? null,
    integration_mode: request.integration_mode,
    status: classes.status,
    at_epoch_s: ctx.at_epoch_s,
    ...harness,
    failure_class: classes.failure_class,
    retry_class: classes.retry_class,
    ...(classes.warnings.length > 0 ? { warnings: classes.warnings } : {}),
  };
}
