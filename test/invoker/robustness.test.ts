/**
 * The whole kind of each fault, each with a real child process (issue "Host runtime" §3,
 * spec/host-runtime.md): deadlines and process groups, broken stdin pipes, stdout/stderr bounds,
 * stdout framing, exit status and signals, response validation.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../generated/ts/spec.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import type { InvocationResult } from "../../runtime/invoker/types.js";
import {
  bigEnvelope,
  envelope,
  eventually,
  groupMembers,
  isRunning,
  nodeClient,
  readPids,
  retainedBytes,
  shellClient,
  tempDir,
} from "./support.js";

const tmp = tempDir("robustness");
afterAll(() => tmp.cleanup());
let fileCounter = 0;
const pidFile = (): string => join(tmp.dir, `pids-${++fileCounter}`);

/** Larger than any pipe or socket buffer of the host (Linux: 64 KiB pipes, ~200 KiB socket pairs). */
const BIGGER_THAN_PIPE = 4 * 1024 * 1024;

async function run(
  client: { program: string; args: string[] },
  timeoutMs: number,
  env = envelope(),
  limits = {},
): Promise<InvocationResult & { started: number }> {
  const started = performance.now();
  const result = await new SubprocessInvoker({ ...client, timeoutMs, limits }).invoke(env);
  return { ...result, started };
}

function failureOf(result: InvocationResult): Extract<InvocationResult, { ok: false }>["failure"] {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.failure;
}

/** Every pid recorded by the fixture, and every member of its group, is gone within the settle bound. */
async function expectAllGone(file: string, started: number, timeoutMs: number): Promise<void> {
  const pids = readPids(file);
  expect(pids.length).toBeGreaterThan(0);
  const bound = timeoutMs + LIMITS.settle_margin_ms;
  const gone = await eventually(
    () => pids.every((pid) => !isRunning(pid) && groupMembers(pid).length === 0),
    started,
    bound,
  );
  expect(gone, `still running: ${pids.filter(isRunning).join(", ")}`).toBe(true);
}

describe("deadline: the whole process group is killed and the call settles in time", () => {
  const timeoutMs = 400;

  /** Run a shell behaviour that records its pids; assert the settle bound and that every pid is gone. */
  async function untilDeadline(behaviour: string): Promise<{ result: InvocationResult; pids: number[] }> {
    const file = pidFile();
    const result = await run(shellClient(behaviour, file), timeoutMs);
    expect(result.elapsedMs).toBeLessThanOrEqual(timeoutMs + LIMITS.settle_margin_ms);
    await expectAllGone(file, result.started, timeoutMs);
    return { result, pids: readPids(file) };
  }

  it("a child still running at the deadline", async () => {
    expect(failureOf((await untilDeadline("sleep")).result).variant).toBe("timeout");
  });

  it("a child with descendants (a grandchild shell and a subshell)", async () => {
    const { result, pids } = await untilDeadline("descendants");
    expect(failureOf(result).variant).toBe("timeout");
    expect(pids.length).toBe(3);
  });

  it("a child that ignores SIGTERM is killed with SIGKILL after kill_grace_ms", async () => {
    const { result } = await untilDeadline("ignore-term");
    expect(failureOf(result)).toMatchObject({ variant: "timeout", signal: "SIGKILL" });
    expect(result.elapsedMs).toBeGreaterThanOrEqual(timeoutMs + LIMITS.kill_grace_ms);
  });

  it("a descendant keeps stdout open after the child exited 0 with a valid response", async () => {
    const failure = failureOf((await untilDeadline("hold-stdout")).result);
    expect(failure.variant).toBe("timeout");
    expect(failure.detail).toContain("held stdout open");
  });

  it("a descendant that ignores SIGTERM keeps stdout open", async () => {
    expect(failureOf((await untilDeadline("hold-stdout-ignore-term")).result).variant).toBe("timeout");
  });

  it("a descendant holding only stderr does not fail an exchange that ended well; it is killed at the deadline", async () => {
    const { result } = await untilDeadline("hold-stderr");
    expect(result.ok, JSON.stringify(result)).toBe(true);
  });
});

