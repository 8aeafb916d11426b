/**
 * The printed form of a stream matrix run: one row per scenario, one column per client, each cell
 * ✓ or ✗ with a short reason; the full reasons of failed cells as numbered notes; a summary line.
 */
import type { Cell, Painter } from "../../../test/support/text-table.js";
import { allCellsPassed, failedCell, renderMatrixReport } from "../shared.js";
import type { StreamCell, StreamMatrixResult } from "./run.js";

/** True when every cell passed. */
export function streamMatrixPassed(result: StreamMatrixResult): boolean {
  return allCellsPassed(result.cells);
}

/** The report lines (no trailing newline). */
export function renderStreamMatrix(result: StreamMatrixResult, painter: Painter): string[] {
  const notes: string[] = [];
  const cellText = (cell: StreamCell): Cell =>
    cell.reasons.length === 0
      ? { text: `✓ ${(cell.ms / 1000).toFixed(1)}s`, tone: "ok" }
      : failedCell(notes, `${cell.scenario.label} × ${cell.client.id}`, cell.reasons);
  const width = result.clients.length;
  const rows = result.scenarios.map((scenario, r) => [
    scenario.label,
    { text: scenario.expect, tone: "dim" } as Cell,
    ...result.cells.slice(r * width, (r + 1) * width).map(cellText),
  ]);
  return renderMatrixReport(
    {
      title: "Stream (v2) lifecycle matrix: TypeScript StreamInvoker host",
      intro: [
        ...result.clients.map((c) => `  ${c.id}: ${c.title}`),
        "  every cell: real processes, barriers not sleeps, a watchdog, every process group reaped at the end",
      ],
      header: ["scenario", "expect", ...result.clients.map((c) => c.id)],
      rows,
      notes,
      cells: result.cells,
      shape: `${result.scenarios.length} scenarios × ${result.clients.length} clients`,
      totalMs: result.totalMs,
      buildMs: result.buildMs,
    },
    painter,
  );
}
