/**
 * `lifeloop-callback receipt emit|list|get` (spec/host-runtime.md §"Receipts: the ledger"), the
 * reference CLI's `receipt` surface for a durable receipt ledger:
 *
 * - `receipt emit [--ledger PATH] [--wire-version V] [FILE|-]`: read `{"request": CallbackRequest, "response":
 *   CallbackResponse, "context": {client_id, receipt_id, at_epoch_s, parent_receipt_id?,
 *   harness_session_id?, harness_run_id?, harness_task_id?}}` and print the receipt of that answer.
 *   With a ledger, the sequence comes from it, a recorded idempotency key replays (the prior
 *   receipt is printed) or conflicts (exit 1), and the receipt is recorded; without one, an emitter
 *   in memory (the first of its run is sequence 1).
 * - `receipt list --ledger PATH`: every recorded receipt as a JSON array, in the order written.
 * - `receipt get --ledger PATH --idempotency-key K --client-id C --adapter-id A`: the receipt recorded
 *   under that key; none is exit 3 with `{"error":"not_found"}` on stderr.
 *
 * The emit input is read and parsed within the sum of the request's and the response's limits
 * ({@link EMIT_INPUT_LIMITS}); each part is also held to its own document's limits (exit 3).
 * `list` and `get` open the ledger read-only: a ledger of another wire version, or of on-disk
 * version 1, is listed as it is. Output is pretty-printed JSON. Exit 0 ok, 1 the input is invalid
 * or the key conflicts, 2 usage, 3 unreadable input, a ledger that cannot be used, or not found.
 */
import { LIMITS, WIRE_VERSION } from "../../../generated/ts/spec.js";
import type { CallbackRequest, CallbackResponse, LifecycleReceipt } from "../../../generated/ts/types.js";
import { issueText } from "../../invoker/failure.js";
import { contextIssues, ReceiptEmitter } from "../../receipts/emitter.js";
import { IdempotencyConflictError } from "../../receipts/idempotency.js";
import type { ReceiptLedger } from "../../receipts/ledger.js";
import type { ReceiptContext } from "../../receipts/synthesize.js";
import { parseStrictJson } from "../../wire/json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits, validateValue } from "../../wire/validate.js";
import { EXIT, parseFlags, readCommandInput, UsageError, type CliIo } from "../io.js";
import { isLedgerError, openLedger } from "../../receipts/open-ledger.js";
import { ledgerFlag } from "../ledger.js";
import { WIRE_VERSION_FLAG, WIRE_VERSION_USAGE, wireVersionFlag } from "../wire-version-flag.js";
import { closedWindow, type WireWindow } from "../../wire/window.js";

/** Usage text of the receipt command. */
export const RECEIPT_USAGE = `usage: lifeloop-callback receipt emit [--ledger PATH] [--wire-version V] [FILE|-]
       lifeloop-callback receipt list --ledger PATH
       lifeloop-callback receipt get --ledger PATH --idempotency-key K --client-id C --adapter-id A
  emit: reads {"request", "response", "context"} (FILE or standard input) and prints the receipt of
        that answer; with --ledger the sequence, replay/conflict and recording go through the ledger;
        the request and the response are each held to their own document limits
        (max_request_bytes ${LIMITS.max_request_bytes}, max_response_bytes ${LIMITS.max_response_bytes}, as compact JSON);
        the request, the response and the receipt are all in one wire version:
  ${WIRE_VERSION_USAGE}
  list: prints every receipt of the ledger as a JSON array, in the order written
  get:  prints the receipt recorded under the idempotency key; none: {"error":"not_found"} on stderr
  --ledger  a SQLite receipt ledger file (the reference CLI's format; created by emit, its directory
            must exist); list and get only read it, whatever its wire version
  exit 0 ok, 1 invalid input or an idempotency conflict, 2 usage, 3 unreadable input, an unusable ledger, not found`;

const CONTEXT_KEYS = new Set([
  "client_id",
  "receipt_id",
  "at_epoch_s",
  "parent_receipt_id",
  "harness_session_id",
  "harness_run_id",
  "harness_task_id",
]);

