/**
 * Benchmark: stream mode v2 against subprocess v1 and against the floor, all in this process, each
 * one event at a time (issue 10 item 7). Every figure below is measured in the same run.
 *
 * - **v1**: {@link SubprocessInvoker} delivering a 1,000-event session to the Go SDK client
 *   (test/fixtures/client-lang-neutral/go-echo): one spawn per event.
 * - **stream**: {@link StreamInvoker} delivering the same session to the same client started once
 *   with `--stream`.
 * - **floor**: a bare NDJSON echo loop over the same pipes, spawned the way the stream spawns (own
 *   process group): this process writes each request line (the same bytes a stream request
 *   carries) and waits for the LF of the answer, without parsing or validating anything; the
 *   client is tools/bench/ndjson-echo (Go, no JSON parsing).
 * - **bare loop -> Go SDK runner**: the floor's host loop driving the real Go SDK client, to tell
 *   how much of the stream's cost is the client runner and how much the host.
 *
 * The four run interleaved, in ROUNDS rounds of SESSION_EVENTS / ROUNDS events each, so a change
 * of load on a shared machine hits all of them alike; each round starts after
 * untimed lead-in events (ROUND_LEAD_IN, STEADY_ROUND_LEAD_IN), in an order that rotates from round to round. The whole comparison
 * runs once per CPU placement (regimesFor: the kernel's choice, then, where taskset can pin,
 * host and clients on one CPU and on two CPUs; tools/bench/cpu-placement.ts says why). Prints
 * events/s and round-trip p50/p99 of each, the ratios stream/v1 (target >= 50x) and stream/floor
 * (target >= 0.5x) over the run and as the median and range of the per-round ratios (the verdict
 * is the median's: one slow spell of a shared machine moves one round, not the figure), a line of
 * the medians by placement, and the CPU time
 * per event of this process and of the client (from /proc, Linux; the load-independent view of
 * where the time goes), with the client's context switches per event (about one is its wait for the
 * next request; the rest are wake-ups of its runtime: timers, idle threads, its monitor thread). Then the host's RSS at the start and end of a RSS_EVENTS-event stream
 * session (100,000, goal: flat; LIFELOOP_BENCH_RSS_EVENTS=N runs N instead and says so), sampled
 * after a GC, judged from the end of a warm-up (RSS_WARM_SAMPLES) with the cold figures beside it.
 * Never fails on a number; numbers on a shared machine are noisy.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { StreamInvoker } from "../../runtime/stream/invoker.js";
import type { CallbackInvoker } from "../../runtime/invoker/types.js";
import { callbackRequest, dispatchEnvelope, frameContext } from "../../test/support/dispatch.js";
import { GO_ECHO_DIR, REPO_ROOT } from "../../test/support/fixture-clients.js";
import { cpuPlacement, pinProcess, type CpuPlacement } from "./cpu-placement.js";

/** Events of the compared session, and the rounds they are interleaved in. */
const SESSION_EVENTS = 1_000;
const ROUNDS = 10;
/** Events of the RSS run (item 7: 100,000), and how often RSS is sampled. */
const RSS_EVENTS = Number(process.env.LIFELOOP_BENCH_RSS_EVENTS ?? 100_000);
const RSS_EVERY = Math.max(1, Math.floor(RSS_EVENTS / 10));
/**
 * Samples of the RSS run that are warm-up: the process's RSS still grows while V8 compiles the hot
 * code and sizes its heap for this allocation rate (the young generation doubles once, typically
 * within the first 20-40k events; the JS heap after a GC stays flat), so "flat" is judged from the
 * end of the warm-up on, and the cold figures are printed beside it.
 */
const RSS_WARM_SAMPLES = 2;
/** Warm-up events of v1 before the measured rounds (page cache, Go runtime start); each costs a spawn. */
const WARM_UP = 300;
/**
 * Warm-up events of the in-process contenders (the stream, the floor, the bare loop): V8 optimizes
 * the host's hot paths (parser, checks, serializer, receipts) only after a few thousand events, and
 * a stream host is long-lived, so the rounds measure the optimized steady state. The stream's first
 * SESSION_EVENTS events, before any warm-up, are printed beside it as the cold figure.
 */
