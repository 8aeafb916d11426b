/**
 * The `--expected-failures` baseline is read without blocking and within a bound
 * (spec/conformance-runner.md, "Baseline"): a FIFO without a writer, a device that never ends
 * (/dev/zero), a directory and a file larger than limits.max_request_bytes each end the run with
 * exit 3 and a message naming the problem, before any scenario runs; parsing is linear.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI_EXIT_CODES, LIMITS } from "../../generated/ts/spec.js";
import { parseBaseline } from "../../runtime/conform/baseline.js";
import { CLI } from "../support/cli-process.js";
import { spawnChild } from "../support/spawn-child.js";
import { nodeClient } from "./support.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-conform-baseline-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** Run conform with a baseline under a watchdog; resolves with the exit code and stderr. */
function runWithBaseline(file: string): Promise<{ code: number | null; stderr: string; killed: boolean }> {
  return spawnChild({
    command: process.execPath,
    args: [CLI, "conform", ...nodeClient(), "--expected-failures", file],
    stdin: "ignore",
    watchdogMs: 20_000,
  }).then((r) => ({ code: r.code, stderr: r.stderr, killed: r.timedOut }));
}

describe("conform --expected-failures input bounds", () => {
  it("refuses a FIFO without a writer, /dev/zero, a directory and an oversized file with exit 3", async () => {
    const fifo = join(TMP, "fifo");
    execFileSync("mkfifo", [fifo]);
    const big = join(TMP, "big.txt");
    writeFileSync(big, "");
    truncateSync(big, LIMITS.max_request_bytes + 1);
    const results = await Promise.all([fifo, "/dev/zero", TMP, big].map(runWithBaseline));
    const [f, z, d, b] = results;
    for (const r of results) {
      expect(r.killed, r.stderr).toBe(false);
      expect(r.code, r.stderr).toBe(CLI_EXIT_CODES.input);
    }
    expect(f?.stderr).toMatch(/not a regular file \(a FIFO\)/);
    expect(z?.stderr).toMatch(/not a regular file \(a device\)/);
    expect(d?.stderr).toMatch(/not a regular file \(a directory\)/);
    expect(b?.stderr).toMatch(new RegExp(`larger than ${LIMITS.max_request_bytes} bytes`));
  }, 60_000);

  it("accepts a line copied from the text report (`<transport> <id>`) as the id", () => {
    expect(
      parseBaseline(
        "subprocess event.session.starting\nstream   stream-event.frame.opening  # flaky\nevent.session.starting\n",
      ),
    ).toEqual(["event.session.starting", "stream-event.frame.opening"]);
  });

  it("parses ids in file order without duplicates, comments and blanks dropped", () => {
    expect(parseBaseline("a\n# c\nb  # x\n\r\na\r\nc\n")).toEqual(["a", "b", "c"]);
    const many = Array.from({ length: 60_000 }, (_, i) => `scenario.${i}`);
    expect(parseBaseline(many.join("\n"))).toHaveLength(60_000);
  });
});