describe("stdin: EPIPE and requests larger than the pipe buffer", () => {
  it("a child that exits 0 before reading, writing nothing → write_request", async () => {
    const failure = failureOf(await run(shellClient("exit-no-read"), 5000, bigEnvelope(BIGGER_THAN_PIPE)));
    expect(failure).toMatchObject({ variant: "write_request", failure_class: "transport_error" });
    expect(failure.detail).toContain("EPIPE");
  });

  it("a child that exits non-zero before reading → non_zero_exit with its code and stderr (not the broken pipe)", async () => {
    const failure = failureOf(await run(shellClient("exit-no-read-fail"), 5000, bigEnvelope(BIGGER_THAN_PIPE)));
    expect(failure).toMatchObject({ variant: "non_zero_exit", exit_code: 4, stderr_tail: "refusing to read\n" });
  });

  it("a child that answers and exits 0 without reading: the valid response wins over the broken pipe", async () => {
    const result = await run(shellClient("exit-no-read-respond"), 5000, bigEnvelope(BIGGER_THAN_PIPE));
    expect(result.ok, JSON.stringify(result)).toBe(true);
  });

  it("a child that closes stdin first and answers → its response", async () => {
    const result = await run(shellClient("close-stdin"), 5000, bigEnvelope(BIGGER_THAN_PIPE));
    expect(result.ok, JSON.stringify(result)).toBe(true);
  });

  it("a child that closes stdin and exits non-zero → non_zero_exit", async () => {
    const failure = failureOf(await run(shellClient("close-stdin-fail"), 5000, bigEnvelope(BIGGER_THAN_PIPE)));
    expect(failure).toMatchObject({ variant: "non_zero_exit", exit_code: 5 });
  });

  it("a child that reads only a prefix, answers and exits 0 → its response", async () => {
    const result = await run(nodeClient("partial-read-respond"), 10_000, bigEnvelope(BIGGER_THAN_PIPE));
    expect(result.ok, JSON.stringify(result)).toBe(true);
  });

  it("a child that never reads a large request and never exits → timeout, no hang", async () => {
    const file = pidFile();
    // Long enough for the shell to start and record its pid on a loaded machine (the envelope is
    // serialized first, within the same timeout): the pid check proves the child really ran.
    const timeoutMs = 1500;
    const result = await run(shellClient("never-read-sleep", file), timeoutMs, bigEnvelope(BIGGER_THAN_PIPE));
    expect(failureOf(result).variant).toBe("timeout");
    expect(result.elapsedMs).toBeLessThanOrEqual(timeoutMs + LIMITS.settle_margin_ms);
    await expectAllGone(file, result.started, timeoutMs);
  });
});

describe("stdout and stderr are bounded", () => {
  it("endless stdout → response_too_large, the group is killed at once, host memory does not grow", async () => {
    const limit = 1024 * 1024;
    const overflow = (): Promise<InvocationResult> =>
      run(shellClient("endless-stdout"), 30_000, envelope(), { max_response_bytes: limit });
    await overflow(); // warm-up: code paths and stream machinery allocated once
    const before = await retainedBytes();
    for (let i = 0; i < 10; i++) {
      const file = pidFile();
      const result = await run(shellClient("endless-stdout", file), 30_000, envelope(), { max_response_bytes: limit });
      const failure = failureOf(result);
      expect(failure).toMatchObject({
        variant: "response_too_large",
        failure_class: "transport_error",
        signal: "SIGKILL",
      });
      await expectAllGone(file, result.started, 0);
    }
    // Ten overflows of a 1 MiB limit, each reading past 1 MiB of output: nothing of them is retained.
    const growth = (await retainedBytes()) - before;
    expect(growth).toBeLessThan(2 * limit);
  });

  it("a response of exactly max_response_bytes is read; one byte more is response_too_large", async () => {
    const exact = (await run(shellClient("ok"), 5000)) as { ok: true; response: unknown };
    const size = Buffer.byteLength(`${JSON.stringify(exact.response)}\n`);
    expect((await run(shellClient("ok"), 5000, envelope(), { max_response_bytes: size })).ok).toBe(true);
    expect(failureOf(await run(shellClient("ok"), 5000, envelope(), { max_response_bytes: size - 1 })).variant).toBe(
      "response_too_large",
    );
  });

  it("20 MB of stderr never fails a valid exchange; only the tail is kept", async () => {
    const result = await run(shellClient("huge-stderr"), 30_000);
    expect(result.ok, JSON.stringify(result).slice(0, 500)).toBe(true);
    if (!result.ok) return;
    expect(Buffer.byteLength(result.stderrTail)).toBeLessThanOrEqual(LIMITS.stderr_tail_bytes);
    expect(result.stderrTail.endsWith("LAST-STDERR-LINE\n")).toBe(true);
  });

  it("a failure carries the stderr tail", async () => {
    const failure = failureOf(await run(nodeClient("throw"), 10_000));
    expect(failure).toMatchObject({ variant: "non_zero_exit", exit_code: 1 });
    expect(failure.stderr_tail).toContain("fixture client crashed");
  });
});

