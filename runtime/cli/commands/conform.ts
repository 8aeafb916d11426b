/**
 * `lifeloop-callback conform --program ABS [--arg A]... [--transport subprocess|stream|both]
 * [--timeout-ms N] [--expected-failures FILE] [--format text|json|junit|markdown] [--wire-version V]`:
 * check that a client program speaks the protocol (spec/conformance-runner.md). `--wire-version V`
 * (spec/wire-window.md, "Who speaks which version"; default current): the scenarios' requests are
 * written in V and every answer must be in V (runtime/conform/scenarios.ts); the header's
 * `wire_version` is V.
 *
 * Exit codes (spec/tables/cli-exit-codes.json): 0 every MUST scenario passed (or failed as the
 * baseline expects); 1 a MUST scenario failed or a baseline entry is stale; 2 usage; 3 the baseline
 * cannot be read; 5 not measured (the smoke check of a requested transport failed, and no MUST
 * failed in the other).
 */
import { join } from "node:path";
import { LIMITS, WIRE_VERSION } from "../../../generated/ts/spec.js";
import { parseBaseline, readBaselineFile, staleEntries } from "../../conform/baseline.js";
import { FORMATS, renderReport, type Format, type PrintedRecord, type ReportSummary } from "../../conform/report.js";
import { runConformance, type ConformRun } from "../../conform/run.js";
import { buildScenarios } from "../../conform/scenarios.js";
import { SCENARIO_TRANSPORTS, type ScenarioTransport } from "../../conform/types.js";
import { EXIT, integerFlag, parseFlags, UsageError, type CliIo } from "../io.js";
import { packageRoot, packageVersion } from "../../process/package-root.js";
import { executableProblem } from "../program-check.js";
import { WIRE_VERSION_FLAG, WIRE_VERSION_USAGE, wireVersionFlag } from "../wire-version-flag.js";

/** Usage text of the conform command. */
export const CONFORM_USAGE = `usage: lifeloop-callback conform --program ABS [--arg A]... [--transport subprocess|stream|both]
                         [--timeout-ms N] [--expected-failures FILE] [--format text|json|junit|markdown]
                         [--wire-version V]
  Runs the conformance scenarios (generated/docs/reference/conformance-scenarios.md) against a client program:
  a smoke check first, then every scenario; prints one verdict per scenario and a summary.
  --program            absolute path of the client (no shell; arguments via --arg, verbatim)
  --transport          subprocess (v1, default) | stream (v2: the client runs with --stream) | both
  --timeout-ms         deadline of each exchange, in ms (default 5000)
  --expected-failures  baseline: scenario ids allowed to fail, one per line (or "<transport> <id>"
                       as in the text report), # comments; a listed scenario that passes (or does
                       not exist) fails the run
  --format             text (default) | json (JSON Lines: header, records, summary) | junit | markdown
  ${WIRE_VERSION_USAGE}:
                       the requests are written in it and every answer must be in it
  exit 0 every MUST passed, 1 a MUST failed or the baseline is stale, 2 usage, 3 unreadable
  baseline, 5 not measured (the client cannot answer one valid event in a requested transport)`;

