/**
 * The part the two matrix suites share: run the whole matrix once (beforeAll), make every cell one
 * test, and check the printed report (one row per scenario, a passing summary).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Painter } from "../support/text-table.js";
import type { JudgedCell } from "../../tools/matrix/shared.js";

/** One matrix as a suite: how to run it, label its cells and print it. */
export interface MatrixSuite<R extends { readonly cells: readonly JudgedCell[] }, C extends JudgedCell> {
  /** The describe title. */
  readonly title: string;
  /** Row labels in order; every row has `width` cells (row-major in the result). */
  readonly rowLabels: readonly string[];
  /** Column labels in order. */
  readonly columnLabels: readonly string[];
  readonly run: () => Promise<R>;
  /** The label of a cell in assertion messages, e.g. `scenario × column`. */
  readonly cellLabel: (cell: C) => string;
  readonly render: (result: R, painter: Painter) => string[];
  readonly passed: (result: R) => boolean;
}

/**
 * Declare the suite: `<row> × <column>` is one test per cell (its reasons must be empty), and
 * "prints one row per scenario and a passing summary" checks the report. The run gets 600 s.
 */
export function describeMatrix<R extends { readonly cells: readonly JudgedCell[] }, C extends JudgedCell>(
  suite: MatrixSuite<R, C>,
): void {
  const width = suite.columnLabels.length;
  const cells = suite.rowLabels.flatMap((row, r) =>
    suite.columnLabels.map((column, c) => [row, column, r * width + c] as const),
  );
  let result: R;
  beforeAll(async () => {
    result = await suite.run();
  }, 600_000);

  describe(suite.title, () => {
    it.each(cells)("%s × %s", (_row, _column, index) => {
      const cell = result.cells[index] as C | undefined;
      expect(cell, "the cell ran").toBeDefined();
      expect(cell?.reasons, cell === undefined ? "" : suite.cellLabel(cell)).toEqual([]);
    });

    it("prints one row per scenario and a passing summary", () => {
      const lines = suite.render(result, { enabled: false, paint: (text: string) => text });
      for (const label of suite.rowLabels) expect(lines.some((l) => l.trimStart().startsWith(label))).toBe(true);
      expect(lines.at(-1)).toContain(`PASS: ${cells.length}/${cells.length} cells passed`);
      expect(suite.passed(result)).toBe(true);
    });
  });
}
