/**
 * Configuration checks shared by the invokers (CALLBACK-001 §"Configuration"). Every bad value is
 * an {@link InvokerConfigError} thrown before anything is spawned or called; defaults come from
 * spec/tables/limits.json (LIMITS), never from numbers in code.
 */
import { isAbsolute } from "node:path";
import { LIMITS } from "../../generated/ts/spec/limits.js";
import { WIRE_VERSION } from "../../generated/ts/spec/wire-version.js";
import { WIRE_WINDOW } from "../../generated/ts/window.js";
import { closedWindow, type WireWindow } from "../wire/window.js";
import { InvokerConfigError } from "./types.js";

/**
 * Bounds of one subprocess round trip, named as in spec/tables/limits.json:
 * - `max_request_bytes` (bytes): largest serialized DispatchEnvelope written to stdin;
 * - `max_response_bytes` (bytes): largest stdout accepted; one byte more kills the group;
 * - `max_depth` (levels): nesting bound of the request and response documents;
 * - `max_values` (count): JSON values (scalars and containers) in the request and response documents;
 *   (the members of any one object are bounded by limits.max_object_members, which is not
 *   overridable: rule `json.max-members`);
 * - `stderr_tail_bytes` (bytes): how much of stderr's end is kept;
 * - `kill_grace_ms` (ms): SIGTERM → SIGKILL delay at the deadline;
 * - `settle_margin_ms` (ms): the call settles at the latest this long after its deadline;
 * - `failure_detail_preview_bytes` (bytes): stdout bytes quoted in a parse_response detail.
 */
export interface InvokerLimits {
  readonly max_request_bytes: number;
  readonly max_response_bytes: number;
  readonly max_depth: number;
  readonly max_values: number;
  readonly stderr_tail_bytes: number;
  readonly kill_grace_ms: number;
  readonly settle_margin_ms: number;
  readonly failure_detail_preview_bytes: number;
}

/**
 * Time kept in hand before an invocation's settle bound when a response is still being judged
 * (ms): room for the last slice and the settle itself. Judging still running then is abandoned
 * (`timeout`), so the bound holds even on an overloaded machine.
 */
export const SETTLE_RESERVE_MS = 40;

/** The defaults: the values of spec/tables/limits.json. */
export const DEFAULT_INVOKER_LIMITS: InvokerLimits = Object.freeze({
  max_request_bytes: LIMITS.max_request_bytes,
  max_response_bytes: LIMITS.max_response_bytes,
  max_depth: LIMITS.max_depth,
  max_values: LIMITS.max_values,
  stderr_tail_bytes: LIMITS.stderr_tail_bytes,
  kill_grace_ms: LIMITS.kill_grace_ms,
  settle_margin_ms: LIMITS.settle_margin_ms,
  failure_detail_preview_bytes: LIMITS.failure_detail_preview_bytes,
});

function positiveInteger(field: string, value: unknown, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    throw new InvokerConfigError(
      field,
      `${field} must be an integer from 1 to ${max} (got ${typeof value === "number" ? value : typeof value})`,
    );
  }
  return value;
}

/** Check a timeout in ms: required, an integer in 1..limits.max_timeout_ms. */
export function checkTimeoutMs(field: string, value: unknown): number {
  if (value === undefined || value === null)
    throw new InvokerConfigError(field, `${field} is required: there is no default timeout`);
  return positiveInteger(field, value, LIMITS.max_timeout_ms);
}

/** Merge caller overrides into {@link DEFAULT_INVOKER_LIMITS}; each must be a positive safe integer (ms limits at most max_timeout_ms). */
export function resolveLimits(overrides: Partial<InvokerLimits> | undefined): InvokerLimits {
  return resolveLimitSet(DEFAULT_INVOKER_LIMITS, overrides);
}

/**
 * Merge `overrides` into a set of named limits (`defaults`, values of spec/tables/limits.json): an
 * unknown name or a value that is not a positive safe integer (ms limits: at most
 * limits.max_timeout_ms) is an {@link InvokerConfigError}. Returns `defaults` itself when there is
 * nothing to merge, else a frozen copy.
 */
