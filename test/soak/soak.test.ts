/**
 * Soak and fault suite (issue "Reliability"): thousands of mixed invocations at concurrency, real
 * child processes and in-process handlers, every fault class the host knows. Asserted for every
 * call: the settle bound (timeoutMs + limits.settle_margin_ms, a correctness bound) and the right
 * outcome; after the run: no file descriptor and no child process left behind. (Figures such as
 * peak RSS and the longest event-loop block are `npm run bench`'s business: event-loop-block.)
 *
 * Size: SOAK_CALLS (default 1200) subprocess calls plus a quarter as many in-process ones,
 * SOAK_CONCURRENCY (default 8) in flight. Flooding clients run with limits.max_response_bytes
 * lowered to 1 MiB (the kill at the limit is the same; the host copies less); the full-size
 * documents are the business of test/invoker/settle-bound-huge.test.ts and test/hostile.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import type { CallbackResponse, DispatchEnvelope } from "../../generated/ts/types.js";
import { InProcessInvoker } from "../../runtime/invoker/in-process.js";
import { trackedGroups } from "../../runtime/process/process-group.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import type { InvokerLimits } from "../../runtime/invoker/config.js";
import type { CallbackInvoker, InvocationResult } from "../../runtime/invoker/types.js";
import { mulberry32 } from "../support/prng.js";
import {
  bigEnvelope,
  envelope,
  eventually,
  liveChildren,
  openFdCount,
  tempDir,
  zombieChildren,
} from "../invoker/support.js";

const CALLS = Number(process.env.SOAK_CALLS ?? 1200);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 8);

const tmp = tempDir("soak");
afterAll(() => tmp.cleanup());

const OK: CallbackResponse = {
  schema_version: WIRE_VERSION,
  status: "delivered",
  failure_class: null,
  retry_class: null,
};
const OK_JSON = JSON.stringify(OK);

/** Large valid responses the "huge" clients cat: many small values, and one long string. */
function hugeFiles(): { values: string; string: string } {
  const values = join(tmp.dir, "values.json");
  writeFileSync(values, `${OK_JSON.slice(0, -1)},"metadata":{"a":[${'{"k":1},'.repeat(30_000)}0]}}`);
  const string = join(tmp.dir, "string.json");
  writeFileSync(string, `${OK_JSON.slice(0, -1)},"metadata":{"a":"${"x".repeat(4 << 20)}"}}`);
  return { values, string };
}

/** One kind of call: how to make it, its timeout and the outcome it must have ("ok" or a failure variant). */
interface Kind {
  readonly name: string;
  readonly weight: number;
  readonly timeoutMs: number;
  readonly expect: string;
  readonly make: (timeoutMs: number) => { invoker: CallbackInvoker; envelope: DispatchEnvelope };
}

function sh(script: string, timeoutMs: number, limits: Partial<InvokerLimits> = {}): SubprocessInvoker {
  return new SubprocessInvoker({ program: "/bin/sh", args: ["-c", script], timeoutMs, limits });
}

function kinds(files: { values: string; string: string }): Kind[] {
  const answer = `printf '%s' '${OK_JSON}'`;
  // Timeouts of calls that must succeed are generous (a loaded machine spawns slowly); the bound
  // asserted is always the call's own timeoutMs + settle_margin_ms.
  const slow = 8_000;
  const heavy = 20_000;
  return [
    {
      name: "valid",
      weight: 30,
      timeoutMs: slow,
      expect: "ok",
      make: (t) => ({ invoker: sh(`cat >/dev/null; ${answer}`, t), envelope: envelope() }),
    },
    {
      name: "big request",
      weight: 4,
      timeoutMs: heavy,
      expect: "ok",
      make: (t) => ({ invoker: sh(`cat >/dev/null; ${answer}`, t), envelope: bigEnvelope(1 << 20) }),
    },
    {
      name: "hang",
      weight: 12,
      timeoutMs: 150,
      expect: "timeout",
      make: (t) => ({ invoker: sh("exec sleep 30", t), envelope: envelope() }),
    },
    {
      name: "hang ignoring SIGTERM",
      weight: 4,
      timeoutMs: 150,
      expect: "timeout",
      make: (t) => ({ invoker: sh("trap '' TERM; sleep 30 & wait", t), envelope: envelope() }),
    },
    {
      name: "flood stdout",
      weight: 6,
      timeoutMs: slow,
      expect: "response_too_large",
      make: (t) => ({ invoker: sh("exec cat /dev/zero", t, { max_response_bytes: 1 << 20 }), envelope: envelope() }),
    },
    {
      name: "crash (exit 3)",
      weight: 8,
      timeoutMs: slow,
      expect: "non_zero_exit",
      make: (t) => ({ invoker: sh("cat >/dev/null; exit 3", t), envelope: envelope() }),
    },
    {
      name: "killed by a signal",
      weight: 4,
      timeoutMs: slow,
      expect: "non_zero_exit",
      make: (t) => ({ invoker: sh("cat >/dev/null; kill -9 $$", t), envelope: envelope() }),
    },
    {
      name: "garbage",
      weight: 6,
      timeoutMs: slow,
      expect: "parse_response",
      make: (t) => ({ invoker: sh("cat >/dev/null; echo not-json", t), envelope: envelope() }),
    },
    {
      name: "invalid response",
      weight: 4,
      timeoutMs: slow,
      expect: "invalid_response",
      make: (t) => ({
        invoker: sh(`cat >/dev/null; printf '%s' '{"schema_version":"${WIRE_VERSION}","status":"handled"}'`, t),
        envelope: envelope(),
      }),
    },
    {
      name: "too many values",
      weight: 2,
      timeoutMs: heavy,
      expect: "parse_response",
      make: (t) => ({
        invoker: sh(`cat >/dev/null; printf '[' ; yes '0,' | head -c 1000000 | tr -d '\\n'; printf '0]'`, t),
        envelope: envelope(),
      }),
    },
    {
      name: "huge valid (many values)",
      weight: 2,
      timeoutMs: heavy,
      expect: "ok",
      make: (t) => ({ invoker: sh(`cat >/dev/null; exec cat '${files.values}'`, t), envelope: envelope() }),
    },
    {
      name: "huge valid (4 MiB string)",
      weight: 2,
      timeoutMs: heavy,
      expect: "ok",
      make: (t) => ({ invoker: sh(`cat >/dev/null; exec cat '${files.string}'`, t), envelope: envelope() }),
    },
    {
      name: "spawn failure",
      weight: 2,
      timeoutMs: slow,
      expect: "spawn",
      make: (t) => ({
        invoker: new SubprocessInvoker({ program: join(tmp.dir, "no-such-program"), timeoutMs: t }),
        envelope: envelope(),
      }),
    },
    {
      name: "receipt.emitted",
      weight: 2,
      timeoutMs: slow,
      expect: "receipt_emitted_rejected",
      make: (t) => ({ invoker: sh(`cat >/dev/null; ${answer}`, t), envelope: envelope({ event: "receipt.emitted" }) }),
    },
  ];
}

