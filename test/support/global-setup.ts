/**
 * vitest globalSetup (vitest.config.ts): state every suite shares, set before the test workers are
 * forked so they and every CLI they spawn inherit it.
 * - LIFELOOP_CALLBACK_COMPILE_CACHE: a scratch directory for the launcher's V8 code cache
 *   (packaging/compile-cache.cjs), so suites that run the package's bin write there and not into
 *   the user's ~/.cache; removed after the run. A suite that tests the cache sets its own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Create the shared scratch state; returns the teardown that removes it. */
export default function setup(): () => void {
  const compileCache = mkdtempSync(join(tmpdir(), "lifeloop-test-compile-cache-"));
  process.env.LIFELOOP_CALLBACK_COMPILE_CACHE = compileCache;
  return () => rmSync(compileCache, { recursive: true, force: true });
}
