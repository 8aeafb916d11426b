/**
 * The hook's state and receipts files on hostile ground (issue 25, item 2), as real CLI processes
 * (dist/) with a watchdog: a state file that is a FIFO or a symbolic link to /dev/zero is refused
 * at once with exit 1 (the hook promises 0 or 1) before any delivery, never a hang or a crash; on a
 * full disk (`prlimit --fsize`: writes are cut short, then fail with EFBIG) a state save fails
 * with exit 1, keeps the old state file and leaves no temporary file, and a receipt append cut
 * short leaves the receipts file as it was, so the next call's receipt starts a line of its own.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { HookStateStore } from "../../../runtime/hooks/command/state.js";
import { CLI } from "../../support/cli-process.js";
import { HOOK_CLIENT, hookInputFor, ScratchPool, type Scratch } from "./support.js";

const pool = new ScratchPool();
afterAll(pool.removeAll);

const prompt = hookInputFor("codex", "UserPromptSubmit");
const sessionId = prompt.session_id as string;

/**
 * One `hook` call of Codex UserPromptSubmit as a process: SIGKILL at 30 s (a process blocked in
 * open(2) does not run its SIGTERM handler). `limits`: prlimit options, e.g. `--fsize=100`.
 */
function hook(
  s: Scratch,
  o: {
    readonly log?: boolean;
    readonly receipts?: boolean;
    readonly limits?: readonly string[];
    readonly input?: Record<string, unknown>;
  } = {},
): SpawnSyncReturns<string> {
  const args = [
    CLI,
    "hook",
    "--adapter",
    "codex",
    "--event",
    "UserPromptSubmit",
    "--program",
    HOOK_CLIENT,
    ...(o.log === false ? [] : ["--arg", "--log", "--arg", s.log]),
    "--timeout-ms",
    "10000",
    "--state-dir",
    s.stateDir,
    ...(o.receipts ? ["--receipts", s.receipts] : []),
  ];
  const [program, argv] = o.limits
    ? ["prlimit", [...o.limits, "--", process.execPath, ...args]]
    : [process.execPath, args];
  return spawnSync(program, argv, {
    input: JSON.stringify(o.input ?? prompt),
    encoding: "utf8",
    timeout: 30_000,
    killSignal: "SIGKILL",
  });
}

const statePath = (s: Scratch): string => new HookStateStore(s.stateDir, "codex").pathOf(sessionId);

describe("a state file that is not a regular file: exit 1 at once, nothing delivered", () => {
  it("a FIFO (a blocking read would hang the hook past the harness's timeout)", () => {
    const s = pool.make();
    mkdirSync(s.stateDir, { recursive: true });
    execFileSync("mkfifo", [statePath(s)]);
    const r = hook(s);
    expect(r.signal, "killed at the 30 s deadline: the hook hung").toBeNull();
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      `cannot read the state file ${statePath(s)}: not a regular file (a FIFO) (EINVAL); nothing was delivered: remove that file`,
    );
    expect(s.delivered()).toEqual([]);
  });

  it("a symbolic link to /dev/zero (an unbounded read grew memory until the hook died of SIGABRT)", () => {
    const s = pool.make();
    mkdirSync(s.stateDir, { recursive: true });
    symlinkSync("/dev/zero", statePath(s));
    // An address-space limit turns an unbounded read into a quick failure rather than a machine-wide one.
    const r = hook(s, { limits: ["--as=4000000000"] });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`cannot read the state file ${statePath(s)}: not a regular file (a device) (EINVAL)`);
    expect(s.delivered()).toEqual([]);
  });
});

describe("a full disk (prlimit --fsize)", () => {
  it("a failed state save exits 1, keeps the old state file and leaves no temporary file", () => {
    const s = pool.make();
    expect(hook(s).status).toBe(0);
    const before = readFileSync(statePath(s));
    // A prompt of another turn opens a new frame: its state is saved, and a 16-byte limit cuts that write.
    const r = hook(s, { log: false, limits: ["--fsize=16"], input: { ...prompt, turn_id: "another-turn" } });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot write the state file .*: .*\((EFBIG|ENOSPC)\)/);
    expect(readdirSync(s.stateDir)).toEqual([statePath(s).slice(s.stateDir.length + 1)]);
    expect(readFileSync(statePath(s)).equals(before)).toBe(true);
  });

  it("a receipt append cut short leaves the file as it was; the next receipt starts its own line", () => {
    const s = pool.make();
    expect(hook(s, { log: false, receipts: true }).status).toBe(0);
    const before = readFileSync(s.receipts);
    expect(before.length).toBeGreaterThan(100);
    // Room for 100 more bytes in the receipts file: less than a receipt, more than the state file.
    const cut = hook(s, { log: false, receipts: true, limits: [`--fsize=${before.length + 100}`] });
    expect(cut.signal).toBeNull();
    expect(cut.status).toBe(1);
    expect(cut.stderr).toMatch(/cannot append the receipt of .* \(--receipts\): .*\((EFBIG|ENOSPC)\)/);
    expect(readFileSync(s.receipts).equals(before), "the cut append left bytes behind").toBe(true);
    expect(hook(s, { log: false, receipts: true }).status).toBe(0);
    const lines = readFileSync(s.receipts, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(statSync(s.receipts).size).toBe(Buffer.byteLength(lines.join("\n")) + 1);
  });
});
