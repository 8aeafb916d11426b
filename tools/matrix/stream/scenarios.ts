/**
 * The rows of the stream (v2) lifecycle matrix: seed 002's persistent-stdio scenarios on our
 * protocol (spec/stream-protocol.md). Each row drives real client processes through a
 * {@link StreamInvoker} and states its outcome as protocol promises written out (variants, counts,
 * bounds), independently of how the host computes them.
 *
 * Ordering uses explicit barriers, never sleeps: a reply the client holds back is released by the
 * next request; a frame counted as discarded is known to be read once a later reply on the same
 * pipe has arrived; a deadline that must expire is the event's own deadline. Every cell runs under a
 * watchdog and ends with every process it started reaped.
 */
import { EVENT_VOCABULARY, LIMITS } from "../../../generated/ts/spec.js";
import type { DispatchEnvelope, LifecycleEventKind } from "../../../generated/ts/types.js";
import type { InvocationResult } from "../../../runtime/invoker/types.js";
import type { StreamInvoker, StreamInvokerConfig } from "../../../runtime/stream/invoker.js";
import {
  callbackRequest,
  dispatchEnvelope,
  frameContext,
  requiresFrameContext,
} from "../../../test/support/dispatch.js";
import type { ClientPlan, StreamClient } from "./clients.js";

/** Deadline of an event that should be answered (ms): generous, for a loaded 2-core machine. */
export const NORMAL_TIMEOUT_MS = 10_000;
/** Deadline of the rows whose first event must time out (ms). */
export const SHORT_TIMEOUT_MS = 1_500;
/**
 * Deadline of the late-reply row (ms): the held event must time out, and before that the client's
 * handler must have produced the reply its tap holds back (a trivial echo; the margin is for a
 * heavily loaded machine, where a thread can wait seconds for a core).
 */
export const LATE_TIMEOUT_MS = 3_000;
/** The host's max_frame_bytes in the size rows (bytes): small, so the rows stay quick. */
export const SIZE_LIMIT_BYTES = 65_536;

/** An invoker opened by a cell, with the file its client records the frames it received in. */
export interface Opened {
  readonly invoker: StreamInvoker;
  readonly record: string;
  /** Start `envelope`; the child's pid is noted for the final reaping check. */
  invoke(envelope: DispatchEnvelope): Promise<InvocationResult>;
}

/** What a row gets: its client, a way to open invokers (closed and checked by the runner), envelopes, and `check`. */
export interface CellContext {
  readonly client: StreamClient;
  open(plan: Omit<ClientPlan, "record">, config?: Partial<Pick<StreamInvokerConfig, "timeoutMs" | "limits">>): Opened;
  /** The envelope of event `kind` with the client action `action` (request.metadata.matrix_action). */
  event(kind: LifecycleEventKind, action?: string): DispatchEnvelope;
  /** Record `reason` unless `ok`. */
  check(ok: boolean, reason: string): void;
  /** The text of the frames the client recorded (after the invoker closed: read it at the end). */
  recorded(opened: Opened): string;
}

/** One row. `expect` is the outcome as table text. */
export interface StreamScenario {
  readonly id: string;
  readonly label: string;
  readonly expect: string;
  run(ctx: CellContext): Promise<void>;
}

const REQUEST_EVENTS = EVENT_VOCABULARY.filter((e) => e.stream_v2 === "request").map(
  (e) => e.event as LifecycleEventKind,
);

let counter = 0;
/** A fresh envelope (unique ids) for `kind`, carrying `action` for the SDK fixtures. */
export function envelope(kind: LifecycleEventKind, action?: string): DispatchEnvelope {
  const n = ++counter;
  return dispatchEnvelope(
    callbackRequest(kind, {
      event_id: `evt-stream-${n}`,
      invocation_id: `inv-stream-${n}`,
      harness_session_id: "sess-stream-matrix",
      ...(requiresFrameContext(kind) ? { frame_context: frameContext(`frame-${n}`) } : {}),
      ...(action === undefined ? {} : { metadata: { matrix_action: action } }),
    }),
  );
}

