/** The host runtime is importable from the package's entry point (runtime/index.ts). */
import { describe, expect, it } from "vitest";
import * as api from "../../runtime/index.js";

describe("public API", () => {
  it("exports the invokers, the failure helpers and the receipt machinery", () => {
    for (const name of [
      "SubprocessInvoker",
      "InProcessInvoker",
      "InvokerConfigError",
      "DEFAULT_INVOKER_LIMITS",
      "failureClassOf",
      "defaultRetryClass",
      "makeFailure",
      "prepareEnvelope",
      "wireSnapshot",
      "toWireJson",
      "prepareEnvelopeSliced",
      "wireSnapshotSliced",
      "parseWireDocumentSliced",
      "parseStrictJsonSliced",
      "ReceiptEmitter",
      "ReceiptSynthesisError",
      "contextIssues",
      "synthesizeReceipt",
      "SequenceGenerator",
      "InMemoryIdempotencyStore",
      "IdempotencyConflictError",
      "replayContentEqual",
      "FAILURE_VARIANTS",
    ]) {
      expect(api, name).toHaveProperty(name);
    }
  });
});
