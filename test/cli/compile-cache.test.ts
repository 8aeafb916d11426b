/**
 * The launcher's V8 code cache (packaging/compile-cache.cjs, issue 30), through the package's bin
 * as a harness runs it: a first run writes an entry per CommonJS file it loaded, a second run reads
 * them and writes nothing; a damaged entry (flipped payload bytes, truncated, foreign, empty) is
 * rejected and rewritten with the command's output unchanged (a corrupt payload read without V8's
 * checksum aborts node: this is the regression test of that guard); a cache that cannot be written
 * changes nothing; the switches and the default locations. The time it saves is benched
 * (npm run bench -- cli), not asserted.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import * as Module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hookInputFor } from "../hooks/command/support.js";
import { BIN, REPO_ROOT, runNode, type ProcessResult } from "../support/cli-process.js";

/**
 * Whether this node runs our cache (Node 20); Node 22.1+ has module.enableCompileCache, which the
 * launcher uses instead, with entries of Node's own format: the entry-level tests are ours only.
 */
const OWN_CACHE = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache !== "function";

const dir = mkdtempSync(join(tmpdir(), "lifeloop-compile-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const client = join(REPO_ROOT, "test", "fixtures", "client-lang-neutral", "shell", "echo.sh");
/** A PreCompact input Claude Code wrote (the reference crate's capture). */
const input = JSON.stringify(hookInputFor("claude", "PreCompact"));

/** The environment of a run: the given variables, and none of the cache's own unless given. */
function env(vars: Readonly<Record<string, string>>): Record<string, string> {
  const base: Record<string, string> = { LIFELOOP_CALLBACK_COMPILE_CACHE: "", NODE_DISABLE_COMPILE_CACHE: "" };
  return { ...base, ...vars };
}

/** One real hook delivery to the shell echo client through the bin. */
function hook(vars: Readonly<Record<string, string>>): ProcessResult {
  const args = ["hook", "--adapter", "claude", "--event", "PreCompact", "--program", client];
  return runNode([BIN, ...args, "--timeout-ms", "30000", "--state-dir", join(dir, "state")], {
    cwd: dir,
    input,
    env: env(vars),
    timeoutMs: 60_000,
  });
}

/** Every entry under `root` (recursively) with its inode and mtime: a rewrite changes the inode (temporary file + rename). */
function entries(root: string): Map<string, { ino: number; mtimeMs: number; size: number }> {
  const found = new Map<string, { ino: number; mtimeMs: number; size: number }>();
  let names: string[];
  try {
    names = readdirSync(root, { recursive: true }) as string[];
  } catch {
    return found;
  }
  for (const name of names) {
    const s = statSync(join(root, name));
    if (s.isFile()) found.set(name, { ino: s.ino, mtimeMs: s.mtimeMs, size: s.size });
  }
  return found;
}

/**
 * A cache warmed by one hook run, in the scratch directory `name`: the cache, its one build
 * directory, and the name of the entry of the file whose path contains `file` there.
 */
function warmed(name: string): { cache: string; build: string; entry: (file: string) => string } {
  const cache = join(dir, name);
  expect(hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: cache }).code).toBe(0);
  const build = join(cache, readdirSync(cache)[0] as string);
  const names = readdirSync(build);
  return { cache, build, entry: (file) => names.find((n) => n.includes(file)) as string };
}

/** The hook's answer without any cache: what every cached run must print. */
const plain = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: "off" });

