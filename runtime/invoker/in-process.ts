/**
 * The in-process invoker (CALLBACK-001 §"A. In-process callbacks", spec/host-runtime.md): calls a
 * TypeScript handler in the host's own process, with the same guard, request validation and
 * response validation as the subprocess path.
 */
import { performance } from "node:perf_hooks";
import type { CallbackResponse, DispatchEnvelope } from "../../generated/ts/types.js";
import { checkTimeoutMs } from "./config.js";
import { makeFailure } from "./failure.js";
import { checkEnvelope, checkInMemoryResponse, payloadsOf } from "./request.js";
import { InvokerConfigError, type CallbackHandler, type CallbackInvoker, type InvocationResult, type InvokeOptions } from "./types.js";

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
   * Guard → validate the envelope → call the handler → validate its response. Failure variants:
   * receipt_emitted_rejected, invalid_request, handler_threw, timeout, invalid_response.
   */
  async invoke(envelope: DispatchEnvelope, options: InvokeOptions = {}): Promise<InvocationResult> {
    const started = performance.now();
    const elapsed = (): number => performance.now() - started;
    const refused = checkEnvelope(envelope, options.nonIntegerNumberPointers);
    if (refused !== null) return { ok: false, failure: refused, elapsedMs: elapsed() };

    const settled = await this.callHandler(envelope);
    if (settled.kind === "threw") {
      return { ok: false, failure: makeFailure("handler_threw", `the handler threw: ${describeThrown(settled.error)}`), elapsedMs: elapsed() };
    }
    if (settled.kind === "timeout") {
      return { ok: false, failure: makeFailure("timeout", `the handler did not settle within ${this.timeoutMs} ms`), elapsedMs: elapsed() };
    }
    const invalid = checkInMemoryResponse(settled.response);
    if (invalid !== null) return { ok: false, failure: invalid, elapsedMs: elapsed() };
    return { ok: true, response: settled.response, stderrTail: "", elapsedMs: elapsed() };
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