function describe(result: InvocationResult): string {
  return result.ok
    ? `delivered status ${result.response.status}`
    : `${result.failure.variant} (${result.failure.detail.slice(0, 120)})`;
}

/** Check that `result` is the client's delivered answer to `sent` (correlated to its id). */
function delivered(ctx: CellContext, what: string, sent: DispatchEnvelope, result: InvocationResult): void {
  const ok =
    result.ok && result.response.status === "delivered" && result.response.metadata?.event_id === sent.request.event_id;
  ctx.check(
    ok,
    `${what}: wanted the delivered answer to ${sent.request.event_id}, got ${describe(result)}${result.ok ? ` for ${String(result.response.metadata?.event_id)}` : ""}`,
  );
}

function failed(ctx: CellContext, what: string, result: InvocationResult, variant: string): void {
  ctx.check(!result.ok && result.failure.variant === variant, `${what}: wanted ${variant}, got ${describe(result)}`);
}

function counts(
  ctx: CellContext,
  opened: Opened,
  want: { spawns?: number; discardedAtLeast?: number; discarded?: number; cancels?: number; reverseRequests?: number },
): void {
  const s = opened.invoker.stats;
  if (want.spawns !== undefined) ctx.check(s.spawns === want.spawns, `spawns ${want.spawns} wanted, got ${s.spawns}`);
  if (want.discarded !== undefined)
    ctx.check(
      s.discardedFrames === want.discarded,
      `discarded_frames ${want.discarded} wanted, got ${s.discardedFrames}`,
    );
  if (want.discardedAtLeast !== undefined)
    ctx.check(
      s.discardedFrames >= want.discardedAtLeast,
      `discarded_frames ≥ ${want.discardedAtLeast} wanted, got ${s.discardedFrames}`,
    );
  if (want.cancels !== undefined)
    ctx.check(s.cancels === want.cancels, `cancels ${want.cancels} wanted, got ${s.cancels}`);
  if (want.reverseRequests !== undefined)
    ctx.check(
      s.reverseRequests === want.reverseRequests,
      `reverse requests ${want.reverseRequests} wanted, got ${s.reverseRequests}`,
    );
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Every row, in table order. */
export function streamScenarios(): StreamScenario[] {
  counter = 0;
  const closeGrace = LIMITS.stream_close_grace_ms;
  const termGrace = LIMITS.stream_term_grace_ms;
  return [
    {
      id: "session",
      label: `whole session (${REQUEST_EVENTS.length} events)`,
      expect: "all delivered, 1 spawn",
      async run(ctx) {
        const s = ctx.open({});
        for (const kind of REQUEST_EVENTS) {
          const sent = ctx.event(kind);
          delivered(ctx, kind, sent, await s.invoke(sent));
        }
        counts(ctx, s, { spawns: 1, discarded: 0 });
      },
    },
    {
      id: "cancel",
      label: "cancel before a reply",
      expect: "timeout + lifeloop/cancel, no reply",
      async run(ctx) {
        const s = ctx.open({ raw: "ignore-first" }, { timeoutMs: SHORT_TIMEOUT_MS });
        failed(ctx, "event 1", await s.invoke(ctx.event("frame.opening", "hang")), "timeout");
        const next = ctx.event("frame.opened");
        delivered(ctx, "event 2", next, await s.invoke(next));
        // Barrier: a reply to event 1 written after the cancel would precede event 3's reply.
        const third = ctx.event("frame.ending");
        delivered(ctx, "event 3", third, await s.invoke(third));
        counts(ctx, s, { spawns: 1, cancels: 1, discarded: 0 });
        await s.invoker.close();
        ctx.check(ctx.recorded(s).includes('"lifeloop/cancel"'), "the client never received lifeloop/cancel");
      },
    },
    {
      id: "late",
      label: "late old reply, next pending",
      expect: "timeout; next gets its own reply",
      async run(ctx) {
        const s = ctx.open({ raw: "late-reply" }, { timeoutMs: LATE_TIMEOUT_MS });
        // Barrier: the client is up (its start-up does not eat into the held event's deadline).
        // The raw client holds its first request, so it gets no warm-up event.
        if (ctx.client.id !== "raw") {
          const warm = ctx.event("session.starting");
          delivered(ctx, "warm-up event", warm, await s.invoke(warm));
        }
        failed(ctx, "held event", await s.invoke(ctx.event("session.started", "late")), "timeout");
        // The client releases the old reply only when the next request has arrived.
        const next = ctx.event("supervisor.tick");
        delivered(ctx, "next event", next, await s.invoke(next));
        counts(ctx, s, { spawns: 1, discarded: 1 });
      },
    },
    {
      id: "duplicate",
      label: "duplicate replies, other contents",
      expect: "first reply wins, rest discarded",
      async run(ctx) {
        const s = ctx.open({ raw: "duplicate" });
        const first = ctx.event("context.pressure_observed", "duplicate");
        const result = await s.invoke(first);
        delivered(ctx, "event 1", first, result);
        const next = ctx.event("context.compacted");
        delivered(ctx, "event 2", next, await s.invoke(next));
        counts(ctx, s, { spawns: 1, discardedAtLeast: 1 });
      },
    },
    {
      id: "unsolicited",
      label: "unsolicited + unknown-id frames",
      expect: "discarded, live request unharmed",
      async run(ctx) {
        const s = ctx.open({ raw: "unsolicited" });
        for (const kind of ["session.started", "supervisor.tick", "session.ending"] as const) {
          const sent = ctx.event(kind, "unsolicited");
          delivered(ctx, kind, sent, await s.invoke(sent));
        }
        counts(ctx, s, { spawns: 1, discardedAtLeast: 6 });
      },
    },
    {
      id: "bytewise",
      label: "a frame one byte per write",
      expect: "delivered",
      async run(ctx) {
        const s = ctx.open({ raw: "bytewise" });
        for (const kind of ["frame.opening", "frame.ended"] as const) {
          const sent = ctx.event(kind, "bytewise");
          delivered(ctx, kind, sent, await s.invoke(sent));
        }
        counts(ctx, s, { spawns: 1, discarded: 0 });
      },
    },
    {
      id: "two-in-one",
      label: "two frames in one write",
      expect: "both delivered, each to its id",
      async run(ctx) {
        const s = ctx.open({ raw: "two-in-one" });
        const a = ctx.event("capability.degraded", "pair");
        const b = ctx.event("receipt.gap_detected", "pair");
        const [ra, rb] = await Promise.all([s.invoke(a), s.invoke(b)]);
        delivered(ctx, "first", a, ra);
        delivered(ctx, "second", b, rb);
        counts(ctx, s, { spawns: 1, discarded: 0 });
      },
    },
    {
      id: "size",
      label: `frame at ${SIZE_LIMIT_BYTES} B limit / +1`,
      expect: "passes / stream_frame_too_large",
      async run(ctx) {
        const limits = { max_frame_bytes: SIZE_LIMIT_BYTES };
        const at = ctx.open({ raw: "pad", frameBytes: SIZE_LIMIT_BYTES }, { limits });
        const sent = ctx.event("session.started", `pad:${SIZE_LIMIT_BYTES}`);
        delivered(ctx, "at the limit", sent, await at.invoke(sent));
        const over = ctx.open({ raw: "pad", frameBytes: SIZE_LIMIT_BYTES + 1 }, { limits });
        failed(
          ctx,
          "one byte over",
          await over.invoke(ctx.event("session.started", `pad:${SIZE_LIMIT_BYTES + 1}`)),
          "stream_frame_too_large",
        );
      },
    },
    {
      id: "reverse",
      label: "client request while event pending",
      expect: "served (-32000 not_available)",
      async run(ctx) {
        const s = ctx.open({ raw: "reverse" });
        const sent = ctx.event("session.starting", "reverse-put");
        const result = await s.invoke(sent);
        delivered(ctx, "event", sent, result);
        if (result.ok)
          ctx.check(
            ctx.client.reverseError(result.response) === "not_available",
            `the client saw ${String(ctx.client.reverseError(result.response))}, not not_available`,
          );
        counts(ctx, s, { spawns: 1, reverseRequests: 1 });
      },
    },
    {
      id: "crash",
      label: "crash mid-session, respawn",
      expect: "stream_exit, next respawns",
      async run(ctx) {
        const s = ctx.open({ raw: "crash-at:2" });
        const one = ctx.event("session.started");
        delivered(ctx, "event 1", one, await s.invoke(one));
        failed(ctx, "event 2", await s.invoke(ctx.event("frame.opening", "exit:3")), "stream_exit");
        const three = ctx.event("frame.opened");
        delivered(ctx, "event 3 (respawned)", three, await s.invoke(three));
        counts(ctx, s, { spawns: 2 });
      },
    },
    {
      id: "close-stdout",
      label: "client closes stdout",
      expect: "stream_stdout_closed, reaped",
      async run(ctx) {
        const s = ctx.open({ raw: "close-stdout" });
        failed(ctx, "event", await s.invoke(ctx.event("session.started", "close-stdout")), "stream_stdout_closed");
      },
    },
    {
      id: "receipt.emitted",
      label: "receipt.emitted never on the wire",
      expect: "refused, 0 bytes, no spawn",
      async run(ctx) {
        const s = ctx.open({});
        failed(ctx, "receipt.emitted", await s.invoke(ctx.event("receipt.emitted")), "receipt_emitted_rejected");
        counts(ctx, s, { spawns: 0 });
        const sent = ctx.event("session.started");
        delivered(ctx, "next event", sent, await s.invoke(sent));
        failed(
          ctx,
          "receipt.emitted on a live stream",
          await s.invoke(ctx.event("receipt.emitted")),
          "receipt_emitted_rejected",
        );
        const last = ctx.event("session.ended");
        delivered(ctx, "last event", last, await s.invoke(last));
        await s.invoker.close();
        const frames = ctx.recorded(s);
        ctx.check(
          frames.includes(sent.request.event_id) && frames.includes(last.request.event_id),
          "the record lacks the delivered events",
        );
        ctx.check(!frames.includes("receipt.emitted"), "receipt.emitted reached the client");
      },
    },
    {
      id: "eof",
      label: "shutdown by EOF",
      expect: `exits < ${closeGrace} ms grace`,
      async run(ctx) {
        const s = ctx.open({});
        const sent = ctx.event("session.ending");
        delivered(ctx, "event", sent, await s.invoke(sent));
        const ms = await timed(() => s.invoker.close());
        ctx.check(
          ms < closeGrace,
          `close() took ${ms.toFixed(0)} ms: the client did not exit at stdin EOF within stream_close_grace_ms (${closeGrace} ms)`,
        );
      },
    },
    {
      id: "sigterm",
      label: "shutdown by SIGTERM",
      expect: `ends in [${closeGrace}, ${closeGrace + termGrace}) ms`,
      async run(ctx) {
        const s = ctx.open({ raw: "ignore-eof", ignoreEof: true });
        const sent = ctx.event("session.ended");
        delivered(ctx, "event", sent, await s.invoke(sent));
        const ms = await timed(() => s.invoker.close());
        ctx.check(
          ms >= closeGrace,
          `close() took ${ms.toFixed(0)} ms: the client exited at EOF, so SIGTERM was never needed`,
        );
        ctx.check(
          ms < closeGrace + termGrace,
          `close() took ${ms.toFixed(0)} ms: the client did not exit within stream_term_grace_ms (${termGrace} ms) of SIGTERM`,
        );
      },
    },
  ];
}
