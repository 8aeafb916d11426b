/**
 * Hostile stores (issue 11 review): what a store directory can hold or be that no command of ours
 * writes, with real files and real processes, each bound by a watchdog so a hang fails instead of
 * wedging the suite:
 *
 * - a FIFO planted as an entry: get and list answer at once (storage_failure naming it / a
 *   diagnostic), never block in open(2);
 * - an expired entry whose thread lock another process holds: get answers not_found at once (it
 *   takes no lock; the removal is a try-lock), and the entry is removed by a later read;
 * - a store the caller may not write (read-only): list, get, and a drop or drop-thread that drops
 *   nothing succeed, as in the reference;
 * - metadata with a string posing as a number, or a known member twice: storage_failure;
 * - over the stream: list skips an entry the wire's integers cannot carry, with a diagnostic; the
 *   environment is read in the CLI's order (max-bytes only where the CLI reads it, before the root
 *   for put);
 * - a lock-timeout message says whether another process holds the lock or this process's own queue.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { STREAM_V2 } from "../../generated/ts/spec.js";
import { threadLockUsers } from "../../runtime/continuation/lock.js";
import { storeForCommand } from "../../runtime/continuation/root.js";
import { ContinuationError, ContinuationStore } from "../../runtime/index.js";
import { continuationHandlers } from "../../runtime/continuation/stream-handlers.js";
import type { ListDiagnostic } from "../../runtime/continuation/store.js";
import { CONTINUATION } from "../../runtime/continuation/table.js";
import { serveReverseRequest } from "../../runtime/stream/reverse.js";
import { envelope } from "../stream/support.js";
import { spawnChild } from "../support/spawn-child.js";
import { CLI, frameEntry, removeDir, runSide, scratch, storeEnv } from "./support.js";

let dir = "";
let root = "";
beforeEach(() => {
  dir = scratch("cont-hostile-");
  root = join(dir, "store");
});
afterEach(() => removeDir(dir));

const env = (): Record<string, string> => storeEnv({ LIFELOOP_CONTINUATION_ROOT: root });
const codeOf = (name: string): number => STREAM_V2.error_codes.find((r) => r.name === name)?.code as number;
const signal = new AbortController().signal;

/** A python3 process holding the thread locks of `threads` (POSIX record locks conflict with our OFD locks); resolves once it holds them. */
function holdLocks(threads: readonly string[]): Promise<ChildProcess> {
  const script =
    "import fcntl,os,sys\nfds=[]\nfor t in sys.argv[2:]:\n  fd=os.open(os.path.join(sys.argv[1],'.'+t+'.lock'),os.O_RDWR|os.O_CREAT,0o600)\n  fcntl.lockf(fd,fcntl.LOCK_EX)\n  fds.append(fd)\nprint('holding',flush=True)\nsys.stdin.read()\n";
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const child = spawn("python3", ["-c", script, root, ...threads], { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.stdout?.on("data", (b: Buffer) => {
      if (b.toString().includes("holding")) resolve(child);
    });
  });
}

/** End a holder started by {@link holdLocks}: close its stdin (it exits) and reap it. */
function release(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.on("close", () => resolve());
    child.stdin?.end();
  });
}

describe("a FIFO planted as an entry never blocks a command", () => {
  it("get is storage_failure naming the FIFO and list skips it with a diagnostic, at once (CLI processes with a watchdog)", async () => {
    expect((await runSide("ours", ["put", "--thread", "t", "--key", "k"], { input: "v", env: env() })).code).toBe(0);
    spawnSync("mkfifo", [join(root, "t", "p")]);
    expect(statSync(join(root, "t", "p")).isFIFO()).toBe(true);
    const got = await runSide("ours", ["get", "--thread", "t", "--key", "p"], { env: env(), timeoutMs: 15_000 });
    expect(got.signal, "get was killed by the watchdog: it blocked").toBeNull();
    expect(got.code).toBe(3);
    expect(JSON.parse(got.stderr)).toMatchObject({
      error: "storage_failure",
      reason: expect.stringContaining(join(root, "t", "p")),
    });
    const listed = await runSide("ours", ["list", "--thread", "t"], { env: env(), timeoutMs: 15_000 });
    expect(listed.signal, "list was killed by the watchdog: it blocked").toBeNull();
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout.toString()) as { keys: { key: string }[] }).keys.map((k) => k.key)).toEqual(["k"]);
    expect(JSON.parse(listed.stderr)).toMatchObject({
      diagnostic: "list_skipped_entry",
      reason: "io_error",
      path: join(root, "t", "p"),
    });
  }, 60_000);
});

