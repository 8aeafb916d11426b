/**
 * What both invokers do with an in-memory wire value before it crosses the boundary
 * (CALLBACK-001 §"Subprocess callbacks" steps 1-3, §"Receipt.Emitted Notification Guard";
 * spec/host-runtime.md §"Round trip"):
 * 1. the guard: a notification-only event (event-vocabulary `dispatchable: false`, i.e.
 *    `receipt.emitted`) is refused with RECEIPT_EMITTED_GUARD.failure_variant before anything else;
 * 2. the value is serialized, and the bytes that will actually be written are judged exactly like a
 *    document read from a peer (strict parse with the byte and depth limits, schema, rules). The
 *    host therefore never writes what it would refuse to read, and a value that changes while it
 *    is read (a getter, a Proxy) is judged by what was written, not by what was looked at.
 *    A host judges the envelope with the window closed to the version it speaks (spec/wire-window.md,
 *    "Who speaks which version"; default current), so an envelope in another version is refused
 *    as `invalid_request` before anything is delivered.
 * Every function here never throws.
 */
import { ACCEPT_CHECKS } from "../../generated/ts/accept-checks.js";
import { EVENT_VOCABULARY } from "../../generated/ts/spec/event-vocabulary.js";
import { LIMITS } from "../../generated/ts/spec/limits.js";
import type { WireObjectTypeName, WireTypeMap } from "../../generated/ts/spec/plans.js";
import { RECEIPT_EMITTED_GUARD } from "../../generated/ts/spec/receipt-emitted-guard.js";
import { WIRE_VERSION } from "../../generated/ts/spec/wire-version.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import type { ValidationIssue } from "../wire/issues.js";
import { integerLexemeIssues } from "../wire/schema.js";
import {
  outputBytes,
  snapshotText,
  snapshotTextSoon,
  snapshotValue,
  snapshotValueSliced,
  type JsonOutput,
  type SliceOptions,
  type SnapshotLimits,
  type TextSnapshot,
  type ValueSnapshot,
} from "../wire/serialize.js";
import { acceptsSerialized } from "../wire/fast-parse.js";
import { validateParsed } from "../wire/validate.js";
import { DEFAULT_WIRE_WINDOW, versionHint, type WireWindow } from "../wire/window.js";
import { CURRENT_HOST_WINDOW, type InvokerLimits } from "./config.js";
import { issueText, makeFailure } from "./failure.js";
import type { InvocationFailure } from "./types.js";

const NOT_DISPATCHABLE: ReadonlySet<string> = new Set(
  EVENT_VOCABULARY.filter((e) => !e.dispatchable).map((e) => e.event),
);

/** The event of an envelope-shaped value, or undefined when it has none or cannot be read. Never throws. */
export function eventOf(envelope: unknown): unknown {
  try {
    if (envelope === null || typeof envelope !== "object") return undefined;
    const request = (envelope as { request?: unknown }).request;
    if (request === null || typeof request !== "object") return undefined;
    return (request as { event?: unknown }).event;
  } catch {
    return undefined;
  }
}

/** True when the value's request carries a notification-only event (receipt.emitted). Never throws. */
export function isNotificationOnly(envelope: unknown): boolean {
  const event = eventOf(envelope);
  return typeof event === "string" && NOT_DISPATCHABLE.has(event);
}

/** The guard's failure for a notification-only envelope, or null. */
export function guardFailure(envelope: unknown): InvocationFailure | null {
  if (!isNotificationOnly(envelope)) return null;
  return makeFailure(
    RECEIPT_EMITTED_GUARD.failure_variant,
    `event ${String(eventOf(envelope))} is notification-only: it is never delivered to a client and never receipted`,
  );
}

export { toWireJson, WireSerializeError } from "../wire/wire-json.js";

/**
 * The wire form of an in-memory value, judged as a document:
 * - `ok`: `bytes` (UTF-8 JSON, what crosses the boundary) and `value`, a fresh copy of exactly what
 *   those bytes say, made while they were written (so later changes to the caller's object cannot
 *   reach the client, the client cannot reach the caller's object, and a value that answers
 *   differently on a second read is judged by what was written);
 * - `serialize`: the value cannot be written as JSON (see runtime/wire/serialize.ts);
 * - `invalid`: the bytes break the wire contract; `issues[0]` is the primary issue (`json.max-bytes`
 *   when larger than `maxBytes`, `json.max-depth`, `json.max-values`, `json.max-members`, `json.lone-surrogate`,
 *   `schema.*`, rules).
 */
