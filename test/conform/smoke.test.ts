/**
 * The smoke check's classification (spec/conformance-runner.md, "Verdicts"): only a client that
 * wrote nothing at all is "not measured" (exit 5); a client that answered but broke a rule (a
 * banner on stdout, two documents, an answer without the exit) is measured and fails (exit 1);
 * a --program that is not an executable file is a usage error (exit 2). Real processes: small
 * shell wrappers around the conform fixture client, written to a temp dir.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI_EXIT_CODES } from "../../generated/ts/spec.js";
import { runConformance } from "../../runtime/conform/run.js";
import { buildScenarios, smokeScenario } from "../../runtime/conform/scenarios.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { conform, NODE_CLIENT } from "./support.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-conform-smoke-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
const SUBPROCESS = buildScenarios(join(REPO_ROOT, "generated", "vectors"), "subprocess");

/** An executable shell script in TMP; `body` may use $CLIENT (the fixture client, run by node). */
function script(name: string, body: string): string {
  const path = join(TMP, name);
  writeFileSync(path, `#!/bin/sh\nCLIENT="${process.execPath} ${NODE_CLIENT}"\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("conform smoke check classification", () => {
  it("measures and fails a client with a banner or two documents; not measured only when nothing is written; a missing program is a usage error", async () => {
    const banner = script("banner.sh", 'echo "client v1.0 starting"; exec $CLIENT "$@"');
    const twice = script("twice.sh", 'out=$($CLIENT "$@"); printf "%s\\n%s\\n" "$out" "$out"');
    const silent = script("silent.sh", "cat >/dev/null; exit 0");
    const [b, t, s, missing] = await Promise.all(
      [banner, twice, silent, join(TMP, "absent")].map((p) =>
        conform(["--program", p, "--timeout-ms", "20000"]).catch((e: Error) => ({
          code: Number(/\(exit (\d+)\)/.exec(e.message)?.[1] ?? -1),
          summary: { error: e.message } as Record<string, unknown>,
          records: [],
          lines: [],
        })),
      ),
    );
    expect(b?.code, JSON.stringify(b?.summary)).toBe(CLI_EXIT_CODES.validation);
    expect(b?.summary.measured).toBe(true);
    expect(b?.records.find((r) => r.scenario === "event.session.starting")?.verdict).toBe("fail");
    expect(t?.code, JSON.stringify(t?.summary)).toBe(CLI_EXIT_CODES.validation);
    expect(t?.summary.measured).toBe(true);
    expect(s?.code, JSON.stringify(s?.summary)).toBe(CLI_EXIT_CODES.not_measured);
    expect(missing?.code).toBe(CLI_EXIT_CODES.usage);
  }, 600_000);

  it("measures a client that answers and never exits, and says it answered", async () => {
    const linger = script("linger.sh", '$CLIENT "$@"; exec sleep 600');
    const smoke = smokeScenario(SUBPROCESS, "subprocess");
    const run = await runConformance({ program: linger, args: [], timeoutMs: 3000 }, [smoke]);
    expect(run.measured).toBe(true);
    expect(run.smoke.verdict).toBe("fail");
    expect(run.smoke.detail).toMatch(/^answered, then did not exit within the deadline/);
  }, 60_000);
});
