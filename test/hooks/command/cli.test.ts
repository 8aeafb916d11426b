/**
 * `lifeloop-callback hook` and `hook config` as real processes (the built CLI, dist/): exit codes 0
 * and 1 only (a usage error is 1, never 2, which Claude Code reads as "block"); stdout carries the
 * hook JSON only; and every entry `hook config` prints works when run the way the harnesses run a
 * command hook (`/bin/sh -c COMMAND`, the input on stdin).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HARNESS_HOOK_INPUTS, LIMITS, type HookAdapter } from "../../../generated/ts/spec.js";
import { outputSchemaName } from "../../../runtime/hooks/mapping.js";
import { hookSchemaIssues } from "../../../runtime/hooks/request.js";
import { CLI, runCli } from "../../support/cli-process.js";
import { spawnChild } from "../../support/spawn-child.js";
import { claudeInputs, codexRecordings } from "../../support/reference-crate.js";
import { HOOK_CLIENT, hookInputFor, Scratch } from "./support.js";

const s = new Scratch();
afterAll(() => s.remove());
const clientArgs = (): string[] => [
  "--program",
  HOOK_CLIENT,
  "--arg",
  "--log",
  "--arg",
  s.log,
  "--arg",
  "--answer",
  "--arg",
  s.answerFile,
];

describe("lifeloop-callback hook (process)", () => {
  it("a recorded Codex Stop block, end to end: the recorded output on stdout, exit 0", () => {
    const recording = codexRecordings().find((r) => r.name === "codex_cli_0_129_0/stop_block_continuation.json");
    if (!recording) throw new Error("recording missing");
    s.answer({ "frame.ending": { metadata: { directive: { kind: "block", reason: recording.output.reason } } } });
    const r = runCli(
      [
        "hook",
        "--adapter",
        "codex",
        "--event",
        "Stop",
        ...clientArgs(),
        "--timeout-ms",
        "10000",
        "--state-dir",
        s.stateDir,
        "--receipts",
        s.receipts,
      ],
      { input: JSON.stringify(recording.input) },
    );
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
      // An empty path would put state or receipts in the harness's working directory (hostile review).
      [...base, "--state-dir", ""],
      [...base, "--receipts", ""],
      ["config", ...base.slice(2), "--state-dir", ""],
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
    const r = runCli(
      [
        "hook",
        "--adapter",
        "claude",
        "--event",
        "Stop",
        ...clientArgs(),
        "--timeout-ms",
        "1000",
        "--state-dir",
        s.stateDir,
      ],
      { input: JSON.stringify(input) },
    );
    expect(r).toMatchObject({ code: 1, stdout: "" });
    expect(r.stderr).toContain('hook_event_name is "SessionStart"');
    expect(s.delivered()).toEqual([]);
  });

  it("an input valid by its schema that cannot make a valid request (a 513-character session id): exit 1 with rule and pointer, whatever --on-failure says, nothing delivered (issue 25)", () => {
    const input = { ...hookInputFor("claude", "UserPromptSubmit"), session_id: "s".repeat(513) };
    for (const mode of ["open", "closed"]) {
      s.clearLog();
      const r = runCli(
        [
          "hook",
          "--adapter",
          "claude",
          "--event",
          "UserPromptSubmit",
          ...clientArgs(),
          "--timeout-ms",
          "10000",
          "--on-failure",
          mode,
          "--state-dir",
          s.stateDir,
        ],
        { input: JSON.stringify(input) },
      );
      expect({ code: r.code, stdout: r.stdout }, r.stderr).toEqual({ code: 1, stdout: "" });
      expect(r.stderr).toMatch(
        /cannot be turned into a valid frame\.opening request: schema\.max-length at \/request\/harness_session_id \(made from the input's session_id\)/,
      );
      expect(r.stderr).toContain("--on-failure does not apply");
      expect(s.delivered()).toEqual([]);
    }
  });

  it("is exported from the package entry point", async () => {
    const api = await import("../../../runtime/index.js");
    for (const name of ["runHookCommand", "hookConfig", "defaultStateDir", "HARNESS_HOOK_INPUTS"])
      expect(api, name).toHaveProperty(name);
  });

  it("--help prints the usage, exit 0", () => {
    const r = runCli(["hook", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("hook config");
    expect(runCli(["hook", "config", "--adapter", "codex", "-h"]).stdout).toContain("hook config");
  });

  it("--receipts naming a FIFO that nobody reads: exit 1 at once with the reason, before any delivery, never a hang", () => {
    s.clearLog();
    const fifo = join(s.dir, "receipts.fifo");
    execFileSync("mkfifo", [fifo]);
    // SIGKILL at the deadline: a process blocked in open(2) does not run its SIGTERM handler.
    const r = spawnSync(
      process.execPath,
      [
        CLI,
        "hook",
        "--adapter",
        "codex",
        "--event",
        "UserPromptSubmit",
        ...clientArgs(),
        "--timeout-ms",
        "5000",
        "--state-dir",
        s.stateDir,
        "--receipts",
        fifo,
      ],
      {
        input: JSON.stringify(hookInputFor("codex", "UserPromptSubmit")),
        encoding: "utf8",
        timeout: 30_000,
        killSignal: "SIGKILL",
      },
    );
    expect(r.signal, "killed at the 30 s deadline: the hook hung").toBeNull();
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /cannot open the receipts file .*receipts\.fifo \(--receipts\): no such device or address \(ENXIO\); nothing was delivered: it is a FIFO that no process reads/,
    );
    expect(s.delivered()).toEqual([]);
  });

  it("a harness that never closes stdin: exit 1 within --timeout-ms with the reason, nothing delivered", async () => {
    s.clearLog();
    const timeoutMs = 1500;
    const { code, signal, stdout, stderr } = await spawnChild({
      command: process.execPath,
      args: [
        CLI,
        "hook",
        "--adapter",
        "codex",
        "--event",
        "UserPromptSubmit",
        ...clientArgs(),
        "--timeout-ms",
        String(timeoutMs),
        "--state-dir",
        s.stateDir,
      ],
      input: JSON.stringify(hookInputFor("codex", "UserPromptSubmit")),
      keepStdinOpen: true, // and never end()
      watchdogMs: 30_000,
    });
    expect(signal, "killed at the 30 s deadline: the hook hung on stdin").toBeNull();
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain(`standard input was not closed within --timeout-ms ${timeoutMs} ms`);
    expect(s.delivered()).toEqual([]);
  });

  it("a closed stdout or a reader that went away: delivered, then exit 0 quietly (as the reference), never the CLI's I/O code 3", () => {
    const args = [
      CLI,
      "hook",
      "--adapter",
      "codex",
      "--event",
      "UserPromptSubmit",
      ...clientArgs(),
      "--timeout-ms",
      "10000",
      "--state-dir",
      s.stateDir,
    ];
    const input = JSON.stringify(hookInputFor("codex", "UserPromptSubmit"));
    // `>&-`: the shell starts the hook with fd 1 closed.
    const closed = spawnSync("/bin/sh", ["-c", '"$@" >&-', "sh", process.execPath, ...args], {
      input,
      encoding: "utf8",
      timeout: 30_000,
    });
    // To the process it is /dev/null (Node reopens fd 1 there), as with a harness that discards stdout.
    expect([closed.status, closed.stderr]).toEqual([0, ""]);
    // EPIPE: the reader of stdout closed its end before the hook printed.
    const piped = spawnSync("bash", ["-c", 'set -o pipefail; "$@" | true', "bash", process.execPath, ...args], {
      input,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(piped.stderr).not.toContain("cannot write the output");
    expect(piped.status).toBe(0);
    expect(s.delivered().length).toBeGreaterThan(0);
  });

  it("a client argument -h or --help goes to the client: the hook delivers, and stdout is hook JSON, not the usage", () => {
    s.answer({});
    for (const word of ["-h", "--help"]) {
      s.clearLog();
      // hook-client.mjs takes `--path VALUE` and ignores it: the client runs with the word as a value.
      const r = runCli(
        [
          "hook",
          "--adapter",
          "codex",
          "--event",
          "UserPromptSubmit",
          ...clientArgs(),
          "--arg",
          "--path",
          "--arg",
          word,
          "--timeout-ms",
          "10000",
          "--state-dir",
          s.stateDir,
        ],
        { input: JSON.stringify(hookInputFor("codex", "UserPromptSubmit")) },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe("{}\n");
      expect(s.delivered().map((x) => x.event)).toEqual(["frame.opening"]);
      const config = runCli([
        "hook",
        "config",
        "--adapter",
        "codex",
        "--program",
        HOOK_CLIENT,
        "--arg",
        word,
        "--timeout-ms",
        "5000",
      ]);
      expect(config.code, config.stderr).toBe(0);
      expect(
        (JSON.parse(config.stdout) as { hooks: { Stop: { hooks: { command: string }[] }[] } }).hooks.Stop[0]?.hooks[0]
          ?.command,
      ).toContain(`--arg ${word} `);
    }
  });
});

describe("lifeloop-callback hook config", () => {
  for (const a of HARNESS_HOOK_INPUTS.adapters) {
    const adapter = a.adapter as HookAdapter;
    it(`${adapter}: one entry per served event (${a.config_file}), and each entry runs as the harness runs it`, () => {
      s.answer({});
      const timeoutMs = 7000;
      const r = runCli([
        "hook",
        "config",
        "--adapter",
        adapter,
        ...clientArgs(),
        "--timeout-ms",
        String(timeoutMs),
        "--on-failure",
        "closed",
        "--state-dir",
        s.stateDir,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const config = JSON.parse(r.stdout) as {
        hooks: Record<
          string,
          { matcher: string; hooks: { type: string; command: string; timeout?: number; statusMessage?: string }[] }[]
        >;
      };
      expect(Object.keys(config)).toEqual(["hooks"]);
      expect(Object.keys(config.hooks)).toEqual(a.hook_events.map((h) => h.hook_event));
      for (const h of a.hook_events) {
        const groups = config.hooks[h.hook_event] ?? [];
        expect(groups).toHaveLength(1);
        expect(groups[0]?.matcher).toBe(h.matcher);
        const entry = groups[0]?.hooks[0];
        if (!entry) throw new Error("no entry");
        expect(entry.type).toBe("command");
        // The harness must not kill the hook before the hook's own deadlines fire and their outcome
        // is printed: the stdin wait (at most --timeout-ms, asserted below) and every delivery's
        // deadline, each settling within settle_margin_ms; plus the slack, rounded up to seconds.
        const deadlines = timeoutMs + h.delivers.length * (timeoutMs + LIMITS.settle_margin_ms);
        expect(entry.timeout).toBeTypeOf("number");
        const timeoutS = entry.timeout ?? 0;
        expect(timeoutS * 1000).toBeGreaterThanOrEqual(deadlines + HARNESS_HOOK_INPUTS.harness_timeout_slack_ms);
        expect(timeoutS * 1000).toBeLessThan(deadlines + HARNESS_HOOK_INPUTS.harness_timeout_slack_ms + 1000);
        expect(entry.statusMessage).toBe(h.status_message ?? undefined);
        s.clearLog();
        const run = spawnSync("/bin/sh", ["-c", entry.command], {
          input: JSON.stringify(hookInputFor(adapter, h.hook_event)),
          encoding: "utf8",
          timeout: 60_000,
        });
        expect(run.status, `${h.hook_event}: ${run.stderr}`).toBe(0);
        expect(hookSchemaIssues(outputSchemaName(adapter, h.hook_event), JSON.parse(run.stdout))).toEqual([]);
        expect(s.delivered().map((x) => x.event)).toEqual(h.delivers);
      }
    });
  }

  it("makes a relative --receipts or --state-dir absolute: the harness runs the command from its own directory", () => {
    const r = runCli(
      [
        "hook",
        "config",
        "--adapter",
        "codex",
        "--program",
        HOOK_CLIENT,
        "--timeout-ms",
        "5000",
        "--receipts",
        "r.jsonl",
        "--state-dir",
        "state",
      ],
      { cwd: s.dir },
    );
    expect(r.code, r.stderr).toBe(0);
    const command =
      (JSON.parse(r.stdout) as { hooks: { Stop: { hooks: { command: string }[] }[] } }).hooks.Stop[0]?.hooks[0]
        ?.command ?? "";
    expect(command).toContain(` --receipts ${join(s.dir, "r.jsonl")} --state-dir ${join(s.dir, "state")}`);
  });

  it("quotes words for the shell: a program path with a space and a quote", () => {
    const r = runCli([
      "hook",
      "config",
      "--adapter",
      "claude",
      "--program",
      "/opt/my client/it's",
      "--timeout-ms",
      "5000",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const command =
      (JSON.parse(r.stdout) as { hooks: { SessionStart: { hooks: { command: string }[] }[] } }).hooks.SessionStart[0]
        ?.hooks[0]?.command ?? "";
    expect(command).toContain(`'/opt/my client/it'\\''s'`);
    const words = spawnSync("/bin/sh", ["-c", `printf '%s\\n' ${command.slice(command.indexOf("hook "))}`], {
      encoding: "utf8",
    }).stdout.split("\n");
    expect(words).toContain("/opt/my client/it's");
  });

  it("warns on stderr (still exit 0, the block printed) when --program is not an executable file here", () => {
    const missing = runCli([
      "hook",
      "config",
      "--adapter",
      "claude",
      "--program",
      "/nonexistent",
      "--timeout-ms",
      "5000",
    ]);
    expect(missing.code).toBe(0);
    expect(JSON.parse(missing.stdout)).toHaveProperty("hooks");
    expect(missing.stderr).toContain("warning: --program /nonexistent: no such file");
    const fine = runCli(["hook", "config", "--adapter", "claude", "--program", HOOK_CLIENT, "--timeout-ms", "5000"]);
    expect([fine.code, fine.stderr]).toEqual([0, ""]);
  });
});
