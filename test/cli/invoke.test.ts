/**
 * `lifeloop-callback invoke` as a real process (built dist/), against fixture clients in shell, Node
 * and Python, and against the reference crate's own test client `lifeloop-fake-ccd-client`.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { validateValue } from "../../runtime/wire/validate.js";
import { spawnChild } from "../support/spawn-child.js";
import { bigEnvelope, CLI, envelope, FIXTURES, ROOT, shellClient, tempDir } from "../invoker/support.js";

const tmp = tempDir("cli-invoke");
afterAll(() => tmp.cleanup());

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: readonly string[], input: string | Buffer = ""): Promise<CliRun> {
  // A watchdog, not a bound: every invocation here has its own, shorter --timeout-ms.
  return spawnChild({ command: process.execPath, args: [CLI, "invoke", ...args], input, watchdogMs: 120_000 }).then(
    ({ code, stdout, stderr }) => ({ code, stdout, stderr }),
  );
}

interface InvokeOutput {
  response: Record<string, unknown> | null;
  failure: Record<string, unknown> | null;
  receipt: Record<string, unknown> | null;
  elapsed_ms: number;
}

function output(run: CliRun): InvokeOutput {
  const lines = run.stdout.split("\n").filter((l) => l !== "");
  expect(lines.length, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(1);
  const parsed = JSON.parse(lines[0] as string) as InvokeOutput;
  expect(Object.keys(parsed)).toEqual(["response", "failure", "receipt", "elapsed_ms"]);
  expect(Number.isInteger(parsed.elapsed_ms)).toBe(true);
  if (parsed.receipt !== null) expect(validateValue("LifecycleReceipt", parsed.receipt)).toEqual([]);
  return parsed;
}

const doc = (value: unknown = envelope()): string => JSON.stringify(value);

describe("cli: invoke", () => {
  expect(existsSync(CLI), `build first: npm run build (missing ${CLI})`).toBe(true);

  for (const [lang, program] of [
    ["shell", join(FIXTURES, "shell", "echo.sh")],
    ["node", join(FIXTURES, "node", "echo.mjs")],
    ["python", join(FIXTURES, "python", "echo.py")],
  ] as const) {
    it(`${lang} echo client: exit 0, the response and a delivered receipt`, async () => {
      const run = await cli(
        [
          "--program",
          program,
          "--timeout-ms",
          "10000",
          "--client-id",
          `${lang}-echo`,
          "--receipt-id",
          "rcpt-1",
          "--at-epoch-s",
          "1700000000",
          "--parent-receipt-id",
          "rcpt-0",
        ],
        doc(),
      );
      expect(run.code, run.stderr).toBe(0);
      const out = output(run);
      expect(out.failure).toBeNull();
      expect(out.response).toMatchObject({
        schema_version: WIRE_VERSION,
        status: "delivered",
        metadata: { echo: lang },
      });
      expect(out.receipt).toMatchObject({
        client_id: `${lang}-echo`,
        receipt_id: "rcpt-1",
        parent_receipt_id: "rcpt-0",
        at_epoch_s: 1_700_000_000,
        status: "delivered",
        sequence: null,
      });
    });
  }

  it("a subcall frame without --parent-receipt-id, or a parent equal to --receipt-id: exit 1, invalid_request, no receipt, nothing spawned", async () => {
    const subcall = envelope({
      event: "frame.opened",
      frame_context: { frame_id: "f-2", frame_class: "subcall", parent_frame_id: "f-1" },
    });
    for (const [name, flags, value, rule] of [
      ["subcall", [], subcall, "subcall-requires-parent-receipt"],
      [
        "self-parent",
        ["--receipt-id", "rcpt-self", "--parent-receipt-id", "rcpt-self"],
        envelope(),
        "receipt-not-own-parent",
      ],
      ["empty-parent", ["--parent-receipt-id", ""], envelope(), "non-empty-identifier"],
    ] as const) {
      const marker = join(tmp.dir, `linkage-${name}`);
      const client = shellClient("marker", marker);
      const run = await cli(
        ["--program", client.program, ...client.args.flatMap((a) => ["--arg", a]), "--timeout-ms", "10000", ...flags],
        doc(value),
      );
      expect(run.code, `${name}: ${run.stderr}`).toBe(1);
      const out = output(run);
      expect(out.failure, name).toMatchObject({ variant: "invalid_request", failure_class: "invalid_request" });
      expect(String(out.failure?.detail), name).toContain(rule);
      expect(out.receipt, name).toBeNull();
      expect(existsSync(marker), `${name}: the client was spawned`).toBe(false);
    }
    const marker = join(tmp.dir, "linkage-parented");
    const client = shellClient("marker", marker);
    const run = await cli(
      [
        "--program",
        client.program,
        ...client.args.flatMap((a) => ["--arg", a]),
        "--timeout-ms",
        "10000",
        "--parent-receipt-id",
        "rcpt-root",
      ],
      doc(subcall),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(output(run).receipt).toMatchObject({ parent_receipt_id: "rcpt-root", status: "delivered" });
    expect(existsSync(marker)).toBe(true);
  });

  it("sequence is null: one invocation has no run scope, also with a harness_run_id (as the reference's ledgerless event invoke)", async () => {
    const run = await cli(
      ["--program", join(FIXTURES, "shell", "echo.sh"), "--timeout-ms", "10000"],
      doc(envelope({ harness_run_id: "run-1" })),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(output(run).receipt).toMatchObject({ harness_run_id: "run-1", sequence: null });
  });

  it("reads a FILE, defaults the client id to the program's name and mints a receipt id", async () => {
    const file = join(tmp.dir, "envelope.json");
    writeFileSync(file, doc());
    const run = await cli(["--program", join(FIXTURES, "shell", "echo.sh"), "--timeout-ms", "10000", file]);
    expect(run.code, run.stderr).toBe(0);
    const receipt = output(run).receipt as Record<string, unknown>;
    expect(receipt.client_id).toBe("echo.sh");
    expect(receipt.receipt_id).toMatch(/^rcpt-[0-9a-f-]{36}$/);
  });

  it("passes --arg values verbatim, even ones that look like flags", async () => {
    const { program } = shellClient("ok");
    const run = await cli(
      ["--program", program, "--arg", "ok", "--arg", WIRE_VERSION, "--arg", "--not-a-flag", "--timeout-ms", "10000"],
      doc(),
    );
    expect(run.code, run.stderr).toBe(0);
  });

  it("a failed invocation: exit 1, the failure object and a failed receipt", async () => {
    const { program, args } = shellClient("nonzero-after-response");
    const run = await cli(["--program", program, ...args.flatMap((a) => ["--arg", a]), "--timeout-ms", "10000"], doc());
    expect(run.code).toBe(1);
    const out = output(run);
    expect(out.response).toBeNull();
    expect(out.failure).toEqual({
      variant: "non_zero_exit",
      failure_class: "transport_error",
      retry_class: "safe_retry",
      detail: "the client exited with code 3",
      exit_code: 3,
      stderr_tail: "exiting 3 after answering\n",
    });
    expect(out.receipt).toMatchObject({
      status: "failed",
      failure_class: "transport_error",
      retry_class: "safe_retry",
    });
    expect(run.stderr).toContain("non_zero_exit");
  });

  it("receipt.emitted: exit 1, receipt_emitted_rejected, no receipt, nothing spawned", async () => {
    const marker = join(tmp.dir, "cli-marker");
    const { program, args } = shellClient("marker", marker);
    const run = await cli(
      ["--program", program, ...args.flatMap((a) => ["--arg", a]), "--timeout-ms", "10000"],
      doc(envelope({ event: "receipt.emitted" })),
    );
    expect(run.code).toBe(1);
    const out = output(run);
    expect(out.failure).toMatchObject({ variant: "receipt_emitted_rejected", failure_class: "invalid_request" });
    expect(out.receipt).toBeNull();
    expect(existsSync(marker)).toBe(false);
  });

  it("an envelope that breaks the schema is the invocation's invalid_request (exit 1), with no receipt", async () => {
    const run = await cli(
      ["--program", join(FIXTURES, "shell", "echo.sh"), "--timeout-ms", "10000"],
      doc({ ...envelope(), extra: 1 }),
    );
    expect(run.code).toBe(1);
    expect(output(run).failure).toMatchObject({ variant: "invalid_request" });
  });

  it("an integer written 1.0 is schema.type, as for validate", async () => {
    const text = doc(envelope({ sequence: 7 })).replace('"sequence":7', '"sequence":7.0');
    const run = await cli(["--program", join(FIXTURES, "shell", "echo.sh"), "--timeout-ms", "10000"], text);
    expect(run.code).toBe(1);
    expect(output(run).failure?.detail).toContain("schema.type");
  });

  const usage: [string, string[]][] = [
    ["a relative program", ["--program", "test/fixtures/client-lang-neutral/shell/echo.sh", "--timeout-ms", "1000"]],
    ["no program", ["--timeout-ms", "1000"]],
    ["no timeout", ["--program", join(FIXTURES, "shell", "echo.sh")]],
    ["a zero timeout", ["--program", join(FIXTURES, "shell", "echo.sh"), "--timeout-ms", "0"]],
    ["a non-numeric timeout", ["--program", join(FIXTURES, "shell", "echo.sh"), "--timeout-ms", "5s"]],
    ["an unknown flag", ["--program", join(FIXTURES, "shell", "echo.sh"), "--timeout-ms", "1000", "--shell"]],
    [
      "an empty client id",
      ["--program", join(FIXTURES, "shell", "echo.sh"), "--timeout-ms", "1000", "--client-id", ""],
    ],
    ["two inputs", ["--program", join(FIXTURES, "shell", "echo.sh"), "--timeout-ms", "1000", "a.json", "b.json"]],
  ];
  for (const [name, args] of usage) {
    it(`usage error (exit 2): ${name}`, async () => {
      const run = await cli(args, doc());
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe("");
    });
  }

  const unreadable: [string, string | Buffer][] = [
    ["not JSON", "hello"],
    ["empty input", ""],
    ["a byte-order mark", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(doc())])],
    ["two documents", `${doc()}\n${doc()}`],
  ];
  for (const [name, input] of unreadable) {
    it(`unreadable input (exit 3): ${name}`, async () => {
      const run = await cli(["--program", join(FIXTURES, "shell", "echo.sh"), "--timeout-ms", "1000"], input);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain("json.");
    });
  }

  it("unreadable input (exit 3): a missing file", async () => {
    const run = await cli([
      "--program",
      join(FIXTURES, "shell", "echo.sh"),
      "--timeout-ms",
      "1000",
      join(tmp.dir, "nope.json"),
    ]);
    expect(run.code).toBe(3);
  });
});

const REFERENCE_CLIENT = join(ROOT, ".cache", "lifeloop-ref", "bin", "lifeloop-fake-ccd-client");
const INSTALL =
  "cargo install lifeloop-cli --version 0.9.0 --locked --root .cache/lifeloop-ref (or bash tools/setup/prepare.sh)";

function requireReferenceClient(): string {
  if (!existsSync(REFERENCE_CLIENT)) {
    throw new Error(
      `the reference test client is missing at ${REFERENCE_CLIENT}; install it from the repository root with: ${INSTALL}`,
    );
  }
  return REFERENCE_CLIENT;
}

describe("cli: invoke against the reference crate's lifeloop-fake-ccd-client", () => {
  const frameOpening = envelope({
    event: "frame.opening",
    frame_context: { frame_id: "frame-1", frame_class: "top_level" },
    idempotency_key: "idem-ref",
  });
  const invokeRef = (behaviour: string, input: unknown = envelope(), timeoutMs = 10_000): Promise<CliRun> =>
    cli(
      [
        "--program",
        requireReferenceClient(),
        "--arg",
        behaviour,
        "--timeout-ms",
        String(timeoutMs),
        "--client-id",
        "ccd",
      ],
      doc(input),
    );

  it("ok on frame.opening: a delivered response carrying the client's payload, and a receipt", async () => {
    const run = await invokeRef("ok", frameOpening);
    expect(run.code, run.stderr).toBe(0);
    const out = output(run);
    expect(out.response).toMatchObject({
      status: "delivered",
      client_payloads: [{ payload_id: "pay-fake-ccd-1", idempotency_key: "idem-ref" }],
    });
    expect(out.receipt).toMatchObject({
      client_id: "ccd",
      status: "delivered",
      idempotency_key: "idem-ref",
      event: "frame.opening",
    });
  });

  it("skipped", async () => {
    const run = await invokeRef("skipped");
    expect(run.code, run.stderr).toBe(0);
    expect(output(run).receipt).toMatchObject({ status: "skipped" });
  });

  const failures: [string, unknown, number, Record<string, unknown>][] = [
    ["malformed", envelope(), 10_000, { variant: "parse_response", failure_class: "invalid_request" }],
    [
      "nonzero",
      envelope(),
      10_000,
      { variant: "non_zero_exit", exit_code: 7, stderr_tail: "fake ccd client: simulated transport failure\n" },
    ],
    [
      "exit_zero_no_read",
      bigEnvelope(4 * 1024 * 1024),
      10_000,
      { variant: "write_request", failure_class: "transport_error" },
    ],
    ["hang", envelope(), 500, { variant: "timeout", failure_class: "timeout" }],
    ["huge_stdout", envelope(), 10_000, { variant: "response_too_large", failure_class: "transport_error" }],
    ["hold_stdout_open", envelope(), 500, { variant: "timeout", failure_class: "timeout" }],
  ];
  for (const [behaviour, input, timeoutMs, expected] of failures) {
    it(`${behaviour} → ${expected.variant as string}`, async () => {
      const run = await invokeRef(behaviour, input, timeoutMs);
      expect(run.code, run.stderr).toBe(1);
      const out = output(run);
      expect(out.failure).toMatchObject(expected);
      expect(out.receipt).toMatchObject({ status: "failed" });
    });
  }
});
