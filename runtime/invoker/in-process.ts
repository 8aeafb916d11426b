/**
 * The in-process invoker (CALLBACK-001 §"A. In-process callbacks", spec/host-runtime.md): calls a
 * TypeScript handler in the host's own process, with the same guard, request validation and
 * response validation as the subprocess path: both documents are serialized and judged as the
 * bytes a pipe would carry, and the handler gets the snapshot of exactly what those bytes say.
 */
import { performance } from "node:perf_hooks";
import { LIMITS } from "../../generated/ts/spec/limits.js";
import type { CallbackResponse, DispatchEnvelope } from "../../generated/ts/types.js";
import { checkTimeoutMs, checkWireVersion, hostWindow, SETTLE_RESERVE_MS } from "./config.js";
import { issueText, makeFailure } from "./failure.js";
import { checkInvokeOptions, linkageFailure } from "./options.js";
import { payloadsOf, prepareEnvelopeSliced, wireSnapshotSliced, type WireSnapshot } from "./request.js";
import type { ValidationIssue } from "../wire/issues.js";
import type { WireWindow } from "../wire/window.js";
import {
  InvokerConfigError,
  type CallbackHandler,
  type CallbackInvoker,
  type InvocationFailure,
  type InvocationResult,
  type InvokeOptions,
} from "./types.js";

/**
 * Configuration of an {@link InProcessInvoker}.
 * - `handler`: the client, `(request, payloads) => CallbackResponse | Promise<CallbackResponse>`.
 * - `timeoutMs`: optional integer ms (1..limits.max_timeout_ms), counted from the call of `invoke`
 *   (serializing the request and the handler's synchronous work count); when the handler has not
 *   settled by then the call fails with `timeout` (the handler itself cannot be stopped and its
 *   late result is ignored; a handler blocking synchronously past it is a `timeout` as soon as it
 *   returns). Without it, the call waits as long as the handler does.
 * - `wireVersion`: the wire version this host speaks (spec/wire-window.md, "Who speaks which
 *   version"), one of generated/ts/window.ts WIRE_WINDOW; default current (WIRE_VERSION). The
 *   envelope must carry it (otherwise `invalid_request`, the handler is not called) and so must the
 *   handler's response (otherwise `invalid_response`, even for another version of the window).
 */
export interface InProcessInvokerConfig {
  readonly handler: CallbackHandler;
  readonly timeoutMs?: number;
  readonly wireVersion?: string;
}

/** Calls a handler in-process; the constructor throws {@link InvokerConfigError}, `invoke` never throws. */
export class InProcessInvoker implements CallbackInvoker {
  readonly timeoutMs: number | undefined;
  /** The wire version this host writes and requires in responses. */
  readonly wireVersion: string;
  private readonly handler: CallbackHandler;
  /** The window of {@link wireVersion}: closed to it. */
  private readonly window: WireWindow;

  constructor(config: InProcessInvokerConfig) {
    if (config === null || typeof config !== "object") throw new TypeError("InProcessInvoker needs a config object");
    if (typeof config.handler !== "function")
      throw new InvokerConfigError("handler", "handler must be a function (request, payloads) => CallbackResponse");
    this.handler = config.handler;
    this.timeoutMs = config.timeoutMs === undefined ? undefined : checkTimeoutMs("timeoutMs", config.timeoutMs);
    this.wireVersion = checkWireVersion(config.wireVersion);
    this.window = hostWindow(this.wireVersion);
  }