export type WireSnapshot<T> =
  | { readonly ok: true; readonly bytes: Buffer; readonly value: T }
  | { readonly ok: false; readonly problem: "serialize"; readonly detail: string }
  | { readonly ok: false; readonly problem: "invalid"; readonly issues: readonly ValidationIssue[] };

/** The serializer's bounds for a document of at most `maxBytes` bytes (depth and values from `limits`, default the table's; members per object: limits.max_object_members, not overridable). */
function snapshotLimits(maxBytes: number, limits?: Pick<InvokerLimits, "max_depth" | "max_values">): SnapshotLimits {
  return {
    maxBytes,
    maxDepth: limits?.max_depth ?? LIMITS.max_depth,
    maxValues: limits?.max_values ?? LIMITS.max_values,
    maxMembers: LIMITS.max_object_members,
  };
}

/** Judge a finished serialization as a `typeName` document (schema, integer lexemes, rules of its version in `window`). */
function judged<K extends WireObjectTypeName>(
  typeName: K,
  snap: Exclude<ValueSnapshot, { problem: "deadline" }>,
  nonIntegerNumberPointers: readonly string[],
  window: WireWindow,
): WireSnapshot<WireTypeMap[K]> {
  if (!snap.ok) return snap.problem === "serialize" ? snap : { ok: false, problem: "invalid", issues: [snap.issue] };
  const issues = validateParsed(typeName, snap.value, nonIntegerNumberPointers, window);
  if (issues.length > 0) return { ok: false, problem: "invalid", issues };
  return { ok: true, bytes: snap.bytes, value: snap.value as WireTypeMap[K] };
}

/**
 * Serialize `value` and judge the bytes as a `typeName` document bounded by `maxBytes`,
 * limits.max_depth and limits.max_values. `nonIntegerNumberPointers` are the strict parser's
 * pointers when the value itself came from bytes (a `1.0` in an integer field there is reported as
 * `schema.type`, as parseWireDocument would). The document is judged by the rules of the version
 * it carries among `window`'s (default: every version this build reads; a host passes the window
 * closed to the version it speaks). Never throws. Synchronous: use {@link wireSnapshotSliced} to
 * keep the event loop free for large values.
 */
export function wireSnapshot<K extends WireObjectTypeName>(
  typeName: K,
  value: unknown,
  maxBytes: number,
  nonIntegerNumberPointers: readonly string[] = [],
  window: WireWindow = DEFAULT_WIRE_WINDOW,
): WireSnapshot<WireTypeMap[K]> {
  const lexemes = integerLexemeIssues(typeName, nonIntegerNumberPointers);
  if (lexemes.length > 0) return { ok: false, problem: "invalid", issues: lexemes };
  return judged(
    typeName,
    snapshotValue(value, snapshotLimits(maxBytes)) as Exclude<ValueSnapshot, { problem: "deadline" }>,
    nonIntegerNumberPointers,
    window,
  );
}

/**
 * {@link wireSnapshot} with the serialization in slices (runtime/wire/serialize.ts
 * snapshotValueSliced) and `limits` for depth and value count; resolves `"deadline"` when
 * `slice.deadlineAt` passes first. `window` as in wireSnapshot (default every version this build
 * reads). Never rejects.
 */
export async function wireSnapshotSliced<K extends WireObjectTypeName>(
  typeName: K,
  value: unknown,
  maxBytes: number,
  options: {
    readonly nonIntegerNumberPointers?: readonly string[];
    readonly limits?: Pick<InvokerLimits, "max_depth" | "max_values">;
    readonly slice?: SliceOptions;
    readonly window?: WireWindow;
  } = {},
): Promise<WireSnapshot<WireTypeMap[K]> | "deadline"> {
  const pointers = options.nonIntegerNumberPointers ?? [];
  const lexemes = integerLexemeIssues(typeName, pointers);
  if (lexemes.length > 0) return { ok: false, problem: "invalid", issues: lexemes };
  const snap = await snapshotValueSliced(value, snapshotLimits(maxBytes, options.limits), options.slice);
  if (!snap.ok && snap.problem === "deadline") return "deadline";
  return judged(
    typeName,
    snap as Exclude<ValueSnapshot, { problem: "deadline" }>,
    pointers,
    options.window ?? DEFAULT_WIRE_WINDOW,
  );
}

