/**
 * `lifeloop-callback session [--transport subprocess|stream] --program ABS [--arg A]... --timeout-ms N
 *  [--parent-receipt-id ID] FILE|-`
 * (spec/host-runtime.md §"CLI: lifeloop-callback session"): deliver a session of events, one
 * DispatchEnvelope per line of a JSON Lines file, over either transport, so both can be compared on
 * the same file.
 *
 * - The whole input is read first (at most limits.max_session_input_bytes; each line at most
 *   limits.max_request_bytes) and every line must be one JSON document (a final LF is allowed;
 *   an empty line is not JSON): otherwise exit 3 before anything is sent.
 * - A JSON line that is not a valid envelope gets a failure line, exactly as `invoke` reports it.
 * - Output: one JSON line per envelope, in input order:
 *   `{"event_id": string|null, "response", "failure", "receipt", "elapsed_ms"}` (as `invoke`), then
 *   `{"summary": {"transport", "events", "delivered", "answered_failed", "failed", "spawns", "discarded_frames", "elapsed_ms"}}`.
 *   `delivered` counts valid responses whatever their status (`answered_failed`: those with status
 *   `failed`), `failed` invocation failures, `spawns`
 *   children started (subprocess: one per envelope that reached a spawn; stream: the invoker's).
 * - Events are sent one at a time, in order. Receipts come from one ReceiptEmitter for the session
 *   (client_id: `--client-id`, else runtime/cli/client-options.ts defaultClientId), so `sequence` numbers 1..N per `harness_run_id` within
 *   the run. `--parent-receipt-id` is the parent of every receipt of the session (default none);
 *   an envelope with a `subcall` frame and no parent is that line's `invalid_request` failure,
 *   refused before anything is spawned or written (spec/host-runtime.md §"Receipts", "Linkage").
 *   With `--ledger PATH` (spec/host-runtime.md §"Receipts: the ledger") the emitter's store and
 *   sequences are that durable ledger, opened before anything is sent (unusable: exit 3, nothing
 *   sent): sequences continue those of earlier processes, keys recorded earlier replay
 *   (`"replayed": true` on the line) or conflict, every receipt is recorded. A ledger fault on one
 *   event is that line's `receipt_error` (internal_error), and the exit is 3.
 * - Stream mode answers the client's `continuation/*` requests from the continuation store the
 *   environment names, resolved as `lifeloop-callback continuation` resolves it
 *   (`$LIFELOOP_CONTINUATION_ROOT`, then `$XDG_STATE_HOME`, then `$HOME`; runtime/continuation/root.ts),
 *   per request, so a store problem is that request's error reply, never the session's
 *   (runtime/continuation/stream-handlers.ts). Entries `list` skipped are reported on stderr.
 * Exit 0 every envelope got a valid response, 1 any invocation failed (or an answer's status is
 * listed by `--fail-on-status`), 2 usage, 3 unreadable input, an empty one (no envelope) or a
 * ledger fault.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { INTEGER_PATHS, LIMITS } from "../../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../../generated/ts/types.js";
import { sortedJsonLine } from "../../continuation/json.js";
import { abandonedLockWaits } from "../../continuation/lock.js";
import { rootResolutionText, storeForCommand } from "../../continuation/root.js";
import { continuationHandlers } from "../../continuation/stream-handlers.js";
import { issueText } from "../../invoker/failure.js";
import { SubprocessInvoker } from "../../invoker/subprocess.js";
import { InvokerConfigError, type CallbackInvoker, type InvocationResult } from "../../invoker/types.js";
import { ReceiptEmitter } from "../../receipts/emitter.js";
import { IdempotencyConflictError } from "../../receipts/idempotency.js";
import { StreamInvoker } from "../../stream/invoker.js";
import { parseStrictJson } from "../../wire/json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS } from "../../wire/validate.js";
import { defaultClientId, FAIL_ON_STATUS_USAGE, failOnStatuses } from "../client-options.js";
import {
  invokerFlagError,
  EXIT,
  integerFlag,
  jsonLine,
  parseFlags,
  readCommandInput,
  UsageError,
  type CliIo,
} from "../io.js";
import { isLedgerError } from "../../receipts/open-ledger.js";
import { ledgerFlag, openCommandLedger } from "../ledger.js";
import { printedFailure } from "./invoke.js";

/** Usage text of the session command. */
export const SESSION_USAGE = `usage: lifeloop-callback session [--transport subprocess|stream] --program ABS [--arg A]... --timeout-ms N
                          [--parent-receipt-id ID] [--ledger PATH] FILE|-
  Delivers one DispatchEnvelope per line of a JSON Lines file (or standard input), in order, and
  prints one JSON line per envelope ({"event_id", "response", "failure", "receipt", "elapsed_ms"})
  and a final {"summary": {...}} line.
  --transport   subprocess (default: v1, one process per envelope) or stream (v2, one process, --stream)
  --program     absolute path of the client (no shell; arguments via --arg, verbatim, in order)
  --timeout-ms  required deadline per event, in ms
  --client-id   receipt client_id (default: the program's file name, or its script's for an interpreter)
  --parent-receipt-id  the parent of every receipt of the session (required for subcall frames)
  --ledger      durable receipt ledger (SQLite, as invoke --ledger): sequences and replays span processes
${FAIL_ON_STATUS_USAGE}
  In stream mode the client's continuation/* requests are answered from the continuation store
  (as \`lifeloop-callback continuation\` finds it: ${rootResolutionText()}).
  Summary: delivered counts valid answers whatever their status; answered_failed those with status failed.
  exit 0 every envelope answered validly, 1 an invocation failed (or --fail-on-status matched), 2 usage,
  3 unreadable input, no envelope or a ledger fault`;

