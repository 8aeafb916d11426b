/**
 * `--ledger` in the CLI (the built dist/; spec/host-runtime.md §"Receipts: the ledger"): invoke
 * across processes (sequence, replay printed with "replayed": true, conflict exit 1, the client run
 * every time), `receipt emit|list|get` (a miss: exit 3 and {"error":"not_found"} on stderr),
 * `session --ledger` on both transports, `hook --ledger`, and every ledger that cannot be used: exit
 * 3 with the reason (hook: 1), before any client starts.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { CLI, REPO_ROOT, runCli, runNode } from "../support/cli-process.js";
import { FIXTURE_CLIENTS, FIXTURE_CLIENTS_DIR } from "../support/fixture-clients.js";
import { hookInputFor } from "../hooks/command/support.js";
import { ageLedger, emitInput, ledgerEnvelope, ledgerRequest, rawDb } from "./ledger-support.js";

const dir = mkdtempSync(join(tmpdir(), "lifeloop-ledger-cli-"));
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) spawnSync("umount", [m]);
  rmSync(dir, { recursive: true, force: true });
});
let n = 0;
const fresh = (): string => join(dir, `l${++n}.sqlite`);
const ECHO = FIXTURE_CLIENTS.shell.program;
/** Serves both transports (v1, and v2 with --stream). */
const RUNNER_ECHO = join(FIXTURE_CLIENTS_DIR, "node", "runner-echo.mjs");
const marks = join(dir, "marks");
mkdirSync(marks);

function invoke(ledger: string, request: object, extra: readonly string[] = []) {
  const mark = join(marks, `m${++n}`);
  const r = runCli(
    [
      "invoke",
      "--program",
      ECHO,
      "--arg",
      "--mark",
      "--arg",
      mark,
      "--timeout-ms",
      "10000",
      "--client-id",
      "c",
      "--ledger",
      ledger,
      ...extra,
    ],
    { input: JSON.stringify(ledgerEnvelope(request as never)) },
  );
  return { ...r, spawned: existsSync(mark), out: r.stdout === "" ? null : JSON.parse(r.stdout) };
}