/** In-process kinds: a quarter as many calls, no processes. */
function inProcessKinds(): Kind[] {
  const handler = (f: () => unknown) => (timeoutMs: number) => ({
    invoker: new InProcessInvoker({ timeoutMs, handler: f as () => CallbackResponse }),
    envelope: envelope(),
  });
  return [
    { name: "in-process valid", weight: 10, timeoutMs: 5_000, expect: "ok", make: handler(() => OK) },
    {
      name: "in-process throws",
      weight: 4,
      timeoutMs: 5_000,
      expect: "handler_threw",
      make: handler(() => Promise.reject(new Error("boom"))),
    },
    {
      name: "in-process hangs",
      weight: 4,
      timeoutMs: 100,
      expect: "timeout",
      make: handler(() => new Promise(() => undefined)),
    },
    {
      name: "in-process huge valid",
      weight: 1,
      timeoutMs: 20_000,
      expect: "ok",
      make: handler(() => ({ ...OK, metadata: { a: new Array(30_000).fill({ k: 1 }) } })),
    },
    {
      name: "in-process too many values",
      weight: 1,
      timeoutMs: 20_000,
      expect: "invalid_response",
      make: handler(() => ({ ...OK, metadata: { a: new Array(LIMITS.max_values + 1).fill(0) } })),
    },
  ];
}

function pick(list: readonly Kind[], random: () => number): Kind {
  const total = list.reduce((n, k) => n + k.weight, 0);
  let r = random() * total;
  for (const k of list) {
    r -= k.weight;
    if (r < 0) return k;
  }
  return list[list.length - 1] as Kind;
}

interface Outcome {
  readonly kind: Kind;
  readonly result: InvocationResult;
  readonly wallMs: number;
}

/** Run `count` calls drawn from `list` with `concurrency` in flight. */
async function runMix(list: readonly Kind[], count: number, concurrency: number, seed: number): Promise<Outcome[]> {
  const random = mulberry32(seed);
  const plan = Array.from({ length: count }, () => pick(list, random));
  const out: Outcome[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < plan.length) {
      const kind = plan[next++] as Kind;
      const { invoker, envelope: env } = kind.make(kind.timeoutMs);
      const started = performance.now();
      const result = await invoker.invoke(env);
      out.push({ kind, result, wallMs: performance.now() - started });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

describe("soak: mixed valid, hanging, flooding, crashing and huge calls at concurrency", () => {
  it(`${CALLS} subprocess + ${Math.round(CALLS / 4)} in-process calls: every call within its settle bound and rightly classified; no fd or child growth`, async () => {
    const files = hugeFiles();
    // Warm up once (module loading, first spawn), then take the baseline.
    await runMix(kinds(files), 8, 4, 1);
    const fdsBefore = openFdCount();

    const [sub, inProc] = await Promise.all([
      runMix(kinds(files), CALLS, CONCURRENCY, 42),
      runMix(inProcessKinds(), Math.round(CALLS / 4), 4, 7),
    ]);
    const all = [...sub, ...inProc];

    const late: string[] = [];
    const wrong: string[] = [];
    for (const { kind, result, wallMs: w } of all) {
      const bound = kind.timeoutMs + LIMITS.settle_margin_ms;
      const elapsed = Math.max(result.elapsedMs, w);
      if (elapsed > bound) late.push(`${kind.name}: ${elapsed.toFixed(0)} ms > ${bound} ms`);
      const got = result.ok ? "ok" : result.failure.variant;
      if (got !== kind.expect)
        wrong.push(
          `${kind.name}: expected ${kind.expect}, got ${got}${result.ok ? "" : ` (${result.failure.detail.slice(0, 160)})`}`,
        );
    }

    // Every child is reaped and every group untracked within the settle margin; the fds are back.
    const settled = performance.now();
    const clean = await eventually(
      () =>
        liveChildren().length === 0 &&
        zombieChildren().length === 0 &&
        trackedGroups().length === 0 &&
        openFdCount() <= fdsBefore,
      settled,
      LIMITS.settle_margin_ms,
    );

    expect(late, "calls that settled after their bound").toEqual([]);
    expect(wrong, "calls with the wrong outcome").toEqual([]);
    expect(
      clean,
      `fds ${fdsBefore} -> ${openFdCount()}, children ${liveChildren().join(",")}, zombies ${zombieChildren().join(",")}, groups ${trackedGroups().join(",")}`,
    ).toBe(true);
  }, 600_000);
});
