/**
 * `npm run bench`: every benchmark module, one after the other, each printing ratios against a
 * baseline measured in the same process (never absolute pass/fail thresholds).
 * A module exports `run(): Promise<void>`; add new modules to BENCHES.
 * `npm run bench -- <name>...` runs only the named modules (e.g. `wire-parsers`); `-- --help` lists them.
 */
const BENCHES: readonly string[] = [
  "./cli.ts",
  "./invoker.ts",
  "./validators.ts",
  "./wire-parsers.ts",
  "./continuation.ts",
  "./stream.ts",
  "./event-loop-block.ts",
  "./ledger.ts",
];

const only = process.argv.slice(2);
const names = BENCHES.map((b) => b.slice(2, -3));
if (only.includes("--help") || only.includes("-h")) {
  process.stdout.write(
    `usage: npm run bench [-- NAME...]\n  runs every benchmark, or only the named ones: ${names.join(", ")}\n`,
  );
  process.exit(0);
}
const unknown = only.filter((name) => !BENCHES.includes(`./${name}.ts`));
if (unknown.length > 0) {
  process.stderr.write(
    `unknown benchmark(s): ${unknown.join(", ")}; known: ${names.join(", ")} (npm run bench -- --help)\n`,
  );
  process.exit(2);
}
for (const name of BENCHES) {
  if (only.length > 0 && !only.includes(name.slice(2, -3))) continue;
  const mod = (await import(name)) as { run: () => Promise<void> };
  try {
    await mod.run();
  } catch (error) {
    // A missing prerequisite (e.g. the reference CLI) says what to run: print that, not a stack.
    process.stderr.write(`bench ${name.slice(2, -3)}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
if (BENCHES.length === 0) process.stdout.write("no benchmarks registered yet\n");