/**
 * Limits of the whole emit input, which holds one request and one response: their byte and value
 * limits added, one more level of depth (each part sits under the root), and room for the wrapper
 * (the root, `context` and its members). Each part is then held to its own
 * document's limits as well ({@link partLimitIssue}).
 */
export const EMIT_INPUT_LIMITS: DocumentLimits = Object.freeze({
  maxBytes: LIMITS.max_request_bytes + LIMITS.max_response_bytes,
  maxDepth: LIMITS.max_depth + 1,
  maxValues: 2 * LIMITS.max_values + 2 + CONTEXT_KEYS.size,
  maxMembers: LIMITS.max_object_members,
});

/**
 * The first limit issue of one part of the emit input, judged as the document it is: the request
 * within limits.max_request_bytes, the response within limits.max_response_bytes (as compact JSON,
 * the form a host sends), each within limits.max_depth, max_values and max_object_members; or null.
 */
function partLimitIssue(part: "request" | "response", value: unknown): string | null {
  if (value === undefined) return null; // missing: emitInput names it
  const limits: DocumentLimits = {
    ...DEFAULT_DOCUMENT_LIMITS,
    maxBytes: part === "request" ? LIMITS.max_request_bytes : LIMITS.max_response_bytes,
  };
  const parsed = parseStrictJson(Buffer.from(JSON.stringify(value), "utf8"), limits, { nonIntegerPaths: [] });
  return parsed.ok ? null : `${part}: ${issueText(parsed.issue)}`;
}

