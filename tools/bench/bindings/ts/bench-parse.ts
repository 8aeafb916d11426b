/**
 * Times the TypeScript host's strict parser for the cross-binding parse benchmark
 * (tools/bench/wire-parsers.ts), against `JSON.parse(new TextDecoder().decode(bytes))` on the same
 * bytes. Run with `node --expose-gc --import tsx` so `peak` can collect garbage first.
 *
 *   bench-parse.ts time <file> <inner> <samples>   alternating samples of <inner> calls of
 *       `parseWireDocument("DispatchEnvelope", bytes)` and of the plain parser; prints
 *       {"ms": <median ms per call>, "baseline_ms": <median>, "ratio": <median of per-sample ratios>,
 *       "cpu_ratio": <the same ratio of process CPU time>}
 *   bench-parse.ts peak <ours|plain> <file>        one parse; prints {"ms", "rss_before_kb", "peak_kb",
 *       "verdict"} (peak: VmHWM from /proc/self/status after the high-water mark was reset, just
 *       before the parse, by writing 5 to /proc/self/clear_refs)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parseWireDocument } from "../../../../runtime/wire/validate.js";

const decoder = new TextDecoder();

function ours(bytes: Uint8Array): string {
  const result = parseWireDocument("DispatchEnvelope", bytes);
  if (result.ok) return "valid";
  const first = result.issues[0];
  return `${first?.rule ?? "?"} ${first?.pointer ?? "?"}`;
}

function plain(bytes: Uint8Array): string {
  JSON.parse(decoder.decode(bytes));
  return "valid";
}

/** Wall and process CPU time (every thread: the garbage collector's and the compiler's too) per call of `f`, in ms. */
function perCall(f: (bytes: Uint8Array) => string, bytes: Uint8Array, inner: number): [number, number] {
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < inner; i++) {
    const verdict = f(bytes);
    if (verdict !== "valid") throw new Error(`document rejected while timing: ${verdict}`);
  }
  const used = process.cpuUsage(cpu);
  return [(performance.now() - start) / inner, (used.user + used.system) / 1000 / inner];
}

function median(v: number[]): number {
  return [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] as number;
}

function status(field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync("/proc/self/status", "utf8"));
  if (m === null) throw new Error(`no ${field} in /proc/self/status`);
  return Number(m[1]);
}

function count(arg: string | undefined): number {
  const n = Number(arg);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`not a positive count: ${String(arg)}`);
  return n;
}

const [mode, a1, a2, a3] = process.argv.slice(2);
if (mode === "time") {
  const bytes = new Uint8Array(readFileSync(a1 as string));
  const inner = count(a2);
  const samples = count(a3);
  for (let i = 0; i < 3; i++) {
    perCall(ours, bytes, inner);
    perCall(plain, bytes, inner);
  }
  const a: number[] = [];
  const b: number[] = [];
  const r: number[] = [];
  const rc: number[] = [];
  for (let s = 0; s < samples; s++) {
    const [x, xc] = perCall(ours, bytes, inner);
    const [y, yc] = perCall(plain, bytes, inner);
    a.push(x);
    b.push(y);
    r.push(x / y);
    rc.push(xc / yc);
  }
  process.stdout.write(
    `${JSON.stringify({ ms: median(a), baseline_ms: median(b), ratio: median(r), cpu_ratio: median(rc) })}\n`,
  );
} else if (mode === "peak" && (a1 === "ours" || a1 === "plain")) {
  const f = a1 === "ours" ? ours : plain;
  const bytes = new Uint8Array(readFileSync(a2 as string));
  (globalThis as { gc?: () => void }).gc?.();
  writeFileSync("/proc/self/clear_refs", "5");
  const before = status("VmRSS");
  const start = performance.now();
  const verdict = f(bytes);
  const ms = performance.now() - start;
  process.stdout.write(`${JSON.stringify({ ms, rss_before_kb: before, peak_kb: status("VmHWM"), verdict })}\n`);
} else {
  process.stderr.write("usage: bench-parse.ts time <file> <inner> <samples> | peak <ours|plain> <file>\n");
  process.exit(2);
}
