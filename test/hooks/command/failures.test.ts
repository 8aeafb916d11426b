/**
 * Failure paths of `lifeloop-callback hook` (in process; every delivery a real client process):
 * a client failure at every served hook event under --on-failure open and closed (the blocking form
 * where the mapping gives the event one, else the open output saying so), every way a client can
 * fail, a failure at the second of two events, refused inputs (exit 1, nothing on stdout), the
 * prompt bound, receipts of failures, and a state directory or receipts file that cannot be used
 * (refused before any client runs).
 */
import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HARNESS_HOOK_INPUTS, type HookAdapter, LIMITS } from "../../../generated/ts/spec.js";
import type { LifecycleEventKind } from "../../../generated/ts/types.js";
import { hookEventFor, outputSchemaName } from "../../../runtime/hooks/mapping.js";
import { runHookCommand } from "../../../runtime/hooks/command/run.js";
import { HookStateStore } from "../../../runtime/hooks/command/state.js";
import { hookSchemaIssues } from "../../../runtime/hooks/request.js";
import { FIXTURE_CLIENTS } from "../../support/fixture-clients.js";
import { callHook, hookInputFor, printed, type Scratch, ScratchPool } from "./support.js";

const pool = new ScratchPool();
const scratch = (): Scratch => pool.make();
afterAll(pool.removeAll);

const input = hookInputFor;
const FAILED = {
  "*": {
    status: "failed",
    failure_class: "internal_error",
    retry_class: "safe_retry",
    metadata: { reason: "the store is down" },
  },
};

describe("a client failure at every served hook event", () => {
  for (const a of HARNESS_HOOK_INPUTS.adapters) {
    for (const h of a.hook_events) {
      const adapter = a.adapter as HookAdapter;
      it(`${adapter} ${h.hook_event}: open continues, closed blocks where the event can`, async () => {
        const s = scratch().answer(FAILED);
        const open = await callHook(s, { adapter, hookEvent: h.hook_event, input: input(adapter, h.hook_event) });
        expect(open.exitCode).toBe(0);
        const openBody = printed(open);
        expect(openBody).toEqual({ systemMessage: expect.stringContaining("the store is down") });
        expect(openBody.systemMessage).toContain("--on-failure open");
        expect(open.stderr).toContain("status failed (failure_class internal_error): the store is down");
        expect(open.delivered, "the sequence stops at the failing event").toEqual([h.delivers[0]]);
        expect(s.receiptLines().map((r) => r.status)).toEqual(["failed"]);

        const closed = await callHook(s, {
          adapter,
          hookEvent: h.hook_event,
          input: input(adapter, h.hook_event),
          onFailure: "closed",
        });
        expect(closed.exitCode).toBe(0);
        const body = printed(closed);
        expect(hookSchemaIssues(outputSchemaName(adapter, h.hook_event), body)).toEqual([]);
        const block = hookEventFor(adapter, h.renders as LifecycleEventKind)?.block;
        if (block === "ignored" || block === "refused") {
          expect(body).toEqual({ systemMessage: expect.stringContaining("has no blocking form") });
          expect(closed.stderr).toContain("has no blocking form");
        } else {
          expect(body.decision).toBe("block");
          expect(body.reason).toContain("the store is down");
        }
      });
    }
  }
});

