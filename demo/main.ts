/**
 * `npm run demo`: the whole toolkit on real input, for a newcomer right after `npm ci` (needs Node,
 * Go and Python 3 on PATH; no cargo).
 *
 * 1. regenerate from spec/ and schemas/ and report drift (none on a clean clone);
 * 2. build the Go fixture client, check the Python one, and probe both;
 * 3. drive a ten-event session (session.starting … session.ended) through each client with our
 *    SubprocessInvoker, one ReceiptEmitter per run, and print a table per client;
 * 3b. the same session over both transports (subprocess v1 and stream v2) for every client that
 *    serves them, side by side (demo/transports.ts);
 * 4. "when things go wrong": a hanging, a crashing and a garbage-writing client, and receipt.emitted;
 * 5. write every receipt as JSON Lines to .cache/demo/receipts-<timestamp>.jsonl and print its
 *    absolute path as the last line.
 *
 * Colours only when stdout is a TTY (and NO_COLOR is unset). Exit 0 when everything happened as
 * expected; 1 with a message naming what did not (an undelivered event, an unexpected failure
 * class, a client that cannot be built).
 */
import { relative } from "node:path";
import { WIRE_VERSION } from "../generated/ts/spec.js";
import type { LifecycleReceipt } from "../generated/ts/types.js";
import { FIXTURE_CLIENTS, REPO_ROOT as ROOT } from "../test/support/fixture-clients.js";
import { painterFor } from "../test/support/text-table.js";
import { prepareClients } from "./clients.js";
import { runFailureCases } from "./failures.js";
import { fileStamp, writeReceipts, writeSessionFile } from "./receipts-file.js";
import { regenerate } from "./regenerate.js";
import { runSession, sessionEnvelopes, sessionIds, SESSION_EVENTS, SESSION_TIMEOUT_MS } from "./session.js";
import { failureTable, sessionTable } from "./table.js";
import { compareTransports, transportTable } from "./transports.js";

const painter = painterFor(process.stdout);
const print = (line = ""): void => {
  process.stdout.write(`${line}\n`);
};
const heading = (text: string): void => {
  print();
  print(painter.paint(text, "bold"));
};

const CLIENT_TITLES = { go: "Go client (generated Go SDK)", python: "Python client (generated Python SDK)" } as const;

async function main(): Promise<number> {
  const started = new Date();
  const tag = started.getTime().toString(36);
  const problems: string[] = [];
  const receipts: LifecycleReceipt[] = [];

  print(
    painter.paint(`lifeloop-callback demo — the client callback protocol (CALLBACK-001, wire ${WIRE_VERSION})`, "bold"),
  );

  heading("1. Regenerate from spec/ and schemas/");
  const regen = await regenerate(ROOT);
  if (regen.drift.length === 0) {
    print(
      `  ${regen.files} files generated in ${(regen.ms / 1000).toFixed(1)} s: ${painter.paint("no drift", "ok")} (generated/ matches spec/ and schemas/)`,
    );
  } else {
    print(
      `  ${regen.files} files generated in ${(regen.ms / 1000).toFixed(1)} s: ${painter.paint(`${regen.drift.length} file(s) drifted and were rewritten`, "bad")}`,
    );
    for (const d of regen.drift) print(`    ${d.kind === "stale" ? "deleted" : "rewrote"} ${d.path} (${d.kind})`);
  }

  heading("2. Fixture clients");
  for (const ready of await prepareClients()) print(`  ${ready.lang.padEnd(6)}  ${ready.setup}; ${ready.probe}`);

  heading(`3. A session of ${SESSION_EVENTS.length} events through each client (SubprocessInvoker + ReceiptEmitter)`);
  for (const lang of ["go", "python"] as const) {
    const ids = sessionIds(`${tag}-${lang}`);
    const client = FIXTURE_CLIENTS[lang];
    print();
    print(`  ${painter.paint(CLIENT_TITLES[lang], "bold")}: ${relative(ROOT, client.program)}`);
    print(
      `  harness_session_id ${ids.harness_session_id} · harness_run_id ${ids.harness_run_id} · frame ${ids.frame_id}`,
    );
    const run = await runSession(client, ids, `demo-${lang}-echo`);
    for (const line of sessionTable(run.rows, painter)) print(line);
    const delivered = run.rows.filter((r) => r.problems.length === 0).length;
    print(
      `  ${painter.paint(`${delivered}/${SESSION_EVENTS.length} events delivered`, delivered === SESSION_EVENTS.length ? "ok" : "bad")}, receipts numbered ${run.receipts.map((r) => r.sequence).join(",")}`,
    );
    receipts.push(...run.receipts);
    for (const row of run.rows)
      for (const p of row.problems) problems.push(`${lang} session, event ${row.n} (${row.event}): ${p}`);
  }

  heading("3b. The same session over both transports: subprocess v1 (a process per event) and stream v2 (one process)");
  const transports = await compareTransports(`${tag}-transports`);
  for (const line of transportTable(transports, painter)) print(line);
  // The same session as a file, so the comparison can be run again from the command line.
  const sessionPath = writeSessionFile(ROOT, fileStamp(started), sessionEnvelopes(sessionIds(`${tag}-cli`)));
  print(`  Both from the command line, on this session (written to ${relative(ROOT, sessionPath)}):`);
  print(
    `    npx --no-install lifeloop-callback session --transport stream --program ${FIXTURE_CLIENTS.go.program} --timeout-ms ${SESSION_TIMEOUT_MS} ${relative(ROOT, sessionPath)}`,
  );
  print(
    `    npx --no-install lifeloop-callback session --transport subprocess --program ${FIXTURE_CLIENTS.python.program} --timeout-ms ${SESSION_TIMEOUT_MS} ${relative(ROOT, sessionPath)}`,
  );
  print(
    "    (the Go client is built into .cache/bin; the Python one runs from source on the generated SDK; either goes with either transport)",
  );
  for (const row of transports)
    for (const p of row.problems) problems.push(`${row.client.title} over ${row.transport}: ${p}`);

  heading("4. When things go wrong");
  const failures = await runFailureCases(`${tag}-failures`);
  for (const line of failureTable(failures.rows, painter)) print(line);
  print(
    "  A failure still gets a receipt (status failed, its failure class and retry class); receipt.emitted never reaches a client.",
  );
  receipts.push(...failures.receipts);
  for (const row of failures.rows) for (const p of row.problems) problems.push(`${row.failureCase.title}: ${p}`);

  heading("5. Receipts");
  const path = writeReceipts(ROOT, fileStamp(started), receipts);
  if (problems.length > 0) {
    process.stderr.write(
      `demo: ${problems.length} thing(s) did not happen as expected:\n${problems.map((p) => `  - ${p}\n`).join("")}`,
    );
  }
  print(`  ${receipts.length} receipts written as JSON Lines (one LifecycleReceipt per line) to:`);
  print(path);
  return problems.length === 0 ? 0 : 1;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
