/**
 * Output formats of `conform` (spec/conformance-runner.md, "Report"): `text` for a person, `json`
 * (JSON Lines: a header line, one record per scenario, a summary line; schema:
 * spec/cli/conform-report.schema.json), `junit` (XML for CI test reporters) and `markdown` (a table,
 * e.g. for a CI job summary).
 */
import type { ScenarioRecord } from "./run.js";

/** The first line of a JSON report. */
export interface ReportHeader {
  readonly tool: "lifeloop-callback conform";
  readonly version: string;
  readonly wire_version: string;
  readonly program: string;
  readonly args: readonly string[];
  readonly transport: string;
  readonly timeout_ms: number;
  readonly scenarios: number;
}

/** The last line of a JSON report: counts and the outcome. */
export interface ReportSummary {
  readonly measured: boolean;
  readonly total: number;
  readonly pass: number;
  readonly fail: number;
  readonly warn: number;
  readonly skip: number;
  readonly not_testable: number;
  readonly expected_failures: number;
  readonly stale_baseline: readonly string[];
  readonly exit_code: number;
  /** Per requested transport: whether its smoke check passed, and why not. */
  readonly transports: Readonly<Record<string, { readonly measured: boolean; readonly not_measured_reason?: string }>>;
}

/** A requested transport whose smoke check failed: no scenario of it was run. */
export interface NotMeasured {
  readonly transport: string;
  readonly detail: string;
}

/** A record as printed: the run's record plus whether the baseline lists it. */
export type PrintedRecord = ScenarioRecord & { readonly expected_failure: boolean };

/** Output format names. */
export const FORMATS = ["text", "json", "junit", "markdown"] as const;
/** An output format. */
export type Format = (typeof FORMATS)[number];

/**
 * Text for an XML 1.0 attribute or element: markup escaped, and every character XML 1.0 cannot
 * carry (C0 controls but TAB, LF, CR; lone surrogates; U+FFFE, U+FFFF) written as `\u{XX}`, so
 * that a client's stderr (ANSI colours, NULs, bells) never makes the report not well-formed. TAB,
 * LF and CR are written as character references (an attribute value would normalize them).
 */
export const xml = (s: string): string =>
  s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/[\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`)
    .replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to replace
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      (c) => `\\u{${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}}`,
    );

/** Text for one markdown table cell: `|` escaped, line breaks as `<br>`, other controls as `\u{XX}`. */
export const markdownCell = (s: string): string =>
  s
    .replace(/\|/g, "\\|")
    .replace(/\r\n|\r|\n/g, "<br>")
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to replace
    .replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u{${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}}`);