const STEADY_WARM_UP = 5_000;
/**
 * Untimed events of a contender right before each of its rounds, so the timed ones do not pay for
 * what the previous contender left behind: cold caches, and after v1's forks copy-on-write faults
 * on every page this process writes next. An in-process contender writes its way through V8's
 * young generation (16 MiB semi-spaces once grown) at several KB per event, so the faults last for
 * thousands of its events: measured with the stream pinned to one CPU after 100 v1 events, about
 * one minor fault per event and 35-40% more host CPU per event through the first 2,000 events,
 * none left after 5,000. v1's lead-in is short: each of its events is a spawn.
 */
const ROUND_LEAD_IN = 100;
const STEADY_ROUND_LEAD_IN = 5_000;
const TIMEOUT_MS = 10_000;
const FLOOR_DIR = join(REPO_ROOT, "tools", "bench", "ndjson-echo");

/** The minimal valid CallbackResponse the floor client answers with. */
const FLOOR_RESULT = JSON.stringify({
  schema_version: WIRE_VERSION,
  status: "delivered",
  failure_class: null,
  retry_class: null,
});

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
    throw new Error(
      `bench stream: go build in ${moduleDir} failed (${built.error?.message ?? `exit ${String(built.status)}`}): ${built.stderr}`,
    );
  }
  return out;
}

/** p-th percentile (0..100) of `values` (nearest rank). */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Accumulated measurements of one contender over the interleaved rounds. */
class Tally {
  readonly samples: number[] = [];
  /** Events and wall time (ms) of each round, in order: the per-round ratios compare contenders measured minutes apart at most. */
  readonly rounds: { readonly events: number; readonly wallMs: number }[] = [];
  wallMs = 0;
  hostCpuUs = 0;
  /** CPU of this process's main thread alone (the event loop, where a round trip's host work runs), when /proc has it. */
  hostMainUs = 0;
  hostMainKnown = true;
  clientCpuUs = 0;
  clientCpuKnown = true;
  /** Context switches of the client's threads (voluntary and not), when /proc has them: about one per event is the wait for the next request; more are the client runtime's own wake-ups. */
  clientSwitches = 0;
  clientSwitchesKnown = true;

  /** Run `count` events through `one` and add wall time, round trips and CPU of both sides. */
  async round(
    count: number,
    one: (i: number) => Promise<void>,
    clientPid: () => number | null,
    offset: number,
  ): Promise<void> {
    const pid = clientPid();
    const client0 = pid === null ? null : cpuOfUs(pid);
    const switches0 = pid === null ? null : contextSwitchesOf(pid);
    const host0 = process.cpuUsage();
    const main0 = mainThreadCpuUs();
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      await one(offset + i);
      this.samples.push(performance.now() - t0);
    }
    const wallMs = performance.now() - started;
    this.wallMs += wallMs;
    this.rounds.push({ events: count, wallMs });
    const host = process.cpuUsage(host0);
    this.hostCpuUs += host.user + host.system;
    const main1 = mainThreadCpuUs();
    if (main0 === null || main1 === null) this.hostMainKnown = false;
    else this.hostMainUs += main1 - main0;
    const client1 = pid === null ? null : cpuOfUs(pid);
    if (client0 === null || client1 === null) this.clientCpuKnown = false;
    else this.clientCpuUs += client1 - client0;
    const switches1 = pid === null ? null : contextSwitchesOf(pid);
    if (switches0 === null || switches1 === null) this.clientSwitchesKnown = false;
    else this.clientSwitches += switches1 - switches0;
  }

  get perSecond(): number {
    return (this.samples.length * 1000) / this.wallMs;
  }
}

/**
 * CPU time (µs) a process has used so far, from /proc (Linux); null elsewhere. The sum of its
 * threads' schedstat run times (ns precision) when the kernel has them: /proc/PID/stat counts in
 * 10 ms ticks, too coarse for a round of a hundred events of ~100 µs each; else stat's ticks.
 */
