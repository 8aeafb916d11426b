/**
 * The stream invoker, v2 (CALLBACK-001 §C; spec/stream-protocol.md; spec/host-runtime.md §"Stream
 * invoker (v2)"): one long-lived child per invoker, spawned with the configured args followed by
 * `--stream`; each event is a JSON-RPC request `event/<kind>` whose params are the DispatchEnvelope;
 * replies are correlated by host id; the client's own requests are served while events are pending.
 * Results, failures and receipts are those of v1, plus the stream variants of
 * spec/tables/subprocess-failure-mapping.json.
 */
import { performance } from "node:perf_hooks";
import { EVENT_VOCABULARY, STREAM_V2, type StreamReverseMethodName } from "../../generated/ts/spec.js";
import type { CallbackResponse, DispatchEnvelope, FailureClass } from "../../generated/ts/types.js";
import { WIRE_VERSION } from "../../generated/ts/spec/wire-version.js";
import { checkArgs, checkProgram, checkTimeoutMs, checkWireVersion, hostWindow } from "../invoker/config.js";
import {
  defaultRetryClass,
  issueText,
  makeFailure,
  spawnFailureDetail,
  type FailureFacts,
} from "../invoker/failure.js";
import { previewBytes } from "../invoker/preview.js";
import { checkInvokeOptions, linkageFailure, type CheckedInvokeOptions } from "../invoker/options.js";
import { eventOf, prepareEnvelopeTextSoon, type PreparedEnvelopeText } from "../invoker/request.js";
import type { CallbackInvoker, InvocationFailure, InvocationResult, InvokeOptions } from "../invoker/types.js";
import type { ValidationIssue } from "../wire/issues.js";
import { validateParsed } from "../wire/validate.js";
import { versionHint, type WireWindow } from "../wire/window.js";
import { StreamConnection, type ConnectionEnd, type QueuedWrite } from "./connection.js";
import { errorCode, failureClassForCode } from "../rpc/error-codes.js";
import {
  encodeErrorReply,
  encodeNotification,
  encodeRequestAround,
  encodeRequestText,
  requestFraming,
  type RequestFraming,
  encodeResultAround,
  framePointers,
  type StreamFrame,
} from "../rpc/frame.js";
import { resolveStreamLimits, type StreamInvokerLimits } from "./limits.js";
import { RequestIds, RpcPeer } from "../rpc/peer.js";
import { serveReverseRequest, type ReverseHandlers, type ReverseMethodHandler } from "./reverse.js";

/**
 * Configuration of a {@link StreamInvoker}.
 * - `program`: absolute path of the client (InvokerConfigError otherwise); `args`: passed verbatim
 *   before `--stream`; no shell.
 * - `timeoutMs`: required per-event deadline in ms (1..limits.max_timeout_ms), from invoke() to the reply.
 * - `limits`: overrides of spec/tables/limits.json values ({@link StreamInvokerLimits}).
 * - `reverseHandlers`: client → host methods served by the host (e.g. a continuation store);
 *   methods without a handler are answered `-32000 not_available`.
 * - `wireVersion`: the wire version this host speaks (spec/wire-window.md, "Who speaks which
 *   version"), one of generated/ts/window.ts WIRE_WINDOW; default current (WIRE_VERSION). Every
 *   envelope must carry it (otherwise `invalid_request`, nothing written) and so must every reply's
 *   result (otherwise `invalid_response`, even for another version of the window). The frames
 *   themselves carry no version: framing is judged by current.
 */
export interface StreamInvokerConfig {
  readonly program: string;
  readonly args?: readonly string[];
  readonly timeoutMs: number;
  readonly limits?: Partial<StreamInvokerLimits>;
  readonly reverseHandlers?: ReverseHandlers;
  readonly wireVersion?: string;
}

