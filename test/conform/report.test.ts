/**
 * The junit and markdown reports of `conform` stay well-formed whatever a client writes to stderr
 * (spec/conformance-runner.md, "Report"): characters XML 1.0 forbids never reach the XML (checked
 * by a real XML parser, Python's xml.etree), a line break never splits a markdown table row, and
 * the junit counts agree with the exit code (an expected failure is skipped, a stale baseline
 * entry is a failing testcase).
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { renderReport, type PrintedRecord, type ReportSummary } from "../../runtime/conform/report.js";

const NASTY = "boom\x1b[31mred\x1b[0m\x00nul\x07bell\nsecond | line\r\nthird\ud800lone";
const rec = (
  scenario: string,
  verdict: PrintedRecord["verdict"],
  expected_failure = false,
  detail = "ok",
): PrintedRecord => ({
  scenario,
  transport: "subprocess",
  verdict,
  rule_ids: ["client.answer"],
  level: "must",
  detail,
  elapsed_ms: 3,
  expected_failure,
});
const header = {
  tool: "lifeloop-callback conform",
  version: "0",
  wire_version: "w",
  program: "/p",
  args: [],
  transport: "subprocess",
  timeout_ms: 1,
  scenarios: 4,
} as const;
const records = [
  rec("a.pass", "pass"),
  rec("b.fail", "fail", false, `no answer; stderr: ${NASTY}`),
  rec("c.expected", "fail", true, "refused nothing"),
  rec("d.skip", "skip", false, "n/a"),
];
const summary: ReportSummary = {
  measured: true,
  total: 4,
  pass: 1,
  fail: 2,
  warn: 0,
  skip: 1,
  not_testable: 0,
  expected_failures: 1,
  stale_baseline: ["e.stale (passes now)"],
  exit_code: 1,
  transports: { subprocess: { measured: true } },
};

/** Parse XML with a real parser; returns the testsuite's attributes and each testcase's child tag. */
function parseJunit(xmlText: string): { suite: Record<string, string>; cases: Record<string, string> } {
  const py = `import sys, json, xml.etree.ElementTree as E
root = E.fromstring(sys.stdin.buffer.read())
print(json.dumps({"suite": root.attrib, "cases": {c.get("name"): (c[0].tag if len(c) else "pass") for c in root}}))`;
  const r = spawnSync("python3", ["-c", py], { input: Buffer.from(xmlText, "utf8"), encoding: "utf8" });
  if (r.status !== 0) throw new Error(`not well-formed XML: ${r.stderr}`);
  return JSON.parse(r.stdout) as { suite: Record<string, string>; cases: Record<string, string> };
}

describe("conform report formats with hostile client output", () => {
  it("junit is well-formed XML with counts that agree with the exit code", () => {
    const { suite, cases } = parseJunit(renderReport("junit", header, records, summary, []));
    expect(cases).toEqual({
      "a.pass": "pass",
      "b.fail": "failure",
      "c.expected": "skipped",
      "d.skip": "skipped",
      "baseline: e.stale (passes now)": "failure",
    });
    expect(suite).toMatchObject({ tests: "5", failures: "2", errors: "0", skipped: "2" });
  });

  it("markdown keeps one table row per record", () => {
    const md = renderReport("markdown", header, records, summary, [{ transport: "stream", detail: `x\ny${NASTY}` }]);
    const rows = md.split("\n").filter((l) => l.startsWith("| `"));
    expect(rows).toHaveLength(records.length);
    for (const row of rows) expect(row.endsWith(" |"), row).toBe(true);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to replace
    expect(md).not.toMatch(/[\x00-\x08\x0b-\x1f]/);
  });
});
