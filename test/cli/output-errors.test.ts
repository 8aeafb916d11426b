/**
 * When the CLI cannot write its output. A reader that went away (EPIPE, `... | head`): exit 0 and
 * nothing on stderr, as the reference CLI does, except the commands whose exit code is their
 * verdict (validate, diff, conform, conformance run, generate --check), which keep it. A standard
 * output that is /dev/null (Python DEVNULL, Go nil Stdout, Node 'ignore') is an output like any
 * other. A full disk (ENOSPC): one line on stderr and exit 3, never a stack. The package's launcher
 * (packaging/launcher.cjs), which answers `--version` and the help itself, behaves the same.
 */
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, CLI, REPO_ROOT } from "../support/cli-process.js";
import { spawnChild } from "../support/spawn-child.js";

/** How the child's stdout is given: a pipe whose read end is closed before the child writes, a pipe read for `bytes` bytes and then closed, or an fd / 'ignore'. */
type Stdout = "pipe-closed" | { readonly readThenClose: number } | number | "ignore";

/** Run the CLI (`entry`: default the tsc build) with `stdout` as given; collect stderr and the exit code (the child is always reaped). */
function run(
  args: readonly string[],
  stdout: Stdout,
  input?: string,
  entry: string = CLI,
): Promise<{ code: number | null; stderr: string; read: number }> {
  const piped = stdout === "pipe-closed" || typeof stdout === "object";
  let read = 0;
  return spawnChild({
    command: process.execPath,
    args: [entry, ...args],
    cwd: REPO_ROOT,
    stdin: input === undefined ? "ignore" : "pipe",
    stdout: piped ? "pipe" : stdout,
    ...(input === undefined ? {} : { input }),
    // Generous: a loaded 2-core machine; a hang is the failure this bound catches.
    watchdogMs: 60_000,
    onSpawn: (child) => {
      if (stdout === "pipe-closed") child.stdout?.destroy();
      else if (typeof stdout === "object") {
        // A reader that takes the first bytes and goes away, as `head -c N` does.
        child.stdout?.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read >= stdout.readThenClose) child.stdout?.destroy();
        });
      }
    },
  }).then((r) => ({ code: r.code, stderr: r.stderr, read }));
}

describe("output errors", () => {
  it("a reader that goes away before anything is written (EPIPE): exit 0, nothing on stderr", async () => {
    for (const args of [["events"], ["version"], ["--help"]]) {
      const r = await run(args, "pipe-closed");
      expect([r.code, r.stderr], args.join(" ")).toEqual([0, ""]);
    }
    // The launcher answers these itself (a synchronous write to fd 1), or hands over (events).
    for (const args of [["events"], ["--version"], ["--help"], []]) {
      const r = await run(args, "pipe-closed", undefined, BIN);
      expect([r.code, r.stderr], `launcher ${args.join(" ")}`).toEqual([0, ""]);
    }
  });

  it("a reader that takes the first bytes and goes away (head -c): the run goes on and exits with its verdict, no write error", async () => {
    // conformance run --root generated/conformance passes, so its verdict is 0 as well; it prints one
    // line per fixture (far more than a pipe buffer), so the reader leaves mid-output.
    const r = await run(["conformance", "run", "--root", "generated/conformance"], { readThenClose: 100 });
    expect(r.read).toBeGreaterThanOrEqual(100);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^conformance: \d+ fixtures: \d+ passed, 0 failed/);
    expect(r.stderr).not.toContain("cannot write the output");
  });

  it("a verdict command keeps its exit code when its reader went away: validate, conformance run", async () => {
    const invalid = JSON.stringify({ schema_version: "lifeloop.v0", status: "failed" });
    const validate = await run(["validate", "callback-response", "-"], "pipe-closed", invalid);
    expect(validate.code, validate.stderr).toBe(1);
    expect(validate.stderr).not.toContain("cannot write the output");
    const dir = join(tmpdir(), `lifeloop-epipe-${process.pid}`);
    spawnSync("cp", ["-r", join(REPO_ROOT, "generated", "conformance"), dir]);
    try {
      // One fixture whose expectation is wrong: the run's verdict is 1 (a failing fixture).
      writeFileSync(
        join(dir, "callback_response", "zz-failing.json"),
        JSON.stringify({
          kind: "callback_response",
          expect: "valid",
          description: "expects an invalid response to pass",
          data: JSON.parse(invalid),
        }),
      );
      const conformance = await run(["conformance", "run", "--root", dir], { readThenClose: 100 });
      expect(conformance.code, conformance.stderr).toBe(1);
    } finally {
      spawnSync("rm", ["-rf", dir]);
    }
  });

  it("session is a verdict command too: a reader that went away after one line does not abandon the rest of the run (hostile review D5)", async () => {
    // 400 envelopes through the stream transport: one output line each (far more than a pipe
    // buffer), so the reader leaves early; every envelope must still be delivered and receipted.
    const dir = join(tmpdir(), `lifeloop-epipe-session-${process.pid}`);
    spawnSync("mkdir", ["-p", dir]);
    try {
      const base = JSON.parse(readFileSync(join(REPO_ROOT, "examples", "dispatch-envelope.json"), "utf8")) as {
        request: Record<string, unknown>;
      };
      const lines = Array.from({ length: 400 }, (_, i) =>
        JSON.stringify({ ...base, request: { ...base.request, event_id: `evt-${i}`, invocation_id: `inv-${i}` } }),
      );
      const file = join(dir, "session.jsonl");
      writeFileSync(file, `${lines.join("\n")}\n`);
      const ledger = join(dir, "receipts.db");
      const runner = join(REPO_ROOT, "test", "fixtures", "client-lang-neutral", "node", "runner-echo.mjs");
      const r = await run(
        [
          "session",
          "--transport",
          "stream",
          "--program",
          process.execPath,
          "--arg",
          runner,
          "--timeout-ms",
          "20000",
          "--ledger",
          ledger,
          file,
        ],
        { readThenClose: 100 },
      );
      expect(r.code, r.stderr).toBe(0);
      const listed = spawnSync(process.execPath, [CLI, "receipt", "list", "--ledger", ledger], {
        encoding: "utf8",
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(listed.status, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(400);
    } finally {
      spawnSync("rm", ["-rf", dir]);
    }
  });

  it("a standard output that is /dev/null is not a closed one: Node 'ignore', Python DEVNULL, a shell >/dev/null", async () => {
    expect((await run(["version"], "ignore")).code).toBe(0);
    expect((await run(["--version"], "ignore", undefined, BIN)).code).toBe(0);
    const python = spawnSync(
      "python3",
      [
        "-c",
        "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode)",
        process.execPath,
        CLI,
        "version",
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect([python.status, python.stderr]).toEqual([0, ""]);
    const shell = spawnSync("/bin/sh", ["-c", '"$@" >/dev/null', "sh", process.execPath, CLI, "version"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect([shell.status, shell.stderr]).toEqual([0, ""]);
  });

  it("a full device (ENOSPC) → one line on stderr, exit 3", async () => {
    const full = openSync("/dev/full", "w");
    try {
      for (const [args, entry] of [
        [["events"], CLI],
        [["--version"], BIN],
        [["--help"], BIN],
      ] as const) {
        const r = await run(args, full, undefined, entry);
        expect(r.code, `${entry} ${args.join(" ")}`).toBe(3);
        expect(r.stderr).toContain("cannot write the output: ENOSPC");
        expect(r.stderr).not.toContain("    at ");
      }
    } finally {
      closeSync(full);
    }
  });
});