/**
 * Counters of one invoker (never reset):
 * - `events`: invoke() calls; `spawns`: children started (spawn attempts included; not a spawn cancelled while queued in the spawn gate);
 * - `discardedFrames`: well-formed frames that settled nothing: duplicate, late and unknown-id
 *   replies, client notifications;
 * - `cancels`: lifeloop/cancel notifications sent; `reverseRequests`: client requests served.
 */
export interface StreamInvokerStats {
  readonly events: number;
  readonly spawns: number;
  readonly discardedFrames: number;
  readonly cancels: number;
  readonly reverseRequests: number;
}

interface Pending {
  readonly id: string;
  readonly conn: Live;
  readonly started: number;
  /** performance.now() ms at which the event is `timeout` (started + timeoutMs). */
  readonly deadline: number;
  readonly resolve: (result: InvocationResult) => void;
  write: QueuedWrite | null;
}

/** A connection with the invoker's per-stream state. */
interface Live {
  readonly conn: StreamConnection;
  /**
   * The JSON-RPC state of the stream (runtime/rpc/peer.ts): `outbound` holds the pending events by
   * host id, `inbound` the client requests being served (at most limits.max_client_requests_in_flight).
   */
  readonly peer: RpcPeer<Pending>;
  consecutiveTimeouts: number;
  hadValidReply: boolean;
  /** The child's spawn was attempted (false while it waits in the spawn gate, and for ever when it was cancelled there). */
  spawned: boolean;
  /** Frames the client wrote on this stream (any kind): none at all usually means it does not implement --stream. */
  framesReceived: number;
  /**
   * One deadline timer per stream, armed for the earliest deadline of a pending event (or later
   * events' deadlines, when it fires): an event costs no timer of its own, and a reply leaves the
   * timer alone (it finds nothing to expire when it fires and re-arms for what is pending then).
   */
  deadlineTimer: NodeJS.Timeout | null;
  /** The deadline the timer is armed for (ms, performance.now()); +Infinity when none is. */
  timerAt: number;
}

const STREAM_KIND: ReadonlyMap<string, string> = new Map(EVENT_VOCABULARY.map((e) => [e.event, e.stream_v2]));
const EVENT_METHOD_PREFIX = STREAM_V2.host_to_client.event_method_prefix;
/** The framing of each event sent as a stream request (method `event/<kind>`), built once. */
const REQUEST_FRAMING: ReadonlyMap<string, RequestFraming> = new Map(
  EVENT_VOCABULARY.filter((e) => e.stream_v2 === "request").map((e) => [
    e.event,
    requestFraming(`${EVENT_METHOD_PREFIX}${e.event}`),
  ]),
);
const CANCEL_METHOD = STREAM_V2.cancel.method;
const STREAM_FLAG = STREAM_V2.launch.flag;

/**
 * Delivers events over one long-lived child (POSIX: the child leads its own process group). The
 * constructor throws {@link InvokerConfigError} for an unusable config; `invoke` never throws and
 * settles at the latest `timeoutMs + limits.settle_margin_ms` after the call; `close()` ends the
 * stream (shutdown sequence) and resolves once the child is reaped.
 */
export class StreamInvoker implements CallbackInvoker {
  readonly program: string;
  readonly args: readonly string[];
  readonly timeoutMs: number;
  readonly limits: StreamInvokerLimits;
  /** The wire version this host writes and requires in every reply's result. */
  readonly wireVersion: string;
  /** The window of {@link wireVersion}: closed to it. */
  private readonly window: WireWindow;
  /** The frame judge's accept check proves a current-version result: it counts only when this host speaks current. */
  private readonly acceptProves: boolean;
  private readonly handlers: Partial<Record<StreamReverseMethodName, ReverseMethodHandler>>;
  private live: Live | null = null;
  /** Connections that stopped taking events but have not ended yet (a newer one may be live): close() waits for them too. */
  private readonly retiring = new Set<Live>();
  /** Host ids, shared by every stream of this invoker (an id is never reused). */
  private readonly ids = new RequestIds();
  private failedStreams = 0;
  private cooldownUntil = 0;
  private closing: Promise<void> | null = null;
  private readonly counters = { events: 0, spawns: 0, discardedFrames: 0, cancels: 0, reverseRequests: 0 };