describe("every way a client fails is reported, never silent", () => {
  const prompt = input("codex", "UserPromptSubmit");
  const cases: [string, { path: string; args: string[] } | null, Record<string, unknown>, number, RegExp][] = [
    ["non-zero exit", null, { "*": { $exit: 3 } }, 10_000, /non_zero_exit \(transport_error\)/],
    ["not JSON", { path: FIXTURE_CLIENTS.node.program, args: ["--behave", "garbage"] }, {}, 10_000, /parse_response/],
    [
      "a hang (deadline)",
      { path: FIXTURE_CLIENTS.node.program, args: ["--behave", "hang"] },
      {},
      600,
      /timeout \(timeout\)/,
    ],
    ["no such program", { path: "/nonexistent/lifeloop-client", args: [] }, {}, 10_000, /spawn \(transport_error\)/],
    [
      "a blank block reason",
      null,
      { "*": { metadata: { directive: { kind: "block", reason: " \u3000" } } } },
      10_000,
      /cannot be rendered: invalid_directive/,
    ],
    [
      "a directive of an unknown kind",
      null,
      { "*": { metadata: { directive: { kind: "stop" } } } },
      10_000,
      /cannot be rendered: invalid_request.*in the answer at \/metadata\/directive/,
    ],
  ];
  for (const [name, program, answer, timeoutMs, reason] of cases) {
    for (const onFailure of ["open", "closed"] as const) {
      it(`${name} (--on-failure ${onFailure})`, async () => {
        const s = scratch().answer(answer);
        const outcome = await callHook(s, {
          adapter: "codex",
          hookEvent: "UserPromptSubmit",
          input: prompt,
          timeoutMs,
          onFailure,
          ...(program ? { program } : {}),
        });
        expect(outcome.exitCode).toBe(0);
        expect(outcome.stderr).toMatch(reason);
        const body = printed(outcome);
        expect(body.systemMessage).toMatch(reason);
        if (onFailure === "closed")
          expect(body).toMatchObject({ decision: "block", reason: expect.stringMatching(reason) });
        else expect(Object.keys(body)).toEqual(["systemMessage"]);
      });
    }
  }

  it("a failure at the second event: both delivered, the failure reported", async () => {
    const s = scratch().answer({ "frame.ended": FAILED["*"] });
    const outcome = await callHook(s, { adapter: "codex", hookEvent: "Stop", input: input("codex", "Stop") });
    expect(s.delivered().map((r) => r.event)).toEqual(["frame.ending", "frame.ended"]);
    expect(s.receiptLines().map((r) => [r.event, r.status])).toEqual([
      ["frame.ending", "delivered"],
      ["frame.ended", "failed"],
    ]);
    expect(printed(outcome).systemMessage).toContain("frame.ended: the client answered status failed");
  });

  it("what the second event's answer would render is reported, not silently dropped", async () => {
    const s = scratch().answer({ "frame.ended": { metadata: { directive: { kind: "block", reason: "late" } } } });
    const outcome = await callHook(s, { adapter: "codex", hookEvent: "Stop", input: input("codex", "Stop") });
    expect(printed(outcome)).toEqual({});
    expect(outcome.stderr).toContain(
      "frame.ended answer's 0 payload(s) and directive are not rendered: Stop renders the frame.ending answer",
    );
  });
});