describe("get takes no lock", () => {
  it("an expired entry whose thread lock another process holds is not_found at once; a later read removes it", async () => {
    expect(
      (await runSide("ours", ["put", "--thread", "t", "--key", "k", "--ttl-s", "0"], { input: "v", env: env() })).code,
    ).toBe(0);
    const holder = await holdLocks(["t"]);
    try {
      const started = Date.now();
      const got = await runSide("ours", ["get", "--thread", "t", "--key", "k"], { env: env(), timeoutMs: 30_000 });
      const elapsed = Date.now() - started;
      expect([got.code, got.stderr]).toEqual([3, '{"error":"not_found"}\n']);
      // A process start is well under a second; waiting for the lock would take lock_timeout_ms.
      expect(elapsed).toBeLessThan(CONTINUATION.limits.lock_timeout_ms / 2);
      expect(existsSync(join(root, "t", "k")), "the lock is held: the expired file stays for later").toBe(true);
    } finally {
      await release(holder);
    }
    const again = await runSide("ours", ["get", "--thread", "t", "--key", "k"], { env: env() });
    expect(again.code).toBe(3);
    expect(existsSync(join(root, "t", "k")), "the lock is free: the expired file is removed").toBe(false);
  }, 60_000);
});

describe("a store the caller may not write", () => {
  it("list, get, and drop / drop-thread that drop nothing succeed (run as an unprivileged user when we are root)", async () => {
    expect(
      (await runSide("ours", ["put", "--thread", "t", "--key", "k", "--client-id", "c"], { input: "v", env: env() }))
        .code,
    ).toBe(0);
    // Everything readable, nothing writable: directories 0555, files 0444 (the lock file included).
    chmodSync(dir, 0o755);
    for (const d of [root, join(root, "t")]) {
      for (const name of readdirSync(d)) if (!statSync(join(d, name)).isDirectory()) chmodSync(join(d, name), 0o444);
    }
    chmodSync(join(root, "t"), 0o555);
    chmodSync(root, 0o555);
    const asRoot = process.getuid?.() === 0;
    const run = (args: string[]): ReturnType<typeof spawnSync> =>
      asRoot
        ? spawnSync(
            "setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, CLI, "continuation", ...args],
            { env: env(), cwd: dir, timeout: 30_000 },
          )
        : spawnSync(process.execPath, [CLI, "continuation", ...args], { env: env(), cwd: dir, timeout: 30_000 });
    try {
      const listed = run(["list", "--thread", "t"]);
      expect([listed.status, listed.stderr.toString()]).toEqual([0, ""]);
      expect((JSON.parse(listed.stdout.toString()) as { keys: { key: string }[] }).keys.map((k) => k.key)).toEqual([
        "k",
      ]);
      const got = run(["get", "--thread", "t", "--key", "k"]);
      expect([got.status, got.stdout.toString()]).toEqual([0, "v"]);
      for (const args of [
        ["drop", "--thread", "t", "--key", "absent"],
        ["drop", "--thread", "t", "--key", "absent", "--require-client-id", "c"],
        ["drop-thread", "--thread", "absent"],
        ["list", "--thread", "absent"],
      ]) {
        const r = run(args);
        expect([args.join(" "), r.status, r.stderr.toString()]).toEqual([args.join(" "), 0, ""]);
      }
      const refused = run(["drop", "--thread", "t", "--key", "k"]);
      expect(refused.status, "dropping an entry of a read-only store still fails").toBe(3);
      expect(JSON.parse(refused.stderr.toString())).toMatchObject({ error: "storage_failure" });
    } finally {
      chmodSync(root, 0o700);
      chmodSync(join(root, "t"), 0o700);
    }
  }, 60_000);
});

describe("entry metadata is decoded strictly", () => {
  const planted = (name: string, meta: string): void => {
    mkdirSync(join(root, "m"), { recursive: true, mode: 0o700 });
    writeFileSync(join(root, "m", name), frameEntry(meta, Buffer.from("B")), { mode: 0o600 });
  };
  const base = '"schema_version":"v","client_id":"a","written_at_epoch_s":100';
  async function getError(key: string): Promise<unknown> {
    try {
      await new ContinuationStore({ root }).get("m", key);
    } catch (error) {
      if (error instanceof ContinuationError) return error.envelope;
      throw error;
    }
    return "ok";
  }

  it("a string holding the internal big-number marker is not a number; a known member twice is corrupt; an unknown one twice is skipped", async () => {
    planted("strnum", '{"schema_version":"v","client_id":"a","written_at_epoch_s":"\\u0000num:100"}');
    planted("strttl", `{${base},"ttl_s":"\\u0000num:5"}`);
    planted("dupclient", `{${base},"client_id":"b"}`);
    planted("dupttl", `{${base},"ttl_s":null,"ttl_s":5}`);
    planted("dupunknown", `{${base},"x":1,"x":2}`);
    planted("bom", `\ufeff{${base}}`);
    for (const key of ["strnum", "strttl", "dupclient", "dupttl", "bom"]) {
      expect([key, await getError(key)]).toEqual([
        key,
        { error: "storage_failure", reason: expect.stringContaining(join(root, "m", key)) },
      ]);
    }
    expect(await getError("dupunknown")).toBe("ok");
  });
});

