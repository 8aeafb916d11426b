/**
 * Hosts speak one chosen version (spec/wire-window.md, "Who speaks which version"): the
 * `wireVersion` of the subprocess and in-process invokers (default current) is checked at
 * construction; the envelope must carry it (another version is `invalid_request`, nothing is
 * spawned or called) and so must the response (another version, even one of the window, is
 * `invalid_response` naming the rule and the version found); the response is judged by that
 * version's own rules. The clients are real processes (test/fixtures/client-lang-neutral/shell/
 * misbehave.sh, which answers in the version it is given) and real handlers.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { CallbackResponse, DispatchEnvelope } from "../../generated/ts/types.js";
import { WIRE_WINDOW } from "../../generated/ts/window.js";
import { InProcessInvoker } from "../../runtime/invoker/in-process.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { InvokerConfigError, type InvocationResult } from "../../runtime/invoker/types.js";
import { ReceiptEmitter } from "../../runtime/receipts/emitter.js";
import { validateValue } from "../../runtime/wire/validate.js";
import { closedWindow } from "../../runtime/wire/window.js";
import { envelope, FIXTURES, tempDir } from "./support.js";
import { atVersion } from "../support/window.js";

/** The newest accepted older version of the window (spec/wire-version.json `accepted`). */
const OLDER = WIRE_WINDOW[1] as string;
const MISBEHAVE = join(FIXTURES, "shell", "misbehave.sh");
// Generous: a shell client answers in milliseconds; the bound only keeps a broken run from hanging.
const TIMEOUT_MS = 10_000;

const tmp = tempDir("wire-version");
afterAll(() => tmp.cleanup());
let markers = 0;

/** A shell client that answers `delivered` in `answerVersion` and touches a fresh marker file when started. */
function shellAnswering(answerVersion: string): { program: string; args: string[]; started: () => boolean } {
  const marker = join(tmp.dir, `marker-${++markers}`);
  return { program: MISBEHAVE, args: ["marker", answerVersion, marker], started: () => existsSync(marker) };
}

function failureOf(result: InvocationResult): { variant: string; detail: string; rule: string | undefined } {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.response)}`);
  return { variant: result.failure.variant, detail: result.failure.detail, rule: result.failure.issues?.[0]?.rule };
}

describe("wireVersion: the version a host speaks", () => {
  it("the window holds an older version to speak (spec/wire-version.json accepted)", () => {
    expect(OLDER, "no accepted version in generated/ts/window.ts WIRE_WINDOW").toBeTypeOf("string");
    expect(OLDER).not.toBe(WIRE_VERSION);
  });

  it("defaults to current and is checked at construction, naming the field", () => {
    expect(new SubprocessInvoker({ program: MISBEHAVE, timeoutMs: TIMEOUT_MS }).wireVersion).toBe(WIRE_VERSION);
    expect(
      new InProcessInvoker({ handler: () => ({ schema_version: WIRE_VERSION, status: "delivered" }) }),
    ).toMatchObject({ wireVersion: WIRE_VERSION });
    expect(new SubprocessInvoker({ program: MISBEHAVE, timeoutMs: TIMEOUT_MS, wireVersion: OLDER }).wireVersion).toBe(
      OLDER,
    );
    for (const bad of ["lifeloop.v0.2", "lifeloop.v9.9", "", 4, null]) {
      for (const make of [
        () => new SubprocessInvoker({ program: MISBEHAVE, timeoutMs: TIMEOUT_MS, wireVersion: bad as string }),
        () =>
          new InProcessInvoker({
            handler: () => ({ schema_version: OLDER, status: "delivered" }),
            wireVersion: bad as string,
          }),
      ]) {
        let thrown: unknown;
        try {
          make();
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(InvokerConfigError);
        expect((thrown as InvokerConfigError).field).toBe("wireVersion");
        expect((thrown as Error).message).toContain(WIRE_WINDOW.join(", "));
      }
    }
  });
});

describe("subprocess invoker speaking one version", () => {
  it("an older-version host delivers an envelope of that version and takes an answer in it", async () => {
    const client = shellAnswering(OLDER);
    const invoker = new SubprocessInvoker({ ...client, timeoutMs: TIMEOUT_MS, wireVersion: OLDER });
    const result = await invoker.invoke(atVersion(envelope(), OLDER));
    expect(result).toMatchObject({ ok: true, response: { schema_version: OLDER, status: "delivered" } });
    expect(client.started()).toBe(true);
  });

  for (const [host, answer] of [
    [WIRE_VERSION, OLDER],
    [OLDER, WIRE_VERSION],
  ] as const) {
    it(`a ${host} host refuses a ${answer} answer (in the window, not its version) as invalid_response naming it`, async () => {
      const client = shellAnswering(answer);
      const invoker = new SubprocessInvoker({ ...client, timeoutMs: TIMEOUT_MS, wireVersion: host });
      const failure = failureOf(await invoker.invoke(atVersion(envelope(), host)));
      expect(client.started()).toBe(true);
      expect(failure.variant).toBe("invalid_response");
      expect(failure.rule).toBe("schema-version-current");
      expect(failure.detail).toContain("schema-version-current");
      expect(failure.detail).toContain(`\`${answer}\``);
      expect(failure.detail).toContain(`(\`${host}\`)`);
    });

    it(`a ${host} host refuses a ${answer} envelope as invalid_request before spawning`, async () => {
      const client = shellAnswering(answer);
      const invoker = new SubprocessInvoker({ ...client, timeoutMs: TIMEOUT_MS, wireVersion: host });
      const failure = failureOf(await invoker.invoke(atVersion(envelope(), answer)));
      expect(failure.variant).toBe("invalid_request");
      expect(failure.rule).toBe("schema-version-current");
      expect(failure.detail).toContain(`\`${answer}\``);
      expect(client.started(), "the client was started for a refused envelope").toBe(false);
    });
  }

  it("a nested schema_version of another version is refused too (every document of the envelope speaks the host's)", async () => {
    const client = shellAnswering(OLDER);
    const invoker = new SubprocessInvoker({ ...client, timeoutMs: TIMEOUT_MS, wireVersion: OLDER });
    const mixed = atVersion(envelope(), OLDER) as DispatchEnvelope;
    mixed.request.schema_version = WIRE_VERSION;
    const failure = failureOf(await invoker.invoke(mixed));
    expect(failure.variant).toBe("invalid_request");
    expect(failure.rule).toBe("schema-version-current");
    expect(client.started()).toBe(false);
  });
});