describe("refused input: exit 1, nothing on stdout, nothing delivered", () => {
  const start = input("codex", "SessionStart");
  const cases: [string, HookAdapter, string, Record<string, unknown> | Uint8Array, RegExp][] = [
    ["not JSON", "codex", "SessionStart", Buffer.from("{"), /not one JSON document/],
    ["empty stdin", "codex", "SessionStart", Buffer.from(""), /not one JSON document/],
    ["an array", "codex", "SessionStart", Buffer.from("[]"), /not a JSON object/],
    [
      "--event disagrees with hook_event_name",
      "codex",
      "Stop",
      start,
      /--event is Stop but the input's hook_event_name is "SessionStart"/,
    ],
    ["a wrong type", "codex", "SessionStart", { ...start, source: "reboot" }, /CodexSessionStartInput/],
    [
      "a missing member",
      "claude",
      "SessionStart",
      { hook_event_name: "SessionStart", session_id: "s" },
      /ClaudeSessionStartInput/,
    ],
    [
      "an event the command does not serve",
      "codex",
      "SessionEnd",
      { hook_event_name: "SessionEnd" },
      /codex has no hook event SessionEnd/,
    ],
  ];
  for (const [name, adapter, hookEvent, value, reason] of cases) {
    it(`${name} (under either --on-failure)`, async () => {
      for (const onFailure of ["open", "closed"] as const) {
        const s = scratch();
        const outcome = await callHook(s, { adapter, hookEvent, input: value, onFailure });
        expect(outcome).toMatchObject({ exitCode: 1, stdout: "", delivered: [] });
        expect(outcome.stderr).toMatch(reason);
        expect(s.delivered()).toEqual([]);
      }
    });
  }

  it("both harnesses' inputs accept members the harness adds: delivered, with their names (never values) in metadata.unknown_input_members", async () => {
    for (const adapter of ["claude", "codex"] as const) {
      for (const h of HARNESS_HOOK_INPUTS.adapters.find((a) => a.adapter === adapter)?.hook_events ?? []) {
        const s = scratch();
        const outcome = await callHook(s, {
          adapter,
          hookEvent: h.hook_event,
          input: { ...input(adapter, h.hook_event), agent_type: "reviewer-secret", zz_new: { nested: 1 } },
        });
        expect(outcome.exitCode, `${adapter} ${h.hook_event}: ${outcome.stderr}`).toBe(0);
        for (const request of s.delivered()) {
          const metadata = request.metadata as Record<string, unknown>;
          expect(metadata.unknown_input_members, `${adapter} ${h.hook_event}`).toEqual(["agent_type", "zz_new"]);
          expect(JSON.stringify(request)).not.toContain("reviewer-secret");
        }
      }
    }
  });

  it("at most max_unknown_input_members names are passed on; more are named in truncated_fields", async () => {
    const max = HARNESS_HOOK_INPUTS.max_unknown_input_members;
    const extra = Object.fromEntries(Array.from({ length: max + 5 }, (_, i) => [`x_${String(i).padStart(4, "0")}`, i]));
    const s = scratch();
    const outcome = await callHook(s, {
      adapter: "codex",
      hookEvent: "SessionStart",
      input: { ...input("codex", "SessionStart"), ...extra },
    });
    expect(outcome.exitCode, outcome.stderr).toBe(0);
    const metadata = s.delivered()[0]?.metadata as Record<string, unknown>;
    expect(metadata.unknown_input_members).toEqual(Object.keys(extra).slice(0, max));
    expect(metadata.truncated_fields).toEqual(["unknown_input_members"]);
  });

  it("a name longer than unknown_input_member_name_max_bytes is cut at a code point boundary, so an input at the size limit still makes a deliverable request", async () => {
    const max = HARNESS_HOOK_INPUTS.unknown_input_member_name_max_bytes;
    const base = { ...input("claude", "UserPromptSubmit"), short_one: true };
    // 16 names that fill the input up to just under max_request_bytes (the hook's input bound): the
    // request then carried them whole and went over the same bound (request_too_large, nothing delivered).
    const room = LIMITS.max_request_bytes - Buffer.byteLength(JSON.stringify(base)) - 16 * 16;
    const head = `a${"é".repeat(300)}`; // 601 bytes: the cut falls inside a two-byte character
    const name = (i: number): string =>
      `${head}${"x".repeat(Math.floor(room / 16) - 601 - 4)}${String(i).padStart(4, "0")}`;
    const extra = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [name(i), 0]));
    const s = scratch();
    const outcome = await callHook(s, {
      adapter: "claude",
      hookEvent: "UserPromptSubmit",
      input: { ...extra, ...base },
      onFailure: "closed",
    });
    expect(outcome.exitCode, outcome.stderr).toBe(0);
    expect(outcome.stdout).not.toContain("request_too_large");
    const metadata = s.delivered()[0]?.metadata as Record<string, unknown>;
    const names = metadata.unknown_input_members as string[];
    expect(names).toHaveLength(17);
    for (const cut of names.slice(0, 16)) expect(cut).toBe(`a${"é".repeat(Math.floor((max - 1) / 2))}`); // 511 bytes: the next character would pass max
    expect(names[16]).toBe("short_one");
    expect(metadata.truncated_fields).toEqual(["unknown_input_members"]);
  });
});

describe("bounds and files", () => {
  it("a prompt longer than metadata_text_max_bytes is cut at a code point boundary and named", async () => {
    const max = HARNESS_HOOK_INPUTS.metadata_text_max_bytes;
    const s = scratch();
    const long = "é".repeat(max); // 2 bytes each: twice the bound
    await callHook(s, {
      adapter: "codex",
      hookEvent: "UserPromptSubmit",
      input: { ...input("codex", "UserPromptSubmit"), prompt: long },
    });
    const metadata = s.delivered()[0]?.metadata as Record<string, unknown>;
    expect(Buffer.byteLength(metadata.prompt as string)).toBe(max);
    expect(long.startsWith(metadata.prompt as string)).toBe(true);
    expect(metadata.truncated_fields).toEqual(["prompt"]);
  });

  it("an unreadable state file is replaced, with a warning", async () => {
    const s = scratch();
    const start = input("codex", "SessionStart");
    const store = new HookStateStore(s.stateDir, "codex");
    mkdirSync(s.stateDir, { recursive: true });
    writeFileSync(store.pathOf(start.session_id as string), "{not json");
    const outcome = await callHook(s, { adapter: "codex", hookEvent: "SessionStart", input: start });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.stderr).toContain("unreadable state");
    expect(JSON.parse(readFileSync(store.pathOf(start.session_id as string), "utf8"))).toEqual({
      frame_id: null,
      stop_continuations: 0,
    });
  });
});

