/**
 * `lifeloop-callback invoke --program ABS [--arg A]... --timeout-ms N [--client-id ID]
 *  [--receipt-id ID] [--parent-receipt-id ID] [--at-epoch-s N] [--wire-version V] [FILE|-]`:
 * read one DispatchEnvelope, run one subprocess round trip (CALLBACK-001 §"B. Subprocess callbacks")
 * and print one JSON object:
 * `{"response": CallbackResponse|null, "failure": {variant, failure_class, retry_class, detail,
 *   exit_code?, signal?, stderr_tail?}|null, "receipt": LifecycleReceipt|null, "elapsed_ms": integer}`.
 *
 * - The input is read with at most limits.max_request_bytes bytes and must be one JSON document
 *   (every `json.*` rule); schema and rule problems are the invocation's `invalid_request` failure
 *   (after the receipt.emitted guard, which comes first).
 * - `--client-id` defaults to the program's file name (a script's, when the program is an
 *   interpreter: runtime/cli/client-options.ts); `--receipt-id` to `rcpt-<random UUID>`;
 *   `--at-epoch-s` to the current time; `--parent-receipt-id` to none.
 * - Receipt linkage (spec/host-runtime.md §"Receipts", "Linkage") is checked before the client is
 *   spawned: a `subcall` frame without `--parent-receipt-id`, or a parent equal to `--receipt-id`,
 *   is the `invalid_request` failure (exit 1, no receipt, nothing spawned).
 * - `--wire-version V` (spec/wire-window.md, "Who speaks which version"; default current): the
 *   version this host speaks. The envelope must carry it (another one is the `invalid_request`
 *   failure, nothing spawned), the response must carry it (another one, even of the window, is
 *   `invalid_response` naming the version found), and the receipt carries it.
 * - `sequence` is null without a ledger: one invocation has no run scope to number within (as
 *   lifeloop-cli 0.9.0's `event invoke` without a ledger).
 * - `--ledger PATH` (spec/host-runtime.md §"Receipts: the ledger"): the receipt is made through the
 *   durable ledger: opened before the client is started (an unusable ledger is exit 3 and no
 *   spawn), its sequence is the run's next across processes, and it is recorded. The client runs
 *   whatever the ledger holds (as in the reference: replay is decided on the receipt, which needs
 *   the answer); a recorded idempotency key with equal content prints the prior receipt and
 *   `"replayed": true`; with different content the receipt is null, `receipt_error` names the
 *   `state_conflict`, exit 1. A ledger fault after the round trip: `receipt_error`, exit 3.
 * Exit 0 a valid response came back (whatever its status, unless `--fail-on-status` lists it), 1
 * the invocation failed, its key conflicts or `--fail-on-status` matched, 2 usage (including a relative program and a missing or bad --timeout-ms), 3 unreadable
 * input or an unusable ledger.
 */
import { randomUUID } from "node:crypto";
import { LIMITS } from "../../../generated/ts/spec/limits.js";
import { INTEGER_PATHS } from "../../../generated/ts/spec/plans.js";
import type { DispatchEnvelope } from "../../../generated/ts/types.js";
import { issueText } from "../../invoker/failure.js";
import { SubprocessInvoker } from "../../invoker/subprocess.js";
import { InvokerConfigError, type InvocationFailure } from "../../invoker/types.js";
import { contextIssues, ReceiptEmitter, type EmitOutcome } from "../../receipts/emitter.js";
import { IdempotencyConflictError } from "../../receipts/idempotency.js";
import type { ReceiptContext } from "../../receipts/synthesize.js";
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
import { WIRE_VERSION_FLAG, WIRE_VERSION_USAGE, wireVersionFlag } from "../wire-version-flag.js";

/** Usage text of the invoke command. */
export const INVOKE_USAGE = `usage: lifeloop-callback invoke --program ABS [--arg A]... --timeout-ms N [--client-id ID]
                         [--receipt-id ID] [--parent-receipt-id ID] [--at-epoch-s N] [--ledger PATH]
                         [--wire-version V] [FILE|-]
  Sends one DispatchEnvelope (FILE or standard input) to a fresh client process and prints
  {"response", "failure", "receipt", "elapsed_ms"} as one JSON line.
  --program     absolute path of the client (no shell; arguments via --arg, verbatim, in order)
  --timeout-ms  required deadline of the whole round trip, in ms
  --client-id   receipt client_id (default: the program's file name; for an interpreter such as
                python3, its script's: spec/tables/script-interpreters.json)
  --parent-receipt-id  the receipt this call belongs under; required for a subcall frame, and not
                the receipt's own id (checked before the client is spawned)
  --ledger      durable receipt ledger (SQLite; created if missing, its directory must exist): the
                sequence continues across processes, the receipt is recorded, a recorded
                idempotency_key replays ("replayed": true) or conflicts (exit 1). The client runs
                either way; to skip a retry already receipted, check first with receipt get
  ${WIRE_VERSION_USAGE}:
                the envelope must carry it, the response must carry it (another version is
                invalid_response), the receipt carries it
${FAIL_ON_STATUS_USAGE}
  exit 0 valid response, 1 the invocation failed, its key conflicts or --fail-on-status matched, 2 usage,
  3 unreadable input or unusable ledger`;

