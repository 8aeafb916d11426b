/**
 * Shared pieces of the receipt-ledger suites: envelopes and receipts to write, the writer process
 * (plain JavaScript on the built package, so 100+ of them start quickly: no tsx), and helpers that
 * read a ledger file directly with better-sqlite3 (the file format is what is under test).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { CallbackRequest, DispatchEnvelope } from "../../generated/ts/types.js";
import { REPO_ROOT } from "../support/cli-process.js";

/** The built package (the writer imports its receipt modules only, to start fast). */
export const DIST = join(REPO_ROOT, "dist");

/** A request of adapter codex (routable by the reference too), without payloads or payload_refs. */
export function ledgerRequest(o: {
  readonly eventId: string;
  readonly key?: string | null;
  readonly runId?: string | null;
  readonly invocationId?: string;
  readonly wire?: string;
}): CallbackRequest {
  const wire = o.wire ?? WIRE_VERSION;
  return {
    schema_version: wire,
    event: "session.starting",
    event_id: o.eventId,
    adapter_id: "codex",
    adapter_version: "0.1.0",
    integration_mode: "native_hook",
    invocation_id: o.invocationId ?? `inv-${o.eventId}`,
    ...(o.runId ? { harness_run_id: o.runId } : {}),
    ...(o.key ? { idempotency_key: o.key } : {}),
  } as CallbackRequest;
}

/** The envelope of {@link ledgerRequest}. */
export function ledgerEnvelope(request: CallbackRequest): DispatchEnvelope {
  return { schema_version: request.schema_version, request } as DispatchEnvelope;
}

/** The `receipt emit` input (the reference's shape) for a delivered answer to `request`. */
export function emitInput(
  request: CallbackRequest,
  ctx: { readonly clientId: string; readonly receiptId: string; readonly atEpochS?: number },
): string {
  return JSON.stringify({
    request,
    response: { schema_version: request.schema_version, status: "delivered", failure_class: null, retry_class: null },
    context: {
      client_id: ctx.clientId,
      receipt_id: ctx.receiptId,
      at_epoch_s: ctx.atEpochS ?? 1_700_000_000,
      harness_run_id: request.harness_run_id ?? null,
    },
  });
}

// The writer: argv = ledger, runId, prefix, count (-1: until killed), goFile ("" for none), sharedKeys.
// Prints "ready" once the ledger is open, waits for goFile to exist (the barrier), then for i < count
// emits one receipt (key `${prefix}-${i}`, or every third one a shared key `shared-${i % sharedKeys}`
// whose content is the same in every writer, so it replays) and prints "ok <receipt_id> <sequence>
// <replayed>" after its commit. Exit 0; a ledger error prints "error <fault> <message>" and exits 3.
const WRITER_JS = `
import { existsSync, watch } from "node:fs";
import { dirname, basename } from "node:path";
const [dist, ledgerPath, runId, prefix, countText, goFile, sharedText] = process.argv.slice(2);
const { ReceiptEmitter } = await import(dist + "/runtime/receipts/emitter.js");
const { ReceiptLedger } = await import(dist + "/runtime/receipts/ledger.js");
const { WIRE_VERSION } = await import(dist + "/generated/ts/spec.js");
const count = Number(countText), shared = Number(sharedText);
const out = (line) => process.stdout.write(line + "\\n");
let ledger;
try { ledger = ReceiptLedger.open(ledgerPath); } catch (e) { out("error " + e.fault + " " + e.message); process.exit(3); }
const emitter = new ReceiptEmitter({ store: ledger, sequencer: ledger });
out("ready");
if (goFile !== "" && !existsSync(goFile)) {
  await new Promise((go) => {
    const w = watch(dirname(goFile), () => { if (existsSync(goFile)) { w.close(); go(); } });
    if (existsSync(goFile)) { w.close(); go(); }
  });
}
const response = { schema_version: WIRE_VERSION, status: "delivered", failure_class: null, retry_class: null };
for (let i = 0; count < 0 || i < count; i++) {
  const sharedKey = shared > 0 && i % 3 === 2;
  const id = sharedKey ? "shared-" + (i % shared) : prefix + "-" + i;
  const request = { schema_version: WIRE_VERSION, event: "session.starting", event_id: "evt-" + id, adapter_id: "codex", adapter_version: "0.1.0",
    integration_mode: "native_hook", invocation_id: "inv-" + id, harness_run_id: runId, idempotency_key: "key-" + id };
  try {
    const r = emitter.emitOutcome({ schema_version: WIRE_VERSION, request }, { ok: true, response, stderrTail: "", elapsedMs: 0 },
      { client_id: "writer", receipt_id: "rcpt-" + prefix + "-" + i, at_epoch_s: 1700000000 });
    out("ok " + r.receipt.receipt_id + " " + r.receipt.sequence + " " + r.replayed);
  } catch (e) { out("error " + (e.fault ?? e.name) + " " + e.message); process.exit(3); }
}
ledger.close();
`;

/** Write the writer script into `dir`; returns its path. */
export function writerScript(dir: string): string {
  const path = join(dir, "ledger-writer.mjs");
  writeFileSync(path, WRITER_JS);
  return path;
}

/** Start a writer (see WRITER_JS) detached in its own process group, so a kill reaches only it. */
export function startWriter(
  script: string,
  args: { ledger: string; runId: string; prefix: string; count: number; goFile?: string; sharedKeys?: number },
): ChildProcess {
  return spawn(
    process.execPath,
    [
      script,
      DIST,
      args.ledger,
      args.runId,
      args.prefix,
      String(args.count),
      args.goFile ?? "",
      String(args.sharedKeys ?? 0),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
}

/** Resolve with the child's stdout lines as they arrive; `onLine` sees each one. */
export function lines(child: ChildProcess, onLine: (line: string) => void): void {
  let buffered = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      onLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf("\n");
    }
  });
}

/** How a child ended. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((done) => child.once("exit", (code, signal) => done({ code, signal })));
}

// biome-ignore lint/suspicious/noExplicitAny: better-sqlite3 ships no types; only a few calls are used.
type Db = any;

/**
 * Age a ledger in place into what an older release wrote: every stored receipt's wire version
 * replaced by `wire`, the wire trigger dropped, `user_version` set to `userVersion` (1: before the
 * trigger existed).
 */
export function ageLedger(path: string, wire: string, userVersion = 1): void {
  const db = rawDb(path, true);
  try {
    db.exec("DROP TRIGGER receipts_single_wire_schema");
    db.prepare("UPDATE receipts SET body = replace(body, ?, ?)").run(WIRE_VERSION, wire);
    db.prepare("UPDATE idempotency SET body = replace(body, ?, ?)").run(WIRE_VERSION, wire);
    db.pragma(`user_version = ${userVersion}`);
  } finally {
    db.close();
  }
}

/** Open a ledger file directly with better-sqlite3: read-only unless `writable`; `create` makes a missing file. */
export function rawDb(path: string, writable = false, create = false): Db {
  const Database = createRequire(import.meta.url)("better-sqlite3");
  return new Database(path, { readonly: !writable, fileMustExist: !create });
}
