/**
 * The receipt ledger against the reference CLI (lifeloop-cli 0.9.0, .cache/lifeloop-ref; `bash
 * tools/setup/prepare.sh` installs it) on one shared ledger file: each CLI writes (`invoke` /
 * `event invoke --ledger`, `receipt emit --ledger`) and each reads (`receipt list|get`).
 * Sequences continue across both, a retry recorded by one CLI replays in the other (the same stored
 * receipt), other content under a recorded key conflicts in both (exit 1), and the listings and
 * lookups are JSON-equal. Envelopes carry no payloads or payload_refs (the reference's payload
 * receipts would differ: spec/tables/reference-differences.json `ledger-payload-receipts-replay`).
 * Both directions of creation: a ledger the reference created, one this toolkit created.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { CallbackRequest } from "../../generated/ts/types.js";
import { REFERENCE_CLI, REFERENCE_INSTALL_COMMAND } from "../support/reference-cli.js";
import { runCli } from "../support/cli-process.js";
import { FIXTURE_CLIENTS } from "../support/fixture-clients.js";
import { ageLedger, emitInput, ledgerEnvelope, ledgerRequest, rawDb } from "./ledger-support.js";

const dir = mkdtempSync(join(tmpdir(), "lifeloop-ledger-diff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ECHO = FIXTURE_CLIENTS.shell.program;
const CLIENT = "diff-client";
let n = 0;

interface Run {
  readonly code: number | null;
  readonly stderr: string;
  /** The receipt printed (ours: the invoke line's `receipt`), or null. */
  readonly receipt: Record<string, unknown> | null;
  readonly replayed: boolean;
}

