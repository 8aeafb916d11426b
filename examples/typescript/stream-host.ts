import { fileURLToPath } from "node:url";
import { StreamInvoker, WIRE_VERSION, type DispatchEnvelope } from "lifeloop-callback";

// One long-lived client for the whole session: the host starts it once with --stream.
const stream = new StreamInvoker({
  program: fileURLToPath(import.meta.resolve("lifeloop-callback/examples/echo-client.mjs")),
  timeoutMs: 5_000,
});

const envelope = (event: "session.starting" | "session.started", n: number): DispatchEnvelope => ({
  schema_version: WIRE_VERSION,
  request: {
    schema_version: WIRE_VERSION,
    event,
    event_id: `evt-${n}`,
    adapter_id: "codex",
    adapter_version: "0.1.0",
    integration_mode: "native_hook",
    invocation_id: `inv-${n}`,
  },
});

try {
  for (const [n, event] of (["session.starting", "session.started"] as const).entries()) {
    const result = await stream.invoke(envelope(event, n + 1)); // same InvocationResult as v1
    console.log(event, result.ok ? result.response.status : result.failure.variant);
  }
} finally {
  await stream.close(); // EOF, grace, SIGTERM, SIGKILL, reap
}
console.log("spawns:", stream.stats.spawns);
