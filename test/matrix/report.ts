/**
 * The printed form of a matrix run: one row per scenario, one column per (host × client), each
 * cell ✓ or ✗ with a short reason; the full reasons of failed cells as numbered notes; a summary.
 */
import { renderTable, type Cell, type Painter } from "../support/text-table.js";
import { HOST_IDS, typescriptHost, referenceHost } from "./hosts.js";
import type { CellResult, MatrixResult } from "./run.js";
import { expectedText, variantText } from "./scenarios.js";

/** Longest in-cell reason (code points); the full text is in the notes. */
const SHORT_REASON = 28;

function shorten(text: string): string {
  const chars = [...text];
  return chars.length <= SHORT_REASON ? text : `${chars.slice(0, SHORT_REASON - 1).join("")}…`;
}

/** True when every cell passed. */
export function allPassed(result: MatrixResult): boolean {
  return result.cells.every((c) => c.reasons.length === 0);
}

/** The report lines (no trailing newline). */
export function renderMatrix(result: MatrixResult, painter: Painter): string[] {
  const notes: string[] = [];
  const cellText = (cell: CellResult): Cell => {
    if (cell.reasons.length === 0) return { text: "✓", tone: "ok" };
    notes.push(`[${notes.length + 1}] ${cell.scenario.label} × ${cell.column.label}: ${cell.reasons.join("; ")}`);
    return { text: `✗ [${notes.length}] ${shorten(cell.reasons[0] ?? "")}`, tone: "bad" };
  };
  const width = result.columns.length;
  const rows = result.scenarios.map((scenario, r) => [
    scenario.label,
    expectedText(scenario),
    { text: variantText(scenario), tone: "dim" } as Cell,
    ...result.cells.slice(r * width, (r + 1) * width).map(cellText),
  ]);
  const passed = result.cells.filter((c) => c.reasons.length === 0).length;
  const failed = result.cells.length - passed;
  const hosts = { ts: typescriptHost().title, ref: referenceHost().title };
  return [
    painter.paint("Cross-language matrix", "bold"),
    ...HOST_IDS.map((id) => `  ${id}: ${hosts[id]}`),
    "  clients: go (generated Go SDK), python (generated Python SDK), node, shell — test/fixtures/client-lang-neutral/",
    "  ref failures print no receipt (exit 1): the class is read from the reference variant its message names",
    "",
    ...renderTable(["scenario", "expect", "variant (ts | ref)", ...result.columns.map((c) => c.label)], rows, painter, "  "),
    "",
    ...notes,
    ...(notes.length > 0 ? [""] : []),
    painter.paint(
      `${failed === 0 ? "PASS" : "FAIL"}: ${passed}/${result.cells.length} cells passed (${result.scenarios.length} scenarios × ${result.columns.length} columns)` +
        `${failed > 0 ? `, ${failed} failed` : ""} in ${(result.totalMs / 1000).toFixed(1)} s (go build ${(result.buildMs / 1000).toFixed(1)} s)`,
      failed === 0 ? "ok" : "bad",
    ),
  ];
}