/** Render a whole report. `notMeasured` lists the transports whose smoke check failed. */
export function renderReport(
  format: Format,
  header: ReportHeader,
  records: readonly PrintedRecord[],
  summary: ReportSummary,
  notMeasured: readonly NotMeasured[],
): string {
  const smokeDetail =
    notMeasured.length === 0
      ? null
      : notMeasured
          .map((n) =>
            notMeasured.length === 1 && header.transport !== "both" ? n.detail : `${n.transport}: ${n.detail}`,
          )
          .join("; ");
  switch (format) {
    case "json":
      return (
        [
          JSON.stringify({ header }),
          ...records.map((r) => JSON.stringify(r)),
          JSON.stringify({
            summary: smokeDetail === null ? summary : { ...summary, not_measured_reason: smokeDetail },
          }),
        ].join("\n") + "\n"
      );
    case "junit": {
      // Counts agree with the exit code: an expected failure is skipped (the baseline allows it), a
      // stale baseline entry is a failing testcase of its own.
      const expected = (r: PrintedRecord): boolean =>
        r.expected_failure && (r.verdict === "fail" || r.verdict === "not_testable");
      const cases = records.map((r) => {
        const name = `name="${xml(r.scenario)}" classname="${xml(`conform.${r.transport}`)}" time="${(r.elapsed_ms / 1000).toFixed(3)}"`;
        if (expected(r))
          return `    <testcase ${name}><skipped message="${xml(`expected failure (baseline): ${r.detail}`)}"/></testcase>`;
        if (r.verdict === "fail" || r.verdict === "not_testable")
          return `    <testcase ${name}><failure message="${xml(r.detail)}">${xml(r.rule_ids.join(", "))}</failure></testcase>`;
        if (r.verdict === "skip") return `    <testcase ${name}><skipped message="${xml(r.detail)}"/></testcase>`;
        if (r.verdict === "warn")
          return `    <testcase ${name}><system-out>${xml(`warning (SHOULD): ${r.detail}`)}</system-out></testcase>`;
        return `    <testcase ${name}/>`;
      });
      const smokes = notMeasured.map(
        (n) =>
          `    <testcase name="smoke" classname="conform.${xml(n.transport)}"><error message="${xml(`not measured: ${n.detail}`)}"/></testcase>`,
      );
      const stale = summary.stale_baseline.map(
        (entry) =>
          `    <testcase name="${xml(`baseline: ${entry}`)}" classname="conform.baseline"><failure message="${xml(`stale baseline entry: ${entry}`)}"/></testcase>`,
      );
      const failures =
        records.filter((r) => (r.verdict === "fail" || r.verdict === "not_testable") && !expected(r)).length +
        stale.length;
      const skipped = records.filter((r) => r.verdict === "skip" || expected(r)).length;
      return [
        '<?xml version="1.0" encoding="UTF-8"?>',
        `<testsuite name="lifeloop-callback conform" tests="${records.length + smokes.length + stale.length}" failures="${failures}" errors="${smokes.length}" skipped="${skipped}">`,
        ...smokes,
        ...cases,
        ...stale,
        "</testsuite>",
        "",
      ].join("\n");
    }
    case "markdown": {
      const rows = records.map(
        (r) =>
          `| \`${r.scenario}\` | ${r.transport} | ${r.verdict}${r.expected_failure ? " (expected)" : ""} | ${r.level} | ${r.rule_ids.map((id) => `\`${id}\``).join(", ")} | ${markdownCell(r.detail)} |`,
      );
      const head = notMeasured.flatMap((n) => [`**Not measured (${n.transport})**: ${markdownCell(n.detail)}`, ""]);
      return [
        `## conform: ${header.program}`,
        "",
        ...head,
        "| scenario | transport | verdict | level | rules | detail |",
        "|---|---|---|---|---|---|",
        ...rows,
        "",
        summaryLine(summary),
        "",
      ].join("\n");
    }
    case "text": {
      const lines = records.map(
        (r) =>
          `${r.verdict.toUpperCase().padEnd(12)} ${r.transport.padEnd(10)} ${r.scenario}${r.expected_failure ? " (expected failure)" : ""}${r.verdict === "pass" ? "" : `\n                        ${r.detail}`}`,
      );
      const head = notMeasured.map((n) => `NOT MEASURED (${n.transport}): the smoke check failed: ${n.detail}`);
      return [...head, ...lines, summaryLine(summary), ""].join("\n");
    }
  }
}

function summaryLine(s: ReportSummary): string {
  const stale = s.stale_baseline.length > 0 ? `; stale baseline entries: ${s.stale_baseline.join(", ")}` : "";
  const unmeasured = Object.entries(s.transports)
    .filter(([, t]) => !t.measured)
    .map(([name]) => name);
  const notMeasured =
    unmeasured.length > 0 ? `; not measured: ${unmeasured.join(", ")} (smoke check failed, no scenario run)` : "";
  return `conform: ${s.total} scenarios: ${s.pass} passed, ${s.fail} failed, ${s.warn} warnings, ${s.skip} skipped, ${s.not_testable} not testable, ${s.expected_failures} expected failures${stale}${notMeasured}; exit ${s.exit_code}`;
}
