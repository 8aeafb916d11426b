#!/usr/bin/env node
// A minimal Lifeloop callback client (v1, one process per event), standard library only: reads one
// DispatchEnvelope from stdin and answers a CallbackResponse with status `delivered` that echoes
// the event. Real clients use an SDK runner, which also does the strict decoding and validation.
if (process.argv.includes("--stream")) {
  // v1 only: say so and exit rather than misread a stream frame as an envelope.
  process.stderr.write("echo-client: --stream (stream mode, v2) is not implemented; use --transport subprocess\n");
  process.exit(2);
}
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const envelope = JSON.parse(Buffer.concat(chunks).toString("utf8"));
if (typeof envelope?.request?.event !== "string") {
  process.stderr.write("echo-client: stdin is not a DispatchEnvelope (no request.event)\n");
  process.exit(1);
}
const response = {
  schema_version: envelope.schema_version,
  status: "delivered",
  metadata: { event: envelope.request.event, payloads: (envelope.payloads ?? []).length },
};
process.stdout.write(`${JSON.stringify(response)}\n`);