function cpuOfUs(pid: number): number | null {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    if (Number.isFinite(ns) && ns > 0) return ns / 1000;
  } catch {
    // no schedstat (or the process is gone): fall back to stat
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (USER_HZ, 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

/**
 * Context switches (voluntary and involuntary) of all threads of a process so far, from
 * /proc/PID/task/TID/status (Linux); null elsewhere or once the process is gone. Load-independent
 * where CPU time is not: each extra switch per event is a thread wake-up of the client's runtime.
 */
function contextSwitchesOf(pid: number): number | null {
  try {
    let n = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const m of readFileSync(`/proc/${pid}/task/${task}/status`, "utf8").matchAll(/ctxt_switches:\s+(\d+)/g))
        n += Number(m[1]);
    }
    return n;
  } catch {
    return null;
  }
}

/**
 * CPU time (µs) of this process's main thread so far (schedstat, Linux), or null. Unlike
 * process.cpuUsage() it leaves out V8's background threads (concurrent GC, JIT), whose work may
 * belong to an earlier round.
 */
function mainThreadCpuUs(): number | null {
  try {
    const ns = Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]);
    return Number.isFinite(ns) && ns > 0 ? ns / 1000 : null;
  } catch {
    return null;
  }
}

/** Deliver one event through `invoker`; every one must be answered. */
async function deliver(invoker: CallbackInvoker, i: number): Promise<void> {
  const result = await invoker.invoke(envelopeOf(i));
  if (!result.ok)
    throw new Error(`bench stream: event ${i} failed: ${result.failure.variant}: ${result.failure.detail}`);
}

/** Deliver events offset..offset+count-1 one at a time (warm-up and the RSS run). */
async function session(invoker: CallbackInvoker, count: number, offset = 0): Promise<void> {
  for (let i = 0; i < count; i++) await deliver(invoker, offset + i);
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
    // Spawned as StreamInvoker spawns (own process group, no shell): the same kind of pipes and scheduling.
    this.child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"], detached: true, shell: false });
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

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.child.on("close", () => resolve());
      this.child.stdin.end();
    });
  }
}

function line(name: string, tally: Tally): void {
  const main = tally.hostMainKnown ? ` (main thread ${(tally.hostMainUs / tally.samples.length).toFixed(0)} µs)` : "";
  const switches =
    tally.clientSwitchesKnown && tally.clientCpuKnown
      ? ` (${(tally.clientSwitches / tally.samples.length).toFixed(2)} switches)`
      : "";
  const cpu =
    `host ${(tally.hostCpuUs / tally.samples.length).toFixed(0)} µs${main}` +
    (tally.clientCpuKnown ? ` + client ${(tally.clientCpuUs / tally.samples.length).toFixed(0)} µs${switches}` : "");
  process.stdout.write(
    `    ${name.padEnd(30)} ${tally.perSecond.toFixed(0).padStart(7)} events/s   p50 ${percentile(tally.samples, 50).toFixed(3)} ms   p99 ${percentile(tally.samples, 99).toFixed(3)} ms   CPU/event: ${cpu}\n`,
  );
}

/** "met" or "below target" for a measured ratio against its target (printed, never asserted). */
const verdict = (ratio: number, target: number): string => (ratio >= target ? "met" : "below target");

