/**
 * The subprocess invoker, v1 (CALLBACK-001 §"B. Subprocess callbacks", spec/host-runtime.md):
 * one fresh child per event; guard → validate → serialize → spawn → write one DispatchEnvelope and
 * close stdin → read stdout to EOF (and stderr) → reap → parse → validate, all within `timeoutMs`
 * counted from the call. The spawn goes through the spawn gate (runtime/process/spawn-gate.ts): a
 * burst of concurrent invocations spawns over several turns of the event loop, and one whose
 * deadline passes while its spawn is queued is a `timeout` with nothing delivered.
 */
import { performance } from "node:perf_hooks";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import { runChild } from "./child-run.js";
import { classifyRunSliced } from "./classify.js";
import {
  checkArgs,
  checkProgram,
  checkTimeoutMs,
  checkWireVersion,
  hostWindow,
  resolveLimits,
  type InvokerLimits,
} from "./config.js";
import { checkInvokeOptions, linkageFailure } from "./options.js";
import { prepareEnvelopeSliced } from "./request.js";
import type { CallbackInvoker, InvocationResult, InvokeOptions } from "./types.js";
import type { WireWindow } from "../wire/window.js";

/**
 * Configuration of a {@link SubprocessInvoker} (CALLBACK-001 §"Configuration").
 * - `program`: absolute path of the client executable (a relative path is an InvokerConfigError).
 * - `args`: passed verbatim, in order, on every spawn; no shell is ever involved. Default none.
 * - `timeoutMs`: required, integer ms in 1..limits.max_timeout_ms; covers the whole round trip.
 * - `limits`: overrides of spec/tables/limits.json values (see {@link InvokerLimits}).
 * - `wireVersion`: the wire version this host speaks (spec/wire-window.md, "Who speaks which
 *   version"), one of generated/ts/window.ts WIRE_WINDOW; default current (WIRE_VERSION). The
 *   envelope must carry it (otherwise `invalid_request`, nothing spawned) and so must the response
 *   (otherwise `invalid_response`, even for another version of the window).
 */
export interface SubprocessInvokerConfig {
  readonly program: string;
  readonly args?: readonly string[];
  readonly timeoutMs: number;
  readonly limits?: Partial<InvokerLimits>;
  readonly wireVersion?: string;
}

/**
 * Delivers each event to a fresh child process (POSIX only: the child leads its own process group).
 * The constructor throws {@link InvokerConfigError} for an unusable config; `invoke` never throws.
 */
export class SubprocessInvoker implements CallbackInvoker {
  readonly program: string;
  readonly args: readonly string[];
  readonly timeoutMs: number;
  readonly limits: InvokerLimits;
  /** The wire version this host writes and requires in responses. */
  readonly wireVersion: string;
  /** The window of {@link wireVersion}: closed to it. */
  private readonly window: WireWindow;

  constructor(config: SubprocessInvokerConfig) {
    if (config === null || typeof config !== "object") throw new TypeError("SubprocessInvoker needs a config object");
    this.program = checkProgram(config.program);
    this.args = checkArgs(config.args);
    this.timeoutMs = checkTimeoutMs("timeoutMs", config.timeoutMs);
    this.limits = resolveLimits(config.limits);
    this.wireVersion = checkWireVersion(config.wireVersion);
    this.window = hostWindow(this.wireVersion);
  }

  /**
   * One round trip. Resolves with the client's valid CallbackResponse or a classified failure
   * (every FAILURE_VARIANTS row whose transports include `subprocess_v1`); settles at the latest
   * `timeoutMs + limits.settle_margin_ms` after the call.
   */
  async invoke(envelope: DispatchEnvelope, options?: InvokeOptions | null): Promise<InvocationResult> {
    const started = performance.now();
    const deadlineAt = started + this.timeoutMs;
    const elapsed = (): number => performance.now() - started;
    const checked = checkInvokeOptions(options);
    if (!checked.ok) return { ok: false, failure: checked.failure, elapsedMs: elapsed() };

    // Serialized in slices: a large envelope neither blocks the event loop nor outlasts the deadline.
    const prepared = await prepareEnvelopeSliced(envelope, this.limits.max_request_bytes, {
      nonIntegerNumberPointers: checked.options.nonIntegerNumberPointers,
      limits: this.limits,
      deadlineAt,
      timeoutMs: this.timeoutMs,
      window: this.window,
    });
    if (!prepared.ok) return { ok: false, failure: prepared.failure, elapsedMs: elapsed() };
    const unlinked = linkageFailure(prepared.envelope, checked.options);
    if (unlinked !== null) return { ok: false, failure: unlinked, elapsedMs: elapsed() };
    const input = prepared.bytes;

    const run = await runChild({ program: this.program, args: this.args, input, deadlineAt, limits: this.limits });
    const outcome = await classifyRunSliced(
      run,
      { program: this.program, timeoutMs: this.timeoutMs, limits: this.limits, window: this.window },
      deadlineAt + this.limits.settle_margin_ms,
    );
    return { ...outcome, elapsedMs: elapsed() };
  }
}
