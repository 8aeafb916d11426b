/**
 * `lifeloop-callback conform` checked against real client processes: a correct client passes every
 * scenario; each deliberately broken client (test/fixtures/conform/client.mjs --break MODE) fails
 * exactly the scenarios of its defect; the Go and Python SDK clients pass everything in both
 * transports (stream self-tests: conform-stream.test.ts); the baseline
 * cannot go stale; a client that cannot answer is "not measured"; every JSON report line matches
 * the published schema; and every MUST rule a client must enforce has a scenario or a listed
 * exclusion. The reference's lifeloop-fake-ccd-client, which validates nothing, passes every event
 * and transport scenario and fails every refusal (missing reference: the test fails with how to install it).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_EXIT_CODES, CONFORMANCE_CHECKS_TABLE } from "../../generated/ts/spec.js";
import { buildScenarios, clientRuleIds } from "../../runtime/conform/scenarios.js";
import { CLI, REPO_ROOT } from "../support/cli-process.js";
import { REFERENCE_INSTALL_COMMAND } from "../support/reference-cli.js";
import { spawnChild } from "../support/spawn-child.js";
import { conform, failing, failureDetails, nodeClient, type Report } from "./support.js";
import { buildGoClient, FIXTURE_CLIENTS, GO_ECHO_BIN } from "../support/fixture-clients.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-conform-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const SCENARIOS = buildScenarios(join(REPO_ROOT, "generated", "vectors"));
const REFERENCE_CLIENT = join(REPO_ROOT, ".cache", "lifeloop-ref", "bin", "lifeloop-fake-ccd-client");
/** Why a reference test fails when the reference is not installed (tools/setup/prepare.sh installs it for npm test and CI). */
const REFERENCE_CLIENT_MISSING = `the reference's lifeloop-fake-ccd-client is missing at ${REFERENCE_CLIENT}: ${REFERENCE_INSTALL_COMMAND} (or bash tools/setup/prepare.sh)`;

const ids = (pred: (s: (typeof SCENARIOS)[number]) => boolean, verdict = "fail"): string[] =>
  SCENARIOS.filter(pred)
    .map((s) => `${s.id}:${verdict}`)
    .sort();

describe("conform: scenarios generated from the tables", () => {
  it("covers every MUST rule a client enforces with a scenario, or lists why not", () => {
    // The obligations apply to either transport: the stream scenarios count too (conform-stream.test.ts checks the stream rules).
    const covered = new Set(
      [...SCENARIOS, ...buildScenarios(join(REPO_ROOT, "generated", "vectors"), "stream")].flatMap((s) => s.rule_ids),
    );
    const excluded = new Set<string>(CONFORMANCE_CHECKS_TABLE.exclusions.map((e) => e.rule));
    const must = [
      ...clientRuleIds(),
      ...CONFORMANCE_CHECKS_TABLE.obligations.filter((o) => o.level === "must").map((o) => o.id),
    ];
    expect(must.filter((id) => !covered.has(id) && !excluded.has(id))).toEqual([]);
    // An exclusion that a scenario covers after all is stale.
    expect([...excluded].filter((id) => covered.has(id))).toEqual([]);
  });

  it("has unique ids, one event scenario per dispatchable event, and cites only known rule ids", () => {
    expect(new Set(SCENARIOS.map((s) => s.id)).size).toBe(SCENARIOS.length);
    const known = new Set([...clientRuleIds(), ...CONFORMANCE_CHECKS_TABLE.obligations.map((o) => o.id)]);
    expect(SCENARIOS.flatMap((s) => s.rule_ids).filter((id) => !known.has(id))).toEqual([]);
  });
});

