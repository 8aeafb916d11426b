#!/usr/bin/env node
// An echo client on the package's own runner: serves v1 (one process per event) and stream
// mode (v2, with --stream) with one handler, and passes `conform --transport both`.
import { serve } from "lifeloop-callback";

await serve(async (request, payloads, ctx) => ({
  schema_version: request.schema_version,
  status: "delivered",
  metadata: { event: request.event, payloads: payloads.length, transport: ctx.transport },
}));
