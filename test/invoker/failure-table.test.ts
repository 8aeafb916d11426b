/**
 * Every row of spec/tables/subprocess-failure-mapping.json (the generated FAILURE_VARIANTS), on every
 * transport it names, provoked for real and checked against the table's failure class and the
 * class's default retry (FAILURE_RETRY_DEFAULTS). A new row without a provoker fails this suite.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FAILURE_RETRY_DEFAULTS, FAILURE_VARIANTS, LIMITS } from "../../generated/ts/spec.js";
import type { CallbackResponse } from "../../generated/ts/types.js";
import { InProcessInvoker } from "../../runtime/invoker/in-process.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { StreamInvoker, type StreamInvokerConfig } from "../../runtime/stream/invoker.js";
import { RAW_CLIENT } from "../stream/support.js";
import type { InvocationResult } from "../../runtime/invoker/types.js";
import { bigEnvelope, envelope, FIXTURES, shellClient, tempDir } from "./support.js";

const tmp = tempDir("failure-table");
afterAll(() => tmp.cleanup());

type Provoker = () => Promise<InvocationResult>;

const sub = (client: { program: string; args?: string[] }, timeoutMs = 10_000, limits = {}): SubprocessInvoker =>
  new SubprocessInvoker({ ...client, timeoutMs, limits });
const inProcess = (handler: () => unknown, timeoutMs?: number): InProcessInvoker =>
  new InProcessInvoker(
    timeoutMs === undefined
      ? { handler: handler as () => CallbackResponse }
      : { handler: handler as () => CallbackResponse, timeoutMs },
  );

const SUBPROCESS: Readonly<Record<string, Provoker>> = {
  receipt_emitted_rejected: () => sub(shellClient("ok")).invoke(envelope({ event: "receipt.emitted" })),
  invalid_request: () => sub(shellClient("ok")).invoke(envelope({ event_id: "" })),
  serialize_request: () => sub(shellClient("ok")).invoke(envelope({ metadata: { count: 10n } })),
  request_too_large: () => sub(shellClient("ok"), 10_000, { max_request_bytes: 1024 }).invoke(bigEnvelope(4096)),
  spawn: () => sub({ program: join(tmp.dir, "missing-client") }).invoke(envelope()),
  write_request: () => sub(shellClient("exit-no-read")).invoke(bigEnvelope(4 * 1024 * 1024)),
  read_response: () => sub({ program: join(FIXTURES, "python", "break_stdout.py") }).invoke(envelope()),
  response_too_large: () =>
    sub(shellClient("endless-stdout"), 10_000, { max_response_bytes: 65536 }).invoke(envelope()),
  non_zero_exit: () => sub(shellClient("nonzero-after-response")).invoke(envelope()),
  parse_response: () => sub(shellClient("log-line")).invoke(envelope()),
  invalid_response: () => sub(shellClient("wrong-enum")).invoke(envelope()),
  timeout: () => sub(shellClient("sleep"), 200).invoke(envelope()),
};

const VALID = { schema_version: envelope().schema_version, status: "observed" };
const IN_PROCESS: Readonly<Record<string, Provoker>> = {
  receipt_emitted_rejected: () => inProcess(() => VALID).invoke(envelope({ event: "receipt.emitted" })),
  invalid_request: () => inProcess(() => VALID).invoke(envelope({ adapter_id: "" })),
  invalid_response: () => inProcess(() => ({ ...VALID, unknown: true })).invoke(envelope()),
  serialize_request: () => inProcess(() => VALID).invoke(envelope({ metadata: { count: 10n } })),
  request_too_large: () =>
    inProcess(() => VALID).invoke(envelope({ metadata: { filler: "x".repeat(LIMITS.max_request_bytes) } })),
  response_too_large: () =>
    inProcess(() => ({ ...VALID, metadata: { filler: "x".repeat(LIMITS.max_response_bytes) } })).invoke(envelope()),
  handler_threw: () =>
    inProcess(() => {
      throw new Error("handler failure");
    }).invoke(envelope()),
  timeout: () => inProcess(() => new Promise(() => undefined), 50).invoke(envelope()),
};

/** Run `steps` on a fresh StreamInvoker over the raw client with `behave`; always closes it (nothing left running). */
async function stream(
  behave: string,
  steps: (inv: StreamInvoker) => Promise<InvocationResult>,
  config: Partial<StreamInvokerConfig> = {},
  args: string[] = [],
): Promise<InvocationResult> {
  const inv = new StreamInvoker({
    program: RAW_CLIENT,
    args: ["--behave", behave, ...args],
    timeoutMs: 10_000,
    ...config,
    limits: { stream_close_grace_ms: 500, stream_term_grace_ms: 500, ...config.limits },
  });
  try {
    return await steps(inv);
  } finally {
    await inv.close();
  }
}
const once = (inv: StreamInvoker): Promise<InvocationResult> => inv.invoke(envelope());
const STREAM: Readonly<Record<string, Provoker>> = {
  receipt_emitted_rejected: () => stream("echo", (inv) => inv.invoke(envelope({ event: "receipt.emitted" }))),
  invalid_request: () => stream("echo", (inv) => inv.invoke(envelope({ event_id: "" }))),
  serialize_request: () => stream("echo", (inv) => inv.invoke(envelope({ metadata: { count: 10n } }))),
  request_too_large: () =>
    stream("echo", (inv) => inv.invoke(bigEnvelope(4096)), { limits: { max_request_bytes: 1024 } }),
  spawn: () => stream("echo", once, { program: join(tmp.dir, "missing-client") }),
  write_request: () => stream("close-stdin", (inv) => inv.invoke(bigEnvelope(1024 * 1024))),
  invalid_response: () => stream("invalid-result", once),
  timeout: () => stream("silent", once, { timeoutMs: 200 }),
  stream_framing: () => stream("banner", once),
  stream_frame_too_large: () => stream("pad", once, { limits: { max_frame_bytes: 4096 } }, ["--frame-bytes", "5000"]),
  stream_exit: () => stream("crash-at:1", once),
  stream_stdout_closed: () => stream("close-stdout", once),
  error_reply: () => stream("error-reply:-32603", once),
  stream_respawn_limited: () =>
    stream(
      "exit-at-start",
      async (inv) => {
        await inv.invoke(envelope());
        return inv.invoke(envelope());
      },
      { limits: { stream_max_failed_spawns: 1, stream_respawn_cooldown_ms: 60_000 } },
    ),
  stream_closed: () =>
    stream("echo", async (inv) => {
      await inv.close();
      return inv.invoke(envelope());
    }),
};