  constructor(config: StreamInvokerConfig) {
    if (config === null || typeof config !== "object") throw new TypeError("StreamInvoker needs a config object");
    this.program = checkProgram(config.program);
    this.args = checkArgs(config.args);
    this.timeoutMs = checkTimeoutMs("timeoutMs", config.timeoutMs);
    this.limits = resolveStreamLimits(config.limits);
    this.wireVersion = checkWireVersion(config.wireVersion);
    this.window = hostWindow(this.wireVersion);
    this.acceptProves = this.window.includes(WIRE_VERSION);
    this.handlers = { ...(config.reverseHandlers ?? {}) };
  }

  /** A snapshot of the counters. */
  get stats(): StreamInvokerStats {
    return { ...this.counters };
  }

  /** Pid (= process group id) of the live child, or null when none runs. */
  get pid(): number | null {
    const live = this.live;
    return live !== null && !live.conn.ended && live.conn.pid !== 0 ? live.conn.pid : null;
  }

  /** Register (or with `undefined` remove) the handler of a client → host method, e.g. `continuation/get`. */
  setReverseHandler(method: StreamReverseMethodName, handler: ReverseMethodHandler | undefined): void {
    if (handler === undefined) delete this.handlers[method];
    else this.handlers[method] = handler;
  }

  /**
   * Deliver one event. Resolves with the client's valid CallbackResponse or a classified failure
   * (every FAILURE_VARIANTS row whose transports include `stream_v2`).
   */
  invoke(envelope: DispatchEnvelope, options?: InvokeOptions | null): Promise<InvocationResult> {
    const started = performance.now();
    this.counters.events++;
    if (this.closing !== null)
      return failedSince(
        started,
        makeFailure("stream_closed", "invoke() after close(): the stream is closed and nothing was written"),
      );
    const checked = checkInvokeOptions(options);
    if (!checked.ok) return failedSince(started, checked.failure);
    // Serialized in slices as in v1: a large envelope neither blocks the event loop nor outlasts the deadline.
    // A small envelope is ready at once (no promise, no turn of the loop); a large one takes slices.
    const soon = prepareEnvelopeTextSoon(envelope, this.limits.max_request_bytes, {
      nonIntegerNumberPointers: checked.options.nonIntegerNumberPointers,
      limits: this.limits,
      deadlineAt: started + this.timeoutMs,
      timeoutMs: this.timeoutMs,
      window: this.window,
    });
    // A plain method, not `async`: the small envelope's path costs one promise, the one a reply settles.
    if (soon instanceof Promise) return soon.then((prepared) => this.send(prepared, started, checked.options));
    return this.send(soon, started, checked.options);
  }