function buildInvoker(
  values: ReadonlyMap<string, string>,
  args: readonly string[],
  wireVersion: string | undefined,
): SubprocessInvoker {
  const program = values.get("--program");
  if (program === undefined) throw new UsageError("--program is required");
  const timeoutMs = integerFlag("--timeout-ms", values.get("--timeout-ms"), {
    min: 1,
    max: LIMITS.max_timeout_ms,
    unit: "of milliseconds",
  });
  if (timeoutMs === undefined)
    throw new UsageError("--timeout-ms is required: there is no default timeout (e.g. --timeout-ms 5000)");
  try {
    return new SubprocessInvoker({ program, args, timeoutMs, ...(wireVersion === undefined ? {} : { wireVersion }) });
  } catch (error) {
    if (error instanceof InvokerConfigError) throw invokerFlagError(error.message);
    throw error;
  }
}

function buildContext(values: ReadonlyMap<string, string>, program: string, args: readonly string[]): ReceiptContext {
  const ctx: ReceiptContext = {
    client_id: values.get("--client-id") ?? defaultClientId(program, args),
    receipt_id: values.get("--receipt-id") ?? `rcpt-${randomUUID()}`,
    parent_receipt_id: values.get("--parent-receipt-id") ?? null,
    at_epoch_s:
      integerFlag("--at-epoch-s", values.get("--at-epoch-s"), {
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
        unit: "of seconds",
      }) ?? Math.floor(Date.now() / 1000),
  };
  const issues = contextIssues(ctx);
  if (issues.length > 0)
    throw new UsageError(`bad receipt context: ${issueText(issues[0] as (typeof issues)[number])}`);
  return ctx;
}

/** The failure as printed: the keys of the issue's output shape only. */
export function printedFailure(failure: InvocationFailure): Record<string, unknown> {
  const { variant, failure_class, retry_class, detail, exit_code, signal, stderr_tail } = failure;
  return { variant, failure_class, retry_class, detail, exit_code, signal, stderr_tail };
}

/** Run the invoke command; returns the exit code. */
export async function runInvoke(args: readonly string[], io: CliIo): Promise<number> {
  const { values, lists, positionals } = parseFlags(args, {
    values: [
      "--program",
      "--timeout-ms",
      "--client-id",
      "--receipt-id",
      "--parent-receipt-id",
      "--at-epoch-s",
      "--ledger",
      "--fail-on-status",
      WIRE_VERSION_FLAG,
    ],
    repeatable: ["--arg"],
  });
  const [source = "-", ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  const invoker = buildInvoker(values, lists.get("--arg") ?? [], wireVersionFlag(values));
  const ctx = buildContext(values, invoker.program, lists.get("--arg") ?? []);
  const failOn = failOnStatuses(values.get("--fail-on-status"));
  const ledgerPath = ledgerFlag(values);

  const bytes = await readCommandInput("invoke", source, LIMITS.max_request_bytes, io);
  if (bytes === null) return EXIT.input;
  const parsed = parseStrictJson(bytes, DEFAULT_DOCUMENT_LIMITS, { nonIntegerPaths: INTEGER_PATHS.DispatchEnvelope });
  if (!parsed.ok) {
    io.err(`invoke: the input is not one JSON document: ${issueText(parsed.issue)}\n`);
    return EXIT.input;
  }

  // The ledger before the spawn: a client never runs for a receipt that cannot be kept.
  const opened = await openCommandLedger(ledgerPath, io, "invoke", "the client was not started", invoker.wireVersion);
  if ("exit" in opened) return opened.exit;
  const { ledger } = opened;
  try {
    const envelope = parsed.value as DispatchEnvelope;
    const result = await invoker.invoke(envelope, {
      nonIntegerNumberPointers: parsed.nonIntegerNumberPointers,
      parentReceiptId: ctx.parent_receipt_id ?? null,
      receiptId: ctx.receipt_id,
    });
    // Without a ledger there is no run scope to number within: sequence null.
    const { wireVersion } = invoker;
    const emitter =
      ledger === null
        ? new ReceiptEmitter({ sequencer: null, wireVersion })
        : new ReceiptEmitter({ store: ledger, sequencer: ledger, wireVersion });
    let emitted: EmitOutcome | null = null;
    let receiptError: { failure_class: string; retry_class: string; message: string } | null = null;
    let code: number = result.ok ? EXIT.ok : EXIT.validation;
    try {
      emitted = emitter.emitOutcome(envelope, result, ctx);
    } catch (error) {
      if (!(error instanceof IdempotencyConflictError) && !isLedgerError(error)) throw error;
      receiptError = { failure_class: error.failure_class, retry_class: error.retry_class, message: error.message };
      // A conflict is the invocation's outcome (1); a ledger fault is an I/O error (3) whatever the outcome.
      code = error instanceof IdempotencyConflictError ? EXIT.validation : EXIT.input;
    }
    io.out(
      jsonLine({
        response: result.ok ? result.response : null,
        failure: result.ok ? null : printedFailure(result.failure),
        receipt: emitted?.receipt ?? null,
        ...(emitted?.replayed ? { replayed: true } : {}),
        ...(receiptError === null ? {} : { receipt_error: receiptError }),
        elapsed_ms: Math.round(result.elapsedMs),
      }),
    );
    if (!result.ok)
      io.err(`invoke: ${result.failure.variant} (${result.failure.failure_class}): ${result.failure.detail}\n`);
    if (receiptError !== null) io.err(`invoke: ${receiptError.failure_class}: ${receiptError.message}\n`);
    if (result.ok && failOn.has(result.response.status)) {
      io.err(`invoke: the client answered status ${result.response.status} (--fail-on-status)\n`);
      if (code === EXIT.ok) code = EXIT.validation;
    }
    return code;
  } finally {
    ledger?.close();
  }
}