describe("invoke --ledger", () => {
  it("sequences span processes; a retry replays the stored receipt; other content conflicts (exit 1); the client runs each time", () => {
    const ledger = fresh();
    const first = invoke(ledger, ledgerRequest({ eventId: "e1", key: "k1", runId: "run" }));
    const second = invoke(ledger, ledgerRequest({ eventId: "e2", key: "k2", runId: "run" }));
    const retry = invoke(ledger, ledgerRequest({ eventId: "e1", key: "k1", runId: "run" }));
    const conflict = invoke(ledger, ledgerRequest({ eventId: "e-other", key: "k1", runId: "run" }));
    expect([first.code, second.code, retry.code, conflict.code]).toEqual([0, 0, 0, 1]);
    expect([first.out.receipt.sequence, second.out.receipt.sequence]).toEqual([1, 2]);
    expect(first.out.replayed).toBeUndefined();
    expect(retry.out.receipt).toEqual(first.out.receipt);
    expect(retry.out.replayed).toBe(true);
    expect(conflict.out.receipt).toBeNull();
    expect(conflict.out.receipt_error.failure_class).toBe("state_conflict");
    expect(conflict.stderr).toMatch(/state_conflict: idempotency_key "k1" .* reused with different receipt content/);
    // The ledger does not gate the callback (as the reference): each invoke started the client.
    expect([first, second, retry, conflict].map((r) => r.spawned)).toEqual([true, true, true, true]);

    const list = runCli(["receipt", "list", "--ledger", ledger]);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([first.out.receipt, second.out.receipt]);
    const got = runCli([
      "receipt",
      "get",
      "--ledger",
      ledger,
      "--idempotency-key",
      "k2",
      "--client-id",
      "c",
      "--adapter-id",
      "codex",
    ]);
    expect([got.code, JSON.parse(got.stdout)]).toEqual([0, second.out.receipt]);
    const miss = runCli([
      "receipt",
      "get",
      "--ledger",
      ledger,
      "--idempotency-key",
      "k2",
      "--client-id",
      "other",
      "--adapter-id",
      "codex",
    ]);
    expect([miss.code, miss.stdout, miss.stderr]).toEqual([3, "", '{"error":"not_found"}\n']);
  });

  it("receipt emit --ledger continues the same sequence and replays what invoke recorded", () => {
    const ledger = fresh();
    const first = invoke(ledger, ledgerRequest({ eventId: "e1", key: "k1", runId: "run" }));
    const emitted = runCli(["receipt", "emit", "--ledger", ledger], {
      input: emitInput(ledgerRequest({ eventId: "e2", key: "k2", runId: "run" }), {
        clientId: "c",
        receiptId: "rcpt-e2",
      }),
    });
    expect(emitted.code, emitted.stderr).toBe(0);
    expect(JSON.parse(emitted.stdout).sequence).toBe(2);
    const replay = runCli(["receipt", "emit", "--ledger", ledger], {
      input: emitInput(ledgerRequest({ eventId: "e1", key: "k1", runId: "run" }), {
        clientId: "c",
        receiptId: "rcpt-again",
      }),
    });
    expect([replay.code, JSON.parse(replay.stdout)]).toEqual([0, first.out.receipt]);
    const noLedger = runCli(["receipt", "emit"], {
      input: emitInput(ledgerRequest({ eventId: "e3", runId: "run" }), { clientId: "c", receiptId: "rcpt-e3" }),
    });
    expect([noLedger.code, JSON.parse(noLedger.stdout).sequence]).toEqual([0, 1]);
    const bad = runCli(["receipt", "emit", "--ledger", ledger], {
      input: JSON.stringify({ request: {}, response: {}, context: {} }),
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^receipt emit: request: /);
  });

  it("receipt emit takes a request and a response each within its own limit, together over one document's (~20 MB)", () => {
    const ledger = fresh();
    const input = JSON.parse(
      emitInput(ledgerRequest({ eventId: "e-big", key: "k-big", runId: "run" }), {
        clientId: "c",
        receiptId: "rcpt-big",
      }),
    );
    // 10 MB of metadata in each part: both under limits.max_request_bytes / max_response_bytes
    // (16 MiB), the input over one document's 16 MiB.
    input.request.metadata = { note: "r".repeat(10_000_000) };
    input.response.metadata = { note: "s".repeat(10_000_000) };
    const text = JSON.stringify(input);
    expect(Buffer.byteLength(text)).toBeGreaterThan(LIMITS.max_request_bytes);
    const r = runCli(["receipt", "emit", "--ledger", ledger], { input: text, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ receipt_id: "rcpt-big", sequence: 1 });
    // Each part is still held to its own document's limit: a request of 17 MB with a small response is refused.
    input.request.metadata = { note: "r".repeat(LIMITS.max_request_bytes + 1_000) };
    input.response.metadata = {};
    const over = runCli(["receipt", "emit"], { input: JSON.stringify(input), timeoutMs: 120_000 });
    expect([over.code, over.stdout]).toEqual([3, ""]);
    expect(over.stderr).toMatch(/^receipt emit: request: .*json\.max-bytes/);
  });

  it("--help of receipt and its subcommands prints the usage, exit 0", () => {
    for (const args of [
      ["receipt", "--help"],
      ["receipt", "list", "--help"],
      ["receipt", "get", "--help"],
      ["receipt", "emit", "--help"],
      ["help", "receipt"],
    ]) {
      const r = runCli(args);
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.stdout).toContain(
        "lifeloop-callback receipt get --ledger PATH --idempotency-key K --client-id C --adapter-id A",
      );
    }
    expect(runCli(["receipt", "list"]).code).toBe(2);
    expect(runCli(["receipt", "get", "--ledger", "x"]).code).toBe(2);
  });
});

