/**
 * The in-process invoker: the same guard, request validation and response validation as the
 * subprocess path; a throwing or rejecting handler is handler_threw; an optional deadline.
 */
import { describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { CallbackResponse } from "../../generated/ts/types.js";
import { InProcessInvoker } from "../../runtime/invoker/in-process.js";
import { InvokerConfigError } from "../../runtime/invoker/types.js";
import { bigEnvelope, envelope } from "./support.js";

const OK: CallbackResponse = {
  schema_version: WIRE_VERSION,
  status: "delivered",
  failure_class: null,
  retry_class: null,
};

describe("in-process invoker", () => {
  it("calls the handler with the request and payloads and returns its valid response", async () => {
    const seen: unknown[] = [];
    const invoker = new InProcessInvoker({
      handler: (request, payloads) => {
        seen.push(request.event, payloads.length);
        return OK;
      },
    });
    const result = await invoker.invoke(bigEnvelope(10));
    expect(result).toMatchObject({ ok: true, response: OK, stderrTail: "" });
    expect(seen).toEqual(["session.started", 1]);
  });

  it("awaits an async handler", async () => {
    const invoker = new InProcessInvoker({ handler: async () => ({ ...OK, status: "skipped" }) });
    expect(await invoker.invoke(envelope())).toMatchObject({ ok: true, response: { status: "skipped" } });
  });

  /** An invoker whose handler counts its calls. */
  function counting(): { invoker: InProcessInvoker; calls: () => number } {
    let calls = 0;
    const invoker = new InProcessInvoker({
      handler: () => {
        calls++;
        return OK;
      },
    });
    return { invoker, calls: () => calls };
  }

  it("rejects receipt.emitted before calling the handler", async () => {
    const { invoker, calls } = counting();
    const result = await invoker.invoke(envelope({ event: "receipt.emitted" }));
    expect(!result.ok && result.failure.variant).toBe("receipt_emitted_rejected");
    expect(calls()).toBe(0);
  });

  it("an invalid envelope is invalid_request, with the rule id and pointer, and the handler is not called", async () => {
    const { invoker, calls } = counting();
    const result = await invoker.invoke(envelope({ event: "frame.opening" }));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.failure).toMatchObject({
        variant: "invalid_request",
        failure_class: "invalid_request",
        retry_class: "do_not_retry",
      });
      expect(result.failure.issues?.[0]).toMatchObject({
        rule: "frame-event-requires-frame-context",
        pointer: "/request/frame_context",
      });
    }
    expect(calls()).toBe(0);
  });

  it("a handler that throws or rejects → handler_threw (internal_error)", async () => {
    for (const handler of [
      () => {
        throw new Error("boom");
      },
      async () => {
        throw new TypeError("async boom");
      },
      () => Promise.reject("a plain string"),
    ]) {
      const result = await new InProcessInvoker({ handler: handler as never }).invoke(envelope());
      expect(result.ok).toBe(false);
      if (!result.ok)
        expect(result.failure).toMatchObject({
          variant: "handler_threw",
          failure_class: "internal_error",
          retry_class: "retry_after_reread",
        });
    }
  });

  it("an invalid or unrepresentable response → invalid_response", async () => {
    const bad: unknown[] = [
      { ...OK, surprise: 1 },
      { ...OK, status: "handled" },
      { ...OK, status: "failed" },
      undefined,
      { ...OK, metadata: { n: 10n } },
    ];
    for (const response of bad) {
      const result = await new InProcessInvoker({ handler: () => response as CallbackResponse }).invoke(envelope());
      expect(
        result.ok,
        JSON.stringify(result, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v)),
      ).toBe(false);
      if (!result.ok) expect(result.failure.variant).toBe("invalid_response");
    }
  });

  it("a handler that does not settle within timeoutMs → timeout", async () => {
    const invoker = new InProcessInvoker({
      handler: () => new Promise<CallbackResponse>(() => undefined),
      timeoutMs: 50,
    });
    const result = await invoker.invoke(envelope());
    expect(!result.ok && result.failure).toMatchObject({ variant: "timeout", failure_class: "timeout" });
  });

  it("refuses a bad configuration", () => {
    expect(() => new InProcessInvoker({ handler: "nope" as never })).toThrow(InvokerConfigError);
    expect(() => new InProcessInvoker({ handler: () => OK, timeoutMs: -1 })).toThrow(InvokerConfigError);
  });
});
