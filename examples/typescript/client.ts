// A client in TypeScript, on the package's runner: the same handler serves v1 and stream mode.
// Build: npx tsc -p examples/typescript (tsconfig.json here), then run build/client.js.
import { serve, type CallbackResponse } from "lifeloop-callback";

await serve(
  async (request, payloads, ctx): Promise<CallbackResponse> => ({
    schema_version: request.schema_version,
    status: "delivered",
    metadata: { event: request.event, payloads: payloads.length, transport: ctx.transport },
  }),
);
