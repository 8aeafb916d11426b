/**
 * `lifeloop-callback conform --program ABS [--arg A]... [--transport subprocess|stream|both]
 * [--timeout-ms N] [--expected-failures FILE] [--format text|json|junit|markdown]`: check that a
 * client program speaks the protocol (spec/conformance-runner.md).
 *
 * Exit codes (spec/tables/cli-exit-codes.json): 0 every MUST scenario passed (or failed as the
 * baseline expects); 1 a MUST scenario failed or a baseline entry is stale; 2 usage; 3 the baseline
 * cannot be read; 5 not measured (the smoke check failed).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { LIMITS, WIRE_VERSION } from "../../../generated/ts/spec.js";
import { parseBaseline, staleEntries } from "../../conform/baseline.js";
import { FORMATS, renderReport, type Format, type PrintedRecord, type ReportSummary } from "../../conform/report.js";
import { runConformance } from "../../conform/run.js";
import { buildScenarios } from "../../conform/scenarios.js";
import { describeIoError, EXIT, integerFlag, parseFlags, UsageError, type CliIo } from "../io.js";
import { packageRoot, packageVersion } from "../package-root.js";

/** Usage text of the conform command. */
export const CONFORM_USAGE = `usage: lifeloop-callback conform --program ABS [--arg A]... [--transport subprocess|stream|both]
                         [--timeout-ms N] [--expected-failures FILE] [--format text|json|junit|markdown]
  Runs the conformance scenarios (generated/docs/conformance-scenarios.md) against a client program:
  a smoke check first, then every scenario; prints one verdict per scenario and a summary.
  --program            absolute path of the client (no shell; arguments via --arg, verbatim)
  --transport          subprocess (v1, default); stream and both: the stream scenarios are not written yet
  --timeout-ms         deadline of each exchange, in ms (default 5000)
  --expected-failures  baseline: scenario ids allowed to fail, one per line, # comments; a listed
                       scenario that passes (or does not exist) fails the run
  --format             text (default) | json (JSON Lines: header, records, summary) | junit | markdown
  exit 0 every MUST passed, 1 a MUST failed or the baseline is stale, 2 usage, 3 unreadable
  baseline, 5 not measured (the client cannot answer one valid event)`;

/** Run the conform command; returns the exit code. */
export async function runConform(args: readonly string[], io: CliIo): Promise<number> {
  const { values, lists, positionals } = parseFlags(args, {
    values: ["--program", "--transport", "--timeout-ms", "--expected-failures", "--format"],
    repeatable: ["--arg"],
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const program = values.get("--program");
  if (program === undefined) throw new UsageError("--program is required (the absolute path of the client to check)");
  if (!program.startsWith("/")) throw new UsageError(`--program must be an absolute path (got ${JSON.stringify(program)}); no shell or PATH lookup is used`);
  const transport = values.get("--transport") ?? "subprocess";
  if (!["subprocess", "stream", "both"].includes(transport)) throw new UsageError(`--transport takes subprocess, stream or both (got ${JSON.stringify(transport)})`);
  if (transport !== "subprocess") throw new UsageError(`--transport ${transport}: the stream-mode (v2) conformance scenarios are not written yet; use --transport subprocess`);
  const format = (values.get("--format") ?? "text") as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format takes ${FORMATS.join(", ")} (got ${JSON.stringify(format)})`);
  const timeoutMs = integerFlag("--timeout-ms", values.get("--timeout-ms"), { min: 1, max: LIMITS.max_timeout_ms, unit: "of milliseconds" }) ?? 5000;

  let baseline: string[] = [];
  const baselineFile = values.get("--expected-failures");
  if (baselineFile !== undefined) {
    try {
      baseline = parseBaseline(await readFile(baselineFile, "utf8"));
    } catch (error) {
      io.err(`conform: ${describeIoError(`read the baseline ${baselineFile}`, error)}\n`);
      return EXIT.input;
    }
  }

  const scenarios = buildScenarios(join(packageRoot(), "generated", "vectors"), "subprocess");
  const target = { program, args: lists.get("--arg") ?? [], timeoutMs };
  const run = await runConformance(target, scenarios);
  const header = {
    tool: "lifeloop-callback conform",
    version: packageVersion(),
    wire_version: WIRE_VERSION,
    program,
    args: target.args,
    transport,
    timeout_ms: timeoutMs,
    scenarios: scenarios.length,
  } as const;
  const records: PrintedRecord[] = run.measured ? run.records.map((r) => ({ ...r, expected_failure: baseline.includes(r.scenario) })) : [];
  const verdicts = new Map(records.map((r) => [r.scenario, r.verdict]));
  const stale = run.measured ? staleEntries(baseline, verdicts) : { passing: [], unknown: [] };
  const count = (v: string): number => records.filter((r) => r.verdict === v).length;
  const unexpected = records.filter((r) => (r.verdict === "fail" || r.verdict === "not_testable") && !r.expected_failure).length;
  const exitCode = !run.measured ? EXIT.not_measured : unexpected > 0 || stale.passing.length + stale.unknown.length > 0 ? EXIT.validation : EXIT.ok;
  const summary: ReportSummary = {
    measured: run.measured,
    total: records.length,
    pass: count("pass"),
    fail: count("fail"),
    warn: count("warn"),
    skip: count("skip"),
    not_testable: count("not_testable"),
    expected_failures: records.filter((r) => r.expected_failure && r.verdict !== "pass").length,
    stale_baseline: [...stale.passing.map((id) => `${id} (passes now)`), ...stale.unknown.map((id) => `${id} (no such scenario)`)],
    exit_code: exitCode,
  };
  io.out(renderReport(format, header, records, summary, run.measured ? null : run.smoke.detail));
  return exitCode;
}
