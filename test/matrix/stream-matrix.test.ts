/**
 * The stream (v2) lifecycle matrix as a suite: every (scenario × client) cell is one test, run by
 * the same engine as `npm run matrix:stream` (our StreamInvoker driving the Go and Python SDK
 * fixtures and the hand-written raw client as real processes). A cell that cannot run fails with
 * the reason (never a skip). Also checks that the judge can fail, so a ✓ means something.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { STREAM_CLIENT_IDS, streamClients } from "../../tools/matrix/stream/clients.js";
import { renderStreamMatrix, streamMatrixPassed } from "../../tools/matrix/stream/report.js";
import { runCell, runStreamMatrix, type StreamCell } from "../../tools/matrix/stream/run.js";
import { streamScenarios, type StreamScenario } from "../../tools/matrix/stream/scenarios.js";
import { describeMatrix } from "./support.js";

const ROWS = streamScenarios();

describeMatrix({
  title: "stream (v2) lifecycle matrix",
  rowLabels: ROWS.map((s) => s.label),
  columnLabels: STREAM_CLIENT_IDS,
  run: () => runStreamMatrix(),
  cellLabel: (cell: StreamCell) => `${cell.scenario.label} × ${cell.client.id}`,
  render: renderStreamMatrix,
  passed: streamMatrixPassed,
});

describe("the stream matrix judge fails cells that misbehave", () => {
  const scratch = mkdtempSync(join(tmpdir(), "lifeloop-stream-judge-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const raw = streamClients(join(scratch, "no-go-client")).raw;
  const row = (id: string): StreamScenario => {
    const found = ROWS.find((s) => s.id === id);
    if (found === undefined) throw new Error(`no row ${id}`);
    return found;
  };

  it("a client that answers with a JSON-RPC error fails the session row", async () => {
    const cell = await runCell(
      row("session"),
      { ...raw, args: (plan) => raw.args({ ...plan, raw: "error-reply:-32603" }) },
      scratch,
    );
    expect(cell.reasons.join("; ")).toMatch(/wanted the delivered answer/);
  });

  it("a client that ignores EOF fails the EOF row; one that exits at EOF fails the SIGTERM row", async () => {
    const ignoring = await runCell(
      row("eof"),
      { ...raw, args: (plan) => raw.args({ ...plan, raw: "ignore-term" }) },
      scratch,
    );
    expect(ignoring.reasons.join("; ")).toMatch(/did not exit at stdin EOF/);
    const exiting = await runCell(
      row("sigterm"),
      { ...raw, args: (plan) => raw.args({ ...plan, raw: "echo" }) },
      scratch,
    );
    expect(exiting.reasons.join("; ")).toMatch(/SIGTERM was never needed/);
  }, 30_000);
});
