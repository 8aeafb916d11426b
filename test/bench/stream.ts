/**
 * Benchmark: stream mode v2 against subprocess v1 and against the floor, all in this process, each
 * one event at a time (issue 10 item 7).
 *
 * - **v1**: {@link SubprocessInvoker} delivering a 1,000-event session to the Go SDK client
 *   (test/fixtures/client-lang-neutral/go-echo): one spawn per event.
 * - **stream**: {@link StreamInvoker} delivering the same session to the same client started once
 *   with `--stream`.
 * - **floor**: a bare NDJSON echo loop over the same kind of pipes: this process writes each request
 *   line (the same bytes a stream request carries) and waits for the LF of the answer, without
 *   parsing or validating anything; the client is test/bench/ndjson-echo (Go, no JSON parsing).
 *
 * Also: the same bare loop driving the real Go SDK client, to show how much of the stream's cost is
 * the client runner and how much the host. Prints events/s and the ratios stream/v1 (target ≥ 50x) and stream/floor (target ≥ 0.5x), the
 * round-trip p50/p99 of each, and the host's RSS sampled every 10,000 events over a 100,000-event
 * stream session (goal: flat). Never fails on a number; numbers on a shared machine are noisy.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { StreamInvoker } from "../../runtime/stream/invoker.js";
import type { CallbackInvoker } from "../../runtime/invoker/types.js";
import { callbackRequest, dispatchEnvelope, frameContext } from "../support/dispatch.js";
import { GO_ECHO_DIR, REPO_ROOT } from "../support/fixture-clients.js";

/** Events of the compared session. */
const SESSION_EVENTS = 1_000;
/** Events of the RSS run, and how often RSS is sampled. */
const RSS_EVENTS = 100_000;
const RSS_EVERY = 10_000;
/** Warm-up events before each measured run (JIT, page cache, Go runtime start). */
const WARM_UP = 50;
const TIMEOUT_MS = 10_000;
const FLOOR_DIR = join(REPO_ROOT, "test", "bench", "ndjson-echo");

/** The minimal valid CallbackResponse the floor client answers with. */
const FLOOR_RESULT = JSON.stringify({ schema_version: WIRE_VERSION, status: "delivered", failure_class: null, retry_class: null });

/** The envelope of event `i` of the session (frame.opening, a top-level frame, no payloads). */
function envelopeOf(i: number): DispatchEnvelope {
  return dispatchEnvelope(
    callbackRequest("frame.opening", {
      event_id: `evt-bench-${i}`,
      invocation_id: `inv-bench-${i}`,
      harness_session_id: "sess-bench",
      frame_context: frameContext(`frame-${i}`),
    }),
  );
}

/** `go build` one module into `dir/name`; throws with the tool's output when it fails. */
function goBuild(moduleDir: string, dir: string, name: string): string {
  const out = join(dir, name);
  const built = spawnSync("go", ["build", "-o", out, "."], { cwd: moduleDir, encoding: "utf8", timeout: 300_000 });
  if (built.error !== undefined || built.status !== 0) {
    throw new Error(`bench stream: go build in ${moduleDir} failed (${built.error?.message ?? `exit ${String(built.status)}`}): ${built.stderr}`);
  }
  return out;
}

/** p-th percentile (0..100) of `values` (nearest rank). */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** One measured run: total wall time (ms) and each round trip (ms). */
interface Run {
  readonly totalMs: number;
  readonly samples: readonly number[];
}

/** Deliver events 0..count-1 one at a time through `invoker`; every one must be answered. */
async function session(invoker: CallbackInvoker, count: number, offset = 0): Promise<Run> {
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const result = await invoker.invoke(envelopeOf(offset + i));
    samples.push(performance.now() - t0);
    if (!result.ok) throw new Error(`bench stream: event ${offset + i} failed: ${result.failure.variant}: ${result.failure.detail}`);
  }
  return { totalMs: performance.now() - started, samples };
}

/**
 * The floor: a bare NDJSON loop. Each request is the JSON-RPC line a stream host writes (built by
 * string concatenation around a pre-serialized envelope), each answer is complete at its LF.
 */
class NdjsonFloor {
  private readonly child: ChildProcessWithoutNullStreams;
  private pending: (() => void) | null = null;
  private seq = 0;

  constructor(program: string, args: readonly string[]) {
    this.child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.resume();
    this.child.stdout.on("data", (chunk: Buffer) => {
      // One request is outstanding at a time, so an LF anywhere in a chunk completes it.
      if (chunk.includes(0x0a)) {
        const done = this.pending;
        this.pending = null;
        done?.();
      }
    });
  }

