/**
 * Benchmark: continuation put and get of 1 KiB and 1 MiB blobs, our CLI
 * (`lifeloop-callback continuation`, dist/) against the reference `lifeloop continuation` 0.5.0
 * (test/support/continuation-reference.ts; `bash tools/setup/prepare.sh` installs it), each
 * on its own fresh store in the same run, sequentially. Prints medians and ratios (ours / reference);
 * also the in-process ContinuationStore API, which shows how much of our CLI's time is Node's
 * start-up. Never fails on a number. Our put also fsyncs the directory, which the reference does not.
 * Then the lock-fairness figure: a list of 80,000 entries and a put made while it runs.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { encodeEntry } from "../../runtime/continuation/entry.js";
import { ContinuationStore } from "../../runtime/continuation/store.js";
import { CONTINUATION } from "../../runtime/continuation/table.js";
import { CLI } from "../../test/support/cli-process.js";
import { CONTINUATION_REFERENCE_CLI, requireContinuationReference } from "../../test/support/continuation-reference.js";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function timeCli(
  program: string,
  argv: readonly string[],
  root: string,
  input: Buffer | undefined,
  runs: number,
): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync(program, argv, {
      input: input ?? "",
      env: { PATH: process.env.PATH ?? "", LIFELOOP_CONTINUATION_ROOT: root },
      maxBuffer: 64 * 1024 * 1024,
    });
    times.push(performance.now() - t);
    if (r.error) throw new Error(`${program} ${argv.join(" ")}: ${r.error.message}`);
    if (r.status !== 0)
      throw new Error(`${program} ${argv.join(" ")}: exit ${r.status ?? `by ${r.signal}`}: ${r.stderr}`);
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

/**
 * Run the benchmark. `reference`: the reference CLI (default {@link CONTINUATION_REFERENCE_CLI});
 * when it is missing this throws at once, saying what to run, before anything is measured.
 */
/** Run our CLI once, asynchronously; resolves with its exit code and the time it took in ms. */
function timedCli(
  argv: readonly string[],
  root: string,
  input: string,
): Promise<{ readonly code: number | null; readonly ms: number; readonly stderr: string }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [CLI, "continuation", ...argv], {
      env: { PATH: process.env.PATH ?? "", LIFELOOP_CONTINUATION_ROOT: root },
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdout.resume(); // drained: the CLI refuses to run with stdout closed
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, ms: performance.now() - t, stderr }));
    child.stdin.end(input);
  });
}

/**
 * The lock-fairness figure (spec/continuation-store.md §"Concurrency"): a `list` of `entries`
 * entries (planted directly, not put one by one) and a `put` to the same thread started while the
 * list runs. Before list released its lock after reading the names, the list took 11.5-13.7 s and
 * the put failed at its 10 s lock timeout.
 */
async function listWhilePut(root: string, entries: number): Promise<string> {
  const thread = join(root, "t");
  mkdirSync(thread, { recursive: true, mode: 0o700 });
  const meta = {
    schema_version: CONTINUATION.entry_format.meta_schema_version,
    client_id: "bench",
    written_at_epoch_s: BigInt(Math.floor(Date.now() / 1000)),
    ttl_s: null,
  };
  for (let i = 0; i < entries; i++)
    writeFileSync(join(thread, `k${i}`), Buffer.concat(encodeEntry(meta, Buffer.from(`blob ${i}`))), { mode: 0o600 });
  const list = timedCli(["list", "--thread", "t"], root, "");
  await new Promise((r) => setTimeout(r, 500)); // the list is past start-up and reading entries
  const put = await timedCli(["put", "--thread", "t", "--key", "during-list"], root, "blob");
  const listed = await list;
  return `continuation list of ${entries} entries: ${listed.ms.toFixed(0)} ms (exit ${listed.code}); a put started 500 ms into it: ${put.ms.toFixed(0)} ms (exit ${put.code}${put.code === 0 ? "" : `: ${put.stderr.trim()}`})`;
}

export async function run(options: { readonly reference?: string } = {}): Promise<void> {
  const REFERENCE_CLI = options.reference ?? CONTINUATION_REFERENCE_CLI;
  requireContinuationReference(REFERENCE_CLI);
  const dir = mkdtempSync(join(tmpdir(), "cont-bench-"));
  try {
    const rows: string[] = [];
    for (const [label, size, runs] of [
      ["1 KiB", 1024, 30],
      ["1 MiB", 1024 * 1024, 15],
    ] as const) {
      const blob = Buffer.alloc(size, 0x61);
      const roots = {
        ours: join(dir, `ours-${size}`),
        reference: join(dir, `ref-${size}`),
        api: join(dir, `api-${size}`),
      };
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
        rows.push(
          `  ${op} ${label.padEnd(6)} reference CLI ${refMs.toFixed(2).padStart(8)} ms   ours CLI ${oursMs.toFixed(2).padStart(8)} ms (${(oursMs / refMs).toFixed(1)}x)   ours API ${apiMs.toFixed(2).padStart(7)} ms (${(apiMs / refMs).toFixed(2)}x)`,
        );
      }
    }
    process.stdout.write(
      `continuation store: medians, ours / reference (sequential; a shared machine makes these noisy)\n${rows.join("\n")}\n`,
    );
    process.stdout.write(`${await listWhilePut(join(dir, "list"), 80_000)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
