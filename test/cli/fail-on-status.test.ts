/**
 * Exit codes a script can trust (issue 29; spec/host-runtime.md, CLI: invoke and session): a client
 * that answers `status: failed` exits 0 by default (as the reference) and 1 with
 * `--fail-on-status failed`; the session summary counts such answers as `answered_failed` beside
 * `delivered`; an empty session is exit 3; a client run through an interpreter is named after its
 * script. Real clients: the Python SDK echo fixture and the TypeScript runner, as real processes.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SCRIPT_INTERPRETERS_TABLE } from "../../generated/ts/spec.js";
import { defaultClientId, isScriptInterpreter } from "../../runtime/cli/client-options.js";
import { REPO_ROOT, runCli } from "../support/cli-process.js";
import { FIXTURE_CLIENTS_DIR } from "../support/fixture-clients.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-fail-on-status-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const PYTHON = execFileSync("/bin/sh", ["-c", "command -v python3"], { encoding: "utf8" }).trim();
const PY_ECHO = join(FIXTURE_CLIENTS_DIR, "python-echo", "echo.py");
const TS_RUNNER = join(FIXTURE_CLIENTS_DIR, "node", "runner-echo.mjs");
const ENVELOPE = join(REPO_ROOT, "examples", "dispatch-envelope.json");
/** A three-event session (the example envelope with three event ids), one line each. */
const SESSION = join(TMP, "session.jsonl");
{
  const base = JSON.parse(readFileSync(ENVELOPE, "utf8")) as { request: { event_id: string } };
  writeFileSync(
    SESSION,
    [1, 2, 3]
      .map((n) => `${JSON.stringify({ ...base, request: { ...base.request, event_id: `evt-${n}` } })}\n`)
      .join(""),
  );
}
const pyFailing = [
  "--program",
  PYTHON,
  "--arg",
  PY_ECHO,
  "--arg",
  "--behave",
  "--arg",
  "fail:internal_error",
  "--timeout-ms",
  "20000",
];

type Summary = Record<string, unknown>;
const summaryOf = (stdout: string): Summary =>
  (JSON.parse(stdout.trim().split("\n").pop() as string) as { summary: Summary }).summary;

describe("--fail-on-status", () => {
  it("invoke: a failed answer exits 0 by default and 1 with --fail-on-status failed (one line on stderr)", () => {
    const plain = runCli(["invoke", ...pyFailing, ENVELOPE]);
    expect(plain.code).toBe(0);
    expect((JSON.parse(plain.stdout) as { response: { status: string } }).response.status).toBe("failed");
    const strict = runCli(["invoke", ...pyFailing, "--fail-on-status", "failed", ENVELOPE]);
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout)).toMatchObject({ response: { status: "failed" }, failure: null });
    expect(strict.stderr).toBe("invoke: the client answered status failed (--fail-on-status)\n");
  });

  it("invoke: a delivered answer still exits 0 under --fail-on-status failed; a bad status is a usage error", () => {
    const ok = runCli([
      "invoke",
      "--program",
      PYTHON,
      "--arg",
      PY_ECHO,
      "--timeout-ms",
      "20000",
      "--fail-on-status",
      "failed",
      ENVELOPE,
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe("");
    const bad = runCli(["invoke", ...pyFailing, "--fail-on-status", "failed,broken", ENVELOPE]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--fail-on-status takes CallbackResponse statuses separated by commas (observed, delivered, skipped, degraded, failed); got "broken"',
    );
  });

  for (const transport of ["subprocess", "stream"] as const) {
    it(`session --transport ${transport}: answered_failed beside delivered; exit 1 only with --fail-on-status failed`, () => {
      const client = [
        "--transport",
        transport,
        "--program",
        process.execPath,
        "--arg",
        TS_RUNNER,
        "--arg",
        "--behave",
        "--arg",
        "throw",
        "--timeout-ms",
        "20000",
      ];
      const plain = runCli(["session", ...client, SESSION]);
      expect(plain.code, plain.stderr).toBe(0);
      const summary = summaryOf(plain.stdout);
      expect(summary).toMatchObject({ events: 3, delivered: 3, answered_failed: 3, failed: 0 });
      expect(Object.keys(summary).slice(0, 5)).toEqual([
        "transport",
        "events",
        "delivered",
        "answered_failed",
        "failed",
      ]);
      const strict = runCli(["session", ...client, "--fail-on-status", "failed", SESSION]);
      expect(strict.code).toBe(1);
      expect(summaryOf(strict.stdout)).toMatchObject({ delivered: 3, answered_failed: 3, failed: 0 });
      expect(strict.stderr.trimEnd().split("\n")).toEqual(
        Array(3).fill("session: the client answered status failed (--fail-on-status)"),
      );
      // The receipts name the script, not the interpreter.
      const first = JSON.parse(plain.stdout.split("\n")[0] as string) as { receipt: { client_id: string } };
      expect(first.receipt.client_id).toBe("runner-echo.mjs");
    });
  }

  it("session: answered_failed is 0 for delivered answers, and the exit stays 0 under the flag", () => {
    const r = runCli([
      "session",
      "--program",
      process.execPath,
      "--arg",
      TS_RUNNER,
      "--timeout-ms",
      "20000",
      "--fail-on-status",
      "failed",
      SESSION,
    ]);
    expect(r.code).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ events: 3, delivered: 3, answered_failed: 0, failed: 0 });
  });
});

