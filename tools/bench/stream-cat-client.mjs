#!/usr/bin/env node
// A stream (v2) client for tools/bench/event-loop-block.ts, written by hand with node: built-ins only:
// answers every event/* request with one reply frame whose `result` is the bytes of the file given
// as the first argument, written in one write. Exits 0 on stdin EOF.
// usage: stream-cat-client.mjs FILE --stream
import { readFileSync } from "node:fs";

const body = readFileSync(process.argv[2]);
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let lf = pending.indexOf("\n"); lf !== -1; lf = pending.indexOf("\n")) {
    const line = pending.slice(0, lf);
    pending = pending.slice(lf + 1);
    const frame = JSON.parse(line);
    if (typeof frame.method !== "string" || !frame.method.startsWith("event/")) continue;
    process.stdout.write(
      Buffer.concat([
        Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(frame.id)},"result":`),
        body,
        Buffer.from("}\n"),
      ]),
    );
  }
});
process.stdin.on("end", () => process.exit(0));
