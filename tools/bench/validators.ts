/**
 * Benchmark: validation cost of a DispatchEnvelope relative to `JSON.parse` of the same bytes, for a
 * typical ~2 KB envelope and a ~256 KB one (the request plus payloads with text bodies), all measured
 * in this process:
 *   (a) `validateValue` (schema + rules) on the already-parsed value, target <= 0.5x JSON.parse;
 *   (b) `parseWireDocument` on the bytes (strict parse + schema + lexemes + rules), target <= 1.3x;
 * where the JSON.parse baseline is UTF-8 decoding plus JSON.parse of the same bytes (the parse-only
 * ratio is printed too). Then the wall time of `generate --check` in a child process (target < 10 s).
 * Medians of repeated samples; prints ratios, never fails on a number.
 */
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseWireDocument, validateValue } from "../../runtime/wire/validate.js";
import { envelope } from "./documents.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Time `fn` and `baseline` in alternating samples of `inner` calls each (so both see the same machine
 * load) and return the median time per call of each (ms) and the median of the per-sample ratios.
 */
function paired(
  fn: () => unknown,
  baseline: () => unknown,
  inner: number,
  samples: number,
): { readonly ms: number; readonly baselineMs: number; readonly ratio: number } {
  const time = (f: () => unknown): number => {
    const start = performance.now();
    for (let i = 0; i < inner; i++) f();
    return (performance.now() - start) / inner;
  };
  for (let i = 0; i < 3; i++) {
    time(fn);
    time(baseline);
  }
  const a: number[] = [];
  const b: number[] = [];
  const r: number[] = [];
  for (let s = 0; s < samples; s++) {
    const x = time(fn);
    const y = time(baseline);
    a.push(x);
    b.push(y);
    r.push(x / y);
  }
  const median = (v: number[]): number => v.sort((p, q) => p - q)[Math.floor(v.length / 2)] as number;
  return { ms: median(a), baselineMs: median(b), ratio: median(r) };
}

function fmt(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`;
}

/** Run the benchmark and print its ratios. */
export async function run(): Promise<void> {
  const out = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  out(
    "== validators: DispatchEnvelope validation vs JSON.parse of the same bytes (medians of paired samples, this process)",
  );
  const decoder = new TextDecoder();
  for (const [label, target, inner] of [
    ["2 KB", 2 * 1024, 400],
    ["256 KB", 256 * 1024, 4],
  ] as const) {
    const bytes = envelope(target);
    const text = decoder.decode(bytes);
    const value = JSON.parse(text) as unknown;
    const check = parseWireDocument("DispatchEnvelope", bytes);
    if (!check.ok || validateValue("DispatchEnvelope", value).length > 0) {
      throw new Error(
        `bench envelope ${label} is invalid: ${JSON.stringify(check.ok ? validateValue("DispatchEnvelope", value) : check.issues)}`,
      );
    }
    const samples = 61;
    const baseline = (): unknown => JSON.parse(decoder.decode(bytes));
    const validate = paired(() => validateValue("DispatchEnvelope", value), baseline, inner, samples);
    const whole = paired(() => parseWireDocument("DispatchEnvelope", bytes), baseline, inner, samples);
    const textOnly = paired(
      () => validateValue("DispatchEnvelope", value),
      () => JSON.parse(text),
      inner,
      samples,
    );
    out(
      `  ${label} envelope (${bytes.length} bytes, ${(value as { payloads: unknown[] }).payloads.length} payloads); baseline JSON.parse(decode(bytes)) ${fmt(validate.baselineMs)}:`,
    );
    out(
      `    (a) validateValue (schema + rules)  ${fmt(validate.ms)}  ratio ${validate.ratio.toFixed(2)}x  (target <= 0.5x; vs JSON.parse of the decoded text alone ${textOnly.ratio.toFixed(2)}x)`,
    );
    out(`    (b) parseWireDocument (bytes)       ${fmt(whole.ms)}  ratio ${whole.ratio.toFixed(2)}x  (target <= 1.3x)`);
  }
  const start = performance.now();
  const check = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "codegen", "main.ts"), "--check"], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  const wall = (performance.now() - start) / 1000;
  out(`  generate --check: ${wall.toFixed(2)} s wall (exit ${check.status}; target < 10 s)`);
}
