/**
 * Benchmark: strict parse + validate of the same DispatchEnvelope bytes in every binding, each
 * against its own language's plain parser on the same bytes and against the reference
 * implementation (lifeloop-cli 0.9.0: serde + `validate()`), in one run:
 *
 *   binding                              plain parser (the baseline)
 *   TS   parseWireDocument               JSON.parse(new TextDecoder().decode(bytes))
 *   Go   DecodeDispatchEnvelope          json.Unmarshal into any
 *   Py   decode(DispatchEnvelope, ...)   json.loads(bytes)
 *   ref  from_slice::<DispatchEnvelope> + validate()   from_slice::<serde_json::Value>
 *
 * on the two envelopes of tools/bench/documents.ts (2,436 and 262,369 bytes), each binding a real
 * process (tools/bench/bindings/<lang>/) timing alternating samples of both; the table gives the
 * median over RUNS runs of each run's medians. Then the worst-case documents at the limits
 * (`worstCaseDocuments()`), one process per binding, document and parser, with wall time, peak RSS
 * above the process's RSS before the parse, and the verdict.
 *
 * Prints figures and ratios only; never fails on a number (it fails only when a binding cannot run
 * or rejects a valid document). Targets of the parse-speed issue are printed beside the ratios.
 * The Rust bench builds into its own target dir, tools/bench/bindings/reference/target (gitignored).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { envelope, worstCaseDocuments } from "./documents.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BINDINGS = join(ROOT, "tools", "bench", "bindings");
/** Independent runs per binding and envelope; the table gives the median of their medians. */
const RUNS = 3;

interface Timing {
  readonly ms: number;
  readonly baseline_ms: number;
  readonly ratio: number;
  /** The ratio of process CPU time (every thread of the process), less sensitive to a loaded machine. */
  readonly cpu_ratio: number;
}

interface Peak {
  readonly ms: number;
  readonly rss_before_kb: number;
  readonly peak_kb: number;
  readonly verdict: string;
}

/** One binding: how to run its bench program, its plain parser's name and the issue's target ratio. */
interface Binding {
  readonly label: string;
  readonly plain: string;
  readonly target?: number;
  readonly command: readonly string[];
  /** Calls per sample for the 2 KB and the 256 KB envelope (each sample some tens of ms). */
  readonly inner: readonly [number, number];
}

