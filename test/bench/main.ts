/**
 * `npm run bench`: every benchmark module, one after the other, each printing ratios against a
 * baseline measured in the same process (never absolute pass/fail thresholds).
 * A module exports `run(): Promise<void>`; add new modules to BENCHES.
 */
const BENCHES: readonly string[] = ["./invoker.ts", "./validators.ts", "./stream.ts"];

for (const name of BENCHES) {
  const mod = (await import(name)) as { run: () => Promise<void> };
  await mod.run();
}
if (BENCHES.length === 0) process.stdout.write("no benchmarks registered yet\n");