describe("conform against real clients", () => {
  const reports = new Map<string, Report>();
  beforeAll(async () => {
    const runs: [string, string[]][] = [
      ["correct", nodeClient()],
      ["accept-all", nodeClient("accept-all")],
      ["refuse-exit-1", nodeClient("refuse-exit-1")],
      ["crash-on-invalid", nodeClient("crash-on-invalid")],
      ["read-once", nodeClient("read-once")],
      ["noise-on:frame.opened", nodeClient("noise-on:frame.opened")],
      ["hang-on:frame.ended", nodeClient("hang-on:frame.ended")],
      ["ignore-sigterm", nodeClient("ignore-sigterm")],
      ["silent", nodeClient("silent")],
    ];
    // Two at a time: a 2-core machine; each run has conform()'s generous deadline per exchange, and
    // only the one hanging scenario waits it out.
    for (let i = 0; i < runs.length; i += 2) {
      const batch = runs.slice(i, i + 2);
      const done = await Promise.all(batch.map(([, args]) => conform(args)));
      batch.forEach(([name], j) => {
        reports.set(name, done[j] as Report);
      });
    }
  }, 900_000);

  it("passes a correct client on every scenario, exit 0", () => {
    const r = reports.get("correct") as Report;
    expect(failing(r), failureDetails(r)).toEqual([]);
    expect(r.records).toHaveLength(SCENARIOS.length);
    expect(r.code).toBe(CLI_EXIT_CODES.ok);
  });

  it("fails each broken client on exactly the scenarios of its defect", () => {
    const refusals = ids((s) => s.expect === "refuse");
    expect(failing(reports.get("accept-all") as Report), failureDetails(reports.get("accept-all") as Report)).toEqual(
      refusals,
    );
    expect(
      failing(reports.get("refuse-exit-1") as Report),
      failureDetails(reports.get("refuse-exit-1") as Report),
    ).toEqual(refusals);
    expect(
      failing(reports.get("crash-on-invalid") as Report),
      failureDetails(reports.get("crash-on-invalid") as Report),
    ).toEqual(refusals);
    expect(failing(reports.get("read-once") as Report), failureDetails(reports.get("read-once") as Report)).toEqual(
      ids((s) => s.id === "large-request" || s.id === "slow-request"),
    );
    expect(
      failing(reports.get("noise-on:frame.opened") as Report),
      failureDetails(reports.get("noise-on:frame.opened") as Report),
    ).toEqual(["event.frame.opened:fail"]);
    expect(
      failing(reports.get("hang-on:frame.ended") as Report),
      failureDetails(reports.get("hang-on:frame.ended") as Report),
    ).toEqual(["event.frame.ended:fail"]);
    for (const name of [
      "accept-all",
      "refuse-exit-1",
      "crash-on-invalid",
      "read-once",
      "noise-on:frame.opened",
      "hang-on:frame.ended",
    ]) {
      expect((reports.get(name) as Report).code, name).toBe(CLI_EXIT_CODES.validation);
    }
  });

  it("reports a missed SHOULD as a warning without failing the run", () => {
    const r = reports.get("ignore-sigterm") as Report;
    expect(failing(r), failureDetails(r)).toEqual(["sigterm:warn"]);
    expect(r.code).toBe(CLI_EXIT_CODES.ok);
  });

  it("does not measure a client that cannot answer one valid event (exit not_measured), and says why", () => {
    const r = reports.get("silent") as Report;
    expect(r.code).toBe(CLI_EXIT_CODES.not_measured);
    expect(r.records).toEqual([]);
    expect(r.summary).toMatchObject({
      measured: false,
      not_measured_reason: expect.stringContaining("stdout is empty"),
    });
  });

  it("prints JSON Lines that match spec/cli/conform-report.schema.json", () => {
    const ajv = new Ajv2020({ strict: true });
    const validate = ajv.compile(
      JSON.parse(readFileSync(join(REPO_ROOT, "spec", "cli", "conform-report.schema.json"), "utf8")) as object,
    );
    for (const [name, r] of reports) {
      expect(Object.keys(r.lines[0] ?? {}), name).toEqual(["header"]);
      expect(Object.keys(r.lines[r.lines.length - 1] ?? {}), name).toEqual(["summary"]);
      for (const line of r.lines)
        expect(validate(line) ? null : validate.errors, `${name}: ${JSON.stringify(line).slice(0, 200)}`).toBeNull();
    }
  });
});