describe("a state directory or receipts file that cannot be used: exit 1 before any client runs", () => {
  // Root passes every permission check (a 0500 directory is writable to it): those cases need another user.
  const asRoot = process.getuid?.() === 0;
  const prompt = input("codex", "UserPromptSubmit");
  /** A scratch plus a path under it that cannot be used, made by `make`. */
  type Case = readonly [
    name: string,
    flag: "--state-dir" | "--receipts",
    make: (s: Scratch) => string,
    reason: RegExp,
    skip?: boolean,
  ];
  const readOnly = (s: Scratch): string => {
    const dir = join(s.dir, "read-only");
    mkdirSync(dir, { mode: 0o500 });
    return dir;
  };
  const aFile = (s: Scratch): string => {
    writeFileSync(join(s.dir, "a-file"), "");
    return join(s.dir, "a-file");
  };
  const cases: Case[] = [
    [
      "a state directory under a regular file",
      "--state-dir",
      (s) => join(aFile(s), "state"),
      /cannot use the state directory .*\/a-file\/state \(--state-dir\), at .*\/a-file: not a directory \(ENOTDIR\)/,
    ],
    [
      "a state directory that is a regular file",
      "--state-dir",
      aFile,
      /cannot use the state directory .*\/a-file \(--state-dir\): not a directory \(ENOTDIR\)/,
    ],
    [
      "a state directory that is a symbolic link to nothing",
      "--state-dir",
      (s) => {
        symlinkSync(join(s.dir, "missing"), join(s.dir, "link"));
        return join(s.dir, "link");
      },
      /cannot use the state directory .*\/link \(--state-dir\): .*symbolic link to a missing path.* \(ENOENT\)/,
    ],
    [
      "a state directory inside a read-only directory",
      "--state-dir",
      (s) => join(readOnly(s), "state"),
      /cannot use the state directory .* \(--state-dir\), at .*\/read-only: permission denied \(EACCES\)/,
      asRoot,
    ],
    [
      "a receipts file under a regular file",
      "--receipts",
      (s) => join(aFile(s), "receipts.jsonl"),
      /cannot open the receipts file .*\/a-file\/receipts\.jsonl \(--receipts\): not a directory \(ENOTDIR\)/,
    ],
    [
      "a receipts file in a missing directory",
      "--receipts",
      (s) => join(s.dir, "missing", "receipts.jsonl"),
      /cannot open the receipts file .* \(--receipts\): no such file or directory \(ENOENT\)/,
    ],
    [
      "a receipts file that is a directory",
      "--receipts",
      (s) => {
        mkdirSync(join(s.dir, "receipts-dir"));
        return join(s.dir, "receipts-dir");
      },
      /cannot open the receipts file .*\/receipts-dir \(--receipts\): illegal operation on a directory \(EISDIR\)/,
    ],
    [
      "a receipts file in a read-only directory",
      "--receipts",
      (s) => join(readOnly(s), "receipts.jsonl"),
      /cannot open the receipts file .* \(--receipts\): permission denied \(EACCES\)/,
      asRoot,
    ],
  ];
  for (const [name, flag, make, reason, skip] of cases) {
    it.skipIf(skip === true)(`${name} (under either --on-failure)`, async () => {
      for (const onFailure of ["open", "closed"] as const) {
        const s = scratch();
        const path = make(s);
        const where = flag === "--state-dir" ? { stateDir: path } : { receipts: path };
        const outcome = await callHook(s, {
          adapter: "codex",
          hookEvent: "UserPromptSubmit",
          input: prompt,
          onFailure,
          ...where,
        });
        expect(outcome, outcome.stderr).toMatchObject({ exitCode: 1, stdout: "", delivered: [] });
        expect(s.delivered(), "the client never ran").toEqual([]);
        expect(s.receiptLines()).toEqual([]);
        // Prose with the errno code as detail, not Node's own "ENOTDIR: not a directory, open '...'".
        expect(outcome.stderr).toMatch(reason);
        expect(outcome.stderr).not.toMatch(/[A-Z]+: [a-z ]+, [a-z]+ '/);
        expect(outcome.stderr).toContain("nothing was delivered");
        expect(outcome.stderr).toContain(
          flag === "--state-dir" ? "give --state-dir a directory" : "give --receipts a file",
        );
      }
    });
  }

  it("a FIFO with a reader gets every receipt of the call (opened once, non-blocking)", async () => {
    const s = scratch();
    const fifo = join(s.dir, "receipts.fifo");
    execFileSync("mkfifo", [fifo]);
    // The reader is open before the hook runs (non-blocking, so this open does not wait for a writer).
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const outcome = await callHook(s, {
        adapter: "codex",
        hookEvent: "Stop",
        input: input("codex", "Stop"),
        receipts: fifo,
      });
      expect(outcome.exitCode, outcome.stderr).toBe(0);
      const buf = Buffer.alloc(1 << 16);
      const lines = buf.subarray(0, readSync(reader, buf)).toString("utf8").trim().split("\n");
      expect(lines.map((l) => (JSON.parse(l) as { event: string }).event)).toEqual(["frame.ending", "frame.ended"]);
    } finally {
      closeSync(reader);
    }
  });

  it("a receipts file the call created but wrote nothing to is removed again (an internal error before the first receipt)", async () => {
    const s = scratch();
    // An invoker that rejects stands for an internal error between the open and the first receipt.
    const invoker = { invoke: () => Promise.reject(new Error("invoker exploded")) };
    const outcome = await runHookCommand(
      {
        adapter: "codex",
        hookEvent: "UserPromptSubmit",
        invoker,
        clientId: "none",
        onFailure: "open",
        receiptsFile: s.receipts,
        stateDir: s.stateDir,
      },
      Buffer.from(JSON.stringify(prompt)),
    );
    expect(outcome).toMatchObject({ exitCode: 1, stdout: "" });
    expect(outcome.stderr).toContain("internal error: Error: invoker exploded");
    expect(existsSync(s.receipts)).toBe(false);
  });

  it("a refused state directory leaves no receipts file behind", async () => {
    const s = scratch();
    const outcome = await callHook(s, {
      adapter: "codex",
      hookEvent: "UserPromptSubmit",
      input: prompt,
      stateDir: join(aFile(s), "state"),
    });
    expect(outcome.exitCode).toBe(1);
    expect(existsSync(s.receipts)).toBe(false);
  });

  it("the check leaves nothing behind when nothing is stored: no state directory is made for a SessionStart", async () => {
    const s = scratch();
    const stateDir = join(s.dir, "not-yet", "state");
    const outcome = await callHook(s, {
      adapter: "codex",
      hookEvent: "SessionStart",
      input: input("codex", "SessionStart"),
      stateDir,
    });
    expect(outcome.exitCode, outcome.stderr).toBe(0);
    expect(s.delivered().map((r) => r.event)).toEqual(["session.starting", "session.started"]);
    expect(existsSync(join(s.dir, "not-yet"))).toBe(false);
    // ...and a call that stores state makes the directories it checked for.
    const opened = await callHook(s, { adapter: "codex", hookEvent: "UserPromptSubmit", input: prompt, stateDir });
    expect(opened.exitCode, opened.stderr).toBe(0);
    expect(readdirSync(stateDir)).toHaveLength(1);
  });

  it("an input without a session id stores no state, so an unusable --state-dir is not consulted", async () => {
    const s = scratch();
    const outcome = await callHook(s, {
      adapter: "codex",
      hookEvent: "UserPromptSubmit",
      input: { ...prompt, session_id: "" },
      stateDir: join(aFile(s), "state"),
    });
    expect(outcome.exitCode, outcome.stderr).toBe(0);
    expect(s.delivered().map((r) => r.event)).toEqual(["frame.opening"]);
  });
});
