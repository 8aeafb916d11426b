/**
 * The subprocess invoker (v1): configuration, the round trip with echo clients in three languages,
 * spawn failures, and CALLBACK-001's Conformance wire tests (round trip; receipt.emitted rejected
 * with nothing spawned; deadline kill → timeout; non-zero exit after a valid response →
 * transport_error; malformed JSON; unknown-field rejection).
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { InvokerConfigError } from "../../runtime/invoker/types.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { envelope, eventually, FIXTURES, groupMembers, readPids, shellClient, tempDir } from "./support.js";

const tmp = tempDir("invoker");
afterAll(() => tmp.cleanup());

describe("configuration (usage errors, before anything is spawned)", () => {
  const base = { program: join(FIXTURES, "shell", "echo.sh"), timeoutMs: 1000 };
  const cases: [string, Record<string, unknown>, string][] = [
    ["relative program", { ...base, program: "shell/echo.sh" }, "program"],
    ["empty program", { ...base, program: "" }, "program"],
    ["missing timeoutMs", { program: base.program }, "timeoutMs"],
    ["zero timeoutMs", { ...base, timeoutMs: 0 }, "timeoutMs"],
    ["fractional timeoutMs", { ...base, timeoutMs: 1.5 }, "timeoutMs"],
    ["NaN timeoutMs", { ...base, timeoutMs: Number.NaN }, "timeoutMs"],
    ["timeoutMs beyond a timer's range", { ...base, timeoutMs: LIMITS.max_timeout_ms + 1 }, "timeoutMs"],
    ["string timeoutMs", { ...base, timeoutMs: "1000" }, "timeoutMs"],
    ["non-string arg", { ...base, args: ["ok", 3] }, "args[1]"],
    ["NUL in an arg", { ...base, args: ["a\0b"] }, "args[0]"],
    ["unknown limit", { ...base, limits: { max_bytes: 1 } }, "limits.max_bytes"],
    ["non-positive limit", { ...base, limits: { kill_grace_ms: 0 } }, "limits.kill_grace_ms"],
  ];
  for (const [name, config, field] of cases) {
    it(`refuses ${name}`, () => {
      let thrown: unknown;
      try {
        new SubprocessInvoker(config as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InvokerConfigError);
      expect((thrown as InvokerConfigError).field).toBe(field);
    });
  }

  it("takes limits from spec/tables/limits.json unless overridden", () => {
    const invoker = new SubprocessInvoker({ ...base, limits: { stderr_tail_bytes: 16 } });
    expect(invoker.limits.stderr_tail_bytes).toBe(16);
    expect(invoker.limits.max_response_bytes).toBe(LIMITS.max_response_bytes);
    expect(invoker.limits.kill_grace_ms).toBe(LIMITS.kill_grace_ms);
  });
});

describe("round trip with echo clients in three languages", () => {
  const clients: [string, string, Record<string, unknown>][] = [
    ["shell", join(FIXTURES, "shell", "echo.sh"), { echo: "shell" }],
    [
      "node",
      join(FIXTURES, "node", "echo.mjs"),
      { echo: "node", event: "session.started", invocation_id: "inv-1", payload_count: 0 },
    ],
    [
      "python",
      join(FIXTURES, "python", "echo.py"),
      { echo: "python", event: "session.started", invocation_id: "inv-1", payload_count: 0 },
    ],
  ];
  for (const [lang, program, metadata] of clients) {
    it(`${lang}: returns the client's valid response`, async () => {
      const result = await new SubprocessInvoker({ program, timeoutMs: 10_000 }).invoke(envelope());
      expect(result.ok, JSON.stringify(result)).toBe(true);
      if (!result.ok) return;
      expect(result.response.schema_version).toBe(WIRE_VERSION);
      expect(result.response.status).toBe("delivered");
      expect(result.response.metadata).toMatchObject(metadata);
      expect(result.elapsedMs).toBeGreaterThan(0);
    });
  }

  it("passes args verbatim, without a shell", async () => {
    const dir = join(tmp.dir, "args");
    mkdirSync(dir);
    const program = join(dir, "print-args.sh");
    writeFileSync(
      program,
      `#!/bin/sh\ncat >/dev/null\nprintf '{"schema_version":"${WIRE_VERSION}","status":"observed","metadata":{"argc":%s,"first":"%s"}}' "$#" "$1"\n`,
    );
    chmodSync(program, 0o755);
    const odd = "$(touch pwned) ; `id` *";
    const result = await new SubprocessInvoker({ program, args: [odd, "--flag", ""], timeoutMs: 5000 }).invoke(
      envelope(),
    );
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (result.ok) expect(result.response.metadata).toEqual({ argc: 3, first: odd });
    expect(existsSync(join(process.cwd(), "pwned"))).toBe(false);
  });
});

describe("spawn failures", () => {
  it("a missing program → spawn (transport_error)", async () => {
    const result = await new SubprocessInvoker({ program: join(tmp.dir, "no-such-client"), timeoutMs: 5000 }).invoke(
      envelope(),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure).toMatchObject({
      variant: "spawn",
      failure_class: "transport_error",
      retry_class: "safe_retry",
    });
    expect(result.failure.detail).toContain("ENOENT");
  });

  it("a file that is not executable → spawn", async () => {
    const program = join(tmp.dir, "not-executable.sh");
    writeFileSync(program, "#!/bin/sh\nexit 0\n");
    chmodSync(program, 0o644);
    const result = await new SubprocessInvoker({ program, timeoutMs: 5000 }).invoke(envelope());
    expect(!result.ok && result.failure.variant).toBe("spawn");
    if (!result.ok) expect(result.failure.detail).toContain("EACCES");
    // The detail says what to do; the class stays the table's (spawn → transport_error).
    if (!result.ok)
      expect(result.failure).toMatchObject({
        failure_class: "transport_error",
        detail: expect.stringContaining(
          "not executable: chmod +x, or pass the interpreter as --program with the script as --arg",
        ),
      });
  });

  it("a directory → spawn", async () => {
    const result = await new SubprocessInvoker({ program: tmp.dir, timeoutMs: 5000 }).invoke(envelope());
    expect(!result.ok && result.failure.variant).toBe("spawn");
  });
});

describe("CALLBACK-001 Conformance: subprocess wire tests", () => {
  it("round trip: spawn the fixture client, write the envelope, read the response", async () => {
    const { program, args } = shellClient("ok");
    const result = await new SubprocessInvoker({ program, args, timeoutMs: 5000 }).invoke(envelope());
    expect(result).toMatchObject({ ok: true, response: { schema_version: WIRE_VERSION, status: "delivered" } });
  });

  it("receipt.emitted: rejected with invalid_request and never spawned", async () => {
    const marker = join(tmp.dir, "spawned-marker");
    const { program, args } = shellClient("marker", marker);
    const invoker = new SubprocessInvoker({ program, args, timeoutMs: 5000 });
    const result = await invoker.invoke(envelope({ event: "receipt.emitted" }));
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.failure).toMatchObject({ variant: "receipt_emitted_rejected", failure_class: "invalid_request" });
    expect(existsSync(marker)).toBe(false);
    // The same invoker does spawn (and create the marker) for a dispatchable event.
    const control = await invoker.invoke(envelope());
    expect(control.ok).toBe(true);
    expect(existsSync(marker)).toBe(true);
  });

  it("receipt.emitted is rejected by the guard even when the envelope is otherwise invalid", async () => {
    const marker = join(tmp.dir, "spawned-marker-2");
    const { program, args } = shellClient("marker", marker);
    const result = await new SubprocessInvoker({ program, args, timeoutMs: 5000 }).invoke(
      envelope({ event: "receipt.emitted", idempotency_key: "k", event_id: "" }),
    );
    expect(!result.ok && result.failure.variant).toBe("receipt_emitted_rejected");
    expect(existsSync(marker)).toBe(false);
  });

  it("deadline: a client sleeping past its deadline is killed and reported as timeout", async () => {
    const pids = join(tmp.dir, "deadline-pids");
    const { program, args } = shellClient("sleep", pids);
    const timeoutMs = 300;
    const started = performance.now();
    const result = await new SubprocessInvoker({ program, args, timeoutMs }).invoke(envelope());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure).toMatchObject({ variant: "timeout", failure_class: "timeout", retry_class: "safe_retry" });
    expect(result.elapsedMs).toBeLessThanOrEqual(timeoutMs + LIMITS.settle_margin_ms);
    const [pgid] = readPids(pids);
    expect(pgid).toBeTypeOf("number");
    // SIGKILL takes effect when the killed process is next scheduled: allow the documented bound.
    const gone = await eventually(
      () => groupMembers(pgid as number).length === 0,
      started,
      timeoutMs + LIMITS.settle_margin_ms,
    );
    expect(gone, `group ${pgid} still has ${groupMembers(pgid as number).join(", ")}`).toBe(true);
  });

  it("non-zero exit after a valid response → transport_error", async () => {
    const { program, args } = shellClient("nonzero-after-response");
    const result = await new SubprocessInvoker({ program, args, timeoutMs: 5000 }).invoke(envelope());
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.failure).toMatchObject({
        variant: "non_zero_exit",
        failure_class: "transport_error",
        exit_code: 3,
      });
  });

  it("malformed JSON → parse_response", async () => {
    const { program, args } = shellClient("log-line");
    const result = await new SubprocessInvoker({ program, args, timeoutMs: 5000 }).invoke(envelope());
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.failure).toMatchObject({ variant: "parse_response", failure_class: "invalid_request" });
  });

  it("unknown field in the response → invalid_response", async () => {
    const { program, args } = shellClient("unknown-field");
    const result = await new SubprocessInvoker({ program, args, timeoutMs: 5000 }).invoke(envelope());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure).toMatchObject({ variant: "invalid_response", failure_class: "invalid_request" });
    expect(result.failure.issues?.[0]).toMatchObject({ rule: "schema.additional-properties", pointer: "/surprise" });
  });
});