/** Failure variants decided before any process is involved (they cost no spawn in subprocess mode). */
const PRE_SPAWN = new Set(["receipt_emitted_rejected", "invalid_request", "serialize_request", "request_too_large"]);

interface Line {
  readonly value: unknown;
  readonly nonIntegerNumberPointers: readonly string[];
}

/** Split and judge every line; an error message (exit 3) or the parsed lines. */
function parseLines(bytes: Uint8Array): { ok: true; lines: Line[] } | { ok: false; message: string } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const lines: Line[] = [];
  let start = 0;
  let n = 0;
  while (start < buf.length) {
    let end = buf.indexOf(0x0a, start);
    if (end === -1) end = buf.length;
    n++;
    const line = buf.subarray(start, end);
    start = end + 1;
    if (line.length > LIMITS.max_request_bytes)
      return {
        ok: false,
        message: `line ${n}: json.max-bytes: longer than ${LIMITS.max_request_bytes} bytes (limits.max_request_bytes)`,
      };
    const parsed = parseStrictJson(line, DEFAULT_DOCUMENT_LIMITS, { nonIntegerPaths: INTEGER_PATHS.DispatchEnvelope });
    // A pretty-printed file fails on line 1; say what the format is and how to get it.
    if (!parsed.ok)
      return {
        ok: false,
        message: `line ${n} is not one JSON document: ${issueText(parsed.issue)} (the input is JSON Lines: one DispatchEnvelope per line, e.g. jq -c . FILE)`,
      };
    lines.push({ value: parsed.value, nonIntegerNumberPointers: parsed.nonIntegerNumberPointers });
  }
  return { ok: true, lines };
}

function buildInvoker(
  transport: string,
  program: string | undefined,
  args: readonly string[],
  timeoutText: string | undefined,
  io: CliIo,
): CallbackInvoker & { readonly program: string } {
  if (transport !== "subprocess" && transport !== "stream")
    throw new UsageError(`--transport is subprocess or stream (got ${JSON.stringify(transport)})`);
  if (program === undefined) throw new UsageError("--program is required");
  const timeoutMs = integerFlag("--timeout-ms", timeoutText, {
    min: 1,
    max: LIMITS.max_timeout_ms,
    unit: "of milliseconds",
  });
  if (timeoutMs === undefined)
    throw new UsageError("--timeout-ms is required: there is no default timeout (e.g. --timeout-ms 5000)");
  try {
    if (transport === "subprocess") return new SubprocessInvoker({ program, args, timeoutMs });
    const reverseHandlers = continuationHandlers((use) => storeForCommand(process.env, use), {
      onDiagnostic: (d) => io.err(`session: continuation/list: ${sortedJsonLine({ ...d })}`),
    });
    return new StreamInvoker({ program, args, timeoutMs, reverseHandlers });
  } catch (error) {
    if (error instanceof InvokerConfigError) throw invokerFlagError(error.message);
    throw error;
  }
}