describe("conform baseline (--expected-failures)", () => {
  it("allows listed failures, fails on a listed scenario that passes or does not exist, and exits 3 when unreadable", async () => {
    const refusals = SCENARIOS.filter((s) => s.expect === "refuse").map((s) => s.id);
    const exact = join(TMP, "exact.txt");
    // The first entry as copied from the text report (`<transport> <id>`), the others bare ids.
    writeFileSync(
      exact,
      `# accept-all cannot refuse\n${refusals.map((id, i) => (i === 0 ? `subprocess ${id}` : id)).join("\n")}\n`,
    );
    const stale = join(TMP, "stale.txt");
    writeFileSync(stale, `${refusals.join("\n")}\nevent.session.started   # passes: stale\nno.such.scenario\n`);
    const [ok, bad] = await Promise.all([
      conform([...nodeClient("accept-all"), "--expected-failures", exact]),
      conform([...nodeClient("accept-all"), "--expected-failures", stale]),
    ]);
    expect(ok.code, failureDetails(ok)).toBe(CLI_EXIT_CODES.ok);
    expect(ok.summary.expected_failures).toBe(refusals.length);
    expect(bad.code).toBe(CLI_EXIT_CODES.validation);
    expect(bad.summary.stale_baseline).toEqual([
      "event.session.started (passes now)",
      "no.such.scenario (no such scenario)",
    ]);
    const missing = await spawnChild({
      command: process.execPath,
      args: [CLI, "conform", ...nodeClient(), "--expected-failures", join(TMP, "absent.txt")],
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
      watchdogMs: 120_000,
    });
    expect(missing.code).toBe(CLI_EXIT_CODES.input);
  }, 600_000);
});

describe("conform against the SDK clients and the reference's client", () => {
  it("passes the Go and Python SDK echo clients on every scenario of both transports (a missed SHOULD is reported)", async () => {
    const go = buildGoClient();
    expect(go.ok, go.ok ? "" : go.output).toBe(true);
    const python = FIXTURE_CLIENTS.python;
    const both = ["--transport", "both", "--timeout-ms", "20000"];
    const [goReport, pyReport] = await Promise.all([
      conform(["--program", GO_ECHO_BIN, ...both]),
      conform(["--program", python.program, ...both]),
    ]);
    for (const [name, r] of [
      ["go", goReport],
      ["python", pyReport],
    ] as const) {
      expect(
        failing(r).filter((f) => !f.endsWith(":warn")),
        `${name}: ${failureDetails(r)}`,
      ).toEqual([]);
      expect(new Set(r.records.map((x) => (x as { transport?: string }).transport)), name).toEqual(
        new Set(["subprocess", "stream"]),
      );
      expect(r.code, name).toBe(0);
    }
  }, 600_000);

  it("judges the reference's lifeloop-fake-ccd-client: it delivers every event and survives every transport scenario, and refuses nothing (exit 1)", async () => {
    // The fake client answers "delivered" to whatever parses and exits 2 on what does not: it
    // enforces none of the rules a client must, so every refusal scenario fails and nothing else does.
    if (!existsSync(REFERENCE_CLIENT)) throw new Error(REFERENCE_CLIENT_MISSING);
    const r = await conform(["--program", REFERENCE_CLIENT]);
    expect(r.summary.measured).toBe(true);
    expect(r.records).toHaveLength(SCENARIOS.length);
    const refusals = r.records.filter((x) => x.scenario.startsWith("refuse-")).map((x) => `${x.scenario}:fail`);
    expect(refusals.length).toBeGreaterThan(0);
    expect(r.records.some((x) => x.scenario.startsWith("event."))).toBe(true);
    expect(failing(r), failureDetails(r)).toEqual(refusals.sort());
    expect(r.code).toBe(CLI_EXIT_CODES.validation);
  }, 600_000);
});