describe("session --ledger", () => {
  for (const transport of ["subprocess", "stream"] as const) {
    it(`${transport}: a second session continues the first's sequence; its recorded keys replay`, () => {
      const ledger = fresh();
      const session = (requests: object[]) => {
        const input = requests.map((r) => JSON.stringify(ledgerEnvelope(r as never))).join("\n");
        const r = runCli(
          [
            "session",
            "--transport",
            transport,
            "--program",
            RUNNER_ECHO,
            "--timeout-ms",
            "10000",
            "--ledger",
            ledger,
            "-",
          ],
          { input },
        );
        expect(r.code, r.stderr).toBe(0);
        return r.stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
      };
      const one = session([ledgerRequest({ eventId: "e1", key: "k1", runId: "run" })]);
      const two = session([
        ledgerRequest({ eventId: "e2", key: "k2", runId: "run" }),
        ledgerRequest({ eventId: "e1", key: "k1", runId: "run" }),
      ]);
      expect(one[0].receipt.sequence).toBe(1);
      expect(two[0].receipt.sequence).toBe(2);
      expect(two[1].replayed).toBe(true);
      expect(two[1].receipt).toEqual(one[0].receipt);
      expect(JSON.parse(runCli(["receipt", "list", "--ledger", ledger]).stdout)).toHaveLength(2);
    });
  }
});

describe("hook --ledger", () => {
  it("records each delivery's receipt across hook calls; receipt list reads them; no sequence, no replay (as documented)", () => {
    const ledger = fresh();
    const stateDir = join(dir, "hook-state");
    const counts: number[] = [];
    for (let i = 0; i < 2; i++) {
      // The same hook input twice: a retried hook event.
      const r = runCli(
        [
          "hook",
          "--adapter",
          "codex",
          "--event",
          "UserPromptSubmit",
          "--program",
          ECHO,
          "--timeout-ms",
          "10000",
          "--state-dir",
          stateDir,
          "--ledger",
          ledger,
        ],
        { input: JSON.stringify(hookInputFor("codex", "UserPromptSubmit")) },
      );
      expect(r.code, r.stderr).toBe(0);
      counts.push(JSON.parse(runCli(["receipt", "list", "--ledger", ledger]).stdout).length);
    }
    const listed = JSON.parse(runCli(["receipt", "list", "--ledger", ledger]).stdout);
    expect(listed.length).toBeGreaterThanOrEqual(2);
    expect(new Set(listed.map((x: { adapter_id: string }) => x.adapter_id))).toEqual(new Set(["codex"]));
    // Hook requests carry no harness_run_id and no idempotency_key: every sequence is null and the
    // retry is recorded again, not replayed. The help and spec say exactly that.
    expect(listed.map((x: { sequence: unknown }) => x.sequence)).toEqual(listed.map(() => null));
    expect(counts[1]).toBe(2 * (counts[0] as number));
    const help = runCli(["hook", "--help"]);
    expect(help.stdout).not.toMatch(/sequences span/);
    expect(help.stdout.replace(/\s+/g, " ")).toContain(
      "hook requests carry no harness_run_id and no idempotency_key, so sequence stays null and no retry is detected as a replay",
    );
    const spec = readFileSync(join(REPO_ROOT, "spec", "hook-command.md"), "utf8");
    expect(spec).not.toMatch(/span hook\s+calls/);
    expect(spec.replace(/\s+/g, " ")).toContain("every hook receipt has `sequence` null");
  });
});

/** A directory on a read-only bind mount of a scratch directory, or null when mounting is not permitted. */
function readOnlyDir(withLedger: boolean): string | null {
  const source = join(dir, `ro-src-${++n}`);
  mkdirSync(source);
  if (withLedger) invoke(join(source, "l.sqlite"), ledgerRequest({ eventId: "e0", runId: "run" }));
  const target = join(dir, `ro-${n}`);
  mkdirSync(target);
  const bind = spawnSync("mount", ["--bind", source, target]);
  if (bind.status !== 0) return null;
  mounts.push(target);
  if (spawnSync("mount", ["-o", "remount,ro,bind", target]).status !== 0) return null;
  return target;
}

