import { defineConfig } from "vitest/config";

// Subprocess-heavy suites on a 2-core machine: forked workers, bounded parallelism, generous
// timeouts (every spawned child has its own, shorter deadline), and time to reap on teardown.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 180_000, // a watchdog, not a bound: codegen determinism and the hook differential take ~60 s on a loaded 2-core machine
    hookTimeout: 120_000,
    teardownTimeout: 10_000,
  },
});