function pretty(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Report a ledger fault (exit 3) or rethrow anything else. */
function ledgerFault(io: CliIo, error: unknown): number {
  if (!isLedgerError(error)) throw error;
  io.err(`receipt: ${error.message}\n`);
  return EXIT.input;
}

async function withLedger(
  path: string,
  readOnly: boolean,
  io: CliIo,
  body: (ledger: ReceiptLedger) => number,
): Promise<number> {
  let ledger: ReceiptLedger;
  try {
    ledger = await openLedger(path, { readOnly });
  } catch (error) {
    return ledgerFault(io, error);
  }
  try {
    return body(ledger);
  } catch (error) {
    return ledgerFault(io, error);
  } finally {
    ledger.close();
  }
}

/** The emit input's parts, or the message of why it is unusable (exit 1). */
function emitInput(
  value: unknown,
  window: WireWindow,
): { request: CallbackRequest; response: CallbackResponse; context: ReceiptContext } | string {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return "the input must be an object {request, response, context}";
  const { request, response, context, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) return `unknown member ${JSON.stringify(extra)} (the input is {request, response, context})`;
  const requestIssues = validateValue("CallbackRequest", request, window);
  if (requestIssues.length > 0) return `request: ${issueText(requestIssues[0] as (typeof requestIssues)[number])}`;
  const responseIssues = validateValue("CallbackResponse", response, window);
  if (responseIssues.length > 0) return `response: ${issueText(responseIssues[0] as (typeof responseIssues)[number])}`;
  if (context === null || typeof context !== "object" || Array.isArray(context))
    return "context must be an object {client_id, receipt_id, at_epoch_s, ...}";
  const unknownKey = Object.keys(context).find((k) => !CONTEXT_KEYS.has(k));
  if (unknownKey !== undefined) return `context: unknown member ${JSON.stringify(unknownKey)}`;
  const ctx = context as ReceiptContext;
  const issues = contextIssues(ctx);
  if (issues.length > 0) return `context: ${issueText(issues[0] as (typeof issues)[number])}`;
  return { request: request as CallbackRequest, response: response as CallbackResponse, context: ctx };
}

async function runEmit(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(args, { values: ["--ledger", WIRE_VERSION_FLAG] });
  const [source = "-", ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  const ledgerPath = ledgerFlag(values);
  const wireVersion = wireVersionFlag(values) ?? WIRE_VERSION;
  // The ledger first: a bad path fails before the input is read (as invoke fails before a spawn).
  let ledger: ReceiptLedger | null = null;
  if (ledgerPath !== null) {
    try {
      ledger = await openLedger(ledgerPath, { wireVersion });
    } catch (error) {
      return ledgerFault(io, error);
    }
  }
  try {
    // The input holds one request and one response: each within its own limit.
    const bytes = await readCommandInput(
      "receipt emit",
      source,
      LIMITS.max_request_bytes + LIMITS.max_response_bytes,
      io,
    );
    if (bytes === null) return EXIT.input;
    const parsed = parseStrictJson(bytes, EMIT_INPUT_LIMITS, { nonIntegerPaths: [] });
    if (!parsed.ok) {
      io.err(`receipt emit: the input is not one JSON document: ${issueText(parsed.issue)}\n`);
      return EXIT.input;
    }
    const whole = parsed.value as Record<string, unknown> | null;
    if (whole !== null && typeof whole === "object" && !Array.isArray(whole)) {
      const overLimit = partLimitIssue("request", whole.request) ?? partLimitIssue("response", whole.response);
      if (overLimit !== null) {
        io.err(`receipt emit: ${overLimit}\n`);
        return EXIT.input;
      }
    }
    const input = emitInput(parsed.value, closedWindow(wireVersion));
    if (typeof input === "string") {
      io.err(`receipt emit: ${input}\n`);
      return EXIT.validation;
    }
    const emitter =
      ledger === null
        ? new ReceiptEmitter({ wireVersion })
        : new ReceiptEmitter({ store: ledger, sequencer: ledger, wireVersion });
    let receipt: LifecycleReceipt | null;
    try {
      receipt = emitter.emit(
        { schema_version: input.request.schema_version, request: input.request },
        { ok: true, response: input.response, stderrTail: "", elapsedMs: 0 },
        input.context,
      );
    } catch (error) {
      if (error instanceof IdempotencyConflictError) {
        io.err(`receipt emit: ${error.failure_class}: ${error.message}\n`);
        return EXIT.validation;
      }
      if (isLedgerError(error)) return ledgerFault(io, error);
      if (error instanceof Error && error.name === "ReceiptSynthesisError") {
        io.err(`receipt emit: ${error.message}\n`);
        return EXIT.validation;
      }
      throw error;
    }
    if (receipt === null) {
      io.err(`receipt emit: ${input.request.event} is a notification: it has no receipt\n`);
      return EXIT.validation;
    }
    io.out(pretty(receipt));
    return EXIT.ok;
  } finally {
    ledger?.close();
  }
}

async function runList(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(args, { values: ["--ledger"] });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const path = ledgerFlag(values);
  if (path === null) throw new UsageError("receipt list: --ledger PATH is required");
  return withLedger(path, true, io, (ledger) => {
    io.out(pretty(ledger.list()));
    return EXIT.ok;
  });
}

async function runGet(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    values: ["--ledger", "--idempotency-key", "--client-id", "--adapter-id"],
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const path = ledgerFlag(values);
  if (path === null) throw new UsageError("receipt get: --ledger PATH is required");
  const need = (flag: string): string => {
    const v = values.get(flag);
    if (v === undefined) throw new UsageError(`receipt get: ${flag} is required`);
    return v;
  };
  const key = need("--idempotency-key");
  const clientId = need("--client-id");
  const adapterId = need("--adapter-id");
  return withLedger(path, true, io, (ledger) => {
    const receipt = ledger.get(key, clientId, adapterId);
    if (receipt === undefined) {
      io.err(`${JSON.stringify({ error: "not_found" })}\n`);
      return EXIT.input;
    }
    io.out(pretty(receipt));
    return EXIT.ok;
  });
}

/** Run `receipt emit|list|get`; returns the exit code. */
export async function runReceipt(args: readonly string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === "emit") return runEmit(rest, io);
  if (action === "list") return runList(rest, io);
  if (action === "get") return runGet(rest, io);
  throw new UsageError(
    action === undefined
      ? "receipt needs a subcommand: emit, list or get"
      : `unknown subcommand ${action} (expected emit, list or get)`,
  );
}
