/**
 * `lifeloop-callback conform --transport stream|both` checked against real client processes: the
 * fixture client (test/fixtures/conform/client.mjs, whose --stream half is stream-client.mjs)
 * passes every stream scenario (its v1 half: conform.test.ts); each of its stream --break modes fails exactly the
 * stream scenarios of its defect; the TypeScript runner's fixture passes both transports; the
 * reference's lifeloop-fake-ccd-client, which has no stream mode, comes out "not measured" for
 * stream and v1 is measured (missing reference: that test fails with how to install it); a baseline of stream ids works; the report formats carry the
 * transport of each record; and every stream rule a client must enforce has a scenario or a
 * listed exclusion. (The Go and Python SDK clients run `--transport both` in conform.test.ts.)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_EXIT_CODES, CONFORMANCE_CHECKS_TABLE } from "../../generated/ts/spec.js";
import { renderReport, type PrintedRecord } from "../../runtime/conform/report.js";
import { buildScenarios, clientStreamRuleIds } from "../../runtime/conform/scenarios.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { REFERENCE_INSTALL_COMMAND } from "../support/reference-cli.js";
import { conform, failing, failureDetails, nodeClient, type Report } from "./support.js";
import { FIXTURE_CLIENTS_DIR } from "../support/fixture-clients.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-conform-stream-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const VECTORS = join(REPO_ROOT, "generated", "vectors");
const STREAM = buildScenarios(VECTORS, "stream");
const SUBPROCESS = buildScenarios(VECTORS, "subprocess");
const TS_RUNNER = join(FIXTURE_CLIENTS_DIR, "node", "runner-echo.mjs");
const REFERENCE_CLIENT = join(REPO_ROOT, ".cache", "lifeloop-ref", "bin", "lifeloop-fake-ccd-client");
/** Run conform (with conform()'s generous deadline per exchange unless the args give one) under a longer watchdog. */
const run = (args: readonly string[]): Promise<Report> => conform(args, 300_000);
const fails = (...ids: string[]): string[] => ids.map((id) => (id.includes(":") ? id : `${id}:fail`)).sort();
const ending = STREAM.filter((s) => s.expect === "end_stream").map((s) => s.id);

/** Each stream --break mode of the fixture and exactly the scenarios it must fail. */
const BROKEN: readonly (readonly [string, readonly string[]])[] = [
  ["stream-noise-on:context.compacted", fails("stream-event.context.compacted")],
  ["stream-string-ids", fails("stream-id-types")],
  ["stream-reply-notifications", fails("stream-notification")],
  ["stream-no-method-not-found", fails("stream-unknown-method")],
  ["stream-ignore-cancel", fails("stream-cancel:warn")],
  [
    "stream-accept-all",
    fails("stream-refuse-invalid", "stream-refuse-event-mismatch", "stream-refuse-receipt-emitted"),
  ],
  ["stream-lax-framing", fails(...ending, "stream-unterminated")],
  ["stream-strict-cr", fails("stream-frame-cr")],
  ["stream-limit-minus-one", fails("stream-size-at-limit")],
  ["stream-no-size-limit", fails("stream-size-over-limit")],
  ["stream-no-partial", fails("stream-bytewise", "stream-size-at-limit")],
  ["stream-ignore-eof", fails("stream-exit-eof", "stream-unterminated")],
  ["stream-ignore-sigterm", fails("stream-exit-sigterm")],
];

