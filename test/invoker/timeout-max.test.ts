/**
 * The longest timeoutMs (limits.max_timeout_ms, the longest delay a Node.js timer holds) covers
 * the whole round trip (spec/host-runtime.md §"Round trip"): the settle bound is timeoutMs +
 * limits.settle_margin_ms, past that delay, so every timer armed for it must still wait rather
 * than fire at once (Node runs a delay above 2^31 - 1 ms after 1 ms). Asserted with a real client
 * whose valid response is large enough to be judged in slices against the settle bound.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { runInSlices } from "../../runtime/process/slices.js";
import { envelope, tempDir } from "./support.js";

const tmp = tempDir("timeout-max");
afterAll(() => tmp.cleanup());

describe("timeoutMs at limits.max_timeout_ms", () => {
  it("a large valid response is judged (in slices) and accepted, not timed out by an overflowed timer", async () => {
    // More than limits.fast_parse_sliced_max_bytes, of many values: judged over several turns.
    const file = join(tmp.dir, "response.json");
    writeFileSync(
      file,
      `{"schema_version":"${WIRE_VERSION}","status":"delivered","failure_class":null,"retry_class":null,"metadata":{"a":[${"{},".repeat(100_000)}{}]}}`,
    );
    const invoker = new SubprocessInvoker({
      program: "/bin/sh",
      args: ["-c", 'cat >/dev/null; cat "$1"', "sh", file],
      timeoutMs: LIMITS.max_timeout_ms,
    });
    const result = await invoker.invoke(envelope());
    expect(result.ok ? "ok" : `${result.failure.variant}: ${result.failure.detail}`).toBe("ok");
  }, 60_000);

  it("a sliced job with a deadline beyond the longest timer delay runs to its end", async () => {
    // 30 ms of work: several turns of the scheduler (about 10 ms each), with timers run in between.
    const t0 = performance.now();
    const finished = await runInSlices(
      () => performance.now() - t0 >= 30,
      t0 + LIMITS.max_timeout_ms + LIMITS.settle_margin_ms,
    );
    expect(finished).toBe(true);
  });
});
