/**
 * The printed form of a stream matrix run: one row per scenario, one column per client, each cell
 * ✓ or ✗ with a short reason; the full reasons of failed cells as numbered notes; a summary line.
 */
import { renderTable, type Cell, type Painter } from "../support/text-table.js";
import type { StreamCell, StreamMatrixResult } from "./run.js";

/** Longest in-cell reason (code points); the full text is in the notes. */
const SHORT_REASON = 28;

function shorten(text: string): string {
  const chars = [...text];
  return chars.length <= SHORT_REASON ? text : `${chars.slice(0, SHORT_REASON - 1).join("")}…`;
}

/** True when every cell passed. */
export function streamMatrixPassed(result: StreamMatrixResult): boolean {
  return result.cells.every((c) => c.reasons.length === 0);
}

/** The report lines (no trailing newline). */
export function renderStreamMatrix(result: StreamMatrixResult, painter: Painter): string[] {
  const notes: string[] = [];
  const cellText = (cell: StreamCell): Cell => {
    if (cell.reasons.length === 0) return { text: `✓ ${(cell.ms / 1000).toFixed(1)}s`, tone: "ok" };
    notes.push(`[${notes.length + 1}] ${cell.scenario.label} × ${cell.client.id}: ${cell.reasons.join("; ")}`);
    return { text: `✗ [${notes.length}] ${shorten(cell.reasons[0] ?? "")}`, tone: "bad" };
  };
  const width = result.clients.length;
  const rows = result.scenarios.map((scenario, r) => [scenario.label, { text: scenario.expect, tone: "dim" } as Cell, ...result.cells.slice(r * width, (r + 1) * width).map(cellText)]);
  const passed = result.cells.filter((c) => c.reasons.length === 0).length;
  const failed = result.cells.length - passed;
  return [
    painter.paint("Stream (v2) lifecycle matrix: TypeScript StreamInvoker host", "bold"),
    ...result.clients.map((c) => `  ${c.id}: ${c.title}`),
    "  every cell: real processes, barriers not sleeps, a watchdog, every process group reaped at the end",
    "",
    ...renderTable(["scenario", "expect", ...result.clients.map((c) => c.id)], rows, painter, "  "),
    "",
    ...notes,
    ...(notes.length > 0 ? [""] : []),
    painter.paint(
      `${failed === 0 ? "PASS" : "FAIL"}: ${passed}/${result.cells.length} cells passed (${result.scenarios.length} scenarios × ${result.clients.length} clients)` +
        `${failed > 0 ? `, ${failed} failed` : ""} in ${(result.totalMs / 1000).toFixed(1)} s (go build ${(result.buildMs / 1000).toFixed(1)} s)`,
      failed === 0 ? "ok" : "bad",
    ),
  ];
}
