/**
 * Renderings of a {@link DiffReport}: `text` (people), `json` (spec/cli/diff-report.schema.json),
 * `markdown` (a pull-request comment or $GITHUB_STEP_SUMMARY), `junit` (one test case per change;
 * gating errors are failures) and `github` (workflow commands `::error|warning|notice`).
 */
import type { Change } from "./change.js";
import type { DiffReport } from "./gate.js";

/** The output formats of `diff --format`. */
export const FORMATS = ["text", "json", "markdown", "junit", "github"] as const;
export type Format = (typeof FORMATS)[number];

function breaks(c: Change): string {
  return c.breaks.length === 0 ? "breaks nothing" : `breaks ${c.breaks.join(" and ")}`;
}

function allowed(c: Change): string {
  return c.allowed ? ` [allowed by ${c.allowed.by}: ${c.allowed.reason}]` : "";
}

function verdict(report: DiffReport): string {
  const s = report.summary;
  return `backward compatible (new receivers accept old senders): ${s.backward_compatible ? "yes" : "no"}; forward compatible (old receivers accept new senders): ${s.forward_compatible ? "yes" : "no"}; ${s.errors} error(s), ${s.warnings} warning(s), ${s.infos} info; ${s.gated ? "GATED" : "not gated"}`;
}

function text(report: DiffReport): string {
  const lines = report.changes.map(
    (c) =>
      `${c.level.padEnd(7)} ${c.rule}  ${printable(c.location)}  (${c.category}, ${breaks(c)})  ${printable(`${c.detail}${allowed(c)}`)}`,
  );
  const versions = report.summary.base_version
    ? `${report.summary.base_version} → ${report.summary.head_version}: `
    : "";
  return `${lines.join("\n")}${lines.length ? "\n" : ""}${versions}${verdict(report)}\n`;
}

/**
 * Characters no XML 1.0 document may hold (C0 controls but tab, LF and CR; U+FFFE, U+FFFF; lone
 * surrogates), which a property name or an enum value can carry into a location or a detail.
 */
const NOT_XML_CHAR =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to replace
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` with each character XML cannot hold written as a visible `\uXXXX`. */
function visible(s: string): string {
  return s.replace(
    NOT_XML_CHAR,
    (c) => `\\u${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}`,
  );
}

/** `s` safe on a terminal or a CI log line: also CR, LF, tab and C1 controls visible (no forged lines, no escape sequences). */
function printable(s: string): string {
  return visible(s).replace(
    /[\t\n\r\u007F-\u009F]/g,
    (c) => `\\u${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}`,
  );
}

function cell(s: string): string {
  return visible(s)
    .replace(/\|/g, "\\|")
    .replace(/\r\n|\r|\n/g, " ");
}

/** A Markdown code span around `s` (CommonMark: a fence longer than any backtick run inside, padded). */
function code(s: string): string {
  const text = cell(s);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return longest === 0 ? `${fence}${text}${fence}` : `${fence} ${text} ${fence}`;
}

function markdown(report: DiffReport): string {
  const rows = report.changes.map(
    (c) =>
      `| ${c.level} | \`${c.rule}\` | ${code(c.location)} | ${c.category} | ${c.breaks.join(", ") || "-"} | ${cell(c.detail)}${cell(allowed(c))} |`,
  );
  const table = rows.length
    ? `| level | rule | location | category | breaks | detail |\n|---|---|---|---|---|---|\n${rows.join("\n")}\n\n`
    : "No changes.\n\n";
  return `## lifeloop-callback diff\n\n${table}${verdict(report)}\n`;
}

function xml(s: string): string {
  return visible(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function junit(report: DiffReport): string {
  const failures = report.changes.filter((c) => c.level === "error" && !c.allowed).length;
  const cases = report.changes.map((c) => {
    const name = xml(`${c.rule} ${c.location}`);
    const body =
      c.level === "error" && !c.allowed
        ? `<failure type="${c.rule}" message="${xml(`${c.detail} (${breaks(c)})`)}"/>`
        : `<system-out>${xml(`${c.level}: ${c.detail}${allowed(c)}`)}</system-out>`;
    return `    <testcase classname="lifeloop-callback.diff.${c.category}" name="${name}">${body}</testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="lifeloop-callback diff" tests="${report.changes.length}" failures="${failures}" errors="0">\n${cases.join("\n")}${cases.length ? "\n" : ""}  </testsuite>\n</testsuites>\n`;
}

/** Escape data and property values of a GitHub workflow command. */
function ghData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
function ghProperty(s: string): string {
  return ghData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

function github(report: DiffReport): string {
  const lines = report.changes.map((c) => {
    const command =
      c.level === "error" && !c.allowed ? "error" : c.level === "info" || c.allowed ? "notice" : "warning";
    const file = c.location.split("#")[0] ?? "";
    const props = [`title=${ghProperty(c.rule)}`, ...(file ? [`file=${ghProperty(file)}`] : [])].join(",");
    return `::${command} ${props}::${ghData(printable(`${c.location}: ${c.detail} (${breaks(c)})${allowed(c)}`))}`;
  });
  return `${lines.join("\n")}${lines.length ? "\n" : ""}${verdict(report)}\n`;
}

/** Render `report` in `format`. */
export function render(report: DiffReport, format: Format): string {
  switch (format) {
    case "json":
      return `${JSON.stringify(report, null, 2)}\n`;
    case "markdown":
      return markdown(report);
    case "junit":
      return junit(report);
    case "github":
      return github(report);
    case "text":
      return text(report);
  }
}