export function resolveLimitSet<T extends InvokerLimits>(defaults: T, overrides: Partial<T> | undefined): T {
  if (overrides === undefined) return defaults;
  if (overrides === null || typeof overrides !== "object")
    throw new InvokerConfigError("limits", "limits must be an object");
  const known = new Set(Object.keys(defaults));
  for (const key of Object.keys(overrides)) {
    if (!known.has(key))
      throw new InvokerConfigError(`limits.${key}`, `unknown limit ${key} (known: ${[...known].join(", ")})`);
  }
  const out: Record<string, number> = {};
  for (const [key, fallback] of Object.entries(defaults) as [string, number][]) {
    const value = (overrides as Record<string, unknown>)[key];
    const max = key.endsWith("_ms") ? LIMITS.max_timeout_ms : LIMITS.max_safe_integer;
    out[key] = value === undefined ? fallback : positiveInteger(`limits.${key}`, value, max);
  }
  const limits = out as unknown as T;
  checkConsistent(limits);
  return Object.freeze(limits);
}

/**
 * The limits must keep the settle bound (spec/host-runtime.md §"Deadline and kill policy"): a call
 * settles at the latest `settle_margin_ms` after its deadline, and that margin includes the SIGTERM
 * → SIGKILL grace and the reap after it, so `kill_grace_ms` must be smaller than `settle_margin_ms`.
 * Throws {@link InvokerConfigError} (field `limits.kill_grace_ms`) otherwise.
 */
export function checkConsistent(limits: InvokerLimits): void {
  if (limits.kill_grace_ms >= limits.settle_margin_ms) {
    throw new InvokerConfigError(
      "limits.kill_grace_ms",
      `limits.kill_grace_ms (${limits.kill_grace_ms} ms) must be smaller than limits.settle_margin_ms (${limits.settle_margin_ms} ms): the settle margin includes the kill grace and the reap after SIGKILL`,
    );
  }
}

/** Check a program path: a non-empty absolute path without NUL bytes. */
export function checkProgram(value: unknown): string {
  if (typeof value !== "string" || value === "")
    throw new InvokerConfigError("program", "program is required (an absolute path)");
  if (value.includes("\0")) throw new InvokerConfigError("program", "program contains a NUL byte");
  if (!isAbsolute(value))
    throw new InvokerConfigError(
      "program",
      `program must be an absolute path (got ${JSON.stringify(value)}); relative paths are refused before anything is spawned`,
    );
  return value;
}

/** Check args: an array of strings without NUL bytes (passed verbatim). */
export function checkArgs(value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InvokerConfigError("args", "args must be an array of strings");
  value.forEach((arg, i) => {
    if (typeof arg !== "string") throw new InvokerConfigError(`args[${i}]`, `args[${i}] must be a string`);
    if (arg.includes("\0")) throw new InvokerConfigError(`args[${i}]`, `args[${i}] contains a NUL byte`);
  });
  return Object.freeze([...(value as string[])]);
}

/**
 * The window a host that speaks `version` reads with: closed to that version (spec/wire-window.md,
 * "Who speaks which version"), one frozen array per version of WIRE_WINDOW, built once.
 */
const HOST_WINDOWS: ReadonlyMap<string, WireWindow> = new Map(WIRE_WINDOW.map((v) => [v, closedWindow(v)]));

/**
 * The window of a host that speaks `version` (a version of WIRE_WINDOW, e.g. the checked
 * `wireVersion` of an invoker): the envelope it writes and every response it reads must carry
 * exactly that version. Throws the WireWindowError of runtime/wire/window.ts for any other version.
 */
export function hostWindow(version: string): WireWindow {
  return HOST_WINDOWS.get(version) ?? closedWindow(version);
}

/** The window of a host that speaks current (WIRE_VERSION): every invoker's default. */
export const CURRENT_HOST_WINDOW: WireWindow = hostWindow(WIRE_VERSION);

/**
 * Check the `wireVersion` of an invoker config (spec/wire-window.md, "Who speaks which version"):
 * absent (undefined) means current (WIRE_VERSION); otherwise a version of the generated window
 * (spec/wire-version.json `current` and `accepted`). Returns the version.
 * @throws InvokerConfigError (field `wireVersion`) naming the versions this build speaks
 */
export function checkWireVersion(value: unknown): string {
  if (value === undefined) return WIRE_VERSION;
  if (typeof value !== "string" || !(WIRE_WINDOW as readonly string[]).includes(value))
    throw new InvokerConfigError(
      "wireVersion",
      `wireVersion must be one of ${WIRE_WINDOW.join(", ")} (got ${typeof value === "string" ? JSON.stringify(value) : typeof value})`,
    );
  return value;
}