describe("the launcher's compile cache", () => {
  it("a run without it delivers (the baseline the others compare with)", () => {
    expect([plain.code, plain.stderr]).toEqual([0, ""]);
    expect(JSON.parse(plain.stdout)).toEqual({});
  });

  it.skipIf(!OWN_CACHE)(
    "the first run writes an entry for the command's file and each validator it loaded; the next run reads them and rewrites none",
    () => {
      const cache = join(dir, "first");
      const first = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: cache });
      expect([first.code, first.stdout, first.stderr]).toEqual([0, plain.stdout, ""]);
      const written = entries(cache);
      const names = [...written.keys()];
      // One build directory: <node version>-<arch>-<build id>.
      const builds = readdirSync(cache);
      expect(builds).toHaveLength(1);
      expect(builds[0]).toMatch(new RegExp(`^${process.version.replaceAll(".", "\\.")}-${process.arch}-[0-9a-f]{16}$`));
      expect(names.some((n) => n.includes("command-hook.cjs"))).toBe(true);
      expect(names.some((n) => n.includes("ClaudePreCompactInput.cjs"))).toBe(true);
      expect(names.filter((n) => n.endsWith(".tmp"))).toEqual([]);
      const second = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: cache });
      expect([second.code, second.stdout, second.stderr]).toEqual([0, plain.stdout, ""]);
      // Accepted entries are not rewritten (a rejected one would be: next test).
      expect(entries(cache)).toEqual(written);
    },
  );

  it.skipIf(!OWN_CACHE)(
    "a damaged entry (flipped payload bytes, truncated, another file's, empty) is rejected: same output, no crash, and it is rewritten",
    () => {
      const { cache, build, entry } = warmed("damaged");
      const other = join(build, entry("DispatchEnvelope.cjs"));
      const path = join(build, entry("command-hook.cjs"));
      const bytes = readFileSync(path);
      const damages: Array<[string, Buffer]> = [
        ["payload bytes flipped", Buffer.from(bytes.map((b, i) => (i >= 64 && i % 997 === 0 ? b ^ 0x5a : b)))],
        ["truncated", bytes.subarray(0, Math.floor(bytes.length / 2))],
        ["another file's entry", readFileSync(other)],
        ["empty", Buffer.alloc(0)],
        ["not an entry", Buffer.from("this is not a V8 code cache\n".repeat(100))],
      ];
      for (const [what, damaged] of damages) {
        writeFileSync(path, damaged);
        const before = statSync(path).ino;
        const r = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: cache });
        expect([r.code, r.signal, r.stdout, r.stderr], what).toEqual([0, null, plain.stdout, ""]);
        const now = readFileSync(path);
        expect(statSync(path).ino, what).not.toBe(before);
        expect(now.equals(damaged), what).toBe(false);
        expect(now.length, what).toBeGreaterThan(1000);
      }
    },
  );

  it.skipIf(!OWN_CACHE)(
    "a build directory that group or others can write, or another user owns, is neither read nor written",
    () => {
      const { cache, build, entry } = warmed("shared");
      const hookEntry = entry("command-hook.cjs");
      // An entry planted in a directory others can write: in a directory of ours it would be read,
      // rejected and rewritten (the test above); left as it is, it was neither read nor written.
      const planted = Buffer.from("planted by someone else\n".repeat(50));
      writeFileSync(join(build, hookEntry), planted);
      chmodSync(build, 0o777);
      const r = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: cache });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, plain.stdout, ""]);
      expect(readFileSync(join(build, hookEntry)).equals(planted)).toBe(true); // not rewritten
      if (process.getuid?.() === 0) {
        chmodSync(build, 0o700);
        chownSync(build, 65534, 65534); // nobody: owned by another user
        const other = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: cache });
        expect([other.code, other.stdout, other.stderr]).toEqual([0, plain.stdout, ""]);
        expect(readFileSync(join(build, hookEntry)).equals(planted)).toBe(true);
      }
    },
  );

  it("a cache directory that cannot be made changes nothing: same output, nothing on stderr", () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    const r = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: join(file, "cache") });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, plain.stdout, ""]);
    // Under /proc a recursive mkdir never ends (Node 20): the run must still end, at once.
    const proc = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: "/proc/lifeloop-compile-cache" });
    expect([proc.code, proc.signal, proc.stdout, proc.stderr]).toEqual([0, null, plain.stdout, ""]);
  });

  it("is off for LIFELOOP_CALLBACK_COMPILE_CACHE=0|off|false and for NODE_DISABLE_COMPILE_CACHE; the default is $XDG_CACHE_HOME, else ~/.cache", () => {
    for (const off of ["0", "off", "FALSE"]) {
      const xdg = join(dir, `xdg-${off}`);
      const r = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: off, XDG_CACHE_HOME: xdg });
      expect([r.code, r.stdout], off).toEqual([0, plain.stdout]);
      expect(entries(xdg).size, off).toBe(0);
    }
    const xdgDisabled = join(dir, "xdg-node-disabled");
    expect(hook({ NODE_DISABLE_COMPILE_CACHE: "1", XDG_CACHE_HOME: xdgDisabled }).code).toBe(0);
    expect(entries(xdgDisabled).size).toBe(0);
    // Node's switch wins over a directory named by ours.
    const named = join(dir, "named-but-node-disabled");
    expect(hook({ NODE_DISABLE_COMPILE_CACHE: "1", LIFELOOP_CALLBACK_COMPILE_CACHE: named }).code).toBe(0);
    expect(entries(named).size).toBe(0);
    const xdg = join(dir, "xdg");
    expect(hook({ XDG_CACHE_HOME: xdg }).code).toBe(0);
    expect(readdirSync(join(xdg, "lifeloop-callback", "compile-cache"))).toHaveLength(1);
    const home = join(dir, "home");
    mkdirSync(home);
    expect(hook({ XDG_CACHE_HOME: "", HOME: home }).code).toBe(0);
    expect(readdirSync(join(home, ".cache", "lifeloop-callback", "compile-cache"))).toHaveLength(1);
    // A relative XDG_CACHE_HOME is not a base directory (XDG Base Directory spec): HOME is used.
    const home2 = join(dir, "home2");
    mkdirSync(home2);
    expect(hook({ XDG_CACHE_HOME: "relative", HOME: home2 }).code).toBe(0);
    expect(readdirSync(join(home2, ".cache", "lifeloop-callback", "compile-cache"))).toHaveLength(1);
    expect(entries(join(dir, "relative")).size).toBe(0);
  });

  it.skipIf(!OWN_CACHE)(
    "a new build's directory removes our entries from other builds' directories unused for 30 days, and nothing else",
    () => {
      // LIFELOOP_CALLBACK_COMPILE_CACHE=DIR puts the build directories right in DIR, beside whatever
      // the user keeps there: only our entries in directories named like ours are ever removed.
      const cache = join(dir, "prune");
      const old = join(cache, "v0.0.0-x64-0000000000000000");
      const oldWithOthers = join(cache, "v0.0.2-x64-0000000000000002");
      const recent = join(cache, "v0.0.1-x64-0000000000000001");
      const project = join(cache, "project");
      for (const d of [old, oldWithOthers, recent, project]) mkdirSync(d, { recursive: true });
      writeFileSync(join(old, "entry.v8"), "x");
      writeFileSync(join(old, "entry.v8.123.tmp"), "x");
      writeFileSync(join(oldWithOthers, "entry.v8"), "x");
      writeFileSync(join(oldWithOthers, "notes.txt"), "mine");
      writeFileSync(join(project, "entry.v8"), "mine too");
      writeFileSync(join(cache, "important.txt"), "mine");
      const longAgo = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
      for (const path of [old, oldWithOthers, project, join(cache, "important.txt")])
        utimesSync(path, longAgo, longAgo);
      expect(hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: cache }).code).toBe(0);
      const left = readdirSync(cache).sort();
      expect(left.filter((n) => !n.startsWith(process.version))).toEqual([
        "important.txt",
        "project",
        "v0.0.1-x64-0000000000000001",
        "v0.0.2-x64-0000000000000002",
      ]);
      expect(readdirSync(oldWithOthers)).toEqual(["notes.txt"]);
      expect(readdirSync(project)).toEqual(["entry.v8"]);
    },
  );

  it.skipIf(!OWN_CACHE)(
    "a FIFO, a link to /dev/zero or a directory where an entry should be: no hang, same output, and an entry replaces the first two",
    () => {
      const { cache, build, entry } = warmed("odd-entries");
      const hookEntry = join(build, entry("command-hook.cjs"));
      const envelopeEntry = join(build, entry("DispatchEnvelope.cjs"));
      const inputEntry = join(build, entry("ClaudePreCompactInput.cjs"));
      rmSync(hookEntry);
      expect(spawnSync("mkfifo", [hookEntry]).status).toBe(0);
      rmSync(envelopeEntry);
      symlinkSync("/dev/zero", envelopeEntry);
      rmSync(inputEntry);
      mkdirSync(inputEntry);
      // A blocking read of the FIFO or an endless one of /dev/zero would hang: the run's deadline
      // (60 s, a watchdog for a command of well under a second) would then fail this test.
      const r = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: cache });
      expect([r.code, r.signal, r.stdout, r.stderr]).toEqual([0, null, plain.stdout, ""]);
      expect(lstatSync(hookEntry).isFile()).toBe(true);
      expect(lstatSync(envelopeEntry).isFile()).toBe(true);
      expect(lstatSync(inputEntry).isDirectory()).toBe(true);
    },
  );

  it.skipIf(!OWN_CACHE || process.getuid?.() !== 0)(
    "a cache path under another user's directory is not used, even when the build directory is ours",
    () => {
      // Another user could swap or fill the build directory later (after the check, before an entry
      // is read): every directory above it must be ours or root's, and not writable by others.
      const base = join(dir, "others");
      mkdirSync(base, { mode: 0o755 });
      chownSync(base, 65534, 65534);
      const r = hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: join(base, "cache") });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, plain.stdout, ""]);
      expect([...entries(base).keys()]).toEqual([]);
    },
  );

  it.skipIf(!OWN_CACHE || process.getuid?.() !== 0)(
    "a cache path through another user's link is used by its real path only: a swap of the link during the run does not reach it",
    () => {
      const theirs = join(dir, "their-dir");
      mkdirSync(theirs, { mode: 0o755 });
      const mine = join(dir, "my-cache");
      mkdirSync(mine, { mode: 0o700 });
      const link = join(theirs, "link");
      symlinkSync(mine, link);
      chownSync(theirs, 65534, 65534);
      lchownSync(link, 65534, 65534);
      // Through the link: the cache is made and used at its real path, which is ours.
      expect(hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: link }).code).toBe(0);
      const build = readdirSync(mine)[0] as string;
      const outputEntry = readdirSync(join(mine, build)).find((n) => n.includes("ClaudePreCompactOutput")) as string;
      expect(outputEntry).toBeDefined();
      rmSync(join(mine, build, outputEntry)); // this run must write it again
      // Their directory with an entry of the same name, and a client that swaps the link to it
      // while the hook waits for it: the output's validator loads after the client answered.
      const planted = join(theirs, "planted");
      mkdirSync(join(planted, build), { recursive: true });
      const code = Buffer.from("planted code\n".repeat(100));
      writeFileSync(join(planted, build, outputEntry), code);
      const swapper = join(dir, "swapper.sh");
      writeFileSync(swapper, `#!/bin/sh\nrm -f '${link}' && ln -s '${planted}' '${link}'\nexec '${client}' "$@"\n`, {
        mode: 0o755,
      });
      const args = ["hook", "--adapter", "claude", "--event", "PreCompact", "--program", swapper];
      const r = runNode([BIN, ...args, "--timeout-ms", "30000", "--state-dir", join(dir, "state")], {
        cwd: dir,
        input,
        env: env({ LIFELOOP_CALLBACK_COMPILE_CACHE: link }),
        timeoutMs: 60_000,
      });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, plain.stdout, ""]);
      expect(readlinkSync(link)).toBe(planted); // the swap did happen mid-run
      // Their entry was neither read (it would have been rejected and rewritten) nor written; ours was.
      expect(readFileSync(join(planted, build, outputEntry)).equals(code)).toBe(true);
      expect(readdirSync(join(mine, build))).toContain(outputEntry);
    },
  );

  it.skipIf(!OWN_CACHE)(
    "temporary files a killed run left (older than 10 minutes) are removed by the next run, warm or not; a newer one is kept",
    () => {
      const { cache, build, entry } = warmed("temps");
      const hookEntry = entry("command-hook.cjs");
      const stale = join(build, `${hookEntry}.99999999.tmp`);
      const fresh = join(build, `${hookEntry}.99999998.tmp`);
      writeFileSync(stale, "left by a killed run");
      writeFileSync(fresh, "another run writing now");
      const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
      utimesSync(stale, hourAgo, hourAgo);
      expect(hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: cache }).code).toBe(0);
      const names = readdirSync(build);
      expect(names).toContain(hookEntry);
      expect(names).toContain(`${hookEntry}.99999998.tmp`);
      expect(names).not.toContain(`${hookEntry}.99999999.tmp`);
    },
  );

  it.skipIf(!OWN_CACHE)(
    "writing an entry removes this installation's entries of the same file under older keys (a rebuild), not another installation's",
    () => {
      const { cache, build, entry } = warmed("rebuilt");
      const current = entry("command-hook.cjs");
      // <path under dist/cli>-<installation hash>-<size>-<inode>-<ctime µs>.v8
      const key = /^(.*)-([0-9a-f]{8})-\d+-\d+-\d+\.v8$/.exec(current);
      expect(key).not.toBeNull();
      const [, file, installation] = key as unknown as [string, string, string];
      const older = `${file}-${installation}-1-2-3.v8`;
      const otherInstallation = `${file}-${installation === "00000000" ? "11111111" : "00000000"}-1-2-3.v8`;
      writeFileSync(join(build, older), "an earlier build's entry");
      writeFileSync(join(build, otherInstallation), "another clone's entry");
      rmSync(join(build, current)); // a miss: this run writes the file's entry
      expect(hook({ LIFELOOP_CALLBACK_COMPILE_CACHE: cache }).code).toBe(0);
      const names = readdirSync(build);
      expect(names).toContain(current);
      expect(names).toContain(otherInstallation);
      expect(names).not.toContain(older);
    },
  );

  it("continuation put/get through the bin print the same with a cold cache, a warm one and none", () => {
    const cache = join(dir, "continuation");
    const store = join(dir, "store");
    const run = (args: readonly string[], vars: Record<string, string>, stdin = ""): ProcessResult =>
      runNode([BIN, "continuation", ...args], {
        cwd: dir,
        input: stdin,
        env: env({ LIFELOOP_CONTINUATION_ROOT: store, ...vars }),
        timeoutMs: 60_000,
      });
    const put = run(
      ["put", "--thread", "t", "--key", "k", "--client-id", "c"],
      { LIFELOOP_CALLBACK_COMPILE_CACHE: "off" },
      "blob",
    );
    expect([put.code, put.stderr]).toEqual([0, ""]);
    const answers = ["off", cache, cache].map((setting) =>
      run(["get", "--thread", "t", "--key", "k"], { LIFELOOP_CALLBACK_COMPILE_CACHE: setting }),
    );
    // The blob on stdout, its metadata line on stderr: the same three times.
    for (const r of answers) expect([r.code, r.stdout, r.stderr]).toEqual([0, "blob", answers[0]?.stderr]);
    expect(answers[0]?.stderr).toContain('"client_id":"c"');
    expect([...entries(cache).keys()].some((n) => n.includes("command-continuation.cjs"))).toBe(true);
  });
});