describe("stdout must be exactly one JSON document (parse_response with the first bytes seen)", () => {
  const cases: [string, string, string][] = [
    ["empty", "json.syntax", '"" (0 bytes)'],
    ["two-docs", "json.trailing-data", '"{\\"schema_version\\"'],
    ["trailing-garbage", "json.trailing-data", "garbage"],
    ["log-line", "json.syntax", '"client starting up\\n{'],
    ["invalid-utf8", "json.utf8", "bytes FF FE"],
    ["bom", "json.bom", '"\\xef\\xbb\\xbf{'],
  ];
  for (const [behaviour, rule, shown] of cases) {
    it(`${behaviour} → parse_response (${rule})`, async () => {
      const failure = failureOf(await run(shellClient(behaviour), 5000));
      expect(failure).toMatchObject({
        variant: "parse_response",
        failure_class: "invalid_request",
        retry_class: "do_not_retry",
      });
      expect(failure.issues?.[0]?.rule).toBe(rule);
      expect(failure.detail).toContain(rule);
      expect(failure.detail).toContain(shown);
      expect(failure.detail).toMatch(/stdout was ".*" \([0-9]+ bytes?\)$/);
    });
  }

  it("a response written in many small pieces is one document", async () => {
    const result = await run(nodeClient("drip"), 10_000);
    expect(result.ok, JSON.stringify(result)).toBe(true);
  });
});

describe("exit status", () => {
  it("non-zero exit fails even after a valid response, with the code and stderr tail", async () => {
    const failure = failureOf(await run(shellClient("nonzero-after-response"), 5000));
    expect(failure).toMatchObject({
      variant: "non_zero_exit",
      exit_code: 3,
      stderr_tail: "exiting 3 after answering\n",
    });
  });

  it("death by a signal is reported with the signal", async () => {
    const failure = failureOf(await run(shellClient("signal"), 5000));
    expect(failure).toMatchObject({ variant: "non_zero_exit", failure_class: "transport_error", signal: "SIGABRT" });
    expect(failure.exit_code).toBeUndefined();
    expect(failure.detail).toContain("SIGABRT");
  });
});

describe("response validation → invalid_response with rule id and pointer", () => {
  const cases: [string, string, string][] = [
    ["unknown-field", "schema.additional-properties", "/surprise"],
    ["wrong-enum", "schema.enum", "/status"],
    ["failed-no-class", "failed-requires-failure-class", "/failure_class"],
  ];
  for (const [behaviour, rule, pointer] of cases) {
    it(`${behaviour} → ${rule} at ${pointer}`, async () => {
      const failure = failureOf(await run(shellClient(behaviour), 5000));
      expect(failure).toMatchObject({ variant: "invalid_response", failure_class: "invalid_request" });
      expect(failure.issues?.[0]).toMatchObject({ rule, pointer });
      expect(failure.detail).toContain(rule);
      expect(failure.detail).toContain(pointer);
    });
  }
});