function reference(args: readonly string[], input = ""): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(REFERENCE_CLI, args, { input, encoding: "utf8", timeout: 60_000 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function parsed(stdout: string): Record<string, unknown> | null {
  return stdout.trim() === "" ? null : (JSON.parse(stdout) as Record<string, unknown>);
}

/** One delivery through `who`'s CLI with the ledger (the client is spawned by both). */
function invoke(who: "ours" | "reference", ledger: string, request: CallbackRequest): Run {
  const receiptId = `rcpt-${who}-${++n}`;
  if (who === "reference") {
    const r = reference(
      [
        "event",
        "invoke",
        "--client-cmd",
        ECHO,
        "--client-id",
        CLIENT,
        "--ledger",
        ledger,
        "--receipt-id",
        receiptId,
        "--at-epoch-s",
        "1700000000",
      ],
      JSON.stringify(ledgerEnvelope(request)),
    );
    return { code: r.code, stderr: r.stderr, receipt: r.code === 0 ? parsed(r.stdout) : null, replayed: false };
  }
  const r = runCli(
    [
      "invoke",
      "--program",
      ECHO,
      "--timeout-ms",
      "10000",
      "--client-id",
      CLIENT,
      "--ledger",
      ledger,
      "--receipt-id",
      receiptId,
      "--at-epoch-s",
      "1700000000",
    ],
    { input: JSON.stringify(ledgerEnvelope(request)) },
  );
  const line = parsed(r.stdout);
  return {
    code: r.code,
    stderr: r.stderr,
    receipt: (line?.receipt as Record<string, unknown> | null) ?? null,
    replayed: line?.replayed === true,
  };
}

/** One `receipt emit --ledger` through `who`'s CLI. */
function emit(who: "ours" | "reference", ledger: string, request: CallbackRequest): Run {
  const input = emitInput(request, { clientId: CLIENT, receiptId: `rcpt-${who}-emit-${++n}` });
  const r =
    who === "reference"
      ? reference(["receipt", "emit", "--ledger", ledger], input)
      : runCli(["receipt", "emit", "--ledger", ledger], { input });
  return { code: r.code, stderr: r.stderr, receipt: r.code === 0 ? parsed(r.stdout) : null, replayed: false };
}

function list(who: "ours" | "reference", ledger: string): unknown {
  const r =
    who === "reference"
      ? reference(["receipt", "list", "--ledger", ledger])
      : runCli(["receipt", "list", "--ledger", ledger]);
  expect(r.code, `${who} receipt list: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

function get(
  who: "ours" | "reference",
  ledger: string,
  key: string,
): { code: number | null; stdout: unknown; stderr: string } {
  const args = [
    "receipt",
    "get",
    "--ledger",
    ledger,
    "--idempotency-key",
    key,
    "--client-id",
    CLIENT,
    "--adapter-id",
    "codex",
  ];
  const r = who === "reference" ? reference(args) : runCli(args);
  return { code: r.code, stdout: r.code === 0 ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}

beforeAll(() => {
  if (!existsSync(REFERENCE_CLI))
    throw new Error(
      `the reference CLI is missing at ${REFERENCE_CLI}: ${REFERENCE_INSTALL_COMMAND} (or bash tools/setup/prepare.sh)`,
    );
  const probe = reference(
    ["receipt", "emit"],
    emitInput(ledgerRequest({ eventId: "probe" }), { clientId: CLIENT, receiptId: "rcpt-probe" }),
  );
  if (probe.code !== 0)
    throw new Error(
      `the reference CLI at ${REFERENCE_CLI} does not take a ${WIRE_VERSION} receipt (exit ${probe.code}: ${probe.stderr.trim()}): it must be the release this tree's wire version names (${REFERENCE_INSTALL_COMMAND})`,
    );
});

describe.each(["reference", "ours"] as const)("one ledger, both CLIs (created by %s)", (creator) => {
  const other = creator === "reference" ? "ours" : "reference";
  const ledger = join(dir, `shared-${creator}.sqlite`);
  const req = (eventId: string, key: string | null, invocationId?: string) =>
    ledgerRequest({ eventId, key, runId: "run-shared", ...(invocationId ? { invocationId } : {}) });

  it("sequences continue across the two CLIs; replays and conflicts agree; listings and lookups are JSON-equal", () => {
    const first = invoke(creator, ledger, req("e1", "k1"));
    const second = invoke(other, ledger, req("e2", "k2"));
    const third = emit(creator, ledger, req("e3", "k3"));
    const fourth = emit(other, ledger, req("e4", "k4"));
    for (const [r, seq] of [
      [first, 1],
      [second, 2],
      [third, 3],
      [fourth, 4],
    ] as const) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.receipt?.sequence).toBe(seq);
    }

    // A retry under a new invocation id, in the other CLI: the stored receipt, unchanged.
    const retryOfFirst = invoke(other, ledger, req("e1", "k1", "inv-retry-1"));
    const retryOfSecond = invoke(creator, ledger, req("e2", "k2", "inv-retry-2"));
    expect([retryOfFirst.code, retryOfSecond.code]).toEqual([0, 0]);
    expect(retryOfFirst.receipt).toEqual(first.receipt);
    expect(retryOfSecond.receipt).toEqual(second.receipt);
    const oursRetry = creator === "ours" ? retryOfSecond : retryOfFirst;
    expect(oursRetry.replayed).toBe(true);

    // Other content under a recorded key: a conflict in both, nothing written.
    const conflictInOther = invoke(other, ledger, req("e-other", "k1"));
    const conflictInCreator = invoke(creator, ledger, req("e-other", "k2"));
    expect([conflictInOther.code, conflictInCreator.code]).toEqual([1, 1]);
    const ours = creator === "ours" ? conflictInCreator : conflictInOther;
    expect(ours.stderr).toMatch(/state_conflict/);

    // Receipts without a key keep numbering.
    const keyless = [invoke(creator, ledger, req("e5", null)), invoke(other, ledger, req("e6", null))];
    expect(keyless.map((r) => r.receipt?.sequence)).toEqual([5, 6]);

    const listed = list("ours", ledger);
    expect(list("reference", ledger)).toEqual(listed);
    expect(listed).toEqual([first, second, third, fourth, ...keyless].map((r) => r.receipt));
    for (const key of ["k1", "k2", "k3", "k4"]) {
      const a = get("ours", ledger, key);
      const b = get("reference", ledger, key);
      expect([a.code, b.code], key).toEqual([0, 0]);
      expect(a.stdout, key).toEqual(b.stdout);
    }
    for (const who of ["ours", "reference"] as const) {
      const miss = get(who, ledger, "k-absent");
      expect(miss.code, who).toBe(3);
      expect(miss.stderr, who).toContain('{"error":"not_found"}');
    }

    const db = rawDb(ledger);
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(db.pragma("user_version", { simple: true })).toBe(2);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all()).toEqual([
        { name: "receipts_single_wire_schema" },
      ]);
    } finally {
      db.close();
    }
  });
});

describe("a ledger of another wire version, both CLIs", () => {
  it("both refuse to write (exit 3) and both still list it alike", () => {
    const ledger = join(dir, "aged.sqlite");
    expect(invoke("ours", ledger, ledgerRequest({ eventId: "e1", key: "k1", runId: "run" })).code).toBe(0);
    ageLedger(ledger, "lifeloop.v0.1");
    for (const who of ["ours", "reference"] as const) {
      const r = invoke(who, ledger, ledgerRequest({ eventId: "e2", runId: "run" }));
      expect(r.code, `${who}: ${r.stderr}`).toBe(3);
      expect(r.stderr, who).toMatch(/lifeloop\.v0\.1/);
    }
    const listed = list("ours", ledger) as { schema_version: string }[];
    expect(list("reference", ledger)).toEqual(listed);
    expect(listed.map((r) => r.schema_version)).toEqual(["lifeloop.v0.1"]);
  });
});
