/**
 * When the CLI cannot write its output (the reader closed the pipe, the disk is full) it ends with
 * one line on stderr and exit 3 (an I/O error) instead of an unhandled stream error and a stack.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT } from "../support/cli-process.js";

/** Run the CLI with `stdout` as given; collect stderr and the exit code (the child is always reaped). */
function run(args: readonly string[], stdout: "pipe-closed" | number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, stdio: ["ignore", stdout === "pipe-closed" ? "pipe" : stdout, "pipe"] });
    if (stdout === "pipe-closed") child.stdout?.destroy();
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("output errors", () => {
  it("a reader that goes away (EPIPE) → one line on stderr, exit 3", async () => {
    const r = await run(["conformance", "run", "--root", "test/conformance"], "pipe-closed");
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("cannot write the output: EPIPE");
    expect(r.stderr).not.toContain("    at ");
  });

  it("a full device (ENOSPC) → one line on stderr, exit 3", async () => {
    const full = openSync("/dev/full", "w");
    try {
      const r = await run(["events"], full);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain("cannot write the output: ENOSPC");
      expect(r.stderr).not.toContain("    at ");
    } finally {
      closeSync(full);
    }
  });
});
