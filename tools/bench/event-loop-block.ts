/**
 * Benchmark: the longest event-loop block, the settle time and the peak memory of one invocation
 * judging a worst-case document within the limits (spec/host-runtime.md §"Bounds", "Time and
 * memory of judging a document"), end to end through the invokers with real child processes:
 *
 * - responses through SubprocessInvoker (a `/bin/sh` client that cats a file): limits.max_values
 *   empty objects, the most members in one object (limits.max_object_members), limits.max_depth nesting repeated to
 *   limits.max_values, the longest string, the longest string of escapes, and 5.2 million empty
 *   objects (15.6 MB, refused by json.max-values);
 * - the same responses through StreamInvoker (one reply frame carrying the document);
 * - in-memory envelopes through SubprocessInvoker.invoke: limits.max_object_members members in one
 *   object (the longest key listing within the limits), limits.max_values array elements, and
 *   limits.max_values members in one object (beyond the limits: listed, then refused by
 *   json.max-members; the listing is what the limit keeps out of the limits).
 *
 * Each shape runs twice, each time in a fresh process (`--shape NAME`): cold, after one small
 * warm-up invocation of the same kind; and warm (`--warm`), after {@link WARM_STREAM} small
 * invocations (stream) or {@link WARM_SUBPROCESS} (subprocess, {@link WARM_CONCURRENCY} at a time)
 * as a host in service would have done: V8's young generation has then grown from its start size
 * to its maximum (the `young` figure), which a cold process grows during the measured invocation
 * and counts as the invocation's memory. Measured there:
 * - block: the longest gap between two ticks of a 1 ms interval timer, minus the 1 ms (what every
 *   other timer and I/O callback of the process waited at worst), with the process CPU time spent
 *   in that gap (all threads: GC helpers included; steadier than wall time on a loaded machine)
 *   and the GC pauses (perf_hooks `gc` entries) that fell in it; and the most process CPU time in
 *   any one gap, the longest block of work even when the machine's load stretched another gap more;
 * - settle: the invocation's elapsedMs, and the process CPU time of the whole invocation;
 * - peak: process.resourceUsage().maxRSS after the invocation minus before it (the warm-up's high
 *   water mark is the baseline), and that as a multiple of the document's size;
 * - floor (warm run, after the invocation, in the same process): the heap that `JSON.parse` of the
 *   same text retains for its value (forced GCs around it), as a multiple of the document: what
 *   any parser that builds the value must hold, the baseline of the peak's ratio for value-dense
 *   documents (for an in-memory envelope: the retained size of `JSON.parse(JSON.stringify(env))`).
 * Then one shape of another kind, "32 concurrent spawns" (spec/host-runtime.md §"Bounds", "Spawns
 * in a burst"): {@link BURST} invocations of a tiny `/bin/sh` client started together
 * (`Promise.all`), in a fresh warm process, {@link BURST_ROUNDS} rounds interleaved with a baseline:
 * the same invocations with the spawn gate's spreading turned off (runtime/process/spawn-gate.ts
 * setSpawnSpreading: every spawn at once, back to back in one turn, as before the gate). Per
 * side: the longest gap of the 1 ms timer (median and worst over the rounds) and the wall time of
 * the whole burst (median), and the gated/baseline ratio of that wall time.
 * `node --trace-gc` can be added by hand (LIFELOOP_BENCH_TRACE_GC=1) to see every pause.
 * Prints figures only; never fails on a number.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { getHeapSpaceStatistics } from "node:v8";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import { setSpawnSpreading, spawnCostMs } from "../../runtime/process/spawn-gate.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import type { CallbackInvoker, InvocationResult } from "../../runtime/invoker/types.js";
import { StreamInvoker } from "../../runtime/stream/invoker.js";

const SELF = fileURLToPath(import.meta.url);
const STREAM_CLIENT = join(SELF, "..", "stream-cat-client.mjs");
const OK = { schema_version: WIRE_VERSION, status: "delivered", failure_class: null, retry_class: null };
const HEAD = `{"schema_version":"${WIRE_VERSION}","status":"delivered","failure_class":null,"retry_class":null,"metadata":`;
/** Values of HEAD's document besides what `metadata` holds: the root, four members, the metadata object. */
const HEAD_VALUES = 6;
const TIMEOUT_MS = 60_000;
/** Small invocations before a warm measurement: stream (one connection), subprocess (spawns, WARM_CONCURRENCY at a time). */
const WARM_STREAM = 8000;
const WARM_SUBPROCESS = 400;
const WARM_CONCURRENCY = 8;

