/**
 * Benchmark: per-invocation overhead of the subprocess invoker against a bare
 * `child_process.spawn` doing the same write / read / wait, with the same trivial client (a tiny C
 * program compiled here with gcc), in the same process, sequentially and 16 at a time. Also times
 * execa 9.6.1 used the way the toolchain notes recommend (detached, buffer encoding, maxBuffer), the
 * alternative spec/host-runtime.md §"Why node:child_process" weighs. Prints ratios of medians
 * (target: ours ≤ 1.15x bare) and events/s at 16 concurrent; never fails on a number.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import { prepareEnvelope } from "../../runtime/invoker/request.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { parseWireDocument } from "../../runtime/wire/validate.js";

const CLIENT_C = `#include <string.h>
#include <unistd.h>
int main(void) {
  char buf[65536];
  while (read(0, buf, sizeof buf) > 0) {}
  const char *r = "{\\"schema_version\\":\\"${WIRE_VERSION}\\",\\"status\\":\\"delivered\\",\\"failure_class\\":null,\\"retry_class\\":null}\\n";
  return write(1, r, strlen(r)) < 0;
}
`;

const ENVELOPE: DispatchEnvelope = {
  schema_version: WIRE_VERSION,
  request: {
    schema_version: WIRE_VERSION,
    event: "frame.opening",
    event_id: "evt-bench",
    adapter_id: "bench-adapter",
    adapter_version: "1.0.0",
    integration_mode: "native_hook",
    invocation_id: "inv-bench",
    harness_session_id: "sess-bench",
    harness_run_id: "run-bench",
    frame_context: { frame_id: "frame-bench", frame_class: "top_level" },
    idempotency_key: "idem-bench",
    metadata: { source: "bench" },
  },
};
const TIMEOUT_MS = 10_000;
const SEQUENTIAL = 600;
const BATCHES = 80;
const CONCURRENCY = 16;

type Variant = { readonly name: string; readonly once: () => Promise<void> };

function compileClient(dir: string): string {
  const source = join(dir, "client.c");
  const binary = join(dir, "client");
  writeFileSync(source, CLIENT_C);
  try {
    execFileSync("gcc", ["-O2", "-o", binary, source], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    throw new Error(`bench invoker: cannot compile the C client with gcc (${(error as Error).message}); install gcc`);
  }
  return binary;
}

function bareSpawn(program: string, input: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, [], { stdio: ["pipe", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.resume();
    child.stdin.on("error", () => undefined);
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 && Buffer.concat(chunks).length > 0 ? resolve() : reject(new Error(`bare client exited ${code}`)),
    );
    child.stdin.end(input);
  });
}

async function execaRecipe(program: string, input: Buffer): Promise<void> {
  const result = await execa(program, [], {
    input,
    detached: true,
    cleanup: false,
    encoding: "buffer",
    maxBuffer: { stdout: 16_777_216, stderr: 8192 },
    stripFinalNewline: false,
    reject: false,
    forceKillAfterDelay: false,
    timeout: 0,
  });
  if (result.exitCode !== 0) throw new Error(`execa client exited ${result.exitCode}`);
}

/** In-process cost (ms) of the wire validation one invocation does: the envelope, then the response bytes. */
function validationCostMs(response: Buffer): number {
  const once = (): void => {
    if (!prepareEnvelope(ENVELOPE, 1 << 24).ok || !parseWireDocument("CallbackResponse", response).ok)
      throw new Error("bench fixtures are invalid");
  };
  for (let i = 0; i < 500; i++) once();
  const samples: number[] = [];
  for (let round = 0; round < 20; round++) {
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) once();
    samples.push((performance.now() - t0) / 200);
  }
  return median(samples);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Samples (ms) per variant, interleaved sample by sample with the order rotated each time, so load
 * from other processes and drift hit every variant alike.
 */
async function measure(variants: readonly Variant[], count: number, batch: number): Promise<Map<string, number[]>> {
  const samples = new Map(variants.map((v) => [v.name, [] as number[]]));
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(i + k) % variants.length] as Variant;
      const t0 = performance.now();
      if (batch === 1) await variant.once();
      else await Promise.all(Array.from({ length: batch }, () => variant.once()));
      (samples.get(variant.name) as number[]).push(performance.now() - t0);
    }
  }
  return samples;
}

function report(title: string, samples: Map<string, number[]>, unit: string): Map<string, number> {
  const medians = new Map([...samples].map(([name, values]) => [name, median(values)]));
  const bare = medians.get("bare spawn") as number;
  process.stdout.write(`  ${title}\n`);
  for (const [name, value] of medians) {
    const ratio = name === "bare spawn" ? "" : `  ${(value / bare).toFixed(3)}x bare`;
    process.stdout.write(`    ${name.padEnd(22)} median ${value.toFixed(3)} ${unit}${ratio}\n`);
  }
  return medians;
}

/** Run the benchmark and print the ratios. */
export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-invoker-"));
  try {
    const program = compileClient(dir);
    const input = Buffer.from(JSON.stringify(ENVELOPE));
    const invoker = new SubprocessInvoker({ program, timeoutMs: TIMEOUT_MS });
    const variants: Variant[] = [
      { name: "bare spawn", once: () => bareSpawn(program, input) },
      {
        name: "SubprocessInvoker",
        once: async () => {
          const result = await invoker.invoke(ENVELOPE);
          if (!result.ok) throw new Error(`invoker failed: ${result.failure.variant}: ${result.failure.detail}`);
        },
      },
      { name: "execa 9.6.1 recipe", once: () => execaRecipe(program, input) },
    ];
    process.stdout.write(
      `invoker: overhead per invocation vs a bare child_process.spawn (same C client, same process, samples interleaved)\n`,
    );
    await measure(variants, 20, 1); // warm-up
    const sequential = report(
      `sequential (${SEQUENTIAL} invocations each)`,
      await measure(variants, SEQUENTIAL, 1),
      "ms/invocation",
    );
    const concurrent = report(
      `${CONCURRENCY} concurrent (${BATCHES} batches each)`,
      await measure(variants, BATCHES, CONCURRENCY),
      `ms/batch of ${CONCURRENCY}`,
    );
    const ours = "SubprocessInvoker";
    const seqRatio = (sequential.get(ours) as number) / (sequential.get("bare spawn") as number);
    const concRatio = (concurrent.get(ours) as number) / (concurrent.get("bare spawn") as number);
    const eventsPerSecond = (CONCURRENCY * 1000) / (concurrent.get(ours) as number);
    process.stdout.write(
      `  ratio of medians, SubprocessInvoker / bare spawn: sequential ${seqRatio.toFixed(3)}x, ${CONCURRENCY} concurrent ${concRatio.toFixed(3)}x (target ≤ 1.15x)\n`,
    );
    process.stdout.write(`  SubprocessInvoker at ${CONCURRENCY} concurrent: ${eventsPerSecond.toFixed(0)} events/s\n`);
    const response = execFileSync(program, [], { input });
    const validation = validationCostMs(response);
    const bareSeq = sequential.get("bare spawn") as number;
    process.stdout.write(
      `  of which wire validation (request + response, runtime/wire): ${(validation * 1000).toFixed(0)} µs per invocation = ${((validation / bareSeq) * 100).toFixed(1)}% of a bare spawn; ` +
        `sequential ratio without it ≈ ${(((sequential.get(ours) as number) - validation) / bareSeq).toFixed(3)}x\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
