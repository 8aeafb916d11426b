/**
 * The cross-language matrix as a suite: every (scenario × host × client) cell is one test, run by
 * the same engine as `npm run matrix` (real processes: our SubprocessInvoker and the reference CLI
 * driving the Go, Python, Node and shell fixture clients). A cell that cannot run fails with the
 * command that fixes it (never a skip). Also checks that the judge can fail, so a ✓ means something.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { clientArgs, FIXTURE_CLIENTS } from "../support/fixture-clients.js";
import { referenceHost, referenceVariantClass, typescriptHost } from "./hosts.js";
import { allPassed, renderMatrix } from "./report.js";
import { columns, runMatrix, type MatrixResult } from "./run.js";
import { judge, scenarios } from "./scenarios.js";

const ROWS = scenarios();
const COLUMNS = columns();
const CELLS = ROWS.flatMap((s, r) => COLUMNS.map((c, col) => [s.label, c.label, r * COLUMNS.length + col] as const));

let result: MatrixResult;
beforeAll(async () => {
  result = await runMatrix();
}, 600_000);

describe("cross-language matrix", () => {
  it.each(CELLS)("%s × %s", (_scenario, _column, index) => {
    const cell = result.cells[index];
    expect(cell, "the cell ran").toBeDefined();
    expect(cell?.reasons, `${cell?.scenario.label} × ${cell?.column.label}`).toEqual([]);
  });

  it("prints one row per scenario and a passing summary", () => {
    const plain = { enabled: false, paint: (text: string) => text };
    const lines = renderMatrix(result, plain);
    for (const scenario of ROWS) expect(lines.some((l) => l.trimStart().startsWith(scenario.label))).toBe(true);
    expect(lines.at(-1)).toContain(`PASS: ${CELLS.length}/${CELLS.length} cells passed`);
    expect(allPassed(result)).toBe(true);
  });
});

describe("the judge fails cells that misbehave differently than expected", () => {
  const garbage = ROWS.find((s) => s.id === "garbage");
  const delivered = ROWS.find((s) => s.id === "session.started");
  if (garbage === undefined || delivered === undefined) throw new Error("scenario rows changed");

  it.each([
    ["ts", typescriptHost()],
    ["ref", referenceHost()],
  ] as const)("%s: a delivered answer does not pass the garbage row; garbage does not pass a delivered row", async (id, host) => {
    const client = FIXTURE_CLIENTS.node;
    const answered = await host.deliver({ envelope: garbage.envelope, client, args: clientArgs({ kind: "echo" }), timeoutMs: 10_000 });
    expect(judge(garbage, id, answered, true)).not.toEqual([]);
    const broken = await host.deliver({ envelope: delivered.envelope, client, args: clientArgs({ kind: "garbage" }), timeoutMs: 10_000 });
    expect(judge(delivered, id, broken, true).join("; ")).toMatch(/receipt delivered wanted/);
    expect(judge(delivered, id, await host.deliver({ envelope: delivered.envelope, client, args: clientArgs({ kind: "echo" }), timeoutMs: 10_000 }), false)).toEqual([
      "client was never started",
    ]);
  });

  it("maps every reference variant the matrix names to the class our table gives it", () => {
    expect(referenceVariantClass("NonZeroExit")).toBe("transport_error");
    expect(referenceVariantClass("Timeout")).toBe("timeout");
    expect(referenceVariantClass("ParseResponse")).toBe("invalid_request");
    expect(referenceVariantClass("ReceiptEmittedRejected")).toBe("invalid_request");
    expect(referenceVariantClass("NoSuchVariant")).toBeNull();
  });
});
