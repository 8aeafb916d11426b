/**
 * Many invocations leave nothing behind (issue "Host runtime" §3): 1,000 sequential and 64
 * concurrent round trips, mixing answers and failures, end with no zombie or live child, no extra
 * open file descriptor, no tracked process group, and host memory within a small bound.
 */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../generated/ts/spec.js";
import { trackedGroups } from "../../runtime/process/process-group.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import {
  envelope,
  eventually,
  liveChildren,
  openFdCount,
  retainedBytes,
  shellClient,
  zombieChildren,
} from "./support.js";

/** Growth allowed over 1,000 invocations: far below one retained request/response per call. */
const MEMORY_BOUND_BYTES = 4 * 1024 * 1024;

const MIX = ["ok", "ok", "ok", "nonzero-after-response", "empty", "unknown-field", "exit-no-read"] as const;
const invokers = MIX.map((behaviour) => new SubprocessInvoker({ ...shellClient(behaviour), timeoutMs: 10_000 }));
const answers = (indexes: readonly number[]): number => indexes.filter((i) => MIX[i % MIX.length] === "ok").length;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

async function expectNothingLeft(): Promise<void> {
  const since = performance.now();
  const clean = await eventually(
    () => zombieChildren().length === 0 && liveChildren().length === 0,
    since,
    LIMITS.settle_margin_ms,
  );
  expect(clean, `zombies ${zombieChildren().join(",")} live ${liveChildren().join(",")}`).toBe(true);
  expect(trackedGroups()).toEqual([]);
}

describe("no leaks", () => {
  it("1,000 sequential invocations", async () => {
    for (let i = 0; i < 20; i++) await (invokers[i % invokers.length] as SubprocessInvoker).invoke(envelope());
    await expectNothingLeft();
    const fdsBefore = openFdCount();
    const memoryBefore = await retainedBytes();
    let answered = 0;
    for (let i = 0; i < 1000; i++) {
      const result = await (invokers[i % invokers.length] as SubprocessInvoker).invoke(
        envelope({ invocation_id: `inv-${i}` }),
      );
      if (result.ok) answered++;
    }
    expect(answered).toBe(answers(range(1000)));
    await expectNothingLeft();
    expect(openFdCount()).toBeLessThanOrEqual(fdsBefore);
    expect((await retainedBytes()) - memoryBefore).toBeLessThan(MEMORY_BOUND_BYTES);
  }, 180_000);

  it("64 concurrent invocations, including deadline kills", async () => {
    const fdsBefore = openFdCount();
    const sleeper = new SubprocessInvoker({ ...shellClient("descendants"), timeoutMs: 300 });
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        (i % 8 === 7 ? sleeper : (invokers[i % invokers.length] as SubprocessInvoker)).invoke(
          envelope({ invocation_id: `inv-c${i}` }),
        ),
      ),
    );
    expect(results.filter((r) => !r.ok && r.failure.variant === "timeout").length).toBe(8);
    expect(results.filter((r) => r.ok).length).toBe(answers(range(64).filter((i) => i % 8 !== 7)));
    await expectNothingLeft();
    expect(openFdCount()).toBeLessThanOrEqual(fdsBefore);
  }, 60_000);
});