  /** Frame a prepared envelope and write it on the live stream (spawning one when needed); resolves with the reply's outcome. */
  private send(
    prepared: PreparedEnvelopeText,
    started: number,
    options: CheckedInvokeOptions,
  ): Promise<InvocationResult> {
    if (!prepared.ok) return failedSince(started, prepared.failure);
    const unlinked = linkageFailure(prepared.envelope, options);
    if (unlinked !== null) return failedSince(started, unlinked);
    if (this.closing !== null)
      return failedSince(
        started,
        makeFailure("stream_closed", "close() was called while the envelope was being serialized; nothing was written"),
      );
    const event = String(eventOf(prepared.envelope));
    const framing = REQUEST_FRAMING.get(event);
    if (framing === undefined) {
      // generate checks that every dispatchable event is a request; anything else is refused, never guessed.
      return failedSince(
        started,
        makeFailure(
          "invalid_request",
          `event ${event} is not sent as a stream request (event vocabulary stream_v2: ${STREAM_KIND.get(event)})`,
        ),
      );
    }
    const id = this.ids.next();
    // A small envelope comes as text: the frame is one string, encoded once by the pipe write.
    let frame: string | Buffer;
    let frameBytes: number;
    if (prepared.text !== null) {
      const text = encodeRequestText(id, framing, prepared.text, prepared.byteLength);
      frame = text.text;
      frameBytes = text.bytes;
    } else {
      frame = encodeRequestAround(id, `${EVENT_METHOD_PREFIX}${event}`, prepared.bytes);
      frameBytes = frame.length;
    }
    if (frameBytes > this.limits.max_frame_bytes) {
      return failedSince(
        started,
        makeFailure(
          "request_too_large",
          `the event request frame is ${frameBytes} bytes, more than limits.max_frame_bytes (${this.limits.max_frame_bytes}); nothing was written`,
        ),
      );
    }
    const live = this.connection(started);
    if (live === null) {
      return failedSince(
        started,
        makeFailure(
          "stream_respawn_limited",
          `${this.failedStreams} streams in a row ended without a valid reply; no child is spawned until the cooldown (limits.stream_respawn_cooldown_ms, ${this.limits.stream_respawn_cooldown_ms} ms) has passed`,
        ),
      );
    }
    let resolve!: (result: InvocationResult) => void;
    const settled = new Promise<InvocationResult>((r) => (resolve = r));
    const pending: Pending = { id, conn: live, started, deadline: started + this.timeoutMs, resolve, write: null };
    live.peer.outbound.set(id, pending);
    if (pending.deadline < live.timerAt) this.armDeadline(live, pending.deadline);
    pending.write = live.conn.write(frame);
    return settled;
  }

  /** (Re-)arm the stream's deadline timer for `at` (performance.now() ms). */
  private armDeadline(live: Live, at: number): void {
    if (live.deadlineTimer !== null) clearTimeout(live.deadlineTimer);
    live.timerAt = at;
    live.deadlineTimer = setTimeout(() => this.onDeadline(live), Math.max(0, at - performance.now()));
  }

  /**
   * The deadline timer fired (for `live.timerAt`): every pending event whose deadline is that one or
   * earlier (or already past) times out, then the timer is armed for the earliest deadline left.
   */
  private onDeadline(live: Live): void {
    const firedFor = live.timerAt;
    live.deadlineTimer = null;
    live.timerAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const expired: Pending[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const pending of live.peer.outbound.list()) {
      if (pending.deadline <= firedFor || pending.deadline <= now) expired.push(pending);
      else if (pending.deadline < next) next = pending.deadline;
    }
    for (const pending of expired) this.onTimeout(pending);
    if (next !== Number.POSITIVE_INFINITY && live.peer.outbound.size > 0 && !live.conn.ended)
      this.armDeadline(live, next);
  }

  /**
   * End the stream: no more events (invoke() then fails with `stream_closed`), stdin ended, grace,
   * SIGTERM, SIGKILL, reap (spec/tables/stream-v2.json `shutdown`). Events still pending when the
   * child exits fail with `stream_exit`. Idempotent; resolves once nothing of the stream runs.
   */
  close(): Promise<void> {
    if (this.closing === null) {
      const live = this.live !== null && !this.live.conn.ended ? this.live.conn.close() : Promise.resolve();
      // Older connections already on their way out (their own end is bounded: terminate's timers).
      this.closing = Promise.all([live, ...[...this.retiring].map((l) => l.conn.closed)]).then(() => undefined);
    }
    return this.closing;
  }

