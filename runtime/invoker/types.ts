/**
 * Shapes shared by every invoker (CALLBACK-001 §"Transport Modes"): the {@link CallbackInvoker}
 * seam, the outcome of one invocation, the failure object, and the typed configuration error.
 * Normative prose: spec/host-runtime.md.
 */
import type { FailureVariant } from "../../generated/ts/spec/subprocess-failure-mapping.js";
import type {
  CallbackRequest,
  CallbackResponse,
  DispatchEnvelope,
  FailureClass,
  PayloadEnvelope,
  RetryClass,
} from "../../generated/ts/types.js";
import type { ValidationIssue } from "../wire/issues.js";

/**
 * Why one invocation failed. The keys are the ones `lifeloop-callback invoke` prints.
 * - `variant`: a row of spec/tables/subprocess-failure-mapping.json (FAILURE_VARIANTS).
 * - `failure_class`: that row's FailureClass; `retry_class`: the class's default RetryClass
 *   (spec/tables/failure-retry-defaults.json).
 * - `detail`: human-readable, bounded; for parse_response it quotes the first bytes of stdout
 *   (limits.failure_detail_preview_bytes), for invalid_* it names the rule id and JSON pointer.
 * - `exit_code` / `signal`: how the child ended, when that was not a clean exit 0 (non_zero_exit,
 *   and a timeout or overflow whose kill ended the child); `signal` is a name such as `SIGKILL`.
 * - `stderr_tail`: the last limits.stderr_tail_bytes bytes of the child's stderr, decoded as UTF-8
 *   (invalid sequences replaced), present when the child wrote any stderr.
 * - `issues`: the validation issues behind invalid_request / invalid_response / parse_response.
 */
export interface InvocationFailure {
  readonly variant: FailureVariant;
  readonly failure_class: FailureClass;
  readonly retry_class: RetryClass;
  readonly detail: string;
  readonly exit_code?: number;
  readonly signal?: string;
  readonly stderr_tail?: string;
  readonly issues?: readonly ValidationIssue[];
}

/**
 * Outcome of one invocation; never thrown.
 * - ok: the client answered with a valid CallbackResponse (its own `status` may still be `failed`).
 *   `stderrTail` is the bounded stderr tail ("" for in-process or a silent client).
 * - not ok: {@link InvocationFailure}.
 * `elapsedMs` is wall-clock milliseconds from the call to settling (fractional).
 */
export type InvocationResult =
  | { readonly ok: true; readonly response: CallbackResponse; readonly stderrTail: string; readonly elapsedMs: number }
  | { readonly ok: false; readonly failure: InvocationFailure; readonly elapsedMs: number };

/** Per-call options of {@link CallbackInvoker.invoke}. */
export interface InvokeOptions {
  /**
   * When the envelope came out of `parseStrictJson`, its `nonIntegerNumberPointers`: a number
   * written `1.0`, `1e2` or `-0` in an integer field is then reported as `schema.type`, exactly
   * as `parseWireDocument` would. Omit for envelopes built in memory.
   */
  readonly nonIntegerNumberPointers?: readonly string[];
  /**
   * The receipt id of the call this event belongs under (spec/host-runtime.md §"Receipts",
   * "Linkage"); null or absent for a root receipt. A `subcall` frame needs one, and it must not be
   * empty: otherwise the call is an `invalid_request` failure and nothing is delivered.
   */
  readonly parentReceiptId?: string | null;
  /**
   * The receipt id this invocation will be receipted under, when known: a `parentReceiptId` equal to
   * it (a receipt that is its own parent) is then refused before delivery too.
   */
  readonly receiptId?: string;
}

/**
 * The transport seam (CALLBACK-001 §"Transport Modes"): deliver one DispatchEnvelope to a client and
 * return its CallbackResponse or a classified failure. Implementations never throw and never
 * reject for a bad envelope or a misbehaving client; every problem is an {@link InvocationFailure}.
 */
export interface CallbackInvoker {
  invoke(envelope: DispatchEnvelope, options?: InvokeOptions): Promise<InvocationResult>;
}

/**
 * The in-process client (CALLBACK-001 §"Transport Modes" A): called with the validated request
 * and the envelope's payloads (empty array when none). Throwing or rejecting is `handler_threw`.
 */
export type CallbackHandler = (
  request: CallbackRequest,
  payloads: readonly PayloadEnvelope[],
) => CallbackResponse | Promise<CallbackResponse>;

/**
 * A configuration that cannot be used (a usage error, not a failure variant): relative program,
 * missing or invalid timeoutMs, bad args or limits. Thrown by invoker constructors before anything
 * is spawned. `field` names the offending config key.
 */
export class InvokerConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "InvokerConfigError";
  }
}