const mib = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MiB`;

/** A full GC, when the runtime lets this process ask for one (flag set at run time; no --expose-gc needed). */
function gcFunction(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return undefined;
  }
}

/**
 * Where the host and its clients run during one comparison. `hostCpus`/`clientCpus`: taskset CPU
 * lists, or null for the kernel's choice. v1's clients are forked by the host's main thread, so they
 * start on the host's CPUs whatever `clientCpus` says.
 */
interface Regime {
  readonly name: string;
  readonly what: string;
  readonly hostCpus: string | null;
  readonly clientCpus: string | null;
}

/**
 * The regimes measured: always the kernel's choice ("free", what a host gets by default); and,
 * where CPUs can be pinned (Linux, taskset, two CPUs or more), host and clients on one CPU (no
 * vCPU ever idles during the loop, so a round trip costs the work of both sides and two context
 * switches: the regime that compares work) and on two CPUs (every round trip wakes a peer across
 * CPUs, halted on a machine without guest halt polling: the regime that compares latency).
 * tools/bench/cpu-placement.ts says why the kernel's choice alone does not compare like with like.
 */
function regimesFor(placement: CpuPlacement): Regime[] {
  const free: Regime = { name: "free", what: "the kernel places host and clients", hostCpus: null, clientCpus: null };
  if (!placement.available || placement.cpus.length < 2) return [free];
  const [a, b] = placement.cpus as [number, number];
  return [
    free,
    { name: "one CPU", what: `host and clients pinned to CPU ${a}`, hostCpus: String(a), clientCpus: String(a) },
    {
      name: "two CPUs",
      what: `host on CPU ${a}, stream and loop clients on CPU ${b} (v1's clients start on the host's)`,
      hostCpus: String(a),
      clientCpus: String(b),
    },
  ];
}

/** A ratio of two contenders over the rounds: over the whole run, and the median and range of the per-round ratios. */
interface RoundRatios {
  readonly overall: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** events/s of `a` over those of `b`, overall and per round (the rounds of a regime are interleaved, so round r of each was measured close in time). */
function roundRatios(a: Tally, b: Tally): RoundRatios {
  const perRound = a.rounds.map((ra, r) => {
    const rb = b.rounds[r] as { readonly events: number; readonly wallMs: number };
    return ra.events / ra.wallMs / (rb.events / rb.wallMs);
  });
  const sorted = [...perRound].sort((x, y) => x - y);
  const mid = sorted.length / 2;
  const median =
    sorted.length % 2 === 1
      ? (sorted[Math.floor(mid)] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { overall: a.perSecond / b.perSecond, median, min: sorted[0] as number, max: sorted.at(-1) as number };
}

function ratioText(r: RoundRatios, digits: number, target: number): string {
  return `${r.overall.toFixed(digits)}x events/s (per round: median ${r.median.toFixed(digits)}x, ${r.min.toFixed(digits)}-${r.max.toFixed(digits)}x; target ≥ ${target}x: ${verdict(r.median, target)})`;
}

/** What one regime measured, for the closing summary. */
interface RegimeResult {
  readonly regime: Regime;
  readonly streamV1: RoundRatios;
  readonly streamFloor: RoundRatios;
  /** The floor's own ratio to v1: no stream host can beat it in that placement (the ceiling of stream/v1). */
  readonly floorV1: RoundRatios;
}

/**
 * Run the four contenders interleaved under `regime` and print their lines and ratios; `cold`
 * also measures the stream's first session in this process (only the first regime's is cold).
 */
async function compare(
  regime: Regime,
  goEcho: string,
  floorProgram: string,
  placement: CpuPlacement,
  cold: boolean,
): Promise<RegimeResult> {
  if (regime.hostCpus !== null) pinProcess(process.pid, regime.hostCpus);
  const clientsElsewhere = regime.clientCpus !== null && regime.clientCpus !== regime.hostCpus;
  const pinClient = (pid: number | null): void => {
    if (clientsElsewhere && pid !== null) pinProcess(pid, regime.clientCpus as string);
  };
  try {
    const floor = new NdjsonFloor(floorProgram, [FLOOR_RESULT]);
    const bareHost = new NdjsonFloor(goEcho, ["--stream"]);
    pinClient(floor.pid);
    pinClient(bareHost.pid);
    const v1 = new SubprocessInvoker({ program: goEcho, timeoutMs: TIMEOUT_MS });
    const stream = new StreamInvoker({ program: goEcho, timeoutMs: TIMEOUT_MS });
    const contenders: readonly {
      readonly name: string;
      readonly tally: Tally;
      readonly one: (i: number) => Promise<void>;
      readonly pid: () => number | null;
      readonly warmUp: number;
      readonly leadIn: number;
    }[] = [
      {
        name: "floor: bare NDJSON echo loop",
        tally: new Tally(),
        one: (i) => floor.roundTrip(envelopeOf(i)),
        pid: () => floor.pid,
        warmUp: STEADY_WARM_UP,
        leadIn: STEADY_ROUND_LEAD_IN,
      },
      {
        name: "bare loop -> Go SDK runner",
        tally: new Tally(),
        one: (i) => bareHost.roundTrip(envelopeOf(i)),
        pid: () => bareHost.pid,
        warmUp: STEADY_WARM_UP,
        leadIn: STEADY_ROUND_LEAD_IN,
      },
      {
        name: "v1: SubprocessInvoker",
        tally: new Tally(),
        one: (i) => deliver(v1, i),
        pid: () => null,
        warmUp: WARM_UP,
        leadIn: ROUND_LEAD_IN,
      },
      {
        name: "stream: StreamInvoker",
        tally: new Tally(),
        one: (i) => deliver(stream, i),
        pid: () => stream.pid,
        warmUp: STEADY_WARM_UP,
        leadIn: STEADY_ROUND_LEAD_IN,
      },
    ];
    // The stream's child starts with its first event: pinned right after it.
    const coldTally = new Tally();
    if (cold)
      await coldTally.round(
        SESSION_EVENTS,
        (i) => deliver(stream, i),
        () => stream.pid,
        0,
      );
    else await deliver(stream, 0);
    pinClient(stream.pid);
    for (const c of contenders) for (let i = 0; i < c.warmUp; i++) await c.one(i);
    const perRound = SESSION_EVENTS / ROUNDS;
    // The order rotates from round to round and each round starts with untimed lead-in events, so no
    // contender pays for what another one left behind. No forced GC between rounds: a full GC resets
    // V8's heap sizing, and the next few hundred events of whichever contender allocates most (the
    // stream host, measured 2-3x slower per event right after one) would pay for the benchmark's GC,
    // not for their own work.
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < contenders.length; k++) {
        const c = contenders[(r + k) % contenders.length] as (typeof contenders)[number];
        for (let i = 0; i < c.leadIn; i++) await c.one(i);
        await c.tally.round(perRound, c.one, c.pid, c.warmUp + r * perRound);
      }
    }
    const spawns = stream.stats.spawns;
    await Promise.all([floor.close(), bareHost.close(), stream.close()]);

    process.stdout.write(`  ${regime.name}: ${regime.what}\n`);
    for (const c of contenders) line(c.name, c.tally);
    if (cold) line("stream, cold (first session)", coldTally);
    const [floorT, bareT, v1T, streamT] = contenders.map((c) => c.tally) as [Tally, Tally, Tally, Tally];
    const result: RegimeResult = {
      regime,
      streamV1: roundRatios(streamT, v1T),
      streamFloor: roundRatios(streamT, floorT),
      floorV1: roundRatios(floorT, v1T),
    };
    process.stdout.write(
      `    stream/v1 ${ratioText(result.streamV1, 1, 50)}   stream/floor ${ratioText(result.streamFloor, 2, 0.5)}${cold ? `   cold stream/v1 ${(coldTally.perSecond / v1T.perSecond).toFixed(1)}x` : ""}   stream spawns: ${spawns}\n`,
    );
    if (floorT.clientCpuKnown && streamT.clientCpuKnown) {
      const perEvent = (t: Tally): number => (t.hostCpuUs + t.clientCpuUs) / t.samples.length;
      process.stdout.write(
        `    CPU per round trip (host + client): floor ${perEvent(floorT).toFixed(0)} µs, stream ${perEvent(streamT).toFixed(0)} µs (floor CPU / stream CPU ${(perEvent(floorT) / perEvent(streamT)).toFixed(2)}x, read like stream/floor); ` +
          `stream host ${(streamT.hostCpuUs / bareT.hostCpuUs).toFixed(2)}x the bare loop's, Go SDK runner ${(bareT.clientCpuUs / floorT.clientCpuUs).toFixed(2)}x the floor client's\n`,
      );
    }
    return result;
  } finally {
    if (regime.hostCpus !== null && placement.available) pinProcess(process.pid, placement.list);
  }
}

/** Run the benchmark and print the ratios. */
export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-stream-"));
  try {
    const goEcho = goBuild(GO_ECHO_DIR, dir, "go-echo");
    const floorProgram = goBuild(FLOOR_DIR, dir, "ndjson-echo");
    const placement = cpuPlacement();
    const regimes = regimesFor(placement);
    process.stdout.write(
      `stream: a ${SESSION_EVENTS}-event session to the Go SDK client, one event at a time, interleaved in ${ROUNDS} rounds with v1, the floor and the bare loop, each after warm-up (v1 ${WARM_UP} events, the others ${STEADY_WARM_UP}: the optimized steady state; the cold figure is the stream's first ${SESSION_EVENTS} events), ` +
        `in ${regimes.length} CPU placement${regimes.length === 1 ? "" : "s"}${placement.available ? "" : ` (${placement.why}: no pinned placements)`} (numbers are noisy on a shared machine)\n`,
    );
    const results: RegimeResult[] = [];
    for (const [i, regime] of regimes.entries())
      results.push(await compare(regime, goEcho, floorProgram, placement, i === 0));
    const summary = (pick: (r: RegimeResult) => RoundRatios, digits: number): string =>
      results.map((r) => `${r.regime.name} ${pick(r).median.toFixed(digits)}x`).join(", ");
    process.stdout.write(
      `  per-round medians by placement: stream/v1 ${summary((r) => r.streamV1, 1)} (target ≥ 50x; floor/v1, the most any host can reach in that placement: ${summary((r) => r.floorV1, 1)}); ` +
        `stream/floor ${summary((r) => r.streamFloor, 2)} (target ≥ 0.5x)\n`,
    );

    const gc = gcFunction();
    // RSS of this process over a long stream session: the first sample after the warm-up, then
    // every RSS_EVERY events, each after a full GC (when one can be had), so growth, not garbage, shows.
    const long = new StreamInvoker({ program: goEcho, timeoutMs: TIMEOUT_MS });
    const sample = (): { rss: number; heap: number; young: number } => {
      gc?.();
      const usage = process.memoryUsage();
      const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
      return { rss: usage.rss, heap: usage.heapUsed, young };
    };
    await session(long, WARM_UP);
    const samples = [sample()];
    const longStarted = performance.now();
    let sent = 0;
    while (sent < RSS_EVENTS) {
      const count = Math.min(RSS_EVERY, RSS_EVENTS - sent);
      await session(long, count, WARM_UP + sent);
      sent += count;
      samples.push(sample());
    }
    const longMs = performance.now() - longStarted;
    await long.close();
    const first = samples[0] as { rss: number; heap: number; young: number };
    const warm = samples[Math.min(RSS_WARM_SAMPLES, samples.length - 1)] as {
      rss: number;
      heap: number;
      young: number;
    };
    const last = samples.at(-1) as { rss: number; heap: number; young: number };
    const warmEvents = Math.min(RSS_WARM_SAMPLES * RSS_EVERY, RSS_EVENTS);
    process.stdout.write(
      `  host RSS over ${RSS_EVENTS} stream events${RSS_EVENTS === 100_000 ? "" : " (LIFELOOP_BENCH_RSS_EVENTS; item 7 asks 100000)"}, ${((RSS_EVENTS * 1000) / longMs).toFixed(0)} events/s, every ${RSS_EVERY}${gc === undefined ? ", no GC available" : ", after a full GC"}: ` +
        `${samples.map((s) => mib(s.rss)).join(" ")}\n` +
        `    after the warm-up (event ${warmEvents} on): ${mib(warm.rss)} -> ${mib(last.rss)}: growth ${mib(last.rss - warm.rss)} (goal: flat); ` +
        `cold (from event 0): ${mib(first.rss)} -> ${mib(last.rss)}; JS heap ${mib(first.heap)} -> ${mib(warm.heap)} -> ${mib(last.heap)}; V8 young generation ${mib(first.young)} -> ${mib(warm.young)} -> ${mib(last.young)}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