/** Outcome of {@link prepareEnvelope}: the bytes to deliver and the validated snapshot, or the failure to report. */
export type PreparedEnvelope =
  | { readonly ok: true; readonly bytes: Buffer; readonly envelope: DispatchEnvelope }
  | { readonly ok: false; readonly failure: InvocationFailure };

/** The failure of an envelope whose snapshot was not ok. */
function envelopeFailure(
  snap: Exclude<WireSnapshot<DispatchEnvelope>, { ok: true }>,
  maxBytes: number,
): InvocationFailure {
  if (snap.problem === "serialize")
    return makeFailure("serialize_request", `the DispatchEnvelope cannot be serialized: ${snap.detail}`);
  const primary = snap.issues[0] as ValidationIssue;
  if (primary.rule === "json.max-bytes") {
    return makeFailure(
      "request_too_large",
      `the serialized DispatchEnvelope is larger than ${maxBytes} bytes (limits.max_request_bytes); nothing was delivered`,
    );
  }
  return makeFailure(
    "invalid_request",
    `DispatchEnvelope is invalid: ${issueText(primary)}${versionHint(primary, "document")}`,
    {
      issues: snap.issues,
    },
  );
}

/**
 * {@link PreparedEnvelope} with the JSON as a runtime/wire/serialize.ts JsonOutput (text, or bytes
 * when serialized in pieces), for a writer that frames the envelope before encoding it (the stream
 * invoker).
 */
export type PreparedEnvelopeText =
  | ({ readonly ok: true; readonly envelope: DispatchEnvelope } & JsonOutput)
  | { readonly ok: false; readonly failure: InvocationFailure };

/** The {@link PreparedEnvelope} of a {@link PreparedEnvelopeText}. */
function withEnvelopeBytes(prepared: PreparedEnvelopeText): PreparedEnvelope {
  return prepared.ok ? { ok: true, bytes: outputBytes(prepared), envelope: prepared.envelope } : prepared;
}

/**
 * Judge a serialized envelope: the guard runs again on the snapshot (the copy of what the bytes
 * say), before validation, so an envelope whose `event` reads `session.starting` once and
 * `receipt.emitted` the next time is refused exactly as the bytes would be. `window` is the host's
 * (closed to the version it speaks).
 */
function judgeEnvelope(
  snap: Exclude<TextSnapshot, { problem: "deadline" }>,
  maxBytes: number,
  nonIntegerNumberPointers: readonly string[],
  window: WireWindow,
): PreparedEnvelopeText {
  if (!snap.ok)
    return {
      ok: false,
      failure: envelopeFailure(
        snap.problem === "serialize" ? snap : { ok: false, problem: "invalid", issues: [snap.issue] },
        maxBytes,
      ),
    };
  const guarded = guardFailure(snap.value);
  if (guarded !== null) return { ok: false, failure: guarded };
  // The accept check proves the common envelope valid in one walk (a text with escapes, or written
  // in bytes, is validated); it proves a current-version envelope, so it counts only when the host reads current.
  const proved =
    snap.text !== null &&
    window.includes(WIRE_VERSION) &&
    nonIntegerNumberPointers.length === 0 &&
    acceptsSerialized(snap.value, snap.text, ACCEPT_CHECKS.DispatchEnvelope, LIMITS.max_depth, snap.escaped);
  const issues = proved ? [] : validateParsed("DispatchEnvelope", snap.value, nonIntegerNumberPointers, window);
  if (issues.length > 0)
    return { ok: false, failure: envelopeFailure({ ok: false, problem: "invalid", issues }, maxBytes) };
  const envelope = snap.value as DispatchEnvelope;
  return snap.text !== null
    ? { ok: true, text: snap.text, bytes: null, byteLength: snap.byteLength, envelope }
    : { ok: true, text: null, bytes: snap.bytes, byteLength: snap.byteLength, envelope };
}

/**
 * Guard, then snapshot the envelope: the bytes to deliver and the validated copy of exactly those
 * bytes, or the failure to report (`receipt_emitted_rejected` — checked on the value as given and
 * again on the snapshot —, `serialize_request`, `request_too_large` when the bytes would exceed
 * `maxBytes`, `invalid_request`, also for an envelope in another version than the host's:
 * `window`, default closed to current). Synchronous; the invokers use {@link prepareEnvelopeSliced}.
 */