  /** The live connection, spawning one when needed; null while the respawn bound holds. */
  private connection(now: number): Live | null {
    const current = this.live;
    if (current?.conn.acceptsEvents) return current;
    if (current !== null && !current.conn.ended) this.retiring.add(current);
    if (this.failedStreams >= this.limits.stream_max_failed_spawns && now < this.cooldownUntil) return null;
    const live: Live = {
      conn: new StreamConnection(this.program, [...this.args, STREAM_FLAG], this.limits, {
        onFrame: (frame, pointers, resultAccepted) => this.onFrame(live, frame, pointers, resultAccepted),
        onEnd: (end) => this.onEnd(live, end),
        onSpawn: () => {
          live.spawned = true;
          this.counters.spawns++;
        },
      }),
      peer: new RpcPeer(this.ids, this.limits.max_client_requests_in_flight),
      consecutiveTimeouts: 0,
      hadValidReply: false,
      spawned: false,
      framesReceived: 0,
      deadlineTimer: null,
      timerAt: Number.POSITIVE_INFINITY,
    };
    this.live = live;
    live.conn.start();
    return live;
  }

  private settle(
    pending: Pending,
    outcome: { ok: true; response: CallbackResponse; stderrTail: string } | { ok: false; failure: InvocationFailure },
  ): void {
    if (!pending.conn.peer.outbound.delete(pending.id)) return;
    // Settled before its frame was written (a reply to an id the client guessed, while it does not
    // read): the frame is dropped, so a client that stops reading holds only pending events' frames.
    pending.write?.cancel();
    const elapsedMs = performance.now() - pending.started;
    pending.resolve(
      outcome.ok
        ? { ok: true, response: outcome.response, stderrTail: outcome.stderrTail, elapsedMs }
        : { ok: false, failure: outcome.failure, elapsedMs },
    );
  }

  private onTimeout(pending: Pending): void {
    const live = pending.conn;
    if (!live.peer.outbound.has(pending.id)) return;
    const notStarted = live.conn.awaitingSpawn;
    const written = pending.write === null || !pending.write.cancel();
    const what = written
      ? `${CANCEL_METHOD} sent`
      : notStarted
        ? "the client was not started yet: its spawn was still queued behind other spawns; nothing was written"
        : "the request was still queued behind a client that does not read and was dropped";
    this.settle(pending, {
      ok: false,
      failure: makeFailure(
        "timeout",
        `no reply within ${this.timeoutMs} ms (${what}); a late reply is discarded${notStarted ? "" : noFrameHint(live)}`,
        { stderr_tail: live.conn.stderrTail() },
      ),
    });
    if (written && !live.conn.ending) {
      this.counters.cancels++;
      live.conn.write(encodeNotification(CANCEL_METHOD, { id: pending.id, reason: "timeout" }));
    }
    // An event its client never received (its spawn still queued) is not the client's timeout.
    if (notStarted) return;
    live.consecutiveTimeouts++;
    if (live.consecutiveTimeouts >= this.limits.stream_max_consecutive_timeouts) live.conn.terminate("timeouts");
  }

  private onFrame(live: Live, frame: StreamFrame, pointers: readonly string[], resultAccepted: boolean): void {
    live.framesReceived++;
    switch (frame.kind) {
      case "success_reply":
      case "error_reply": {
        const pending = typeof frame.id === "string" ? live.peer.outbound.get(frame.id) : undefined;
        if (pending === undefined) {
          this.counters.discardedFrames++;
          return;
        }
        live.consecutiveTimeouts = 0;
        const stderrTail = live.conn.stderrTail();
        if (frame.kind === "error_reply") {
          this.settle(pending, {
            ok: false,
            failure: errorReplyFailure(frame.error.code, frame.error.message, stderrTail),
          });
          return;
        }
        // A result the frame judge's accept check proved valid (the common reply) is not validated
        // again; otherwise it is judged with the window closed to the version this host speaks.
        const issues =
          resultAccepted && this.acceptProves
            ? NO_ISSUES
            : validateParsed(
                "CallbackResponse",
                frame.result,
                pointers.length === 0 ? pointers : framePointers(pointers, "/result"),
                this.window,
              );
        if (issues.length > 0) {
          const first = issues[0] as (typeof issues)[number];
          this.settle(pending, {
            ok: false,
            failure: makeFailure(
              "invalid_response",
              `CallbackResponse is invalid: ${issueText(first)}${versionHint(first, "answer")}`,
              {
                issues,
                stderr_tail: stderrTail,
              },
            ),
          });
          return;
        }
        live.hadValidReply = true;
        this.settle(pending, { ok: true, response: frame.result as CallbackResponse, stderrTail });
        return;
      }
      case "notification":
        this.counters.discardedFrames++;
        return;
      case "request":
        this.onClientRequest(live, frame);
        return;
    }
  }

