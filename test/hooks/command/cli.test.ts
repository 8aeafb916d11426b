/**
 * `lifeloop-callback hook` and `hook config` as real processes (the built CLI, dist/): exit codes 0
 * and 1 only (a usage error is 1, never 2, which Claude Code reads as "block"); stdout carries the
 * hook JSON only; and every entry `hook config` prints works when run the way the harnesses run a
 * command hook (`/bin/sh -c COMMAND`, the input on stdin).
 */
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { HARNESS_HOOK_INPUTS, type HookAdapter } from "../../../generated/ts/spec.js";
import { outputSchemaName } from "../../../runtime/hooks/mapping.js";
import { hookSchemaIssues } from "../../../runtime/hooks/request.js";
import { runCli } from "../../support/cli-process.js";
import { claudeInputs, codexRecordings } from "../../support/reference-crate.js";
import { HOOK_CLIENT, hookInputFor, Scratch } from "./support.js";

const s = new Scratch();
afterAll(() => s.remove());
const clientArgs = (): string[] => ["--program", HOOK_CLIENT, "--arg", "--log", "--arg", s.log, "--arg", "--answer", "--arg", s.answerFile];

describe("lifeloop-callback hook (process)", () => {
  it("a recorded Codex Stop block, end to end: the recorded output on stdout, exit 0", () => {
    const recording = codexRecordings().find((r) => r.name === "codex_cli_0_129_0/stop_block_continuation.json");
    if (!recording) throw new Error("recording missing");
    s.answer({ "frame.ending": { metadata: { directive: { kind: "block", reason: recording.output.reason } } } });
    const r = runCli(["hook", "--adapter", "codex", "--event", "Stop", ...clientArgs(), "--timeout-ms", "10000", "--state-dir", s.stateDir, "--receipts", s.receipts], { input: JSON.stringify(recording.input) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(recording.output);
    expect(r.stdout.split("\n")).toHaveLength(2);
    expect(s.receiptLines().map((x) => x.event)).toEqual(["frame.ending", "frame.ended"]);
  });

  it("usage errors exit 1 with the usage on stderr, never 2", () => {
    const base = ["--adapter", "codex", "--event", "Stop", "--program", HOOK_CLIENT, "--timeout-ms", "1000"];
    const cases: string[][] = [
      [],
      ["--adapter", "gemini", "--event", "Stop", "--program", HOOK_CLIENT, "--timeout-ms", "1000"],
      base.filter((a) => a !== "--event" && a !== "Stop"),
      ["--adapter", "codex", "--event", "SessionEnd", "--program", HOOK_CLIENT, "--timeout-ms", "1000"],
      ["--adapter", "codex", "--event", "Stop", "--program", "relative/client", "--timeout-ms", "1000"],
      base.slice(0, -2),
      [...base.slice(0, -1), "soon"],
      [...base, "--on-failure", "maybe"],
      [...base, "--verbose"],
      [...base, "extra"],
      ["config", ...base],
    ];
    for (const args of cases) {
      const r = runCli(["hook", ...args], { input: "{}" });
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("usage: lifeloop-callback hook");
    }
  });

  it("an input that disagrees with --event exits 1 and delivers nothing", () => {
    s.clearLog();
    const input = claudeInputs().find((c) => c.hookEvent === "SessionStart")?.input;
    const r = runCli(["hook", "--adapter", "claude", "--event", "Stop", ...clientArgs(), "--timeout-ms", "1000", "--state-dir", s.stateDir], { input: JSON.stringify(input) });
    expect(r).toMatchObject({ code: 1, stdout: "" });
    expect(r.stderr).toContain('hook_event_name is "SessionStart"');
    expect(s.delivered()).toEqual([]);
  });

  it("is exported from the package entry point", async () => {
    const api = await import("../../../runtime/index.js");
    for (const name of ["runHookCommand", "hookConfig", "defaultStateDir", "HARNESS_HOOK_INPUTS"]) expect(api, name).toHaveProperty(name);
  });

  it("--help prints the usage, exit 0", () => {
    const r = runCli(["hook", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("hook config");
  });
});

describe("lifeloop-callback hook config", () => {
  for (const a of HARNESS_HOOK_INPUTS.adapters) {
    const adapter = a.adapter as HookAdapter;
    it(`${adapter}: one entry per served event (${a.config_file}), and each entry runs as the harness runs it`, () => {
      s.answer({});
      const timeoutMs = 7000;
      const r = runCli(["hook", "config", "--adapter", adapter, ...clientArgs(), "--timeout-ms", String(timeoutMs), "--on-failure", "closed", "--state-dir", s.stateDir]);
      expect(r.code, r.stderr).toBe(0);
      const config = JSON.parse(r.stdout) as { hooks: Record<string, { matcher: string; hooks: { type: string; command: string; timeout?: number; statusMessage?: string }[] }[]> };
      expect(Object.keys(config)).toEqual(["hooks"]);
      expect(Object.keys(config.hooks)).toEqual(a.hook_events.map((h) => h.hook_event));
      for (const h of a.hook_events) {
        const groups = config.hooks[h.hook_event] ?? [];
        expect(groups).toHaveLength(1);
        expect(groups[0]?.matcher).toBe(h.matcher);
        const entry = groups[0]?.hooks[0];
        if (!entry) throw new Error("no entry");
        expect(entry.type).toBe("command");
        expect(entry.timeout).toBe(Math.ceil((h.delivers.length * timeoutMs + HARNESS_HOOK_INPUTS.harness_timeout_slack_ms) / 1000));
        expect(entry.statusMessage).toBe(h.status_message ?? undefined);
        s.clearLog();
        const run = spawnSync("/bin/sh", ["-c", entry.command], { input: JSON.stringify(hookInputFor(adapter, h.hook_event)), encoding: "utf8", timeout: 60_000 });
        expect(run.status, `${h.hook_event}: ${run.stderr}`).toBe(0);
        expect(hookSchemaIssues(outputSchemaName(adapter, h.hook_event), JSON.parse(run.stdout))).toEqual([]);
        expect(s.delivered().map((x) => x.event)).toEqual(h.delivers);
      }
    });
  }

  it("quotes words for the shell: a program path with a space and a quote", () => {
    const r = runCli(["hook", "config", "--adapter", "claude", "--program", "/opt/my client/it's", "--timeout-ms", "5000"]);
    expect(r.code, r.stderr).toBe(0);
    const command = (JSON.parse(r.stdout) as { hooks: { SessionStart: { hooks: { command: string }[] }[] } }).hooks.SessionStart[0]?.hooks[0]?.command ?? "";
    expect(command).toContain(`'/opt/my client/it'\\''s'`);
    const words = spawnSync("/bin/sh", ["-c", `printf '%s\\n' ${command.slice(command.indexOf("hook "))}`], { encoding: "utf8" }).stdout.split("\n");
    expect(words).toContain("/opt/my client/it's");
  });
});