describe("conform stream scenarios generated from the tables", () => {
  it("covers every stream rule and every MUST stream obligation with a scenario, or lists why not", () => {
    const covered = new Set(STREAM.flatMap((s) => s.rule_ids));
    const excluded = new Set<string>(CONFORMANCE_CHECKS_TABLE.exclusions.map((e) => e.rule));
    const must = [
      ...clientStreamRuleIds(),
      ...CONFORMANCE_CHECKS_TABLE.obligations
        .filter((o) => o.level === "must" && o.id.startsWith("client.stream-"))
        .map((o) => o.id),
    ];
    expect(must.filter((id) => !covered.has(id) && !excluded.has(id))).toEqual([]);
    expect([...excluded].filter((id) => covered.has(id))).toEqual([]);
  });

  it("has ids unique across both transports, one event scenario per dispatchable event, each with {id, rule_ids, level, transport, since}", () => {
    const all = [...SUBPROCESS, ...STREAM];
    expect(new Set(all.map((s) => s.id)).size).toBe(all.length);
    expect(STREAM.filter((s) => s.family === "stream-event")).toHaveLength(
      SUBPROCESS.filter((s) => s.family === "event").length,
    );
    for (const s of STREAM) {
      expect(s.transport).toBe("stream");
      expect(s.rule_ids.length, s.id).toBeGreaterThan(0);
      expect(s.since, s.id).toMatch(/^lifeloop\.v/);
    }
    // The broken modes name only real scenarios.
    const ids = new Set(STREAM.map((s) => s.id));
    expect(
      BROKEN.flatMap(([, want]) => want.map((w) => w.split(":")[0] as string)).filter((id) => !ids.has(id)),
    ).toEqual([]);
  });
});

describe("conform --transport stream|both against real clients", () => {
  const reports = new Map<string, Report>();
  beforeAll(async () => {
    const runs: [string, string[]][] = [
      // The longest run first. The fixture's v1 half is checked in conform.test.ts.
      ["ts-runner", ["--program", TS_RUNNER, "--transport", "both"]],
      ["correct", [...nodeClient(), "--transport", "stream"]],
      ...BROKEN.map(([mode]): [string, string[]] => [mode, [...nodeClient(mode), "--transport", "stream"]]),
    ];
    // The reference's client has no stream mode: its stream smoke check waits for the deadline, so a short one.
    if (existsSync(REFERENCE_CLIENT))
      runs.push(["reference", ["--program", REFERENCE_CLIENT, "--transport", "both", "--timeout-ms", "5000"]]);
    // Two conform processes at a time (each runs up to four stream sessions at once): a 2-core machine.
    let next = 0;
    await Promise.all(
      [0, 1].map(async () => {
        while (next < runs.length) {
          const [name, args] = runs[next++] as [string, string[]];
          reports.set(name, await run(args));
        }
      }),
    );
  }, 900_000);

  it("passes the fixture client on every stream scenario and the TypeScript runner on every scenario of both transports, exit 0", () => {
    for (const [name, transports] of [
      ["correct", ["stream"]],
      ["ts-runner", ["subprocess", "stream"]],
    ] as const) {
      const r = reports.get(name) as Report;
      expect(failing(r), `${name}: ${failureDetails(r)}`).toEqual([]);
      expect(r.records, name).toHaveLength(transports.length === 2 ? SUBPROCESS.length + STREAM.length : STREAM.length);
      expect(new Set(r.records.map((x) => x.transport)), name).toEqual(new Set(transports));
      expect(r.code, name).toBe(CLI_EXIT_CODES.ok);
    }
  });

  it.each(BROKEN)("fails the broken stream client %s on exactly the scenarios of its defect", (mode, want) => {
    const r = reports.get(mode) as Report;
    expect(r.summary.measured, mode).toBe(true);
    expect(failing(r), failureDetails(r)).toEqual(want);
    const mustFailed = want.some((w) => w.endsWith(":fail"));
    expect(r.code).toBe(mustFailed ? CLI_EXIT_CODES.validation : CLI_EXIT_CODES.ok);
  });

  it("reports the reference's lifeloop-fake-ccd-client (no stream mode): stream is not measured, v1 is reported", () => {
    if (!existsSync(REFERENCE_CLIENT))
      throw new Error(
        `the reference's lifeloop-fake-ccd-client is missing at ${REFERENCE_CLIENT}: ${REFERENCE_INSTALL_COMMAND} (or bash tools/setup/prepare.sh)`,
      );
    const r = reports.get("reference") as Report;
    const transports = r.summary.transports as Record<string, { measured: boolean; not_measured_reason?: string }>;
    expect(transports.stream?.measured).toBe(false);
    expect(transports.subprocess?.measured).toBe(true);
    expect(r.records.filter((x) => x.transport === "stream")).toEqual([]);
  });

  it("prints JSON Lines that match spec/cli/conform-report.schema.json", () => {
    const ajv = new Ajv2020({ strict: true });
    const validate = ajv.compile(
      JSON.parse(readFileSync(join(REPO_ROOT, "spec", "cli", "conform-report.schema.json"), "utf8")) as object,
    );
    for (const [name, r] of reports) {
      for (const line of r.lines)
        expect(validate(line) ? null : validate.errors, `${name}: ${JSON.stringify(line).slice(0, 200)}`).toBeNull();
    }
  });
});

