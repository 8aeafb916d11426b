import { defineConfig } from "vitest/config";

// Subprocess-heavy suites on a 2-core machine: forked workers, bounded parallelism, generous
// timeouts (every spawned child has its own, shorter deadline), and time to reap on teardown.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 10_000,
  },
});
