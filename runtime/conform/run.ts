/**
 * Run the conformance scenarios against one client program and judge each (spec/conformance-runner.md,
 * "Verdicts"): a smoke check first (a client that cannot answer one valid event is not measured),
 * then every scenario in order. A refusal passes only when the client wrote the refusal response of
 * spec/tables/conformance-checks.json and exited 0: a crash, a timeout, an empty stdout or a
 * non-zero exit never counts as a correct rejection. Answers are judged with the scenario's
 * `answerWindow` (closed to the version its requests speak: an answer in another version fails).
 */
import { CONFORMANCE_CHECKS_TABLE } from "../../generated/ts/spec.js";
import { parseWireDocument } from "../wire/validate.js";
import { exchange, type ExchangeResult } from "./exchange.js";
import { smokeScenario } from "./scenarios.js";
import type { Scenario, ScenarioTransport } from "./types.js";
import { runSharedSession, runStreamScript } from "./stream-session.js";

/** A scenario's verdict: `warn` is a missed SHOULD; `not_testable` counts as a failure. */
export type Verdict = "pass" | "fail" | "warn" | "skip" | "not_testable";

/** One scenario's record, as `--format json` prints it. */
export interface ScenarioRecord {
  readonly scenario: string;
  readonly verdict: Verdict;
  readonly rule_ids: readonly string[];
  readonly level: "must" | "should";
  readonly transport: string;
  readonly detail: string;
  readonly elapsed_ms: number;
}

/** The client under test and the per-exchange deadline (ms). */
export interface ConformTarget {
  readonly program: string;
  readonly args: readonly string[];
  readonly timeoutMs: number;
}

/** Why an exchange does not show the expected behaviour, or null when it does. */
export function judge(scenario: Scenario, r: ExchangeResult): string | null {
  if (r.spawnError !== null) return `the program could not be started: ${r.spawnError}`;
  if (scenario.expect === "end_on_sigterm") {
    if (r.exitAfterSigtermMs === null) return "did not end after SIGTERM before the deadline";
    const bound = CONFORMANCE_CHECKS_TABLE.sigterm_exit_ms;
    return r.exitAfterSigtermMs <= bound
      ? null
      : `ended ${Math.round(r.exitAfterSigtermMs)} ms after SIGTERM (bound ${bound} ms)`;
  }
  if (r.timedOut) {
    if (r.stdout.length === 0)
      return `no answer within the deadline (${Math.round(r.elapsedMs)} ms); the group was killed`;
    const late = parseWireDocument("CallbackResponse", r.stdout, undefined, scenario.answerWindow);
    return late.ok
      ? `answered, then did not exit within the deadline (${Math.round(r.elapsedMs)} ms); the group was killed (a client exits 0 after its response)`
      : `wrote ${r.stdout.length} bytes that are not exactly one valid CallbackResponse, and did not exit within the deadline (${Math.round(r.elapsedMs)} ms); the group was killed`;
  }
  if (r.stdoutTooLarge) return "stdout exceeded limits.max_response_bytes";
  const parsed = parseWireDocument("CallbackResponse", r.stdout, undefined, scenario.answerWindow);
  if (!parsed.ok) {
    const issue = parsed.issues[0];
    const what =
      r.stdout.length === 0
        ? "stdout is empty"
        : `stdout is not exactly one valid CallbackResponse: ${issue?.rule} at "${issue?.pointer}": ${issue?.message}`;
    return `${what}${exitText(r) === "exit 0" ? "" : ` (${exitText(r)})`}`;
  }
  if (r.code !== 0) return `answered, then ended with ${exitText(r)} (a client exits 0 after its response)`;
  const want = CONFORMANCE_CHECKS_TABLE.refusal;
  const got = parsed.value;
  const refused = got.status === want.status && got.failure_class === want.failure_class;
  if (scenario.expect === "refuse" && !refused) {
    return `accepted an invalid request: answered status ${got.status}${got.failure_class ? ` (${got.failure_class})` : ""}; expected status ${want.status} with failure_class ${want.failure_class}`;
  }
  // A client may decline an event for its own reasons, but not call a valid request invalid.
  if (scenario.expect === "answer" && refused) return `refused a valid request as ${want.failure_class}`;
  return null;
}

function exitText(r: ExchangeResult): string {
  return r.signal !== null ? `signal ${r.signal}` : `exit ${r.code}`;
}

/** Run one scenario and build its record. A stream scenario's script judges the session itself. */
export async function runScenario(target: ConformTarget, scenario: Scenario): Promise<ScenarioRecord> {
  return (await runScenarioFacts(target, scenario)).record;
}

/**
 * {@link runScenario}, plus whether the client answered at all: it was started and wrote at least
 * one byte to stdout (the smoke check's criterion, spec/conformance-runner.md, "Verdicts").
 */
