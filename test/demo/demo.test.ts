/**
 * `npm run demo` as a newcomer runs it: `tsx demo/main.ts` as a real process (stdout is a pipe, so
 * no colours). Asserts exit 0, the ten session events delivered to both the Go and the Python
 * client (in order, with receipts numbered 1..10), the rows of the failure section, and that the
 * receipts file it names last exists and holds only valid LifecycleReceipts (our validator), and
 * that the `session` command it prints runs as printed on the session file it wrote.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LifecycleReceipt } from "../../generated/ts/types.js";
import { parseWireDocument } from "../../runtime/wire/validate.js";
import { SESSION_EVENTS } from "../../demo/session.js";
import { REPO_ROOT } from "../support/fixture-clients.js";
import { runCli, runTs, type ProcessResult } from "../support/cli-process.js";

let run: ProcessResult;
let lines: string[];
let receiptsPath: string;

beforeAll(() => {
  run = runTs("demo/main.ts", [], { timeoutMs: 300_000, env: { NO_COLOR: "" } });
  lines = run.stdout.trimEnd().split("\n");
  receiptsPath = lines.at(-1) ?? "";
}, 320_000);

/** The `npx --no-install lifeloop-callback session ...` command the demo prints, as arguments after the program name, or null. */
function printedSessionCommand(): string[] | null {
  const prefix = "npx --no-install lifeloop-callback session ";
  const line = lines.find((l) => l.trim().startsWith(prefix));
  return line === undefined ? null : line.trim().split(/\s+/).slice(3);
}

afterAll(() => {
  if (receiptsPath.endsWith(".jsonl") && isAbsolute(receiptsPath)) rmSync(receiptsPath, { force: true });
  const file = printedSessionCommand()?.at(-1);
  if (file?.endsWith(".jsonl") === true) rmSync(join(REPO_ROOT, file), { force: true });
});

/** The lines of the section that starts at the first line containing `start`, up to the next blank line. */
function section(start: string): string[] {
  const from = lines.findIndex((l) => l.includes(start));
  expect(from, `a line containing ${JSON.stringify(start)}\n${run.stdout}`).toBeGreaterThanOrEqual(0);
  const to = lines.findIndex((l, i) => i > from && l.trim() === "");
  return lines.slice(from, to === -1 ? undefined : to);
}

function receipts(): LifecycleReceipt[] {
  return readFileSync(receiptsPath, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((line, i) => {
      const parsed = parseWireDocument("LifecycleReceipt", Buffer.from(line, "utf8"));
      if (!parsed.ok) throw new Error(`receipt line ${i + 1} is invalid: ${JSON.stringify(parsed.issues[0])}\n${line}`);
      return parsed.value;
    });
}

describe("npm run demo", () => {
  it("writes its session to a file and prints a session command that runs as printed, over the stream", () => {
    const args = printedSessionCommand();
    expect(args, run.stdout).not.toBeNull();
    const r = runCli(args ?? [], { cwd: REPO_ROOT, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout
      .trimEnd()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            event_id?: string;
            summary?: { events: number; delivered: number; failed: number; spawns: number };
          },
      );
    expect(out.at(-1)?.summary).toMatchObject({
      events: SESSION_EVENTS.length,
      delivered: SESSION_EVENTS.length,
      failed: 0,
      spawns: 1,
    });
  });

  it("exits 0 without complaints, with no colour codes on a pipe", () => {
    expect(run.code, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).not.toContain("\u001b[");
  });

  it("reports the regeneration and the client checks", () => {
    expect(section("1. Regenerate").join("\n")).toMatch(/\d+ files generated in [\d.]+ s: no drift/);
    const clients = section("2. Fixture clients").join("\n");
    expect(clients).toMatch(/go\s+built \.cache\/bin\/go-echo with go build .*answered a probe with delivered/);
    expect(clients).toMatch(/python\s+Python 3\.\d+\.\d+ runs .*answered a probe with delivered/);
  });

  it.each([
    ["Go client", "go"],
    ["Python client", "python"],
  ])("delivers the ten session events to the %s, with receipts 1..10", (title, lang) => {
    const table = section(title);
    const rows = table.filter((l) => /^\s+\d+\s/.test(l));
    expect(rows.map((r) => r.trim().split(/\s+/).slice(0, 2))).toEqual(
      SESSION_EVENTS.map((event, i) => [String(i + 1), event]),
    );
    rows.forEach((row, i) => {
      expect(row).toMatch(
        new RegExp(
          `\\sdelivered\\s+—\\s+rcpt-[a-z0-9]+-${lang}-${String(i + 1).padStart(2, "0")}\\s+${i + 1}\\s+\\d+$`,
        ),
      );
    });
    expect(table.join("\n")).toContain("10/10 events delivered, receipts numbered 1,2,3,4,5,6,7,8,9,10");
  });

  it("shows each misbehaving case with its failure class, variant and receipt", () => {
    const table = section("4. When things go wrong").join("\n");
    expect(table).toMatch(/hanging client .*\sfailed\s+timeout\s+timeout\s+rcpt-\S+-failures-01\s+yes\s/);
    expect(table).toMatch(
      /crashing client .*\sfailed\s+transport_error\s+non_zero_exit\s+rcpt-\S+-failures-02\s+yes\s/,
    );
    expect(table).toMatch(
      /garbage on stdout .*\sfailed\s+invalid_request\s+parse_response\s+rcpt-\S+-failures-03\s+yes\s/,
    );
    expect(table).toMatch(
      /receipt\.emitted .*\srefused\s+invalid_request\s+receipt_emitted_rejected\s+— \(none made\)\s+no\s/,
    );
  });

  it("prints the receipts file last; it holds 23 valid LifecycleReceipts, numbered per run", () => {
    expect(isAbsolute(receiptsPath)).toBe(true);
    expect(receiptsPath).toMatch(/\/\.cache\/demo\/receipts-\d{8}T\d{6}Z\.jsonl$/);
    expect(existsSync(receiptsPath)).toBe(true);
    const all = receipts();
    expect(all).toHaveLength(23);
    const runs = new Map<string, LifecycleReceipt[]>();
    for (const r of all) runs.set(r.harness_run_id ?? "", [...(runs.get(r.harness_run_id ?? "") ?? []), r]);
    const [go, python, failures] = [...runs.values()];
    for (const session of [go, python]) {
      expect(session?.map((r) => [r.event, r.sequence, r.status, r.failure_class])).toEqual(
        SESSION_EVENTS.map((e, i) => [e, i + 1, "delivered", null]),
      );
      expect(new Set(session?.map((r) => r.harness_session_id)).size).toBe(1);
      for (const r of session ?? []) expect(run.stdout).toContain(r.receipt_id);
    }
    expect(failures?.map((r) => [r.sequence, r.status, r.failure_class])).toEqual([
      [1, "failed", "timeout"],
      [2, "failed", "transport_error"],
      [3, "failed", "invalid_request"],
    ]);
    expect(all.some((r) => r.event === "receipt.emitted")).toBe(false);
  });
});