  /**
   * Guard → serialize and judge the envelope → call the handler with the snapshot of those
   * bytes → serialize and judge its response, exactly as if it had crossed a pipe. Failure variants:
   * receipt_emitted_rejected, serialize_request, request_too_large, invalid_request, handler_threw,
   * timeout, response_too_large, invalid_response.
   */
  async invoke(envelope: DispatchEnvelope, options?: InvokeOptions | null): Promise<InvocationResult> {
    const started = performance.now();
    const elapsed = (): number => performance.now() - started;
    const checked = checkInvokeOptions(options);
    if (!checked.ok) return { ok: false, failure: checked.failure, elapsedMs: elapsed() };
    const deadlineAt = this.timeoutMs === undefined ? undefined : started + this.timeoutMs;
    const prepared = await prepareEnvelopeSliced(envelope, LIMITS.max_request_bytes, {
      nonIntegerNumberPointers: checked.options.nonIntegerNumberPointers,
      window: this.window,
      ...(deadlineAt === undefined ? {} : { deadlineAt, timeoutMs: this.timeoutMs }),
    });
    if (!prepared.ok) return { ok: false, failure: prepared.failure, elapsedMs: elapsed() };
    const unlinked = linkageFailure(prepared.envelope, checked.options);
    if (unlinked !== null) return { ok: false, failure: unlinked, elapsedMs: elapsed() };

    const settled = await this.callHandler(prepared.envelope, deadlineAt);
    if (settled.kind === "threw") {
      return {
        ok: false,
        failure: makeFailure("handler_threw", `the handler threw: ${describeThrown(settled.error)}`),
        elapsedMs: elapsed(),
      };
    }
    if (settled.kind === "timeout") {
      return {
        ok: false,
        failure: makeFailure(
          "timeout",
          `the handler did not settle within ${this.timeoutMs} ms (its synchronous work counts)`,
        ),
        elapsedMs: elapsed(),
      };
    }
    // With a timeout, judging the response is bounded too: the call settles by timeoutMs + limits.settle_margin_ms.
    const settleBy = deadlineAt === undefined ? undefined : deadlineAt + LIMITS.settle_margin_ms - SETTLE_RESERVE_MS;
    const answer = await wireSnapshotSliced(
      "CallbackResponse",
      settled.response,
      LIMITS.max_response_bytes,
      settleBy === undefined ? { window: this.window } : { window: this.window, slice: { deadlineAt: settleBy } },
    );
    if (answer === "deadline") {
      return {
        ok: false,
        failure: makeFailure(
          "timeout",
          `the handler's response could not be judged before the settle bound (timeoutMs ${this.timeoutMs} + limits.settle_margin_ms ${LIMITS.settle_margin_ms})`,
        ),
        elapsedMs: elapsed(),
      };
    }
    if (answer.ok) return { ok: true, response: answer.value, stderrTail: "", elapsedMs: elapsed() };
    return { ok: false, failure: responseFailure(answer), elapsedMs: elapsed() };
  }

  /**
   * Call the handler and wait for its result, at most until `deadlineAt` (performance.now() ms,
   * counted from the call of invoke, so the handler's synchronous work and the request's
   * serialization count). A handler that blocks synchronously past the deadline cannot be
   * interrupted; its result is then a `timeout` as soon as it returns.
   */
  private callHandler(
    envelope: DispatchEnvelope,
    deadlineAt: number | undefined,
  ): Promise<
    { kind: "returned"; response: CallbackResponse } | { kind: "threw"; error: unknown } | { kind: "timeout" }
  > {
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
    if (deadlineAt === undefined) return answered;
    if (performance.now() >= deadlineAt) {
      answered.catch(() => undefined);
      return Promise.resolve({ kind: "timeout" });
    }
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<{ kind: "timeout" }>((resolve) => {
      timer = setTimeout(() => resolve({ kind: "timeout" }), Math.max(0, deadlineAt - performance.now()));
    });
    return Promise.race([answered, expired]).finally(() => clearTimeout(timer));
  }
}

/**
 * A bounded one-line description of what a handler threw. Never throws: a thrown value may be
 * hostile (a Proxy whose traps throw, an Error whose `name` or `message` getter throws, an object
 * whose toString throws), and each read is guarded separately.
 */
function describeThrown(error: unknown): string {
  const MAX = 512;
  const read = (f: () => unknown): string | undefined => {
    try {
      const v = f();
      return typeof v === "string" ? v : undefined;
    } catch {
      return undefined;
    }
  };
  let text: string | undefined;
  let isError = false;
  try {
    isError = error instanceof Error;
  } catch {
    isError = false;
  }
  if (isError) {
    const name = read(() => (error as Error).name) ?? "Error";
    const message = read(() => (error as Error).message);
    text = message === undefined ? `${name} (its message cannot be read)` : `${name}: ${message}`;
  } else {
    text = read(() => String(error));
  }
  if (text === undefined) return "a value that cannot be shown";
  return text.length > MAX ? `${text.slice(0, MAX)}...` : text;
}

/** The failure of a handler's response that does not survive the wire (see wireSnapshot). */
function responseFailure(answer: Exclude<WireSnapshot<CallbackResponse>, { ok: true }>): InvocationFailure {
  if (answer.problem === "serialize")
    return makeFailure("invalid_response", `the CallbackResponse cannot be serialized: ${answer.detail}`);
  const primary = answer.issues[0] as ValidationIssue;
  if (primary.rule === "json.max-bytes") {
    return makeFailure(
      "response_too_large",
      `the CallbackResponse serializes to more than limits.max_response_bytes (${LIMITS.max_response_bytes} bytes)`,
    );
  }
  return makeFailure("invalid_response", `CallbackResponse is invalid: ${issueText(primary)}`, {
    issues: answer.issues,
  });
}
