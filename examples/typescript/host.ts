import { fileURLToPath } from "node:url";
import { ReceiptEmitter, SubprocessInvoker, WIRE_VERSION, type DispatchEnvelope } from "lifeloop-callback";

const invoker = new SubprocessInvoker({
  // The example client shipped in the package; point program at your own client instead.
  program: fileURLToPath(import.meta.resolve("lifeloop-callback/examples/echo-client.mjs")), // absolute path, required; no shell is ever used
  args: [], // passed verbatim
  timeoutMs: 5_000, // required: covers spawn, write, read and exit
});
const receipts = new ReceiptEmitter(); // per-run sequence numbers, idempotency with conflict detection

const envelope: DispatchEnvelope = {
  schema_version: WIRE_VERSION,
  request: {
    schema_version: WIRE_VERSION,
    event: "frame.opening",
    event_id: "evt-1",
    adapter_id: "codex",
    adapter_version: "0.1.0",
    integration_mode: "native_hook",
    invocation_id: "inv-1",
    harness_run_id: "run-1",
    frame_context: { frame_id: "frame-1", frame_class: "top_level" },
  },
};

const result = await invoker.invoke(envelope); // never throws for a bad envelope or a bad client
if (result.ok) console.log(result.response.status);
else
  console.log(result.failure.variant, result.failure.failure_class, result.failure.retry_class, result.failure.detail);

const receipt = receipts.emit(envelope, result, {
  client_id: "my-client",
  receipt_id: crypto.randomUUID(),
  at_epoch_s: Math.floor(Date.now() / 1000),
}); // a valid LifecycleReceipt for success and failure alike; null for receipt.emitted
console.log(receipt?.status);
