/**
 * The printed form of a matrix run: one row per scenario, one column per (host × client), each
 * cell ✓ or ✗ with a short reason; the full reasons of failed cells as numbered notes; a summary.
 */
import type { Cell, Painter } from "../../test/support/text-table.js";
import { HOST_IDS, typescriptHost, referenceHost } from "./hosts.js";
import type { CellResult, MatrixResult } from "./run.js";
import { expectedText, variantText } from "./scenarios.js";
import { allCellsPassed, failedCell, renderMatrixReport } from "./shared.js";

/** True when every cell passed. */
export function allPassed(result: MatrixResult): boolean {
  return allCellsPassed(result.cells);
}

/** The report lines (no trailing newline). */
export function renderMatrix(result: MatrixResult, painter: Painter): string[] {
  const notes: string[] = [];
  const cellText = (cell: CellResult): Cell =>
    cell.reasons.length === 0
      ? { text: "✓", tone: "ok" }
      : failedCell(notes, `${cell.scenario.label} × ${cell.column.label}`, cell.reasons);
  const width = result.columns.length;
  const rows = result.scenarios.map((scenario, r) => [
    scenario.label,
    expectedText(scenario),
    { text: variantText(scenario), tone: "dim" } as Cell,
    ...result.cells.slice(r * width, (r + 1) * width).map(cellText),
  ]);
  const hosts = { ts: typescriptHost().title, ref: referenceHost().title };
  return renderMatrixReport(
    {
      title: "Cross-language matrix",
      intro: [
        ...HOST_IDS.map((id) => `  ${id}: ${hosts[id]}`),
        "  clients: go (generated Go SDK), python (generated Python SDK), node, shell — test/fixtures/client-lang-neutral/",
        "  ref failures print no receipt (exit 1): the class is read from the reference variant its message names",
      ],
      header: ["scenario", "expect", "variant (ts | ref)", ...result.columns.map((c) => c.label)],
      rows,
      notes,
      cells: result.cells,
      shape: `${result.scenarios.length} scenarios × ${result.columns.length} columns`,
      totalMs: result.totalMs,
      buildMs: result.buildMs,
    },
    painter,
  );
}