const keys = (n: number): string => Array.from({ length: n }, (_, i) => `"k${i}":0`).join(",");

/** The response documents, each at (or, the last, far beyond) a limit; `expect` is "ok" or the failure variant. */
const RESPONSES: Record<string, { readonly text: () => string; readonly expect: string }> = {
  "max values (empty objects)": {
    text: () => `${HEAD}{"a":[${"{},".repeat(LIMITS.max_values - HEAD_VALUES - 2)}{}]}}`,
    expect: "ok",
  },
  "max members in one object": { text: () => `${HEAD}{${keys(LIMITS.max_object_members)}}}`, expect: "ok" },
  "max depth, repeated": {
    text: () => {
      const nest = `${"[".repeat(LIMITS.max_depth - 2)}${"]".repeat(LIMITS.max_depth - 2)}`;
      const count = Math.floor((LIMITS.max_values - HEAD_VALUES - 1) / (LIMITS.max_depth - 2));
      return `${HEAD}{"a":[${Array.from({ length: count }, () => nest.slice(1, -1)).join(",")}]}}`;
    },
    expect: "ok",
  },
  "max string": {
    text: () => `${HEAD}{"a":"${"x".repeat(LIMITS.max_response_bytes - HEAD.length - 9)}"}}`,
    expect: "ok",
  },
  // Not ASCII, so decoded in pieces and flattened; one € per MiB makes the flat text two-byte:
  // 16 M UTF-16 code units, a 32 MiB copy in one step (the costliest decode within the limits).
  "max string, one € per MiB": {
    text: () => {
      const room = LIMITS.max_response_bytes - HEAD.length - 9;
      const body = `${"x".repeat((1 << 20) - 3)}€`.repeat(Math.floor(room / (1 << 20)));
      return `${HEAD}{"a":"${body}${"x".repeat(room - Buffer.byteLength(body))}"}}`;
    },
    expect: "ok",
  },
  // A whitespace run across the scan's 1 MiB windows (a "token" longer than their 64 Ki margin) in a
  // text that is not ASCII: the windows cannot judge it, so the flat two-byte text is built and
  // judged (runtime/wire/json/sliced.ts WindowedParse, its redo): the costliest fallback within the limits.
  "windowed fallback: whitespace run, one € per MiB": {
    text: () => {
      const room = LIMITS.max_response_bytes - HEAD.length - 20;
      const body = `${"x".repeat((1 << 20) - 3)}€`.repeat(Math.floor(room / 2 / (1 << 20)));
      return `${HEAD}{"a":"${body}","b":[1,${" ".repeat(room - Buffer.byteLength(body) - 1)}2]}}`;
    },
    expect: "ok",
  },
  "max string of escapes": {
    text: () => `${HEAD}{"a":"${"\\n".repeat((LIMITS.max_response_bytes - HEAD.length - 9) >> 1)}"}}`,
    expect: "ok",
  },
  "5.2 M empty objects (over max_values)": {
    text: () => `${HEAD}{"a":[${"{},".repeat(5_200_000)}{}]}}`,
    expect: "parse_response",
  },
};

/** Values of the test envelope besides what `request.metadata` holds. */
function baseEnvelope(metadata?: unknown): DispatchEnvelope {
  const request: Record<string, unknown> = {
    schema_version: WIRE_VERSION,
    event: "session.started",
    event_id: "evt-1",
    adapter_id: "adapter-bench",
    adapter_version: "1.0.0",
    integration_mode: "native_hook",
    invocation_id: "inv-1",
  };
  if (metadata !== undefined) request.metadata = metadata;
  return { schema_version: WIRE_VERSION, request } as unknown as DispatchEnvelope;
}
/** root, schema_version, request, its 7 members, metadata, and the container inside metadata. */
const ENVELOPE_VALUES = 12;

/** `count` members `k0`, `k1`, ... in one object. */
function members(count: number): Record<string, number> {
  const big: Record<string, number> = {};
  for (let i = 0; i < count; i++) big[`k${i}`] = i;
  return big;
}