async function runScenarioFacts(
  target: ConformTarget,
  scenario: Scenario,
): Promise<{ readonly record: ScenarioRecord; readonly answered: boolean }> {
  let answered: boolean;
  let why: string | null;
  let stderrTail: string;
  let elapsedMs: number;
  if (scenario.input.kind === "stream") {
    const r = await runStreamScript(
      target.program,
      target.args,
      target.timeoutMs,
      scenario.input.script,
      undefined,
      scenario.answerWindow,
    );
    why = r.failure;
    answered = r.run.spawnError === null && r.stdoutBytes > 0;
    stderrTail = r.run.stderr.text();
    elapsedMs = r.elapsedMs;
  } else {
    const r = await exchange(target.program, target.args, scenario.input, target.timeoutMs);
    why = judge(scenario, r);
    answered = r.spawnError === null && (r.stdout.length > 0 || r.stdoutTooLarge);
    stderrTail = r.stderrTail;
    elapsedMs = r.elapsedMs;
  }
  return { record: record(scenario, why, stderrTail, elapsedMs), answered };
}

function record(scenario: Scenario, why: string | null, stderrTail: string, elapsedMs: number): ScenarioRecord {
  const verdict: Verdict = why === null ? "pass" : scenario.level === "should" ? "warn" : "fail";
  const stderr = why !== null && stderrTail.trim() !== "" ? `; stderr: ${stderrTail.trim().slice(-300)}` : "";
  return {
    scenario: scenario.id,
    verdict,
    rule_ids: scenario.rule_ids,
    level: scenario.level,
    transport: scenario.transport,
    detail: why === null ? "ok" : `${why}${stderr}`,
    elapsed_ms: Math.round(elapsedMs),
  };
}

/**
 * Run the stream scenarios that share one session (the events), one record each. They are built
 * together, for one wire version: the session judges answers with the first one's `answerWindow`.
 */
async function runSharedScenarios(target: ConformTarget, scenarios: readonly Scenario[]): Promise<ScenarioRecord[]> {
  const scripts = scenarios.map((s) => ({
    id: s.id,
    script: (s.input as Extract<Scenario["input"], { kind: "stream" }>).script,
  }));
  const outcomes = await runSharedSession(
    target.program,
    target.args,
    target.timeoutMs,
    scripts,
    scenarios[0]?.answerWindow,
  );
  return scenarios.map((s) => {
    const o = outcomes.get(s.id);
    return o === undefined ? record(s, "not run", "", 0) : record(s, o.failure, o.stderrTail, o.elapsedMs);
  });
}

/**
 * How many scenarios of a transport run at once: each scenario has a process (or, for the shared
 * stream session, a job) of its own and its own deadline, so they are independent; on a 2-core
 * machine a run of some ninety scenarios would otherwise be dominated by start-up time. v1 runs
 * two at a time (its SIGTERM and slow-write timings are measured per process), stream four.
 */
export const CONCURRENCY: Readonly<Record<ScenarioTransport, number>> = { subprocess: 2, stream: 4 };

/** The outcome of a whole run: not measured (the smoke check failed) or every record. */
export type ConformRun =
  | { readonly measured: false; readonly smoke: ScenarioRecord }
  | { readonly measured: true; readonly smoke: ScenarioRecord; readonly records: readonly ScenarioRecord[] };

/**
 * Smoke check, then every scenario of one transport (`scenarios` all have it), at most
 * {@link CONCURRENCY} at a time; records come back in scenario order. The smoke scenario is the
 * per-event family's scenario for `smoke_event`; `onRecord` sees each record as it is made.
 */
export async function runConformance(
  target: ConformTarget,
  scenarios: readonly Scenario[],
  onRecord: (r: ScenarioRecord) => void = () => undefined,
): Promise<ConformRun> {
  const transport = scenarios[0]?.transport ?? "subprocess";
  // Not measured only when the client wrote nothing at all: it could not be started, or it exited
  // or ran into the deadline without a byte on stdout. A client that wrote something (a banner,
  // two documents, an answer without the exit) is measured, and its smoke scenario fails.
  const { record: smoke, answered } = await runScenarioFacts(target, smokeScenario(scenarios, transport));
  if (smoke.verdict !== "pass" && !answered) return { measured: false, smoke };
  const byId = new Map<string, ScenarioRecord>();
  const add = (record: ScenarioRecord): void => {
    byId.set(record.scenario, record);
    onRecord(record);
  };
  // Jobs: the scenarios that share one session form one job; every other scenario is a job.
  const shared = scenarios.filter((s) => s.input.kind === "stream" && s.input.shared);
  const jobs: (() => Promise<void>)[] = scenarios
    .filter((s) => !shared.includes(s))
    .map((s) => async () => add(await runScenario(target, s)));
  if (shared.length > 0) jobs.unshift(async () => (await runSharedScenarios(target, shared)).forEach(add));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) await (jobs[next++] as () => Promise<void>)();
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY[transport], jobs.length) }, worker));
  return { measured: true, smoke, records: scenarios.map((s) => byId.get(s.id) as ScenarioRecord) };
}