describe("over the stream (continuationHandlers served by the host's serveReverseRequest)", () => {
  it("list skips an entry whose ttl_s or written_at_epoch_s is beyond the wire's integers, with a diagnostic; the rest is listed", async () => {
    const s = new ContinuationStore({ root });
    await s.put("t", "fine", Buffer.from("x"));
    await s.put("t", "wide", Buffer.from("x"), { ttlS: 2n ** 60n });
    await new ContinuationStore({ root, now: () => 2n ** 54n }).put("t", "future", Buffer.from("x"));
    const seen: ListDiagnostic[] = [];
    const r = await serveReverseRequest(
      "continuation/list",
      1,
      { thread: "t" },
      continuationHandlers(s, { onDiagnostic: (d) => seen.push(d) }),
      signal,
    );
    expect(r.ok, r.ok ? "" : JSON.stringify(r.error)).toBe(true);
    expect(r.ok && (JSON.parse(r.resultJson.toString()) as { keys: { key: string }[] }).keys.map((k) => k.key)).toEqual(
      ["fine"],
    );
    expect(seen.map((d) => [d.reason, d.path])).toEqual([
      ["beyond_wire_integer_range", join(root, "t", "future")],
      ["beyond_wire_integer_range", join(root, "t", "wide")],
    ]);
  });

  it("the environment is read in the CLI's order: a bad max-bytes breaks only the commands that read it; put checks it and the size before the root", async () => {
    const serveWith = (e: Record<string, string>, method: string, params: Record<string, unknown>) =>
      serveReverseRequest(
        method,
        1,
        params,
        continuationHandlers((use) => storeForCommand(e, use)),
        signal,
      );
    const bad = { LIFELOOP_CONTINUATION_ROOT: root, LIFELOOP_CONTINUATION_MAX_BYTES: "12abc" };
    await new ContinuationStore({ root }).put("t", "k", Buffer.from("x"));
    const drop = await serveWith(bad, "continuation/drop", { thread: "t", key: "absent" });
    expect(drop.ok, drop.ok ? "" : JSON.stringify(drop.error)).toBe(true);
    const dropThread = await serveWith(bad, "continuation/drop-thread", { thread: "other" });
    expect(dropThread.ok, dropThread.ok ? "" : JSON.stringify(dropThread.error)).toBe(true);
    for (const [method, params] of [
      ["continuation/get", { thread: "t", key: "k" }],
      ["continuation/list", { thread: "t" }],
      ["continuation/drop", { thread: "t", key: "k", require_client_id: "c" }],
    ] as const) {
      const r = await serveWith(bad, method, params);
      expect([method, r.ok ? null : r.error.code]).toEqual([method, codeOf("internal_error")]);
    }
    const hi = Buffer.from("hi").toString("base64");
    const noRootBadMax = await serveWith({ LIFELOOP_CONTINUATION_MAX_BYTES: "x" }, "continuation/put", {
      thread: "t",
      key: "k",
      blob_base64: hi,
    });
    expect(noRootBadMax.ok ? null : noRootBadMax.error.code, "the max-bytes variable before the root").toBe(
      codeOf("internal_error"),
    );
    const noRootTooBig = await serveWith({ LIFELOOP_CONTINUATION_MAX_BYTES: "1" }, "continuation/put", {
      thread: "t",
      key: "k",
      blob_base64: hi,
    });
    expect(noRootTooBig.ok ? null : noRootTooBig.error, "the size before the root").toMatchObject({
      code: codeOf("blob_too_large"),
      data: { error: "blob_too_large", max_bytes: 1 },
    });
    const badIdNoRoot = await serveWith({ LIFELOOP_CONTINUATION_MAX_BYTES: "x" }, "continuation/drop-thread", {
      thread: "..",
    });
    expect(badIdNoRoot.ok ? null : badIdNoRoot.error.code, "identifiers before the environment").toBe(
      codeOf("invalid_identifier"),
    );
  });
});