/** The in-memory envelopes, and the outcome each must have ("ok" or the failure variant). */
const ENVELOPES: Record<string, { readonly make: () => DispatchEnvelope; readonly expect: string }> = {
  "envelope: max members in one object": {
    make: () => baseEnvelope({ a: members(LIMITS.max_object_members) }),
    expect: "ok",
  },
  "envelope: max array elements": {
    make: () => baseEnvelope({ a: Array.from({ length: LIMITS.max_values - ENVELOPE_VALUES }, (_, i) => i) }),
    expect: "ok",
  },
  "envelope: max_values members in one object (over max_object_members)": {
    make: () => baseEnvelope({ a: members(LIMITS.max_values - ENVELOPE_VALUES) }),
    expect: "invalid_request",
  },
};

interface Figures {
  readonly shape: string;
  readonly transport: string;
  readonly bytes: number;
  readonly outcome: string;
  readonly expect: string;
  readonly settle_ms: number;
  readonly settle_cpu_ms: number;
  readonly block_ms: number;
  readonly block_cpu_ms: number;
  readonly block_gc_ms: number;
  readonly longest_gc_ms: number;
  readonly blocks_over_50: number;
  /** The most process CPU time in any one gap (ms): the longest block of work, whether or not the machine's load stretched that gap most. */
  readonly max_gap_cpu_ms: number;
  readonly peak_kb: number;
  /** Young generation (new space) capacity when the measurement began (MiB). */
  readonly young_mib: number;
  /** Heap retained by JSON.parse's value of the same text (bytes; warm runs only, else -1). */
  readonly floor_bytes: number;
  /** Envelopes: the longest Object.keys of one of its containers, alone, after the invocation (ms, and process CPU ms); else -1. */
  readonly keys_ms: number;
  readonly keys_cpu_ms: number;
}

function outcomeOf(r: InvocationResult): string {
  return r.ok ? "ok" : r.failure.variant;
}

/** The probe: a 1 ms interval; the longest gap between ticks, the CPU time and GC pauses within it. */
function startProbe(): () => Promise<{
  blockMs: number;
  cpuMs: number;
  gcMs: number;
  longestGcMs: number;
  over50: number;
  maxGapCpuMs: number;
}> {
  const gcs: { start: number; end: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
  });
  observer.observe({ entryTypes: ["gc"] });
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let worst = { gap: 0, from: 0, to: 0, cpu: 0 };
  let over50 = 0;
  let maxGapCpu = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const gap = now - last - 1;
    if (gap > 50) over50++;
    maxGapCpu = Math.max(maxGapCpu, (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000);
    if (gap > worst.gap)
      worst = { gap, from: last, to: now, cpu: (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000 };
    last = now;
    lastCpu = cpu;
  }, 1);
  return async () => {
    // The block that ends the invocation ends in the turn that resolves it: let the probe tick once more.
    const ticked = performance.now();
    while (last <= ticked) await new Promise((resolve) => setTimeout(resolve, 1));
    clearInterval(timer);
    for (const e of observer.takeRecords()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
    observer.disconnect();
    const inGap = gcs.filter((g) => g.end > worst.from && g.start < worst.to);
    return {
      blockMs: worst.gap,
      cpuMs: worst.cpu,
      gcMs: inGap.reduce((n, g) => n + Math.min(g.end, worst.to) - Math.max(g.start, worst.from), 0),
      longestGcMs: gcs.reduce((n, g) => Math.max(n, g.end - g.start), 0),
      over50,
      maxGapCpuMs: maxGapCpu,
    };
  };
}