/** Run the session command; returns the exit code. */
export async function runSession(args: readonly string[], io: CliIo): Promise<number> {
  const { values, lists, positionals } = parseFlags(args, {
    values: [
      "--transport",
      "--program",
      "--timeout-ms",
      "--client-id",
      "--fail-on-status",
      "--parent-receipt-id",
      "--ledger",
    ],
    repeatable: ["--arg"],
  });
  const [source, ...extra] = positionals;
  if (source === undefined) throw new UsageError("FILE (or - for standard input) is required");
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  const transport = values.get("--transport") ?? "subprocess";
  const invoker = buildInvoker(
    transport,
    values.get("--program"),
    lists.get("--arg") ?? [],
    values.get("--timeout-ms"),
    io,
  );
  const failOn = failOnStatuses(values.get("--fail-on-status"));
  const parentReceiptId = values.get("--parent-receipt-id") ?? null;
  if (parentReceiptId === "")
    throw new UsageError("--parent-receipt-id is empty: give a receipt id, or leave the flag out for root receipts");
  const ledgerPath = ledgerFlag(values);

  const bytes = await readCommandInput("session", source, LIMITS.max_session_input_bytes, io);
  if (bytes === null) return EXIT.input;
  const parsed = parseLines(bytes);
  if (!parsed.ok) {
    io.err(`session: ${parsed.message}; nothing was sent\n`);
    return EXIT.input;
  }
  if (parsed.lines.length === 0) {
    io.err("session: no envelope: the input is empty (JSON Lines: one DispatchEnvelope per line); nothing was sent\n");
    return EXIT.input;
  }

  const opened = await openCommandLedger(ledgerPath, io, "session", "nothing was sent");
  if ("exit" in opened) return opened.exit;
  const { ledger } = opened;

  const started = performance.now();
  const receipts = ledger === null ? new ReceiptEmitter() : new ReceiptEmitter({ store: ledger, sequencer: ledger });
  const clientId = values.get("--client-id") ?? defaultClientId(invoker.program, lists.get("--arg") ?? []);
  let delivered = 0;
  let answeredFailed = 0;
  let failOnMatched = 0;
  let failed = 0;
  let spawns = 0;
  let ledgerFaults = 0;
  try {
    for (const line of parsed.lines) {
      const receiptId = `rcpt-${randomUUID()}`;
      const result: InvocationResult = await invoker.invoke(line.value as DispatchEnvelope, {
        nonIntegerNumberPointers: line.nonIntegerNumberPointers,
        parentReceiptId,
        receiptId,
      });
      if (result.ok) {
        delivered++;
        if (result.response.status === "failed") answeredFailed++;
        if (failOn.has(result.response.status)) {
          failOnMatched++;
          io.err(`session: the client answered status ${result.response.status} (--fail-on-status)\n`);
        }
      } else {
        failed++;
        io.err(`session: ${result.failure.variant} (${result.failure.failure_class}): ${result.failure.detail}\n`);
      }
      if (!(invoker instanceof StreamInvoker) && (result.ok || !PRE_SPAWN.has(result.failure.variant))) spawns++;
      // A reused idempotency_key with different content is the session's state_conflict, reported
      // on the event's line (no receipt) and counted as a failure; the session goes on.
      let receipt: unknown = null;
      let replayed = false;
      let receiptError: Record<string, unknown> | null = null;
      try {
        const emitted = receipts.emitOutcome(line.value as DispatchEnvelope, result, {
          client_id: clientId,
          receipt_id: receiptId,
          parent_receipt_id: parentReceiptId,
          at_epoch_s: Math.floor(Date.now() / 1000),
        });
        receipt = emitted?.receipt ?? null;
        replayed = emitted?.replayed ?? false;
      } catch (error) {
        if (!(error instanceof IdempotencyConflictError) && !isLedgerError(error)) throw error;
        if (isLedgerError(error)) ledgerFaults++;
        receiptError = { failure_class: error.failure_class, retry_class: error.retry_class, message: error.message };
        if (result.ok) {
          delivered--;
          if (result.response.status === "failed") answeredFailed--;
          failed++;
        }
        io.err(`session: ${error.failure_class}: ${error.message}\n`);
      }
      const eventId = (() => {
        try {
          const id = (line.value as { request?: { event_id?: unknown } } | null)?.request?.event_id;
          return typeof id === "string" ? id : null;
        } catch {
          return null;
        }
      })();
      io.out(
        jsonLine({
          event_id: eventId,
          response: result.ok ? result.response : null,
          failure: result.ok ? null : printedFailure(result.failure),
          receipt,
          ...(replayed ? { replayed: true } : {}),
          ...(receiptError === null ? {} : { receipt_error: receiptError }),
          elapsed_ms: Math.round(result.elapsedMs),
        }),
      );
    }
  } finally {
    if (invoker instanceof StreamInvoker) await invoker.close();
    ledger?.close();
  }
  const stats = invoker instanceof StreamInvoker ? invoker.stats : null;
  io.out(
    jsonLine({
      summary: {
        transport,
        events: parsed.lines.length,
        delivered,
        answered_failed: answeredFailed,
        failed,
        spawns: stats !== null ? stats.spawns : spawns,
        discarded_frames: stats !== null ? stats.discardedFrames : 0,
        elapsed_ms: Math.round(performance.now() - started),
      },
    }),
  );
  return ledgerFaults > 0 ? EXIT.input : failed > 0 || failOnMatched > 0 ? EXIT.validation : EXIT.ok;
}

/**
 * {@link runSession} as the one-shot CLI runs it: when a store request gave up a lock wait at its
 * deadline (its kernel call is still parked in a libuv thread), the process exits at once with the code.
 */
export async function runSessionCli(args: readonly string[], io: CliIo): Promise<number> {
  const code = await runSession(args, io);
  if (abandonedLockWaits() > 0) process.exit(code);
  return code;
}
