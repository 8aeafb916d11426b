/**
 * What the two matrices (the cross-language one, `npm run matrix`, and the stream (v2) lifecycle
 * one, `npm run matrix:stream`) share: running cells with bounded concurrency, and printing a run
 * as a table of ✓/✗ cells with numbered notes and a one-line summary.
 */
import { renderTable, type Cell, type Painter } from "../../test/support/text-table.js";

/** A judged cell: `reasons` is empty when it passed. */
export interface JudgedCell {
  readonly reasons: readonly string[];
}

/** Run `work` on every item, at most `limit` at a time, taking the items in order. */
export async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** True when every cell passed. */
export function allCellsPassed(cells: readonly JudgedCell[]): boolean {
  return cells.every((c) => c.reasons.length === 0);
}

/** Longest in-cell reason (code points); the full text is in the notes. */
const SHORT_REASON = 28;

function shorten(text: string): string {
  const chars = [...text];
  return chars.length <= SHORT_REASON ? text : `${chars.slice(0, SHORT_REASON - 1).join("")}…`;
}

/**
 * The printed cell of a failed cell: `✗ [n] <short first reason>`, its full reasons appended to
 * `notes` as note `n` under `label` (e.g. `scenario × column`).
 */
export function failedCell(notes: string[], label: string, reasons: readonly string[]): Cell {
  notes.push(`[${notes.length + 1}] ${label}: ${reasons.join("; ")}`);
  return { text: `✗ [${notes.length}] ${shorten(reasons[0] ?? "")}`, tone: "bad" };
}

/** One printed matrix: `intro` lines under the bold title, then the table, the notes and the summary. */
export interface MatrixReport {
  readonly title: string;
  readonly intro: readonly string[];
  readonly header: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  readonly notes: readonly string[];
  /** Every cell, to count passes and failures. */
  readonly cells: readonly JudgedCell[];
  /** What the cell count is, e.g. `12 scenarios × 8 columns`. */
  readonly shape: string;
  /** Wall time of the whole run and of the Go build (ms). */
  readonly totalMs: number;
  readonly buildMs: number;
}

/** The report lines (no trailing newline); the last one is `PASS: n/n cells passed ...` or `FAIL: ...`. */
export function renderMatrixReport(report: MatrixReport, painter: Painter): string[] {
  const passed = report.cells.filter((c) => c.reasons.length === 0).length;
  const failed = report.cells.length - passed;
  return [
    painter.paint(report.title, "bold"),
    ...report.intro,
    "",
    ...renderTable(report.header, report.rows, painter, "  "),
    "",
    ...report.notes,
    ...(report.notes.length > 0 ? [""] : []),
    painter.paint(
      `${failed === 0 ? "PASS" : "FAIL"}: ${passed}/${report.cells.length} cells passed (${report.shape})` +
        `${failed > 0 ? `, ${failed} failed` : ""} in ${(report.totalMs / 1000).toFixed(1)} s (go build ${(report.buildMs / 1000).toFixed(1)} s)`,
      failed === 0 ? "ok" : "bad",
    ),
  ];
}
