/**
 * The cross-language matrix as a suite: every (scenario × host × client) cell is one test, run by
 * the same engine as `npm run matrix` (real processes: our SubprocessInvoker and the reference CLI
 * driving the Go, Python, Node and shell fixture clients). A cell that cannot run fails with the
 * command that fixes it (never a skip). Also checks that the judge can fail, so a ✓ means something.
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REFERENCE_DIFFERENCES } from "../../generated/ts/spec.js";
import { referenceHost, referenceVariantClass, typescriptHost } from "../../tools/matrix/hosts.js";
import { allPassed, renderMatrix } from "../../tools/matrix/report.js";
import { type CellResult, columns, runMatrix } from "../../tools/matrix/run.js";
import { judge, scenarios } from "../../tools/matrix/scenarios.js";
import { callbackRequest, dispatchEnvelope, textPayload } from "../support/dispatch.js";
import { clientArgs, FIXTURE_CLIENTS } from "../support/fixture-clients.js";
import { describeMatrix } from "./support.js";

const ROWS = scenarios();

describeMatrix({
  title: "cross-language matrix",
  rowLabels: ROWS.map((s) => s.label),
  columnLabels: columns().map((c) => c.label),
  run: () => runMatrix(),
  cellLabel: (cell: CellResult) => `${cell.scenario.label} × ${cell.column.label}`,
  render: renderMatrix,
  passed: allPassed,
});

describe("the judge fails cells that misbehave differently than expected", () => {
  const garbage = ROWS.find((s) => s.id === "garbage");
  const delivered = ROWS.find((s) => s.id === "session.started");
  if (garbage === undefined || delivered === undefined) throw new Error("scenario rows changed");

  it.each([
    ["ts", typescriptHost()],
    ["ref", referenceHost()],
  ] as const)(
    "%s: a delivered answer does not pass the garbage row; garbage does not pass a delivered row",
    async (id, host) => {
      const client = FIXTURE_CLIENTS.node;
      const answered = await host.deliver({
        envelope: garbage.envelope,
        client,
        args: clientArgs({ kind: "echo" }),
        timeoutMs: 10_000,
      });
      expect(judge(garbage, id, answered, true)).not.toEqual([]);
      const broken = await host.deliver({
        envelope: delivered.envelope,
        client,
        args: clientArgs({ kind: "garbage" }),
        timeoutMs: 10_000,
      });
      expect(judge(delivered, id, broken, true).join("; ")).toMatch(/receipt delivered wanted/);
      expect(
        judge(
          delivered,
          id,
          await host.deliver({
            envelope: delivered.envelope,
            client,
            args: clientArgs({ kind: "echo" }),
            timeoutMs: 10_000,
          }),
          false,
        ),
      ).toEqual(["client was never started"]);
    },
  );

  it("maps every reference variant the matrix names to the class our table gives it", () => {
    expect(referenceVariantClass("NonZeroExit")).toBe("transport_error");
    expect(referenceVariantClass("Timeout")).toBe("timeout");
    expect(referenceVariantClass("ParseResponse")).toBe("invalid_request");
    expect(referenceVariantClass("ReceiptEmittedRejected")).toBe("invalid_request");
    expect(referenceVariantClass("NoSuchVariant")).toBeNull();
  });
});

describe("the side-channel difference (row placement-negotiation) holds on both hosts", () => {
  // The matrix sends only placements both hosts deliver; this pins why side_channel_context is not
  // one of them: the reference negotiates it to its manual operator path and never starts the client,
  // this host (no negotiation) delivers it.
  const envelope = dispatchEnvelope(
    callbackRequest("session.started", {
      event_id: "evt-side",
      invocation_id: "inv-side",
      harness_session_id: "sess-side",
    }),
    [
      textPayload({
        payload_id: "side-1",
        client_id: "matrix",
        payload_kind: "side_channel_note",
        format: "text",
        body: "note",
        placement: "side_channel_context",
      }),
    ],
  );

  it("is a row of the differences table", () => {
    expect(REFERENCE_DIFFERENCES.some((d) => d.id === "placement-negotiation")).toBe(true);
  });

  it.each([
    ["ts", typescriptHost(), { status: "delivered", failure_class: null, spawned: true }],
    ["ref", referenceHost(), { status: "failed", failure_class: "operator_required", spawned: false }],
  ] as const)("%s", async (_id, host, want) => {
    const dir = mkdtempSync(join(tmpdir(), "lifeloop-side-"));
    try {
      const mark = join(dir, "spawned");
      const observed = await host.deliver({
        envelope,
        client: FIXTURE_CLIENTS.node,
        args: clientArgs({ kind: "echo" }, mark),
        timeoutMs: 10_000,
      });
      expect({ status: observed.status, failure_class: observed.failure_class, spawned: existsSync(mark) }).toEqual(
        want,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