function exec(command: readonly string[], cwd = ROOT, timeoutMs = 600_000): string {
  const [program, ...args] = command as [string, ...string[]];
  const r = spawnSync(program, args, { cwd, encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (r.error !== undefined || r.status !== 0) {
    throw new Error(
      `${command.join(" ")} (in ${cwd}) failed: ${r.error?.message ?? `exit ${String(r.status)} signal ${String(r.signal)}`}\n${r.stderr}`,
    );
  }
  return r.stdout;
}

function lastJson<T>(stdout: string): T {
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as T;
}

/** Build the Go and Rust bench programs (into `dir` and the Rust bench's own target dir). */
function build(dir: string): Binding[] {
  const goBin = join(dir, "bench-go");
  exec(["go", "build", "-o", goBin, "."], join(BINDINGS, "go"));
  const manifest = join(BINDINGS, "reference", "Cargo.toml");
  const targetDir = join(BINDINGS, "reference", "target");
  exec(
    ["cargo", "build", "--quiet", "--release", "--locked", "--manifest-path", manifest, "--target-dir", targetDir],
    ROOT,
    1_800_000,
  );
  return [
    {
      label: "TS parseWireDocument",
      plain: "JSON.parse",
      target: 1.3,
      command: [process.execPath, "--expose-gc", "--import", "tsx", join(BINDINGS, "ts", "bench-parse.ts")],
      inner: [400, 4],
    },
    { label: "Go DecodeDispatchEnvelope", plain: "encoding/json", target: 1.0, command: [goBin], inner: [400, 4] },
    {
      label: "Python decode",
      plain: "json.loads",
      target: 3.0,
      command: ["python3", join(BINDINGS, "python", "bench_decode.py")],
      inner: [100, 2],
    },
    {
      label: "reference (serde + validate())",
      plain: "serde_json::Value",
      command: [join(targetDir, "release", "lifeloop-reference-bench")],
      inner: [2000, 20],
    },
  ];
}

function median(v: readonly number[]): number {
  return [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] as number;
}

function fmt(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : 0)} ms`.replace(/^(\d+)(\d{3}) ms$/, "$1,$2 ms");
  return `${(ms / 1000).toFixed(2)} s`;
}

function mb(kb: number): string {
  return `${(kb / 1024).toFixed(0)} MB`;
}

/** Run the benchmark and print its tables. */
export async function run(): Promise<void> {
  const out = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const dir = mkdtempSync(join(tmpdir(), "wire-parsers-"));
  try {
    out(
      `== wire parsers: strict parse + validate of the same DispatchEnvelopes in every binding (median of ${RUNS} runs, each the median of paired samples against the binding's plain parser; a shared machine makes these noisy)`,
    );
    out("  building the Go and Rust bench programs (the first Rust build takes a minute or two)");
    const bindings = build(dir);
    const sizes = [
      { label: "2 KB", bytes: envelope(2 * 1024) },
      { label: "256 KB", bytes: envelope(256 * 1024) },
    ];
    const files = sizes.map((s, i) => {
      const file = join(dir, `envelope-${i}.json`);
      writeFileSync(file, s.bytes);
      return file;
    });
    // One cell per binding and size, holding the timings of each run; runs interleave bindings so all see similar load.
    const runs = bindings.map((b) => ({
      b,
      cells: files.map((file, si) => ({ file, inner: b.inner[si], timings: [] as Timing[] })),
    }));
    for (let r = 0; r < RUNS; r++) {
      for (const { b, cells } of runs) {
        for (const cell of cells)
          cell.timings.push(lastJson<Timing>(exec([...b.command, "time", cell.file, String(cell.inner), "15"])));
      }
    }
    const summary = runs.map(({ b, cells }) => ({
      b,
      cells: cells.map(({ timings: t }) => ({
        ms: median(t.map((x) => x.ms)),
        baseline: median(t.map((x) => x.baseline_ms)),
        ratio: median(t.map((x) => x.ratio)),
        cpu: median(t.map((x) => x.cpu_ratio)),
      })),
    }));
    const reference = (summary[summary.length - 1] as (typeof summary)[number]).cells;
    out(`  envelopes: ${sizes.map((s) => `${s.label} = ${s.bytes.length.toLocaleString("en-US")} bytes`).join(", ")}`);
    out(`  wall-clock ratios; in brackets the same ratio of process CPU time (steadier when the machine is loaded)`);
    out(`  | binding | ${sizes.map((s) => `${s.label} | vs plain parser | vs reference`).join(" | ")} | target |`);
    out(`  |---|${sizes.map(() => "---|---|---").join("|")}|---|`);
    for (const { b, cells } of summary) {
      const text = cells.map((s, si) => {
        const ref = reference[si] as (typeof reference)[number];
        return `${fmt(s.ms)} | ${s.ratio.toFixed(2)}x [cpu ${s.cpu.toFixed(2)}x] ${b.plain} (${fmt(s.baseline)}) | ${(s.ms / ref.ms).toFixed(2)}x`;
      });
      out(`  | ${b.label} | ${text.join(" | ")} | ${b.target === undefined ? "-" : `<= ${b.target.toFixed(1)}x`} |`);
    }

    out(
      `  worst-case documents (valid, at limits.max_request_bytes and limits.max_depth): one parse per process; peak = RSS high-water mark above the RSS before the parse`,
    );
    out(`  | document | bytes | binding | strict: time | peak | plain: time | peak | verdict |`);
    out(`  |---|---|---|---|---|---|---|---|`);
    const docs = worstCaseDocuments();
    for (const doc of docs) out(`    ${doc.name}: ${doc.description}`);
    for (const doc of docs) {
      const file = join(dir, `${doc.name}.json`);
      writeFileSync(file, doc.bytes);
      for (const b of bindings) {
        const ours = lastJson<Peak>(exec([...b.command, "peak", "ours", file]));
        const plain = lastJson<Peak>(exec([...b.command, "peak", "plain", file]));
        const cell = (p: Peak): string =>
          `${fmt(p.ms)} | ${mb(p.peak_kb - p.rss_before_kb)} (${(((p.peak_kb - p.rss_before_kb) * 1024) / doc.bytes.length).toFixed(1)}x input)`;
        out(
          `  | ${doc.name} | ${doc.bytes.length.toLocaleString("en-US")} | ${b.label} | ${cell(ours)} | ${cell(plain)} | ${ours.verdict} |`,
        );
      }
      rmSync(file);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
