/**
 * The in-process invoker (CALLBACK-001 §"A. In-process callbacks", spec/host-runtime.md): calls a
 * TypeScript handler in the host's own process, with the same guard, request validation and
 * response validation as the subprocess path: both documents are serialized and judged as the
 * bytes a pipe would carry, and the handler gets a copy parsed back from them.
 */
import { performance } from "node:perf_hooks";
import { LIMITS } from "../../generated/ts/spec.js";
import type { CallbackResponse, DispatchEnvelope } from "../../generated/ts/types.js";
import { checkTimeoutMs } from "./config.js";
import { issueText, makeFailure } from "./failure.js";
import { payloadsOf, prepareEnvelope, wireSnapshot, type WireSnapshot } from "./request.js";
import type { ValidationIssue } from "../wire/issues.js";
import { InvokerConfigError, type CallbackHandler, type CallbackInvoker, type InvocationFailure, type InvocationResult, type InvokeOptions } from "./types.js";

/**
 * Configuration of an {@link InProcessInvoker}.
 * - `handler`: the client, `(request, payloads) => CallbackResponse | Promise<CallbackResponse>`.
 * - `timeoutMs`: optional integer ms (1..limits.max_timeout_ms); when the handler's promise has not
 *   settled by then the call fails with `timeout` (the handler itself cannot be stopped and its
 *   late result is ignored). Without it, the call waits as long as the handler does.
 */
export interface InProcessInvokerConfig {
  readonly handler: CallbackHandler;
  readonly timeoutMs?: number;
}

/** Calls a handler in-process; the constructor throws {@link InvokerConfigError}, `invoke` never throws. */
export class InProcessInvoker implements CallbackInvoker {
  readonly timeoutMs: number | undefined;
  private readonly handler: CallbackHandler;

  constructor(config: InProcessInvokerConfig) {
    if (config === null || typeof config !== "object") throw new TypeError("InProcessInvoker needs a config object");
    if (typeof config.handler !== "function") throw new InvokerConfigError("handler", "handler must be a function (request, payloads) => CallbackResponse");
    this.handler = config.handler;
    this.timeoutMs = config.timeoutMs === undefined ? undefined : checkTimeoutMs("timeoutMs", config.timeoutMs);
  }

  /**
   * Guard → serialize and judge the envelope → call the handler with a copy parsed back from those
   * bytes → serialize and judge its response, exactly as if it had crossed a pipe. Failure variants:
   * receipt_emitted_rejected, serialize_request, request_too_large, invalid_request, handler_threw,
   * timeout, response_too_large, invalid_response.
   */
  async invoke(envelope: DispatchEnvelope, options: InvokeOptions = {}): Promise<InvocationResult> {
    const started = performance.now();
    const elapsed = (): number => performance.now() - started;
    const prepared = prepareEnvelope(envelope, LIMITS.max_request_bytes, options.nonIntegerNumberPointers);
    if (!prepared.ok) return { ok: false, failure: prepared.failure, elapsedMs: elapsed() };

    const settled = await this.callHandler(prepared.envelope);
    if (settled.kind === "threw") {
      return { ok: false, failure: makeFailure("handler_threw", `the handler threw: ${describeThrown(settled.error)}`), elapsedMs: elapsed() };
    }
    if (settled.kind === "timeout") {
      return { ok: false, failure: makeFailure("timeout", `the handler did not settle within ${this.timeoutMs} ms`), elapsedMs: elapsed() };
    }
    const answer = wireSnapshot("CallbackResponse", settled.response, LIMITS.max_response_bytes);
    if (answer.ok) return { ok: true, response: answer.value, stderrTail: "", elapsedMs: elapsed() };
    return { ok: false, failure: responseFailure(answer), elapsedMs: elapsed() };
  }

  private callHandler(envelope: DispatchEnvelope): Promise<{ kind: "returned"; response: CallbackResponse } | { kind: "threw"; error: unknown } | { kind: "timeout" }> {
    let pending: Promise<CallbackResponse>;
    try {
      pending = Promise.resolve(this.handler(envelope.request, payloadsOf(envelope)));
    } catch (error) {
      return Promise.resolve({ kind: "threw", error });
    }
    const answered = pending.then(
      (response) => ({ kind: "returned" as const, response }),
      (error: unknown) => ({ kind: "threw" as const, error }),
    );
    const timeoutMs = this.timeoutMs;
    if (timeoutMs === undefined) return answered;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<{ kind: "timeout" }>((resolve) => {
      timer = setTimeout(() => resolve({ kind: "timeout" }), timeoutMs);
    });
    return Promise.race([answered, expired]).finally(() => clearTimeout(timer));
  }
}

function describeThrown(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return String(error);
  } catch {
    return "a value that cannot be shown";
  }
}

/** The failure of a handler's response that does not survive the wire (see wireSnapshot). */
function responseFailure(answer: Exclude<WireSnapshot<CallbackResponse>, { ok: true }>): InvocationFailure {
  if (answer.problem === "serialize") return makeFailure("invalid_response", `the CallbackResponse cannot be serialized: ${answer.detail}`);
  const primary = answer.issues[0] as ValidationIssue;
  if (primary.rule === "json.max-bytes") {
    return makeFailure("response_too_large", `the CallbackResponse serializes to more than limits.max_response_bytes (${LIMITS.max_response_bytes} bytes)`);
  }
  return makeFailure("invalid_response", `CallbackResponse is invalid: ${issueText(primary)}`, { issues: answer.issues });
}