/** Child mode: measure one shape and print its figures as one JSON line. */
async function measureShape(shape: string, transport: string, dir: string, warmUp: boolean): Promise<void> {
  let invoker: CallbackInvoker;
  let warm: CallbackInvoker;
  let env: DispatchEnvelope;
  let bytes: number;
  let expect: string;
  const okFile = join(dir, "ok.json");
  writeFileSync(okFile, JSON.stringify(OK));
  const response = RESPONSES[shape];
  const shell = (file: string): SubprocessInvoker =>
    new SubprocessInvoker({
      program: "/bin/sh",
      args: ["-c", `cat >/dev/null; exec cat '${file}'`],
      timeoutMs: TIMEOUT_MS,
    });
  const stream = (file: string): StreamInvoker =>
    new StreamInvoker({ program: process.execPath, args: [STREAM_CLIENT, file], timeoutMs: TIMEOUT_MS });
  if (response !== undefined) {
    const file = join(dir, "response.json");
    const text = response.text();
    writeFileSync(file, text);
    bytes = Buffer.byteLength(text);
    expect = transport === "stream" && response.expect === "parse_response" ? "stream_framing" : response.expect;
    invoker = transport === "stream" ? stream(file) : shell(file);
    warm = transport === "stream" ? invoker : shell(okFile);
    env = baseEnvelope();
  } else {
    const envelope = ENVELOPES[shape];
    if (envelope === undefined) throw new Error(`unknown shape ${shape}`);
    env = envelope.make();
    bytes = Buffer.byteLength(JSON.stringify(env));
    expect = envelope.expect;
    invoker = shell(okFile);
    warm = invoker;
  }
  // Warm-up: module code, the first spawn, the first (small) parse; the stream warms its own child.
  // A warm run first does what a host in service has done: thousands of small invocations.
  if (transport === "stream") {
    const w = stream(okFile);
    for (let i = 0; i < (warmUp ? WARM_STREAM : 1); i++) await w.invoke(baseEnvelope());
    await w.close();
  } else if (warmUp) {
    const small = shell(okFile);
    const worker = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) await small.invoke(baseEnvelope());
    };
    await Promise.all(Array.from({ length: WARM_CONCURRENCY }, () => worker(WARM_SUBPROCESS / WARM_CONCURRENCY)));
    await warm.invoke(baseEnvelope());
  } else await warm.invoke(baseEnvelope());
  const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
  const before = process.resourceUsage().maxRSS;
  const stop = startProbe();
  const cpu0 = process.cpuUsage();
  const result = await invoker.invoke(env);
  const cpu = process.cpuUsage(cpu0);
  const probe = await stop();
  const after = process.resourceUsage().maxRSS;
  if (invoker instanceof StreamInvoker) await invoker.close();
  const floor =
    warmUp && expect === "ok"
      ? retainedByJsonParse(
          response !== undefined ? readFileSync(join(dir, "response.json"), "utf8") : JSON.stringify(env),
        )
      : -1;
  const keys = response === undefined ? longestKeyListing(env) : { ms: -1, cpuMs: -1 };
  const figures: Figures = {
    shape,
    transport,
    bytes,
    outcome: outcomeOf(result),
    expect,
    settle_ms: result.elapsedMs,
    settle_cpu_ms: (cpu.user + cpu.system) / 1000,
    block_ms: probe.blockMs,
    block_cpu_ms: probe.cpuMs,
    block_gc_ms: probe.gcMs,
    longest_gc_ms: probe.longestGcMs,
    blocks_over_50: probe.over50,
    max_gap_cpu_ms: probe.maxGapCpuMs,
    peak_kb: after - before,
    young_mib: young / (1 << 20),
    floor_bytes: floor,
    keys_ms: keys.ms,
    keys_cpu_ms: keys.cpuMs,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** Heap bytes retained by the value of JSON.parse(text) (GC forced before and after; needs --expose-gc). */
function retainedByJsonParse(text: string): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return -1;
  gc();
  const before = process.memoryUsage().heapUsed;
  const value = JSON.parse(text) as unknown;
  gc();
  const retained = process.memoryUsage().heapUsed - before;
  return value === undefined ? -1 : retained;
}

