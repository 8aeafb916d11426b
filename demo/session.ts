/**
 * The demo's realistic session: ten lifecycle events of one harness session, from
 * session.starting to session.ended, with one frame in the middle and payloads where a harness
 * would send them. Each event goes to a fresh client process through our SubprocessInvoker and
 * becomes a receipt through one ReceiptEmitter per run, so the receipts' sequence counts 1..10.
 */
import type {
  CallbackResponse,
  DispatchEnvelope,
  FailureClass,
  LifecycleEventKind,
  LifecycleReceipt,
  ReceiptStatus,
} from "../generated/ts/types.js";
import { SubprocessInvoker } from "../runtime/invoker/subprocess.js";
import { ReceiptEmitter } from "../runtime/receipts/emitter.js";
import {
  callbackRequest,
  dispatchEnvelope,
  frameContext,
  requiresFrameContext,
  textPayload,
} from "../test/support/dispatch.js";
import { clientArgs, type FixtureClient } from "../test/support/fixture-clients.js";

/** The session's events, in order. */
export const SESSION_EVENTS = [
  "session.starting",
  "session.started",
  "frame.opening",
  "frame.opened",
  "context.pressure_observed",
  "context.compacted",
  "frame.ending",
  "frame.ended",
  "session.ending",
  "session.ended",
] as const satisfies readonly LifecycleEventKind[];

/** Deadline of one session event's round trip (ms): generous, a cold Python start on a busy machine is slow. */
export const SESSION_TIMEOUT_MS = 10_000;

/** Identity of one session run: every id is derived from `tag` (e.g. `mi3k2a-go`). */
export interface SessionIds {
  readonly tag: string;
  readonly harness_session_id: string;
  readonly harness_run_id: string;
  readonly frame_id: string;
}

/** The ids of the session of `tag`. */
export function sessionIds(tag: string): SessionIds {
  return { tag, harness_session_id: `sess-${tag}`, harness_run_id: `run-${tag}`, frame_id: `frame-${tag}-1` };
}

const INSTRUCTION_FRAME = [
  "# Working agreement",
  "- Run the tests before you say a change is done.",
  "- Keep commits small; explain why, not what.",
].join("\n");
const COMPACTION_NOTE =
  "Context compacted at 91% of the budget: kept the task, the open files and the last failing test; dropped 42 earlier tool results.";

function payloadsFor(event: LifecycleEventKind, ids: SessionIds): DispatchEnvelope["payloads"] {
  if (event === "frame.opening") {
    return [
      textPayload({
        payload_id: `pay-${ids.tag}-frame`,
        client_id: "demo-harness",
        payload_kind: "instruction_frame",
        format: "markdown",
        body: INSTRUCTION_FRAME,
        placement: "developer_equivalent_frame",
      }),
    ];
  }
  if (event === "context.compacted") {
    return [
      textPayload({
        payload_id: `pay-${ids.tag}-note`,
        client_id: "demo-harness",
        payload_kind: "side_channel_note",
        format: "text",
        body: COMPACTION_NOTE,
        placement: "side_channel_context",
      }),
    ];
  }
  return [];
}

function metadataFor(event: LifecycleEventKind): Record<string, unknown> | undefined {
  switch (event) {
    case "session.starting":
      return { harness: "demo-harness", cwd: "/workspace/project" };
    case "context.pressure_observed":
      return { tokens_used: 182_000, token_budget: 200_000 };
    case "frame.ended":
      return { outcome: "completed" };
    default:
      return undefined;
  }
}

/** The ten envelopes of one session run (same harness ids throughout, the frame id on frame.* events). */
export function sessionEnvelopes(ids: SessionIds): DispatchEnvelope[] {
  return SESSION_EVENTS.map((event, i) => {
    const metadata = metadataFor(event);
    const request = callbackRequest(event, {
      event_id: `evt-${ids.tag}-${i + 1}`,
      invocation_id: `inv-${ids.tag}-${i + 1}`,
      harness_session_id: ids.harness_session_id,
      harness_run_id: ids.harness_run_id,
      ...(requiresFrameContext(event) ? { frame_context: frameContext(ids.frame_id) } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    });
    return dispatchEnvelope(request, payloadsFor(event, ids));
  });
}

/**
 * One delivered event, as the table shows it. `status` is the receipt's (null: no receipt);
 * `payloads` the kinds sent; `problems` what was not as expected ([] when all is well).
 */
export interface SessionRow {
  readonly n: number;
  readonly event: LifecycleEventKind;
  readonly payloads: readonly string[];
  readonly status: ReceiptStatus | null;
  readonly failure_class: FailureClass | null;
  readonly receipt_id: string | null;
  readonly sequence: number | null;
  readonly elapsedMs: number;
  readonly problems: readonly string[];
}

/** A finished session run: its rows and the receipts made (in order). */
export interface SessionRun {
  readonly ids: SessionIds;
  readonly rows: readonly SessionRow[];
  readonly receipts: readonly LifecycleReceipt[];
}

function echoedPayloadCount(response: CallbackResponse): unknown {
  return (response.metadata as Record<string, unknown> | undefined)?.payload_count;
}

/**
 * Drive the session of `ids` through `client` (echo behaviour), one event after another, with a
 * fresh ReceiptEmitter. Expected for every event: the client answers delivered, echoes the number of
 * payloads it received, and the receipt is delivered with sequence n.
 */
export async function runSession(client: FixtureClient, ids: SessionIds, clientId: string): Promise<SessionRun> {
  const invoker = new SubprocessInvoker({
    program: client.program,
    args: clientArgs({ kind: "echo" }),
    timeoutMs: SESSION_TIMEOUT_MS,
  });
  const emitter = new ReceiptEmitter();
  const rows: SessionRow[] = [];
  const receipts: LifecycleReceipt[] = [];
  for (const [i, envelope] of sessionEnvelopes(ids).entries()) {
    const n = i + 1;
    const result = await invoker.invoke(envelope);
    const receipt = emitter.emit(envelope, result, {
      client_id: clientId,
      receipt_id: `rcpt-${ids.tag}-${String(n).padStart(2, "0")}`,
      at_epoch_s: Math.floor(Date.now() / 1000),
    });
    const problems: string[] = [];
    const sent = envelope.payloads ?? [];
    if (!result.ok)
      problems.push(
        `not delivered: ${result.failure.variant} (${result.failure.failure_class}): ${result.failure.detail}`,
      );
    else if (echoedPayloadCount(result.response) !== sent.length)
      problems.push(
        `the client saw ${String(echoedPayloadCount(result.response))} payload(s), ${sent.length} were sent`,
      );
    if (receipt === null) problems.push("no receipt was made");
    else if (receipt.status !== "delivered" || receipt.sequence !== n)
      problems.push(
        `receipt ${receipt.status} with sequence ${String(receipt.sequence)}; delivered with sequence ${n} expected`,
      );
    if (receipt !== null) receipts.push(receipt);
    rows.push({
      n,
      event: envelope.request.event,
      payloads: sent.map((p) => p.payload_kind),
      status: receipt?.status ?? null,
      failure_class: receipt?.failure_class ?? null,
      receipt_id: receipt?.receipt_id ?? null,
      sequence: receipt?.sequence ?? null,
      elapsedMs: result.elapsedMs,
      problems,
    });
  }
  return { ids, rows, receipts };
}