/** Run the conform command; returns the exit code. */
export async function runConform(args: readonly string[], io: CliIo): Promise<number> {
  const { values, lists, positionals } = parseFlags(args, {
    values: ["--program", "--transport", "--timeout-ms", "--expected-failures", "--format", WIRE_VERSION_FLAG],
    repeatable: ["--arg"],
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const program = values.get("--program");
  if (program === undefined) throw new UsageError("--program is required (the absolute path of the client to check)");
  if (!program.startsWith("/"))
    throw new UsageError(
      `--program must be an absolute path (got ${JSON.stringify(program)}); no shell or PATH lookup is used`,
    );
  // A program that is not an executable file is the caller's mistake, not the client's (nothing
  // could be started): a usage error that names it, before any scenario.
  const programProblem = executableProblem(program);
  if (programProblem !== null) throw new UsageError(`--program ${program}: ${programProblem}`);
  const transport = values.get("--transport") ?? "subprocess";
  if (!["subprocess", "stream", "both"].includes(transport))
    throw new UsageError(`--transport takes subprocess, stream or both (got ${JSON.stringify(transport)})`);
  const wireVersion = wireVersionFlag(values) ?? WIRE_VERSION;
  const format = (values.get("--format") ?? "text") as Format;
  if (!FORMATS.includes(format))
    throw new UsageError(`--format takes ${FORMATS.join(", ")} (got ${JSON.stringify(format)})`);
  const timeoutMs =
    integerFlag("--timeout-ms", values.get("--timeout-ms"), {
      min: 1,
      max: LIMITS.max_timeout_ms,
      unit: "of milliseconds",
    }) ?? 5000;

  let baseline: string[] = [];
  const baselineFile = values.get("--expected-failures");
  if (baselineFile !== undefined) {
    const read = readBaselineFile(baselineFile, LIMITS.max_request_bytes);
    if ("error" in read) {
      io.err(`conform: ${read.error}\n`);
      return EXIT.input;
    }
    baseline = parseBaseline(read.text);
  }

  const baselineSet = new Set(baseline);
  const vectors = join(packageRoot(), "generated", "vectors");
  const transports: readonly ScenarioTransport[] =
    transport === "both" ? SCENARIO_TRANSPORTS : [transport as ScenarioTransport];
  const target = { program, args: lists.get("--arg") ?? [], timeoutMs };
  // Built once per transport (they read the vectors): the baseline is checked against every id.
  const scenariosOf = new Map(SCENARIO_TRANSPORTS.map((t) => [t, buildScenarios(vectors, t, wireVersion)]));
  const everyId = new Set([...scenariosOf.values()].flatMap((list) => list.map((s) => s.id)));
  const runs: { transport: ScenarioTransport; run: ConformRun }[] = [];
  let scenarioCount = 0;
  for (const t of transports) {
    const scenarios = scenariosOf.get(t) ?? [];
    scenarioCount += scenarios.length;
    runs.push({ transport: t, run: await runConformance(target, scenarios) });
  }
  const header = {
    tool: "lifeloop-callback conform",
    version: packageVersion(),
    wire_version: wireVersion,
    program,
    args: target.args,
    transport,
    timeout_ms: timeoutMs,
    scenarios: scenarioCount,
  } as const;
  const records: PrintedRecord[] = runs.flatMap(({ run }) =>
    run.measured ? run.records.map((r) => ({ ...r, expected_failure: baselineSet.has(r.scenario) })) : [],
  );
  const notMeasured = runs
    .filter(({ run }) => !run.measured)
    .map(({ transport: t, run }) => ({ transport: t, detail: run.smoke.detail }));
  const verdicts = new Map(records.map((r) => [r.scenario, r.verdict]));
  const { passing, unknown } = staleEntries(baseline, verdicts, everyId);
  const count = (v: string): number => records.filter((r) => r.verdict === v).length;
  const unexpected = records.filter(
    (r) => (r.verdict === "fail" || r.verdict === "not_testable") && !r.expected_failure,
  ).length;
  const exitCode =
    unexpected > 0 || passing.length + unknown.length > 0
      ? EXIT.validation
      : notMeasured.length > 0
        ? EXIT.not_measured
        : EXIT.ok;
  const summary: ReportSummary = {
    measured: notMeasured.length === 0,
    total: records.length,
    pass: count("pass"),
    fail: count("fail"),
    warn: count("warn"),
    skip: count("skip"),
    not_testable: count("not_testable"),
    expected_failures: records.filter((r) => r.expected_failure && r.verdict !== "pass").length,
    stale_baseline: [...passing.map((id) => `${id} (passes now)`), ...unknown.map((id) => `${id} (no such scenario)`)],
    exit_code: exitCode,
    transports: Object.fromEntries(
      runs.map(({ transport: t, run }) => [
        t,
        run.measured ? { measured: true } : { measured: false, not_measured_reason: run.smoke.detail },
      ]),
    ),
  };
  io.out(renderReport(format, header, records, summary, notMeasured));
  return exitCode;
}