  private onClientRequest(live: Live, frame: Extract<StreamFrame, { kind: "request" }>): void {
    const begun = live.peer.inbound.begin(frame.id);
    if (begun === "duplicate") {
      live.conn.write(
        encodeErrorReply(frame.id, {
          code: errorCode("invalid_request"),
          message: `request id ${JSON.stringify(frame.id)} is still unanswered (stream.duplicate-request-id)`,
          data: { error: "invalid_request", rule: "stream.duplicate-request-id" },
        }),
      );
      return;
    }
    if (begun === "flood") {
      live.conn.violate({
        rule: "stream.request-flood",
        pointer: "",
        message: `more than ${this.limits.max_client_requests_in_flight} client requests unanswered (limits.max_client_requests_in_flight)`,
      });
      return;
    }
    this.counters.reverseRequests++;
    void serveReverseRequest(frame.method, frame.id, frame.params, this.handlers, live.conn.signal).then((outcome) => {
      if (live.conn.ending) return;
      let bytes = outcome.ok
        ? encodeResultAround(frame.id, outcome.resultJson)
        : encodeErrorReply(frame.id, outcome.error);
      // max_frame_bytes holds in both directions: a reply the client would have to refuse is not written.
      if (bytes.length - 1 > this.limits.max_frame_bytes) {
        const message = `${frame.method}: the reply would be a ${bytes.length - 1}-byte frame, more than limits.max_frame_bytes (${this.limits.max_frame_bytes})`;
        bytes = encodeErrorReply(frame.id, {
          code: errorCode("internal_error"),
          message,
          data: { error: "internal_error" },
        });
      }
      live.conn.write(bytes, () => live.peer.inbound.end(frame.id));
    });
  }

  private onEnd(live: Live, end: ConnectionEnd): void {
    if (this.live === live) this.live = null;
    this.retiring.delete(live);
    if (live.deadlineTimer !== null) clearTimeout(live.deadlineTimer);
    live.deadlineTimer = null;
    live.timerAt = Number.POSITIVE_INFINITY;
    if (live.hadValidReply) this.failedStreams = 0;
    else if (live.spawned) {
      // A stream ended before its spawn left the gate started no client: nothing for the respawn bound.
      this.failedStreams++;
      if (this.failedStreams >= this.limits.stream_max_failed_spawns)
        this.cooldownUntil = performance.now() + this.limits.stream_respawn_cooldown_ms;
    }
    const failure = live.spawned
      ? endFailure(end, this.program, this.limits, noFrameHint(live))
      : neverStartedFailure(end);
    for (const pending of live.peer.outbound.list()) this.settle(pending, { ok: false, failure });
  }
}

const NO_ISSUES: readonly ValidationIssue[] = Object.freeze([]);

/** A failed invocation that started at `started` (performance.now() ms), settled now. */
function failedSince(started: number, failure: InvocationFailure): Promise<InvocationResult> {
  return Promise.resolve({ ok: false, failure, elapsedMs: performance.now() - started });
}

/** Appended to a timeout or exit detail when the client wrote no frame on its stream at all (e.g. a v1-only client). */
export const NO_FRAME_HINT = "; the client wrote no frame: does it implement --stream?";

/**
 * The hint for a stream that delivered no frame: none written at all ({@link NO_FRAME_HINT}), or
 * bytes without a complete frame (a partial frame, never ended by its LF, before the exit or the
 * deadline); "" once a frame came.
 */
function noFrameHint(live: Live): string {
  if (live.framesReceived > 0) return "";
  const bytes = live.conn.bytesRead;
  return bytes === 0
    ? NO_FRAME_HINT
    : `; the client wrote ${bytes} bytes but no complete frame (each frame ends with LF)`;
}

