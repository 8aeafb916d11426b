/**
 * Values built in memory (not read from bytes) are judged by the bytes they serialize to, on both
 * transports: an envelope the host would refuse to read is never delivered (nothing is spawned, no
 * handler is called), a response that would not survive a pipe is refused in-process too, an
 * envelope that cannot even be read (a throwing getter, a Proxy) is a classified failure rather
 * than a rejected promise, and the in-process handler works on a copy.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import type { CallbackResponse, DispatchEnvelope } from "../../generated/ts/types.js";
import { InProcessInvoker } from "../../runtime/invoker/in-process.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import type { CallbackInvoker } from "../../runtime/invoker/types.js";
import { envelope, shellClient, tempDir } from "./support.js";

const tmp = tempDir("in-memory");
afterAll(() => tmp.cleanup());

const OK: CallbackResponse = {
  schema_version: WIRE_VERSION,
  status: "delivered",
  failure_class: null,
  retry_class: null,
};

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** Each transport, with a way to tell afterwards whether the client was reached. */
function transports(): { name: string; invoker: CallbackInvoker; reached: () => boolean }[] {
  const marker = join(tmp.dir, `marker-${Math.random().toString(36).slice(2)}`);
  let called = false;
  return [
    {
      name: "subprocess",
      invoker: new SubprocessInvoker({ ...shellClient("marker", marker), timeoutMs: 10_000 }),
      reached: () => existsSync(marker),
    },
    {
      name: "in-process",
      invoker: new InProcessInvoker({
        handler: () => {
          called = true;
          return OK;
        },
      }),
      reached: () => called,
    },
  ];
}

describe("in-memory envelopes are judged by their wire bytes", () => {
  const refused: [string, DispatchEnvelope, string][] = [
    [
      "nesting deeper than limits.max_depth",
      envelope({ metadata: { deep: nested(LIMITS.max_depth + 5) } }),
      "json.max-depth",
    ],
    ["nesting too deep to serialize at all", envelope({ metadata: { deep: nested(200_000) } }), "json.max-depth"],
    ["a lone surrogate in a string", envelope({ metadata: { text: "\ud800" } }), "json.lone-surrogate"],
    ["a lone surrogate in a member name", envelope({ metadata: { ["\udc00"]: 1 } }), "json.lone-surrogate"],
    ["a lone surrogate in an identifier", envelope({ event_id: "evt-\ud83d" }), "json.lone-surrogate"],
  ];
  for (const [what, env, rule] of refused) {
    it(`${what} → invalid_request (${rule}) on both transports, client never reached`, async () => {
      for (const t of transports()) {
        const result = await t.invoker.invoke(env);
        expect(result.ok, t.name).toBe(false);
        if (!result.ok) {
          expect(result.failure.variant, t.name).toBe("invalid_request");
          expect(result.failure.issues?.[0]?.rule, t.name).toBe(rule);
        }
        expect(t.reached(), t.name).toBe(false);
      }
    });
  }

  it("an envelope that throws while it is read (getter, Proxy) → serialize_request, never a rejection", async () => {
    const getter = { schema_version: WIRE_VERSION } as DispatchEnvelope;
    Object.defineProperty(getter, "request", {
      enumerable: true,
      get() {
        throw new Error("getter boom");
      },
    });
    const proxy = new Proxy(envelope(), {
      ownKeys() {
        throw new Error("proxy boom");
      },
    });
    for (const env of [getter, proxy]) {
      for (const t of transports()) {
        const result = await t.invoker.invoke(env);
        expect(!result.ok && result.failure.variant, t.name).toBe("serialize_request");
        expect(t.reached(), t.name).toBe(false);
      }
    }
  });
});

describe("in-process responses are judged as if they had crossed a pipe", () => {
  const bad: [string, unknown, string, string][] = [
    ["a lone surrogate", { ...OK, metadata: { text: "\udfff" } }, "invalid_response", "json.lone-surrogate"],
    [
      "nesting deeper than limits.max_depth",
      { ...OK, metadata: { deep: nested(LIMITS.max_depth + 1) } },
      "invalid_response",
      "json.max-depth",
    ],
    [
      "more than limits.max_response_bytes",
      { ...OK, metadata: { filler: "x".repeat(LIMITS.max_response_bytes) } },
      "response_too_large",
      "",
    ],
  ];
  for (const [what, response, variant, rule] of bad) {
    it(`${what} → ${variant}`, async () => {
      const result = await new InProcessInvoker({ handler: () => response as CallbackResponse }).invoke(envelope());
      expect(!result.ok && result.failure.variant).toBe(variant);
      if (rule && !result.ok) expect(result.failure.issues?.[0]?.rule).toBe(rule);
    });
  }

  it("the handler works on a copy: its changes do not reach the caller's envelope, and the response is a copy too", async () => {
    const env = envelope({ metadata: { n: 1 } });
    const answer: CallbackResponse = { ...OK, metadata: { kept: true } };
    const result = await new InProcessInvoker({
      handler: (request) => {
        (request.metadata as Record<string, unknown>).n = 2;
        return answer;
      },
    }).invoke(env);
    expect(env.request.metadata).toEqual({ n: 1 });
    expect(result.ok && result.response).toEqual(answer);
    expect(result.ok && result.response).not.toBe(answer);
  });
});