/** Object.keys of the container of `env.request.metadata.a` alone (the one native step of the serializer that no API splits). */
function longestKeyListing(env: DispatchEnvelope): { ms: number; cpuMs: number } {
  const big = (env as unknown as { request: { metadata: { a: object } } }).request.metadata.a;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const n = Object.keys(big).length;
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms: n >= 0 ? ms : -1, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** Invocations started together in the burst shape, and its interleaved rounds per side. */
const BURST = 32;
const BURST_ROUNDS = 7;
const BURST_SHAPE = `${BURST} concurrent spawns`;

interface BurstRound {
  readonly blockMs: number;
  /** Process CPU time in the longest gap (ms). */
  readonly blockCpuMs: number;
  readonly wallMs: number;
  /** Process CPU time of the whole burst (ms). */
  readonly cpuMs: number;
  readonly ok: number;
}

/** Child mode: the burst shape, gated (SubprocessInvoker) and ungated rounds interleaved; prints one JSON line. */
async function measureBurst(dir: string): Promise<void> {
  const okFile = join(dir, "ok.json");
  writeFileSync(okFile, JSON.stringify(OK));
  const args = ["-c", `cat >/dev/null; exec cat '${okFile}'`];
  const invoker = new SubprocessInvoker({ program: "/bin/sh", args, timeoutMs: TIMEOUT_MS });
  const env = baseEnvelope();
  // Warm: module code, the first spawns, a few small invocations at concurrency.
  for (let i = 0; i < 4; i++) await Promise.all(Array.from({ length: WARM_CONCURRENCY }, () => invoker.invoke(env)));
  const gated: BurstRound[] = [];
  const ungated: BurstRound[] = [];
  for (let round = 0; round < BURST_ROUNDS; round++) {
    for (const side of round % 2 === 0 ? ["gated", "ungated"] : ["ungated", "gated"]) {
      const stop = startProbe();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      setSpawnSpreading(side === "gated");
      const ok = (await Promise.all(Array.from({ length: BURST }, () => invoker.invoke(env)))).filter(
        (r) => r.ok,
      ).length;
      const wallMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const probe = await stop();
      (side === "gated" ? gated : ungated).push({
        blockMs: probe.blockMs,
        blockCpuMs: probe.cpuMs,
        wallMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
        ok,
      });
    }
  }
  process.stdout.write(`${JSON.stringify({ gated, ungated, spawnCostMs: spawnCostMs() })}\n`);
}

/** The median of `xs` (non-empty). */
function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Run the burst shape in its own process and print its table. */
function runBurst(out: (line: string) => void): void {
  const r = spawnSync(process.execPath, ["--import", "tsx", SELF, "--burst"], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
    timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`event-loop bench burst failed: ${r.stderr.slice(-2000)}`);
  const {
    gated,
    ungated,
    spawnCostMs: cost,
  } = JSON.parse(r.stdout.trim().split("\n").at(-1) as string) as {
    gated: BurstRound[];
    ungated: BurstRound[];
    spawnCostMs: number;
  };
  const med = (rounds: BurstRound[], key: "blockMs" | "blockCpuMs" | "wallMs" | "cpuMs"): number =>
    median(rounds.map((x) => x[key]));
  const side = (rounds: BurstRound[]): string => {
    const worst = rounds.reduce((w, x) => (x.blockMs > w.blockMs ? x : w));
    return (
      `${med(rounds, "blockMs").toFixed(1)} ms [cpu ${med(rounds, "blockCpuMs").toFixed(0)}] / ${worst.blockMs.toFixed(1)} ms [cpu ${worst.blockCpuMs.toFixed(0)}] | ` +
      `${med(rounds, "wallMs").toFixed(0)} ms [cpu ${med(rounds, "cpuMs").toFixed(0)}] | ${Math.min(...rounds.map((x) => x.ok))}/${BURST}`
    );
  };
  out(
    `== ${BURST_SHAPE}: ${BURST} invocations of a /bin/sh client started together, ${BURST_ROUNDS} rounds interleaved (fresh warm process)`,
  );
  out(
    "  gated = SubprocessInvoker as it is; baseline = the same invocations with the spreading off (every spawn at once, back to back in one turn, as before the gate)",
  );
  out(
    "  | side | longest block: median / worst [process CPU in it] | burst wall time, median [process CPU] | ok (fewest in a round) |",
  );
  out("  |---|---|---|---|");
  out(`  | baseline | ${side(ungated)} |`);
  out(`  | gated | ${side(gated)} |`);
  const ratio = (key: "blockMs" | "wallMs" | "cpuMs"): string => (med(gated, key) / med(ungated, key)).toFixed(2);
  out(
    `  gated / baseline (medians): longest block ${ratio("blockMs")}x, burst wall time ${ratio("wallMs")}x, burst CPU time ${ratio("cpuMs")}x; the gate's estimate of one spawn at the end: ${cost.toFixed(1)} ms`,
  );
}

/** The shapes and transports measured by {@link run}. */
function plan(): { shape: string; transport: string }[] {
  const out: { shape: string; transport: string }[] = [];
  for (const shape of Object.keys(RESPONSES)) out.push({ shape, transport: "subprocess" });
  for (const shape of Object.keys(ENVELOPES)) out.push({ shape, transport: "subprocess" });
  for (const shape of Object.keys(RESPONSES)) out.push({ shape, transport: "stream" });
  return out;
}

/** Run every shape in its own process and print the table. */
export async function run(): Promise<void> {
  const out = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const load = spawnSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).stdout.trim();
  out(
    `== event-loop block, settle time and peak memory of one invocation at the limits (one fresh process per shape; load average at the start: ${load})`,
  );
  out(
    "  block = longest gap of a 1 ms timer (ms) [process CPU in that gap, GC pauses in it; the most process CPU in any one gap]; settle = elapsedMs [process CPU]; peak = maxRSS growth (x document size)",
  );
  out(
    `  cold: a fresh process after one small invocation; warm: after ${WARM_STREAM} (stream) or ${WARM_SUBPROCESS} (subprocess) small invocations (young = V8 new space at the start, MiB)`,
  );
  out(
    "  floor = heap retained by JSON.parse's value of the same text, in the warm process (x document size): the least any parser that builds the value holds",
  );
  out(
    "  | shape | transport | bytes | outcome | settle (warm) | longest block: cold / warm | gaps > 50 ms | longest GC | peak cold [young] | peak warm [young] | floor |",
  );
  out("  |---|---|---|---|---|---|---|---|---|---|---|");
  const only = process.env.LIFELOOP_BENCH_SHAPES?.split(",");
  const notes: string[] = [];
  for (const { shape, transport } of plan()) {
    if (only !== undefined && !only.some((s) => `${transport}:${shape}`.includes(s))) continue;
    const figures = (warmUp: boolean): Figures => {
      const flags = ["--expose-gc", ...(process.env.LIFELOOP_BENCH_TRACE_GC === "1" ? ["--trace-gc"] : [])];
      const r = spawnSync(
        process.execPath,
        [...flags, "--import", "tsx", SELF, "--shape", shape, "--transport", transport, ...(warmUp ? ["--warm"] : [])],
        { encoding: "utf8", maxBuffer: 64 << 20, timeout: 300_000 },
      );
      if (r.status !== 0) throw new Error(`event-loop bench ${transport} ${shape} failed: ${r.stderr.slice(-2000)}`);
      if (flags.length > 1) process.stderr.write(r.stdout);
      return JSON.parse(r.stdout.trim().split("\n").at(-1) as string) as Figures;
    };
    const c = figures(false);
    const f = figures(true);
    const verdict =
      c.outcome === c.expect && f.outcome === f.expect
        ? f.outcome
        : `${c.outcome}/${f.outcome} (expected ${f.expect}!)`;
    const block = (x: Figures): string =>
      `${x.block_ms.toFixed(1)} ms [cpu ${x.block_cpu_ms.toFixed(0)}, gc ${x.block_gc_ms.toFixed(1)}; most cpu in a gap ${x.max_gap_cpu_ms.toFixed(0)}]`;
    const peak = (x: Figures): string =>
      `${(x.peak_kb / 1024).toFixed(0)} MB (${((x.peak_kb * 1024) / x.bytes).toFixed(1)}x) [${x.young_mib.toFixed(0)}]`;
    const floor =
      f.floor_bytes < 0 || f.expect !== "ok"
        ? "n/a"
        : `${(f.floor_bytes / (1 << 20)).toFixed(1)} MB (${(f.floor_bytes / f.bytes).toFixed(1)}x)`;
    out(
      `  | ${f.shape} | ${f.transport} | ${f.bytes.toLocaleString("en-US")} | ${verdict} | ${f.settle_ms.toFixed(0)} ms [cpu ${f.settle_cpu_ms.toFixed(0)}] | ` +
        `${block(c)} / ${block(f)} | ${c.blocks_over_50} / ${f.blocks_over_50} | ${Math.max(c.longest_gc_ms, f.longest_gc_ms).toFixed(1)} ms | ${peak(c)} | ${peak(f)} | ${floor} |`,
    );
    if (f.keys_ms >= 0)
      notes.push(
        `  ${f.shape}: Object.keys of its largest container alone, in the warm process: ${f.keys_ms.toFixed(1)} ms [cpu ${f.keys_cpu_ms.toFixed(0)}] (one native step; the serializer runs it alone in its turn)`,
      );
  }
  for (const note of notes) out(note);
  if (only === undefined || only.some((s) => `subprocess:${BURST_SHAPE}`.includes(s))) runBurst(out);
}

const argv = process.argv.slice(2);
if (argv[0] === "--burst") {
  const dir = mkdtempSync(join(tmpdir(), "bench-burst-"));
  try {
    await measureBurst(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (argv[0] === "--shape") {
  const dir = mkdtempSync(join(tmpdir(), "bench-block-"));
  try {
    await measureShape(argv[1] as string, argv[3] ?? "subprocess", dir, argv.includes("--warm"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