describe("a ledger that cannot be used: exit 3 with the reason (hook: 1), no client started", () => {
  const file = join(dir, "a-file");
  writeFileSync(file, "x");
  mkdirSync(join(dir, "a-dir"), { recursive: true });
  const cases: [string, () => string | null, RegExp][] = [
    ["a directory", () => join(dir, "a-dir"), /is a directory/],
    ["a missing directory", () => join(dir, "missing", "l.sqlite"), /its directory .* does not exist/],
    ["a path under a file", () => join(file, "l.sqlite"), /not a directory/],
    [
      "a new file in a read-only directory",
      () => (readOnlyDir(false) === null ? null : join(mounts.at(-1) as string, "l.sqlite")),
      /cannot be created or opened for reading and writing|readonly|read-only/i,
    ],
    [
      "an existing ledger on a read-only file system",
      () => (readOnlyDir(true) === null ? null : join(mounts.at(-1) as string, "l.sqlite")),
      /read-?only|cannot be created or opened/i,
    ],
  ];
  for (const [what, pathOf, why] of cases) {
    it(what, (t) => {
      const path = pathOf();
      if (path === null) t.skip(); // mount(8) not permitted here (not root): the other cases still hold
      const r = invoke(path as string, ledgerRequest({ eventId: "e1", runId: "run" }));
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).toMatch(/the client was not started/);
      expect(r.spawned).toBe(false);
      const hook = runCli(
        [
          "hook",
          "--adapter",
          "codex",
          "--event",
          "UserPromptSubmit",
          "--program",
          ECHO,
          "--timeout-ms",
          "10000",
          "--state-dir",
          join(dir, "hook-state"),
          "--ledger",
          path as string,
        ],
        { input: JSON.stringify(hookInputFor("codex", "UserPromptSubmit")) },
      );
      expect([hook.code, hook.stdout]).toEqual([1, ""]);
      expect(hook.stderr).toMatch(why);
      expect(hook.stderr).toMatch(/nothing was delivered/);
    });
  }

  // A SQLite file that is not a ledger is refused before anything in it changes: not its schema,
  // user_version or journal mode (no -wal/-shm appears), byte for byte.
  const foreign: [string, (db: ReturnType<typeof rawDb>) => void][] = [
    [
      "user_version 0 with a foreign receipts table",
      (db) => {
        db.exec("CREATE TABLE receipts (x INTEGER)");
        db.exec("INSERT INTO receipts VALUES (42)");
      },
    ],
    ["user_version 0 with an unrelated table", (db) => db.exec("CREATE TABLE notes (text TEXT)")],
    [
      "user_version 2 without the ledger's tables",
      (db) => {
        db.exec("CREATE TABLE notes (text TEXT)");
        db.pragma("user_version = 2");
      },
    ],
  ];
  for (const [what, make] of foreign) {
    it(`a SQLite file that is not a ledger (${what}): refused, left byte-for-byte as it was`, () => {
      const path = fresh();
      const db = rawDb(path, true, true);
      make(db);
      db.close();
      const sha = (): string => createHash("sha256").update(readFileSync(path)).digest("hex");
      const before = sha();
      const r = invoke(path, ledgerRequest({ eventId: "e1", runId: "run" }));
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/not a receipt ledger/);
      expect(r.spawned).toBe(false);
      const emitted = runCli(["receipt", "emit", "--ledger", path], {
        input: emitInput(ledgerRequest({ eventId: "e2", runId: "run" }), { clientId: "c", receiptId: "rcpt-e2" }),
      });
      expect([emitted.code, emitted.stdout]).toEqual([3, ""]);
      expect(emitted.stderr).toMatch(/not a receipt ledger/);
      expect(sha()).toBe(before);
      expect([existsSync(`${path}-wal`), existsSync(`${path}-shm`), existsSync(`${path}-journal`)]).toEqual([
        false,
        false,
        false,
      ]);
    });
  }

  it("a full disk (prlimit --fsize): exit 3 naming it, and the ledger stays usable", () => {
    const ledger = fresh();
    invoke(ledger, ledgerRequest({ eventId: "e0", runId: "run" }));
    // A receipt of ~100 KB (the answer's warnings are carried into it) cannot fit under a 40 KB file size limit.
    const input = JSON.parse(
      emitInput(ledgerRequest({ eventId: "e-big", runId: "run" }), { clientId: "c", receiptId: "rcpt-big" }),
    );
    input.response.warnings = Array.from({ length: 25 }, (_, i) => ({ code: `w${i}`, message: "x".repeat(4000) }));
    const r = spawnSync("prlimit", ["--fsize=40000", process.execPath, CLI, "receipt", "emit", "--ledger", ledger], {
      input: JSON.stringify(input),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/full|file size limit|I\/O error/);
    const after = runCli(["receipt", "emit", "--ledger", ledger], {
      input: emitInput(ledgerRequest({ eventId: "e2", runId: "run" }), { clientId: "c", receiptId: "rcpt-after" }),
    });
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).sequence).toBe(2);
    const db = rawDb(ledger);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
  });

  it("a ledger of another wire version: refused for writing (exit 3, both versions named), still listed", () => {
    const ledger = fresh();
    invoke(ledger, ledgerRequest({ eventId: "e0", key: "k0", runId: "run" }));
    ageLedger(ledger, "lifeloop.v0.1");
    const r = invoke(ledger, ledgerRequest({ eventId: "e1", runId: "run" }));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`last written under wire lifeloop.v0.1 and this program writes ${WIRE_VERSION}`);
    expect(r.spawned).toBe(false);
    const list = runCli(["receipt", "list", "--ledger", ledger]);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).map((x: { schema_version: string }) => x.schema_version)).toEqual(["lifeloop.v0.1"]);
    const get = runCli([
      "receipt",
      "get",
      "--ledger",
      ledger,
      "--idempotency-key",
      "k0",
      "--client-id",
      "c",
      "--adapter-id",
      "codex",
    ]);
    expect(get.code).toBe(0);
  });
});

