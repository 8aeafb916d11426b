/**
 * The stream runner's own bounds (spec/conformance-runner.md, "Stream scenarios"): every wait is
 * its own watchdog of --timeout-ms (a correct client that takes 1 s per reply passes a shared
 * session of many scenarios, and a reply that comes after its scenario timed out is that
 * scenario's fault, not the next one's); the session's stdout is bounded per frame, not by
 * max_response_bytes in total (1 MiB replies pass); a timeout near limits.max_timeout_ms does
 * not overflow a timer; a framing scenario credits an exit only after a control exchange (a
 * client that answers once and exits fails them).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildScenarios } from "../../runtime/conform/scenarios.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { conform, nodeClient, type Report } from "./support.js";

const STREAM = buildScenarios(join(REPO_ROOT, "generated", "vectors"), "stream");
const ending = STREAM.filter((s) => s.expect === "end_stream").map((s) => s.id);
const notPassing = (r: Report): string[] =>
  r.records.filter((x) => x.verdict !== "pass").map((x) => `${x.scenario}:${x.verdict}: ${x.detail.slice(0, 200)}`);
const stream = (...extra: string[]): string[] => [
  ...nodeClient(),
  ...extra.flatMap((a) => ["--arg", a]),
  "--transport",
  "stream",
];

describe("conform stream runner bounds", () => {
  it("passes a correct client with 1 s per reply, and blames a late reply on its own scenario only", async () => {
    // The shared session's waits together are longer than one scenario's budget (4 waits + exit grace).
    const DELAY_MS = 1000;
    const TIMEOUT_MS = 4000;
    expect(STREAM.filter((s) => s.input.kind === "stream" && s.input.shared).length * DELAY_MS).toBeGreaterThan(
      4 * TIMEOUT_MS + 1000,
    );
    const [slow, late] = await Promise.all([
      conform([...stream("--reply-delay-ms", String(DELAY_MS)), "--timeout-ms", String(TIMEOUT_MS)], 600_000),
      conform(
        [...stream("--reply-delay-ms", "8000", "--reply-delay-event", "context.compacted"), "--timeout-ms", "5000"],
        600_000,
      ),
    ]);
    expect(notPassing(slow)).toEqual([]);
    expect(slow.code).toBe(0);
    expect(
      notPassing(late).map((l) => l.split(":")[0]),
      notPassing(late).join("\n"),
    ).toEqual(["stream-event.context.compacted"]);
  }, 600_000);

  it("passes a correct client with 1 MiB replies under a timeout near limits.max_timeout_ms", async () => {
    const big = await conform(
      [...stream("--reply-pad-bytes", String(1024 * 1024)), "--timeout-ms", "2000000000"],
      600_000,
    );
    expect(big.summary.measured).toBe(true);
    expect(notPassing(big)).toEqual([]);
    expect(big.code).toBe(0);
  }, 600_000);

  it("fails every framing scenario for a client that answers once and exits", async () => {
    const once = await conform(
      [...nodeClient("stream-answer-once"), "--transport", "stream", "--timeout-ms", "20000"],
      600_000,
    );
    const failed = new Set(once.records.filter((x) => x.verdict === "fail").map((x) => x.scenario));
    expect(ending.filter((id) => !failed.has(id))).toEqual([]);
    expect(once.code).toBe(1);
  }, 600_000);
});