describe("in-process invoker speaking one version", () => {
  it("the handler gets the older version's request, and its answer in that version is taken", async () => {
    const seen: string[] = [];
    const invoker = new InProcessInvoker({
      wireVersion: OLDER,
      handler: (request) => {
        seen.push(request.schema_version);
        return { schema_version: request.schema_version, status: "delivered" };
      },
    });
    expect(await invoker.invoke(atVersion(envelope(), OLDER))).toMatchObject({
      ok: true,
      response: { schema_version: OLDER },
    });
    expect(seen).toEqual([OLDER]);
  });

  it("the answer is judged by the host's version's own rules, not current's", async () => {
    // An answer the older version accepts and current refuses (lifeloop.v0.3 → v0.4: an empty
    // Warning.message; generated/docs/wire-window.md). The preconditions say so if the window moved.
    const answer: CallbackResponse = {
      schema_version: OLDER,
      status: "delivered",
      warnings: [{ code: "note", message: "" }],
    };
    expect(validateValue("CallbackResponse", answer, closedWindow(OLDER))).toEqual([]);
    expect(validateValue("CallbackResponse", atVersion(answer, WIRE_VERSION), closedWindow(WIRE_VERSION))).not.toEqual(
      [],
    );
    const older = new InProcessInvoker({ wireVersion: OLDER, handler: () => answer });
    expect(await older.invoke(atVersion(envelope(), OLDER))).toMatchObject({ ok: true, response: answer });
    const current = new InProcessInvoker({ handler: () => atVersion(answer, WIRE_VERSION) });
    expect(failureOf(await current.invoke(envelope())).variant).toBe("invalid_response");
  });

  for (const [host, answer] of [
    [WIRE_VERSION, OLDER],
    [OLDER, WIRE_VERSION],
  ] as const) {
    it(`a ${host} host refuses the handler's ${answer} answer as invalid_response naming it`, async () => {
      const invoker = new InProcessInvoker({
        wireVersion: host,
        handler: () => ({ schema_version: answer, status: "delivered" }),
      });
      const failure = failureOf(await invoker.invoke(atVersion(envelope(), host)));
      expect(failure.variant).toBe("invalid_response");
      expect(failure.rule).toBe("schema-version-current");
      expect(failure.detail).toContain(`\`${answer}\``);
    });

    it(`a ${host} host refuses a ${answer} envelope without calling the handler`, async () => {
      let calls = 0;
      const invoker = new InProcessInvoker({
        wireVersion: host,
        handler: () => {
          calls++;
          return { schema_version: host, status: "delivered" };
        },
      });
      const failure = failureOf(await invoker.invoke(atVersion(envelope(), answer)));
      expect(failure.variant).toBe("invalid_request");
      expect(failure.rule).toBe("schema-version-current");
      expect(calls).toBe(0);
    });
  }
});

describe("receipts of a host speaking one version", () => {
  it("carry the host's version, for an answer and for a failure", async () => {
    const emitter = new ReceiptEmitter({ wireVersion: OLDER });
    const ctx = { client_id: "c", receipt_id: "r1", at_epoch_s: 1 };
    const env = atVersion(envelope(), OLDER);
    const answered = await new InProcessInvoker({
      wireVersion: OLDER,
      handler: () => ({ schema_version: OLDER, status: "delivered" }),
    }).invoke(env);
    const failed = await new InProcessInvoker({
      wireVersion: OLDER,
      handler: () => ({ schema_version: WIRE_VERSION, status: "delivered" }),
    }).invoke(env);
    for (const [result, status, id] of [
      [answered, "delivered", "r1"],
      [failed, "failed", "r2"],
    ] as const) {
      const receipt = emitter.emit(env, result, { ...ctx, receipt_id: id });
      expect(receipt).toMatchObject({ schema_version: OLDER, status });
      expect(validateValue("LifecycleReceipt", receipt, closedWindow(OLDER))).toEqual([]);
    }
    expect(() => new ReceiptEmitter({ wireVersion: "lifeloop.v9.9" })).toThrow(/lifeloop\.v9\.9/);
  });

  it("an emitter of one version refuses an exchange of another, naming both (never a mixed receipt)", async () => {
    const env = atVersion(envelope(), OLDER);
    const answered = await new InProcessInvoker({
      wireVersion: OLDER,
      handler: () => ({ schema_version: OLDER, status: "delivered" }),
    }).invoke(env);
    const ctx = { client_id: "c", receipt_id: "r1", at_epoch_s: 1 };
    expect(() => new ReceiptEmitter().emit(env, answered, ctx)).toThrow(
      new RegExp(
        `the request is ${OLDER.replace(/\./g, "\\.")}; this emitter writes ${WIRE_VERSION.replace(/\./g, "\\.")} receipts`,
      ),
    );
  });
});
