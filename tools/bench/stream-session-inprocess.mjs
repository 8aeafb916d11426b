#!/usr/bin/env node
/**
 * For tools/bench/cli.ts: deliver every line of a JSON Lines session file (one DispatchEnvelope per
 * line) through an in-process StreamInvoker (dist/, built by the bench), one event at a time, in a
 * process of its own, so its per-event cost is measured from a cold start as the CLI's is.
 * Usage: node stream-session-inprocess.mjs PROGRAM FILE. Exit 1 on the first failed event.
 */
import { readFileSync } from "node:fs";
import { StreamInvoker } from "../../dist/runtime/stream/invoker.js";

const [program, file] = process.argv.slice(2);
const envelopes = readFileSync(file, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const invoker = new StreamInvoker({ program, timeoutMs: 30_000 });
try {
  for (const envelope of envelopes) {
    const r = await invoker.invoke(envelope);
    if (!r.ok) {
      process.stderr.write(`event ${envelope.request?.event_id}: ${r.failure.variant}: ${r.failure.detail}\n`);
      process.exitCode = 1;
      break;
    }
  }
} finally {
  await invoker.close();
}