  roundTrip(envelope: DispatchEnvelope): Promise<void> {
    const id = `h${++this.seq}`;
    const line = `{"jsonrpc":"2.0","id":"${id}","method":"event/${envelope.request.event}","params":${JSON.stringify(envelope)}}\n`;
    return new Promise((resolve) => {
      this.pending = resolve;
      this.child.stdin.write(line);
    });
  }

  async run(count: number): Promise<Run> {
    const samples: number[] = [];
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      await this.roundTrip(envelopeOf(i));
      samples.push(performance.now() - t0);
    }
    return { totalMs: performance.now() - started, samples };
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.child.on("close", () => resolve());
      this.child.stdin.end();
    });
  }
}

function line(name: string, run: Run): number {
  const perSecond = (run.samples.length * 1000) / run.totalMs;
  process.stdout.write(
    `    ${name.padEnd(30)} ${perSecond.toFixed(0).padStart(7)} events/s   p50 ${percentile(run.samples, 50).toFixed(3)} ms   p99 ${percentile(run.samples, 99).toFixed(3)} ms\n`,
  );
  return perSecond;
}

const mib = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MiB`;

/** Run the benchmark and print the ratios. */
export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-stream-"));
  try {
    const goEcho = goBuild(GO_ECHO_DIR, dir, "go-echo");
    const floorProgram = goBuild(FLOOR_DIR, dir, "ndjson-echo");
    process.stdout.write(`stream: a ${SESSION_EVENTS}-event session to the Go SDK client, one event at a time (numbers are noisy on a shared machine)\n`);

    const floor = new NdjsonFloor(floorProgram, [FLOOR_RESULT]);
    await floor.run(WARM_UP);
    const floorRun = await floor.run(SESSION_EVENTS);
    await floor.close();
    // Where the time goes: the same bare host loop driving the real Go SDK client (its runner
    // decodes and validates every envelope and encodes every response).
    const bareHost = new NdjsonFloor(goEcho, ["--stream"]);
    await bareHost.run(WARM_UP);
    const bareHostRun = await bareHost.run(SESSION_EVENTS);
    await bareHost.close();

    const v1 = new SubprocessInvoker({ program: goEcho, timeoutMs: TIMEOUT_MS });
    await session(v1, WARM_UP);
    const v1Run = await session(v1, SESSION_EVENTS);

    const stream = new StreamInvoker({ program: goEcho, timeoutMs: TIMEOUT_MS });
    await session(stream, WARM_UP);
    const streamRun = await session(stream, SESSION_EVENTS, WARM_UP);
    const spawns = stream.stats.spawns;
    await stream.close();

    const floorRate = line("floor: bare NDJSON echo loop", floorRun);
    const bareHostRate = line("bare loop -> Go SDK runner", bareHostRun);
    const v1Rate = line("v1: SubprocessInvoker", v1Run);
    const streamRate = line("stream: StreamInvoker", streamRun);
    process.stdout.write(`    stream/v1 ${(streamRate / v1Rate).toFixed(1)}x (target ≥ 50x)   stream/floor ${(streamRate / floorRate).toFixed(2)}x (target ≥ 0.5x)   stream spawns: ${spawns}\n`);
    process.stdout.write(`    of the floor: the Go SDK runner alone keeps ${(bareHostRate / floorRate).toFixed(2)}x, the host adds the rest\n`);

    // RSS of this process over a long stream session: sampled every RSS_EVERY events after a GC
    // when node runs with --expose-gc (otherwise as it is), so growth, not garbage, shows.
    const long = new StreamInvoker({ program: goEcho, timeoutMs: TIMEOUT_MS });
    const gc = (globalThis as { gc?: () => void }).gc;
    const samples: number[] = [];
    let sent = 0;
    await session(long, WARM_UP);
    while (sent < RSS_EVENTS) {
      await session(long, RSS_EVERY, WARM_UP + sent);
      sent += RSS_EVERY;
      gc?.();
      samples.push(process.memoryUsage().rss);
    }
    await long.close();
    const first = samples[0] as number;
    const last = samples.at(-1) as number;
    process.stdout.write(
      `  host RSS over ${RSS_EVENTS} stream events (every ${RSS_EVERY}${gc === undefined ? ", no --expose-gc" : ", after gc"}): ${samples.map(mib).join(" ")}\n` +
        `    last/first ${(last / first).toFixed(2)}x (${mib(last - first)} growth; goal: flat)\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