/** The failure of an error reply: the class of its code (spec/tables/stream-v2.json), else the row's default. */
function errorReplyFailure(code: number, message: string, stderrTail: string): InvocationFailure {
  const base = makeFailure("error_reply", `the client answered with JSON-RPC error ${code}: ${message.slice(0, 512)}`, {
    stderr_tail: stderrTail,
  });
  const cls = failureClassForCode(code);
  if (cls === null) return base;
  return { ...base, failure_class: cls as FailureClass, retry_class: defaultRetryClass(cls as FailureClass) };
}

function exitText(end: ConnectionEnd): string {
  const exit = end.exit;
  if (exit === null) return "the client was not reaped";
  return exit.signal !== null
    ? `the client was killed by signal ${exit.signal}`
    : `the client exited with code ${exit.code}`;
}

/**
 * The failure of the events still pending on a connection that ended while its spawn waited in the
 * spawn gate (close() reached the SIGTERM step, or the stream was ended otherwise): no client ran,
 * nothing was written.
 */
function neverStartedFailure(end: ConnectionEnd): InvocationFailure {
  if (end.cause === "close") {
    return makeFailure(
      "stream_closed",
      "close() ended the stream before its client was started (its spawn was still queued behind other spawns after limits.stream_close_grace_ms); nothing was written",
    );
  }
  return makeFailure(
    "stream_exit",
    `the stream was ended (${end.cause}) before its client was started (its spawn was still queued behind other spawns); nothing was written`,
  );
}

/** The failure of every event still pending when a connection ended. */
function endFailure(end: ConnectionEnd, program: string, limits: StreamInvokerLimits, hint: string): InvocationFailure {
  const facts: FailureFacts = { stderr_tail: end.stderrTail };
  if (end.exit !== null) {
    if (end.exit.signal !== null) facts.signal = end.exit.signal;
    else if (end.exit.code !== null && end.exit.code !== 0) facts.exit_code = end.exit.code;
  }
  const issue = end.issue;
  switch (end.cause) {
    case "spawn":
      return makeFailure("spawn", spawnFailureDetail(program, end.spawnError));
    case "violation":
    case "unterminated": {
      const shown =
        end.frameBytes !== null
          ? `; the frame was ${previewBytes(end.frameBytes, limits.failure_detail_preview_bytes)}`
          : "";
      return makeFailure(
        "stream_framing",
        `the client broke the stream framing: ${issue !== null ? issueText(issue) : "unknown"}${shown}; the stream was ended`,
        { ...facts, issues: issue !== null ? [issue] : [] },
      );
    }
    case "frame_too_large":
      return makeFailure(
        "stream_frame_too_large",
        `a frame from the client exceeded limits.max_frame_bytes (${limits.max_frame_bytes} bytes); nothing more was read and the stream was ended`,
        { ...facts, issues: issue !== null ? [issue] : [] },
      );
    case "stdout_closed":
      return makeFailure(
        "stream_stdout_closed",
        "the client closed its stdout while running; the stream was ended",
        facts,
      );
    case "write_error":
      return makeFailure(
        "write_request",
        `writing to the client's stdin failed: ${end.writeError?.code ?? end.writeError?.message ?? "unknown"}; the stream was ended`,
        facts,
      );
    case "timeouts":
      return makeFailure(
        "stream_exit",
        `the host ended the stream after ${limits.stream_max_consecutive_timeouts} consecutive timeouts (limits.stream_max_consecutive_timeouts); ${exitText(end)}${hint}`,
        facts,
      );
    case "close":
      return makeFailure(
        "stream_exit",
        `the stream was closed before the client answered; ${exitText(end)}${hint}`,
        facts,
      );
    case "exit":
      return makeFailure("stream_exit", `${exitText(end)} while the event was pending${hint}`, facts);
  }
}
