/**
 * Benchmark: receipts per second into a receipt ledger (spec/host-runtime.md §"Receipts: the
 * ledger"), in one run:
 * - one process per receipt, `receipt emit --ledger`: ours (dist/) and the reference CLI, each on
 *   its own fresh ledger, the same receipts (a run id, an idempotency key each);
 * - ours in process, through the API (one ReceiptLedger, a ReceiptEmitter on it);
 * - the added cost of `--ledger` per `invoke` (the shell echo client, with and without a ledger).
 * Prints rates and ratios; never fails on a number. The reference part is skipped, saying why, when
 * the reference CLI is missing or speaks another wire version.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { REFERENCE_IMPLEMENTATION, WIRE_VERSION } from "../../generated/ts/spec.js";
import { ReceiptEmitter } from "../../runtime/receipts/emitter.js";
import { ReceiptLedger } from "../../runtime/receipts/ledger.js";
import { REFERENCE_CLI } from "../../test/support/reference-cli.js";
import { emitInput, ledgerEnvelope, ledgerRequest } from "../../test/receipts/ledger-support.js";
import { CLI } from "../../test/support/cli-process.js";
import { FIXTURE_CLIENTS } from "../../test/support/fixture-clients.js";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Receipts per second of `count` sequential `receipt emit --ledger` processes of `argv0 ...prefix`. */
function processRate(argv0: string, prefix: readonly string[], ledger: string, count: number, tag: string): number {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const input = emitInput(ledgerRequest({ eventId: `e-${i}`, key: `k-${i}`, runId: "bench" }), {
      clientId: "bench",
      receiptId: `rcpt-${tag}-${i}`,
    });
    const r = spawnSync(argv0, [...prefix, "receipt", "emit", "--ledger", ledger], { input, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${argv0} receipt emit: exit ${r.status}: ${r.stderr}`);
  }
  return count / ((performance.now() - started) / 1000);
}

/** Why the reference cannot take part, or null. */
function referenceProblem(ledger: string): string | null {
  const probe = spawnSync(REFERENCE_CLI, ["receipt", "emit", "--ledger", ledger], {
    input: emitInput(ledgerRequest({ eventId: "probe", runId: "probe" }), {
      clientId: "bench",
      receiptId: "rcpt-probe",
    }),
    encoding: "utf8",
  });
  if (probe.error) return `the reference CLI cannot be run (${probe.error.message})`;
  if (probe.status !== 0)
    return `the reference CLI refuses a ${WIRE_VERSION} receipt (exit ${probe.status}: ${probe.stderr.trim().split("\n")[0]}); it needs the reference named in spec/wire-version.json (${REFERENCE_IMPLEMENTATION.crate} ${REFERENCE_IMPLEMENTATION.version}) at this tree's wire version`;
  return null;
}

function invokeMs(ledger: string | null, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const input = JSON.stringify(
      ledgerEnvelope(ledgerRequest({ eventId: `inv-${i}`, key: `ik-${i}`, runId: "bench" })),
    );
    const t = performance.now();
    const r = spawnSync(
      process.execPath,
      [
        CLI,
        "invoke",
        "--program",
        FIXTURE_CLIENTS.shell.program,
        "--timeout-ms",
        "10000",
        ...(ledger === null ? [] : ["--ledger", ledger]),
      ],
      { input, encoding: "utf8" },
    );
    times.push(performance.now() - t);
    if (r.status !== 0) throw new Error(`invoke: exit ${r.status}: ${r.stderr}`);
  }
  return median(times);
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledger-bench-"));
  try {
    const PROCESSES = 40;
    const API = 3000;
    const ours = processRate(process.execPath, [CLI], join(dir, "ours.sqlite"), PROCESSES, "ours");
    const refLedger = join(dir, "ref.sqlite");
    const problem = referenceProblem(refLedger);
    const reference = problem === null ? processRate(REFERENCE_CLI, [], refLedger, PROCESSES, "ref") : null;

    const ledger = ReceiptLedger.open(join(dir, "api.sqlite"));
    const emitter = new ReceiptEmitter({ store: ledger, sequencer: ledger });
    const delivered = {
      ok: true as const,
      response: { schema_version: WIRE_VERSION, status: "delivered" as const, failure_class: null, retry_class: null },
      stderrTail: "",
      elapsedMs: 0,
    };
    const started = performance.now();
    for (let i = 0; i < API; i++)
      emitter.emit(ledgerEnvelope(ledgerRequest({ eventId: `a-${i}`, key: `ak-${i}`, runId: "bench" })), delivered, {
        client_id: "bench",
        receipt_id: `rcpt-api-${i}`,
        at_epoch_s: 1_700_000_000,
      });
    const api = API / ((performance.now() - started) / 1000);
    ledger.close();

    const INVOKES = 15;
    const without = invokeMs(null, INVOKES);
    const withLedger = invokeMs(join(dir, "invoke.sqlite"), INVOKES);

    const f = (x: number): string => x.toFixed(1);
    process.stdout.write("\nreceipt ledger: receipts per second (one process per receipt: receipt emit --ledger)\n");
    process.stdout.write(`  ours, one process each:       ${f(ours)} receipts/s (${PROCESSES} receipts)\n`);
    if (reference !== null)
      process.stdout.write(
        `  reference, one process each:  ${f(reference)} receipts/s   ours/reference = ${(ours / reference).toFixed(2)}\n`,
      );
    else process.stdout.write(`  reference: skipped: ${problem}\n`);
    process.stdout.write(
      `  ours, in process (API):       ${f(api)} receipts/s (${API} receipts)   API/ours-process = ${(api / ours).toFixed(0)}x${reference !== null ? `   API/reference-process = ${(api / reference).toFixed(0)}x` : ""}\n`,
    );
    process.stdout.write(
      `  invoke (shell echo), median of ${INVOKES}: ${f(without)} ms without, ${f(withLedger)} ms with --ledger: +${f(withLedger - without)} ms per invoke (x${(withLedger / without).toFixed(2)})\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