describe("session on an empty input, client ids of interpreted clients", () => {
  it("session on an empty file is exit 3, no envelope, nothing spawned", () => {
    const empty = join(TMP, "empty.jsonl");
    writeFileSync(empty, "");
    const mark = join(TMP, "spawned");
    const r = runCli([
      "session",
      "--program",
      PYTHON,
      "--arg",
      PY_ECHO,
      "--arg",
      "--mark",
      "--arg",
      mark,
      "--timeout-ms",
      "20000",
      empty,
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("session: no envelope");
    expect(() => readFileSync(mark)).toThrow();
  });

  it("invoke: --program python3 --arg client.py is client_id client.py; --client-id overrides", () => {
    const named = runCli(["invoke", "--program", PYTHON, "--arg", PY_ECHO, "--timeout-ms", "20000", ENVELOPE]);
    expect(named.code).toBe(0);
    expect((JSON.parse(named.stdout) as { receipt: { client_id: string } }).receipt.client_id).toBe("echo.py");
    const chosen = runCli([
      "invoke",
      "--program",
      PYTHON,
      "--arg",
      PY_ECHO,
      "--timeout-ms",
      "20000",
      "--client-id",
      "mine",
      ENVELOPE,
    ]);
    expect((JSON.parse(chosen.stdout) as { receipt: { client_id: string } }).receipt.client_id).toBe("mine");
    // A program that is not an interpreter keeps its own name.
    const direct = runCli(["invoke", "--program", PY_ECHO, "--timeout-ms", "20000", ENVELOPE]);
    expect((JSON.parse(direct.stdout) as { receipt: { client_id: string } }).receipt.client_id).toBe("echo.py");
  });

  it("defaultClientId follows spec/tables/script-interpreters.json: versions, flags before the script, no script", () => {
    expect(defaultClientId("/usr/bin/python3.12", ["-u", "/srv/hooks/client.py"])).toBe("client.py");
    expect(defaultClientId("/usr/local/bin/node", ["--no-warnings", "./client.mjs", "--stream"])).toBe("client.mjs");
    expect(defaultClientId("/bin/bash", ["-e"])).toBe("bash");
    expect(defaultClientId("/opt/bin/my-client", ["script.py"])).toBe("my-client");
    for (const row of SCRIPT_INTERPRETERS_TABLE.interpreters)
      expect(isScriptInterpreter(`/x/${row.name}`), row.name).toBe(true);
  });
});