describe("lock-timeout messages say what is true", () => {
  it("behind another process: 'another process'; behind this process's own queued write: says so", async () => {
    const holder = await holdLocks(["t"]);
    try {
      // The first waits in the kernel for 3 s; the second, queued behind it in this process, gives up first.
      const first = new ContinuationStore({ root, lockTimeoutMs: 3000 }).put("t", "a", Buffer.from("1")).then(
        () => null,
        (e: unknown) => e,
      );
      // Barrier: the first has joined the thread's lock queue (its checks before the lock are
      // asynchronous: on a loaded machine the second's could finish first and overtake it).
      for (const until = Date.now() + 10_000; threadLockUsers(root, "t") === 0; ) {
        if (Date.now() > until) throw new Error("the first put never queued for the lock");
        await new Promise((resolve) => setImmediate(resolve));
      }
      const second = new ContinuationStore({ root, lockTimeoutMs: 300 }).put("t", "b", Buffer.from("2")).then(
        () => null,
        (e: unknown) => e,
      );
      const [a, b] = (await Promise.all([first, second])) as ContinuationError[];
      expect(a?.envelope).toMatchObject({
        error: "storage_failure",
        reason: expect.stringContaining("another process"),
      });
      expect(b?.envelope).toMatchObject({
        error: "storage_failure",
        reason: expect.stringContaining("this process's own"),
      });
      expect(String(b?.envelope.reason)).not.toContain("another process");
    } finally {
      await release(holder);
    }
  }, 30_000);
});

/**
 * A stream client that, at its first event, sends a continuation/put of thread `t`, waits until the
 * kernel shows a blocked request on the thread's lock file (a "->" line of /proc/locks with its
 * inode: the host's put is parked in the kernel wait), then answers the event; it exits at stdin EOF.
 */
const PARKING_CLIENT = `
import { readFileSync, statSync } from "node:fs";
const lockFile = process.argv[2];
let pending = "";
let sent = false;
const parked = () => {
  const ino = statSync(lockFile).ino;
  return readFileSync("/proc/locks", "utf8").split("\\n").some((l) => l.includes("->") && l.includes(":" + ino + " "));
};
process.stdin.setEncoding("utf8");
process.stdin.on("data", async (chunk) => {
  pending += chunk;
  for (let lf = pending.indexOf("\\n"); lf !== -1; lf = pending.indexOf("\\n")) {
    const frame = JSON.parse(pending.slice(0, lf));
    pending = pending.slice(lf + 1);
    if (typeof frame.method !== "string" || !frame.method.startsWith("event/") || sent) continue;
    sent = true;
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: "put-1", method: "continuation/put", params: { thread: "t", key: "k", blob_base64: "aGk=" } }) + "\\n");
    while (!parked()) await new Promise((r) => setTimeout(r, 10));
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: frame.id, result: { schema_version: frame.params.request.schema_version, status: "delivered", failure_class: null, retry_class: null } }) + "\\n");
  }
});
process.stdin.on("end", () => process.exit(0));
`;

describe("session --transport stream exits after its summary while a store request waits for a lock", () => {
  it("the parked wait is cancelled when the stream ends: the session exits while another process still holds the lock", async () => {
    const holder = await holdLocks(["t"]);
    let released = false;
    // The watchdog: release the holder at 40 s (the session then ends either way; the test fails).
    const watchdog = setTimeout(() => {
      released = true;
      holder.stdin?.end();
    }, 40_000);
    try {
      const client = join(dir, "parking-client.mjs");
      writeFileSync(client, PARKING_CLIENT);
      const events = join(dir, "events.jsonl");
      writeFileSync(events, `${JSON.stringify(envelope("session.started", 1))}\n`);
      const argv = [
        CLI,
        "session",
        "--transport",
        "stream",
        "--program",
        process.execPath,
        "--arg",
        client,
        "--arg",
        join(root, ".t.lock"),
        "--timeout-ms",
        "30000",
        events,
      ];
      const ran = await spawnChild({
        command: process.execPath,
        args: argv,
        env: env(),
        stdin: "ignore",
        stderr: "inherit",
        watchdogMs: 60_000,
      });
      const session = { status: ran.code, signal: ran.signal, stdout: ran.stdout };
      expect(released, "the session lived until the other process released the lock").toBe(false);
      expect(session.signal).toBeNull();
      expect(session.stdout).toContain('"summary"');
      expect(session.status).toBe(0);
    } finally {
      clearTimeout(watchdog);
      if (holder.exitCode === null && holder.signalCode === null) await release(holder);
    }
  }, 120_000);
});
