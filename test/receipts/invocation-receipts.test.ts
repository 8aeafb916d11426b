/**
 * Receipts (spec/host-runtime.md §"Receipts"): one wire-valid LifecycleReceipt per outcome, per-run
 * sequences, idempotency with replay and conflict, failure receipts with class, retry class and the
 * stderr tail, and never a receipt for receipt.emitted. Outcomes come from real invocations.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FAILURE_RETRY_DEFAULTS, FAILURE_VARIANTS, WIRE_VERSION } from "../../generated/ts/spec.js";
import type { CallbackResponse, LifecycleReceipt } from "../../generated/ts/types.js";
import { InProcessInvoker } from "../../runtime/invoker/in-process.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import type { InvocationResult } from "../../runtime/invoker/types.js";
import { contextIssues, ReceiptEmitter, ReceiptSynthesisError } from "../../runtime/receipts/emitter.js";
import {
  IdempotencyConflictError,
  InMemoryIdempotencyStore,
  replayContentEqual,
} from "../../runtime/receipts/idempotency.js";
import {
  CLIENT_STDERR_TAIL_WARNING,
  INVOCATION_FAILED_WARNING,
  type ReceiptContext,
} from "../../runtime/receipts/synthesize.js";
import { validateValue } from "../../runtime/wire/validate.js";
import { StreamInvoker } from "../../runtime/stream/invoker.js";
import { bigEnvelope, envelope, shellClient } from "../invoker/support.js";

let receiptCounter = 0;
function ctx(overrides: Partial<ReceiptContext> = {}): ReceiptContext {
  return {
    client_id: "client-test",
    receipt_id: `rcpt-${++receiptCounter}`,
    at_epoch_s: 1_700_000_000 + receiptCounter,
    ...overrides,
  };
}

const answer = (response: Partial<CallbackResponse>): InProcessInvoker =>
  new InProcessInvoker({
    handler: () =>
      ({
        schema_version: WIRE_VERSION,
        status: "delivered",
        failure_class: null,
        retry_class: null,
        ...response,
      }) as CallbackResponse,
  });

function expectValid(receipt: LifecycleReceipt | null): LifecycleReceipt {
  expect(receipt).not.toBeNull();
  expect(validateValue("LifecycleReceipt", receipt)).toEqual([]);
  return receipt as LifecycleReceipt;
}

describe("receipt synthesis", () => {
  it("a delivered response → a delivered receipt carrying the request's identity and the context", async () => {
    const env = envelope({ harness_session_id: "sess-1", harness_run_id: "run-1", idempotency_key: "idem-1" });
    const result = await answer({ warnings: [{ code: "note", message: "fyi" }] }).invoke(env);
    const receipt = expectValid(
      new ReceiptEmitter().emit(
        env,
        result,
        ctx({ parent_receipt_id: "rcpt-parent", receipt_id: "rcpt-a", at_epoch_s: 1_700_000_123 }),
      ),
    );
    expect(receipt).toEqual({
      schema_version: WIRE_VERSION,
      receipt_id: "rcpt-a",
      idempotency_key: "idem-1",
      client_id: "client-test",
      adapter_id: "adapter-test",
      invocation_id: "inv-1",
      event: "session.started",
      event_id: "evt-1",
      sequence: 1,
      parent_receipt_id: "rcpt-parent",
      integration_mode: "native_hook",
      status: "delivered",
      at_epoch_s: 1_700_000_123,
      harness_session_id: "sess-1",
      harness_run_id: "run-1",
      failure_class: null,
      retry_class: null,
      warnings: [{ code: "note", message: "fyi" }],
    });
  });

  it("each response status maps to the same receipt status", async () => {
    for (const status of ["observed", "delivered", "skipped", "degraded"] as const) {
      const env = envelope();
      const receipt = expectValid(new ReceiptEmitter().emit(env, await answer({ status }).invoke(env), ctx()));
      expect(receipt).toMatchObject({ status, failure_class: null, retry_class: null });
    }
  });

  it("a client that answered failed: its failure class and retry class", async () => {
    const env = envelope();
    const result = await new SubprocessInvoker({ ...shellClient("respond-failed"), timeoutMs: 5000 }).invoke(env);
    const receipt = expectValid(new ReceiptEmitter().emit(env, result, ctx()));
    expect(receipt).toMatchObject({
      status: "failed",
      failure_class: "payload_rejected",
      retry_class: "retry_after_reconfigure",
      warnings: [{ code: "refused", message: "body too long" }],
    });
  });

  it("a failed invocation: status failed, the variant's class, the default retry class, detail and stderr tail as warnings", async () => {
    const env = envelope();
    const result = await new SubprocessInvoker({ ...shellClient("nonzero-after-response"), timeoutMs: 5000 }).invoke(
      env,
    );
    const receipt = expectValid(new ReceiptEmitter().emit(env, result, ctx()));
    const row = FAILURE_VARIANTS.find((r) => r.variant === "non_zero_exit");
    expect(receipt).toMatchObject({
      status: "failed",
      failure_class: row?.failure_class,
      retry_class: FAILURE_RETRY_DEFAULTS.transport_error,
    });
    expect(receipt.warnings?.[0]).toMatchObject({ code: INVOCATION_FAILED_WARNING });
    expect(receipt.warnings?.[0]?.message).toMatch(/^non_zero_exit: the client exited with code 3/);
    expect(receipt.warnings?.[1]).toEqual({ code: CLIENT_STDERR_TAIL_WARNING, message: "exiting 3 after answering\n" });
  });

  it("a timeout and an oversized response get failure receipts too", async () => {
    for (const [client, timeoutMs, limits, failureClass] of [
      [shellClient("sleep"), 200, {}, "timeout"],
      [shellClient("endless-stdout"), 10_000, { max_response_bytes: 4096 }, "transport_error"],
    ] as const) {
      const env = envelope();
      const result = await new SubprocessInvoker({ ...client, timeoutMs, limits }).invoke(env);
      expect(expectValid(new ReceiptEmitter().emit(env, result, ctx()))).toMatchObject({
        status: "failed",
        failure_class: failureClass,
      });
    }
  });

  it("never a receipt for receipt.emitted", async () => {
    const env = envelope({ event: "receipt.emitted" });
    const result = await answer({}).invoke(env);
    expect(new ReceiptEmitter().emit(env, result, ctx())).toBeNull();
    const forged: InvocationResult = {
      ok: true,
      response: { schema_version: WIRE_VERSION, status: "delivered" },
      stderrTail: "",
      elapsedMs: 1,
    };
    expect(new ReceiptEmitter().emit(env, forged, ctx())).toBeNull();
  });

  it("an invalid_request failure: a receipt when the request itself is valid, none when it is not", async () => {
    const badPayload = bigEnvelope(10);
    const [payload] = badPayload.payloads ?? [];
    if (payload !== undefined) payload.byte_size = 11; // breaks payload-body-byte-size, not the request
    const onPayload = await answer({}).invoke(badPayload);
    expect(!onPayload.ok && onPayload.failure.variant).toBe("invalid_request");
    expect(expectValid(new ReceiptEmitter().emit(badPayload, onPayload, ctx()))).toMatchObject({
      status: "failed",
      failure_class: "invalid_request",
      retry_class: "do_not_retry",
    });

    const badRequest = envelope({ event_id: "" });
    const onRequest = await answer({}).invoke(badRequest);
    expect(new ReceiptEmitter().emit(badRequest, onRequest, ctx())).toBeNull();
  });

  it("harness ids: the context's win, the request's fill in", async () => {
    const env = envelope({ harness_session_id: "sess-req", harness_run_id: "run-req", harness_task_id: "task-req" });
    const result = await answer({}).invoke(env);
    const receipt = expectValid(
      new ReceiptEmitter().emit(env, result, ctx({ harness_session_id: "sess-ctx", harness_task_id: null })),
    );
    expect(receipt.harness_session_id).toBe("sess-ctx");
    expect(receipt.harness_run_id).toBe("run-req");
    expect("harness_task_id" in receipt).toBe(false);
  });

  it("a bad context is a typed error, and contextIssues finds it before any invocation", async () => {
    expect(contextIssues(ctx({ client_id: "" }))[0]).toMatchObject({
      rule: "non-empty-identifier",
      pointer: "/client_id",
    });
    expect(contextIssues(ctx({ at_epoch_s: -1 }))[0]?.pointer).toBe("/at_epoch_s");
    expect(contextIssues(ctx())).toEqual([]);
    const env = envelope();
    const result = await answer({}).invoke(env);
    expect(() => new ReceiptEmitter().emit(env, result, ctx({ receipt_id: "" }))).toThrow(ReceiptSynthesisError);
  });
});

describe("the emitter's proof of its own receipts (the accept check, instead of the validator)", () => {
  it("never passes a receipt the validator refuses: emit throws exactly for the contexts contextIssues refuses", async () => {
    const env = envelope();
    const answered = await answer({}).invoke(env);
    const failed = await new SubprocessInvoker({ ...shellClient("empty"), timeoutMs: 5000 }).invoke(env);
    expect(failed.ok).toBe(false);
    const contexts: Array<Partial<ReceiptContext>> = [
      {},
      { client_id: "" },
      { client_id: "x".repeat(512) },
      { client_id: "x".repeat(513) },
      { client_id: 'quote"d' },
      { client_id: "caf\u00e9" },
      { receipt_id: "" },
      { at_epoch_s: -1 },
      { at_epoch_s: 1.5 },
      { at_epoch_s: -0 },
      { at_epoch_s: Number.NaN },
      { at_epoch_s: 2 ** 53 },
      { harness_session_id: "" },
      { harness_run_id: "x".repeat(513) },
    ];
    for (const overrides of contexts) {
      const context = ctx(overrides);
      const refused = contextIssues(context).length > 0;
      for (const result of [answered, failed]) {
        const emit = (): unknown => new ReceiptEmitter().emit(env, result, context);
        if (refused) expect(emit, JSON.stringify(overrides)).toThrow(ReceiptSynthesisError);
        else expectValid(emit() as LifecycleReceipt);
      }
    }
  });

  it("a response's warnings are the caller's objects: judged by the validator, even when toJSON hides a member", () => {
    const env = envelope();
    const warning = {
      code: "w",
      message: "m",
      unknown_member: 1,
      toJSON: () => ({ code: "w", message: "m" }),
    };
    const result = {
      ok: true,
      response: {
        schema_version: WIRE_VERSION,
        status: "delivered",
        failure_class: null,
        retry_class: null,
        warnings: [warning],
      },
      stderrTail: "",
      elapsedMs: 0,
    } as unknown as InvocationResult;
    expect(() => new ReceiptEmitter().emit(env, result, ctx())).toThrow(ReceiptSynthesisError);
  });
});

describe("sequence numbers", () => {
  it("count per harness_run_id from 1, and are null without a run id", async () => {
    const emitter = new ReceiptEmitter();
    const seq = async (run: string | undefined): Promise<number | null> => {
      const env = run === undefined ? envelope() : envelope({ harness_run_id: run });
      return expectValid(emitter.emit(env, await answer({}).invoke(env), ctx())).sequence;
    };
    expect([
      await seq("A"),
      await seq("B"),
      await seq("A"),
      await seq(undefined),
      await seq("A"),
      await seq("B"),
    ]).toEqual([1, 1, 2, null, 3, 2]);
  });

  it("failure receipts take a number; a rejected receipt leaves no gap", async () => {
    const emitter = new ReceiptEmitter();
    const env = envelope({ harness_run_id: "run-gap" });
    const failed = await new SubprocessInvoker({ ...shellClient("empty"), timeoutMs: 5000 }).invoke(env);
    expect(expectValid(emitter.emit(env, failed, ctx())).sequence).toBe(1);
    const ok = await answer({}).invoke(env);
    expect(() => emitter.emit(env, ok, ctx({ client_id: "" }))).toThrow(ReceiptSynthesisError);
    expect(expectValid(emitter.emit(env, ok, ctx())).sequence).toBe(2);
  });
});

describe("idempotency (client_id, adapter_id, idempotency_key)", () => {
  it("the same content replays the prior receipt, reusing its id, time and sequence", async () => {
    const emitter = new ReceiptEmitter();
    const env = envelope({ harness_run_id: "run-idem", idempotency_key: "idem-replay" });
    const first = expectValid(emitter.emit(env, await answer({}).invoke(env), ctx()));
    const again = expectValid(emitter.emit(env, await answer({}).invoke(env), ctx()));
    expect(again).toEqual(first);
    const next = expectValid(
      emitter.emit(envelope({ harness_run_id: "run-idem" }), await answer({}).invoke(envelope()), ctx()),
    );
    expect(next.sequence).toBe(2);
  });

  it("different content under the same key is a conflict (state_conflict)", async () => {
    const emitter = new ReceiptEmitter();
    const env = envelope({ idempotency_key: "idem-conflict" });
    emitter.emit(env, await answer({ status: "delivered" }).invoke(env), ctx());
    let thrown: unknown;
    try {
      emitter.emit(env, await answer({ status: "skipped" }).invoke(env), ctx());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(IdempotencyConflictError);
    expect(thrown).toMatchObject({
      failure_class: "state_conflict",
      retry_class: FAILURE_RETRY_DEFAULTS.state_conflict,
      key: { client_id: "client-test", adapter_id: "adapter-test", idempotency_key: "idem-conflict" },
    });
  });

  it("the key is scoped by client and adapter", async () => {
    const emitter = new ReceiptEmitter();
    const env = envelope({ idempotency_key: "idem-scope" });
    emitter.emit(env, await answer({ status: "delivered" }).invoke(env), ctx());
    expect(
      expectValid(
        emitter.emit(env, await answer({ status: "skipped" }).invoke(env), ctx({ client_id: "other-client" })),
      ).status,
    ).toBe("skipped");
    const otherAdapter = envelope({ idempotency_key: "idem-scope", adapter_id: "adapter-other" });
    expect(
      expectValid(emitter.emit(otherAdapter, await answer({ status: "skipped" }).invoke(otherAdapter), ctx())).status,
    ).toBe("skipped");
  });

  it("a host-side failure does not consume the key: a later answer is recorded", async () => {
    const store = new InMemoryIdempotencyStore();
    const emitter = new ReceiptEmitter({ store });
    const env = envelope({ idempotency_key: "idem-retry" });
    const failed = await new SubprocessInvoker({ ...shellClient("sleep"), timeoutMs: 100 }).invoke(env);
    expect(expectValid(emitter.emit(env, failed, ctx())).status).toBe("failed");
    expect(store.size).toBe(0);
    expect(expectValid(emitter.emit(env, await answer({}).invoke(env), ctx())).status).toBe("delivered");
    expect(store.size).toBe(1);
  });

  it("a retry under a new invocation id replays the prior receipt (invocation_id names a transport attempt, lifeloop-cli 0.9.0)", async () => {
    const emitter = new ReceiptEmitter();
    const first = envelope({
      harness_run_id: "run-retry",
      idempotency_key: "idem-retry-inv",
      invocation_id: "inv-first",
    });
    const retry = envelope({
      harness_run_id: "run-retry",
      idempotency_key: "idem-retry-inv",
      invocation_id: "inv-retry",
    });
    const prior = expectValid(emitter.emit(first, await answer({}).invoke(first), ctx()));
    expect(expectValid(emitter.emit(retry, await answer({}).invoke(retry), ctx()))).toEqual(prior);
  });

  it("replay content ignores exactly receipt_id, invocation_id, at_epoch_s and sequence, and normalizes presence", () => {
    const base: LifecycleReceipt = {
      schema_version: WIRE_VERSION,
      receipt_id: "r1",
      idempotency_key: "k",
      client_id: "c",
      adapter_id: "a",
      invocation_id: "i",
      event: "session.started",
      event_id: "e",
      sequence: 1,
      parent_receipt_id: null,
      integration_mode: "native_hook",
      status: "delivered",
      at_epoch_s: 1,
      failure_class: null,
      retry_class: null,
    };
    expect(
      replayContentEqual(base, {
        ...base,
        receipt_id: "r2",
        invocation_id: "i2",
        at_epoch_s: 2,
        sequence: 7,
        warnings: [],
        harness_run_id: null,
      }),
    ).toBe(true);
    expect(replayContentEqual(base, { ...base, event_id: "e2" })).toBe(false);
    expect(replayContentEqual(base, { ...base, telemetry_summary: { x: null } })).toBe(false);
  });
});

describe("receipt linkage (spec/host-runtime.md §Receipts, Linkage): refused before anything is spawned", () => {
  const dir = mkdtempSync(join(tmpdir(), "lifeloop-linkage-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const subcall = (): ReturnType<typeof envelope> =>
    envelope({
      event: "frame.opened",
      frame_context: { frame_id: "f-2", frame_class: "subcall", parent_frame_id: "f-1" },
    });
  let markers = 0;

  /** Each invoker, with a client that leaves a marker file (or a flag) when it is reached. */
  function invokers(): {
    name: string;
    reached: () => boolean;
    invoker: { invoke: InProcessInvoker["invoke"]; close?: () => Promise<void> };
  }[] {
    const v1Marker = join(dir, `v1-${++markers}`);
    const v2Marker = join(dir, `v2-${markers}`);
    let called = false;
    return [
      {
        name: "in-process",
        reached: () => called,
        invoker: new InProcessInvoker({
          handler: () => {
            called = true;
            return { schema_version: WIRE_VERSION, status: "delivered" };
          },
        }),
      },
      {
        name: "subprocess",
        reached: () => existsSync(v1Marker),
        invoker: new SubprocessInvoker({ ...shellClient("marker", v1Marker), timeoutMs: 10_000 }),
      },
      {
        name: "stream",
        reached: () => existsSync(v2Marker),
        invoker: new StreamInvoker({ ...shellClient("marker", v2Marker), timeoutMs: 10_000 }),
      },
    ];
  }

  it("a subcall frame without a parent receipt: invalid_request naming the rule, the client never reached, no receipt", async () => {
    for (const { name, reached, invoker } of invokers()) {
      try {
        const result = await invoker.invoke(subcall());
        expect(result.ok, name).toBe(false);
        if (result.ok) continue;
        expect(result.failure, name).toMatchObject({
          variant: "invalid_request",
          failure_class: "invalid_request",
          issues: [{ rule: "subcall-requires-parent-receipt", pointer: "/parent_receipt_id" }],
        });
        expect(reached(), `${name}: the client was reached`).toBe(false);
        expect(new ReceiptEmitter().emit(subcall(), result, ctx())).toBeNull();
      } finally {
        await invoker.close?.();
      }
    }
  });

  it("a receipt that would be its own parent, or an empty parent: refused the same way", async () => {
    for (const [options, rule] of [
      [{ parentReceiptId: "rcpt-self", receiptId: "rcpt-self" }, "receipt-not-own-parent"],
      [{ parentReceiptId: "" }, "non-empty-identifier"],
    ] as const) {
      for (const { name, reached, invoker } of invokers()) {
        try {
          const result = await invoker.invoke(envelope(), options);
          expect(result.ok, name).toBe(false);
          if (!result.ok)
            expect(result.failure, name).toMatchObject({ variant: "invalid_request", issues: [{ rule }] });
          expect(reached(), `${name}: the client was reached`).toBe(false);
        } finally {
          await invoker.close?.();
        }
      }
    }
  });

  it("with a parent receipt the subcall is delivered and its receipt names the parent", async () => {
    const result = await answer({}).invoke(subcall(), { parentReceiptId: "rcpt-root", receiptId: "rcpt-child" });
    expect(result.ok).toBe(true);
    expect(
      expectValid(
        new ReceiptEmitter().emit(subcall(), result, ctx({ receipt_id: "rcpt-child", parent_receipt_id: "rcpt-root" })),
      ).parent_receipt_id,
    ).toBe("rcpt-root");
  });

  it("the emitter never makes a receipt the tree cannot hold, whatever the invoker was told", async () => {
    const result = await answer({}).invoke(subcall(), { parentReceiptId: "rcpt-root" });
    expect(() => new ReceiptEmitter().emit(subcall(), result, ctx())).toThrow(ReceiptSynthesisError);
    expect(() =>
      new ReceiptEmitter().emit(envelope(), result, ctx({ receipt_id: "rcpt-x", parent_receipt_id: "rcpt-x" })),
    ).toThrow(/receipt-not-own-parent/);
  });

  it("unusable linkage options are invalid_request, never a throw", async () => {
    for (const options of [{ parentReceiptId: 7 }, { receiptId: {} }]) {
      const result = await answer({}).invoke(envelope(), options as never);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.failure.variant).toBe("invalid_request");
    }
  });
});

describe("an emitter without a run scope (sequencer: null)", () => {
  it("emits sequence null even for a request with a harness_run_id", async () => {
    const emitter = new ReceiptEmitter({ sequencer: null });
    const env = envelope({ harness_run_id: "run-none" });
    for (let i = 0; i < 2; i++)
      expect(expectValid(emitter.emit(env, await answer({}).invoke(env), ctx())).sequence).toBeNull();
  });
});