export function prepareEnvelope(
  envelope: unknown,
  maxBytes: number,
  nonIntegerNumberPointers: readonly string[] = [],
  window: WireWindow = CURRENT_HOST_WINDOW,
): PreparedEnvelope {
  const guarded = guardFailure(envelope);
  if (guarded !== null) return { ok: false, failure: guarded };
  const lexemes = integerLexemeIssues("DispatchEnvelope", nonIntegerNumberPointers);
  if (lexemes.length > 0)
    return { ok: false, failure: envelopeFailure({ ok: false, problem: "invalid", issues: lexemes }, maxBytes) };
  return withEnvelopeBytes(
    judgeEnvelope(snapshotText(envelope, snapshotLimits(maxBytes)), maxBytes, nonIntegerNumberPointers, window),
  );
}

/**
 * {@link prepareEnvelope} with the serialization in slices (the event loop stays free for a large
 * envelope) and the invoker's depth and value limits. When `deadlineAt` (performance.now() ms)
 * passes before the envelope is ready, the failure is `timeout` (nothing was delivered). `window`:
 * the host's, closed to the version it speaks (default closed to current). Never rejects.
 */
export async function prepareEnvelopeSliced(
  envelope: unknown,
  maxBytes: number,
  options: {
    readonly nonIntegerNumberPointers?: readonly string[];
    readonly limits?: Pick<InvokerLimits, "max_depth" | "max_values">;
    readonly deadlineAt?: number;
    readonly timeoutMs?: number;
    readonly window?: WireWindow;
  } = {},
): Promise<PreparedEnvelope> {
  return prepareEnvelopeSoon(envelope, maxBytes, options);
}

/** Options of {@link prepareEnvelopeSliced} and {@link prepareEnvelopeSoon}. */
export type PrepareOptions = NonNullable<Parameters<typeof prepareEnvelopeSliced>[2]>;

/**
 * {@link prepareEnvelopeSliced} without a promise when the envelope is serialized within the
 * first slice (every small envelope): the outcome itself then, else a promise of it. Same outcome
 * for every input. Never throws or rejects.
 */
export function prepareEnvelopeSoon(
  envelope: unknown,
  maxBytes: number,
  options: PrepareOptions = {},
): PreparedEnvelope | Promise<PreparedEnvelope> {
  const prepared = prepareEnvelopeTextSoon(envelope, maxBytes, options);
  return prepared instanceof Promise ? prepared.then(withEnvelopeBytes) : withEnvelopeBytes(prepared);
}

/** {@link prepareEnvelopeSoon} with the JSON as text ({@link PreparedEnvelopeText}); the same outcome for every input. */
export function prepareEnvelopeTextSoon(
  envelope: unknown,
  maxBytes: number,
  options: PrepareOptions = {},
): PreparedEnvelopeText | Promise<PreparedEnvelopeText> {
  const guarded = guardFailure(envelope);
  if (guarded !== null) return { ok: false, failure: guarded };
  const pointers = options.nonIntegerNumberPointers ?? [];
  const lexemes = integerLexemeIssues("DispatchEnvelope", pointers);
  if (lexemes.length > 0)
    return { ok: false, failure: envelopeFailure({ ok: false, problem: "invalid", issues: lexemes }, maxBytes) };
  const snap = snapshotTextSoon(
    envelope,
    snapshotLimits(maxBytes, options.limits),
    options.deadlineAt === undefined ? {} : { deadlineAt: options.deadlineAt },
  );
  // The closure is made only for a sliced run: a small envelope's path allocates none.
  const window = options.window ?? CURRENT_HOST_WINDOW;
  return snap instanceof Promise
    ? snap.then((done) => judgeSnapshot(done, maxBytes, pointers, options.timeoutMs, window))
    : judgeSnapshot(snap, maxBytes, pointers, options.timeoutMs, window);
}

/** The prepared envelope of a finished (or timed-out: `timeout`) serialization. */
function judgeSnapshot(
  snap: TextSnapshot,
  maxBytes: number,
  pointers: readonly string[],
  timeoutMs: number | undefined,
  window: WireWindow,
): PreparedEnvelopeText {
  if (!snap.ok && snap.problem === "deadline") {
    return {
      ok: false,
      failure: makeFailure(
        "timeout",
        `the DispatchEnvelope was not serialized within ${timeoutMs ?? "the"} ms timeout; nothing was delivered`,
      ),
    };
  }
  return judgeEnvelope(snap as Exclude<TextSnapshot, { problem: "deadline" }>, maxBytes, pointers, window);
}

/** Narrow an envelope accepted by {@link prepareEnvelope}. */
export function payloadsOf(envelope: DispatchEnvelope): NonNullable<DispatchEnvelope["payloads"]> {
  return envelope.payloads ?? [];
}