const PROVOKERS: Readonly<Record<string, Readonly<Record<string, Provoker>>>> = {
  subprocess_v1: SUBPROCESS,
  in_process: IN_PROCESS,
  stream_v2: STREAM,
};

describe("subprocess_failure_mapping: every row provoked for real", () => {
  for (const row of FAILURE_VARIANTS) {
    for (const transport of row.transports) {
      it(`${row.variant} on ${transport} → ${row.failure_class}`, async () => {
        const provoke = PROVOKERS[transport]?.[row.variant];
        expect(provoke, `no provoker for ${row.variant} on ${transport}: add one to this suite`).toBeTypeOf("function");
        const result = await (provoke as Provoker)();
        expect(result.ok, JSON.stringify(result)).toBe(false);
        if (result.ok) return;
        expect(result.failure.variant, result.failure.detail).toBe(row.variant);
        expect(result.failure.failure_class).toBe(row.failure_class);
        expect(result.failure.retry_class).toBe(FAILURE_RETRY_DEFAULTS[row.failure_class]);
        expect(result.failure.detail.length).toBeGreaterThan(0);
      });
    }
  }

  it("provokes nothing the table does not list", () => {
    for (const [transport, provokers] of Object.entries(PROVOKERS)) {
      for (const variant of Object.keys(provokers)) {
        const row = FAILURE_VARIANTS.find((r) => r.variant === variant);
        expect(row, `${variant} is not in the table`).toBeDefined();
        expect(
          (row?.transports as readonly string[] | undefined)?.includes(transport),
          `${variant} does not list ${transport}`,
        ).toBe(true);
      }
    }
  });
});
