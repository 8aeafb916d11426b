#!/usr/bin/env node
// A minimal Lifeloop callback client (v1, one process per event), standard library only: reads one
// DispatchEnvelope from stdin and answers a CallbackResponse with status `delivered` that echoes
// the event. Real clients use an SDK runner, which also does the strict decoding and validation.
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const envelope = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const response = {
  schema_version: envelope.schema_version,
  status: "delivered",
  metadata: { event: envelope.request.event, payloads: (envelope.payloads ?? []).length },
};
process.stdout.write(`${JSON.stringify(response)}\n`);
