/**
 * Benchmark: continuation put and get of 1 KiB and 1 MiB blobs, our CLI
 * (`lifeloop-callback continuation`, dist/) against the reference `lifeloop continuation` 0.5.0, each
 * on its own fresh store in the same run, sequentially. Prints medians and ratios (ours / reference);
 * also the in-process ContinuationStore API, which shows how much of our CLI's time is Node's
 * start-up. Never fails on a number. Our put also fsyncs the directory, which the reference does not.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ContinuationStore } from "../../runtime/continuation/store.js";
import { CLI } from "../support/cli-process.js";
import { CONTINUATION_REFERENCE_CLI as REFERENCE_CLI } from "../matrix/hosts.js";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function timeCli(program: string, argv: readonly string[], root: string, input: Buffer | undefined, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync(program, argv, { input: input ?? "", env: { PATH: process.env.PATH ?? "", LIFELOOP_CONTINUATION_ROOT: root }, maxBuffer: 64 * 1024 * 1024 });
    times.push(performance.now() - t);
    if (r.status !== 0) throw new Error(`${program} ${argv.join(" ")}: exit ${r.status}: ${r.stderr}`);
  }
  return median(times);
}

async function timeApi(fn: () => Promise<unknown>, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cont-bench-"));
  try {
    const rows: string[] = [];
    for (const [label, size, runs] of [["1 KiB", 1024, 30], ["1 MiB", 1024 * 1024, 15]] as const) {
      const blob = Buffer.alloc(size, 0x61);
      const roots = { ours: join(dir, `ours-${size}`), reference: join(dir, `ref-${size}`), api: join(dir, `api-${size}`) };
      const ours = (args: string[]): [string, string[]] => [process.execPath, [CLI, "continuation", ...args]];
      const ref = (args: string[]): [string, string[]] => [REFERENCE_CLI, ["continuation", ...args]];
      const putArgs = ["put", "--thread", "bench", "--key", "k", "--client-id", "bench"];
      const getArgs = ["get", "--thread", "bench", "--key", "k"];
      const store = new ContinuationStore({ root: roots.api });
      const results: Record<string, number> = {
        refPut: timeCli(...ref(putArgs), roots.reference, blob, runs),
        oursPut: timeCli(...ours(putArgs), roots.ours, blob, runs),
        refGet: timeCli(...ref(getArgs), roots.reference, undefined, runs),
        oursGet: timeCli(...ours(getArgs), roots.ours, undefined, runs),
        apiPut: await timeApi(() => store.put("bench", "k", blob, { clientId: "bench" }), runs),
        apiGet: await timeApi(() => store.get("bench", "k"), runs),
      };
      const r = results as Record<"refPut" | "oursPut" | "refGet" | "oursGet" | "apiPut" | "apiGet", number>;
      for (const op of ["put", "get"] as const) {
        const refMs = op === "put" ? r.refPut : r.refGet;
        const oursMs = op === "put" ? r.oursPut : r.oursGet;
        const apiMs = op === "put" ? r.apiPut : r.apiGet;
        rows.push(`  ${op} ${label.padEnd(6)} reference CLI ${refMs.toFixed(2).padStart(8)} ms   ours CLI ${oursMs.toFixed(2).padStart(8)} ms (${(oursMs / refMs).toFixed(1)}x)   ours API ${apiMs.toFixed(2).padStart(7)} ms (${(apiMs / refMs).toFixed(2)}x)`);
      }
    }
    process.stdout.write(`continuation store: medians, ours / reference (sequential; a shared machine makes these noisy)\n${rows.join("\n")}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