describe("without the optional SQLite binding", () => {
  it("--ledger is exit 3 naming what to install (hook: 1); the rest of the CLI works", () => {
    // A copy of the built package whose node_modules has everything but better-sqlite3.
    const root = join(dir, "no-binding");
    mkdirSync(join(root, "node_modules"), { recursive: true });
    cpSync(join(REPO_ROOT, "dist"), join(root, "dist"), { recursive: true });
    cpSync(join(REPO_ROOT, "package.json"), join(root, "package.json"));
    for (const name of readdirSync(join(REPO_ROOT, "node_modules")))
      if (name !== "better-sqlite3")
        symlinkSync(join(REPO_ROOT, "node_modules", name), join(root, "node_modules", name));
    const cli = join(root, "dist", "runtime", "cli", "main.js");
    const envelope = JSON.stringify(ledgerEnvelope(ledgerRequest({ eventId: "e1", runId: "run" })));
    const mark = join(marks, "no-binding");
    const r = runNode(
      [
        cli,
        "invoke",
        "--program",
        ECHO,
        "--arg",
        "--mark",
        "--arg",
        mark,
        "--timeout-ms",
        "10000",
        "--ledger",
        fresh(),
      ],
      { input: envelope },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/needs the SQLite binding better-sqlite3.*npm install better-sqlite3@12/);
    expect(existsSync(mark)).toBe(false);
    const list = runNode([cli, "receipt", "list", "--ledger", fresh()]);
    expect(list.code).toBe(3);
    const hook = runNode(
      [
        cli,
        "hook",
        "--adapter",
        "codex",
        "--event",
        "UserPromptSubmit",
        "--program",
        ECHO,
        "--timeout-ms",
        "10000",
        "--state-dir",
        join(dir, "hook-state"),
        "--ledger",
        fresh(),
      ],
      { input: JSON.stringify(hookInputFor("codex", "UserPromptSubmit")) },
    );
    expect([hook.code, hook.stdout]).toEqual([1, ""]);
    expect(hook.stderr).toMatch(/npm install better-sqlite3@12/);
    const plain = runNode([cli, "invoke", "--program", ECHO, "--timeout-ms", "10000"], { input: envelope });
    expect(plain.code, plain.stderr).toBe(0);
  });
});