describe("conform baseline and report formats with stream scenarios", () => {
  it("allows listed stream failures and ignores ids of a transport the run does not check", async () => {
    const refusals = STREAM.filter((s) => s.expect === "refuse").map((s) => s.id);
    const baseline = join(TMP, "stream-baseline.txt");
    writeFileSync(baseline, `# stream-accept-all cannot refuse\n${refusals.join("\n")}\n`);
    const stale = join(TMP, "stream-stale.txt");
    writeFileSync(stale, `${refusals.join("\n")}\nstream-frame-cr   # passes: stale\n`);
    const [ok, bad] = await Promise.all([
      run([...nodeClient("stream-accept-all"), "--transport", "stream", "--expected-failures", baseline]),
      run([...nodeClient("stream-accept-all"), "--transport", "stream", "--expected-failures", stale]),
    ]);
    expect(ok.code).toBe(CLI_EXIT_CODES.ok);
    expect(ok.summary.expected_failures).toBe(refusals.length);
    expect(bad.code).toBe(CLI_EXIT_CODES.validation);
    expect(bad.summary.stale_baseline).toEqual(["stream-frame-cr (passes now)"]);
  }, 300_000);

  it("names the transport of every record in text, junit and markdown", () => {
    const rec = (
      scenario: string,
      transport: "subprocess" | "stream",
      verdict: PrintedRecord["verdict"],
    ): PrintedRecord => ({
      scenario,
      transport,
      verdict,
      rule_ids: ["client.answer"],
      level: "must",
      detail: verdict === "pass" ? "ok" : "broken",
      elapsed_ms: 3,
      expected_failure: false,
    });
    const records = [rec("event.session.starting", "subprocess", "pass"), rec("stream-frame-cr", "stream", "fail")];
    const header = {
      tool: "lifeloop-callback conform",
      version: "0",
      wire_version: "w",
      program: "/p",
      args: [],
      transport: "both",
      timeout_ms: 1,
      scenarios: 2,
    } as const;
    const summary = {
      measured: false,
      total: 2,
      pass: 1,
      fail: 1,
      warn: 0,
      skip: 0,
      not_testable: 0,
      expected_failures: 0,
      stale_baseline: [],
      exit_code: 1,
      transports: { subprocess: { measured: true }, stream: { measured: true } },
    };
    const text = renderReport("text", header, records, summary, []);
    expect(text).toMatch(/PASS +subprocess +event\.session\.starting/);
    expect(text).toMatch(/FAIL +stream +stream-frame-cr/);
    const junit = renderReport("junit", header, records, summary, [{ transport: "stream", detail: "no reply" }]);
    expect(junit).toContain('name="stream-frame-cr" classname="conform.stream"');
    expect(junit).toContain('name="smoke" classname="conform.stream"><error message="not measured: no reply"');
    const markdown = renderReport("markdown", header, records, summary, []);
    expect(markdown).toContain("| `stream-frame-cr` | stream | fail |");
    expect(markdown).toContain("| scenario | transport | verdict |");
  });
});
