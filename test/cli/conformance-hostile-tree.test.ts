/**
 * `conformance run` over a hostile fixture tree, with real files: a FIFO named *.json, symlink
 * loops, dangling symlinks, directory cycles and unreadable directories are rows (or nothing), never
 * a block or an "internal error"; `--substitute-version` keeps `__proto__` members. The numbered
 * describes keep the item numbers of issue "Reliability", which found them; every test here failed
 * before its fix. (The host's other hostile inputs: test/invoker/hostile-inputs.test.ts.)
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runTs } from "../support/cli-process.js";
import { envelope, tempDir } from "../invoker/support.js";

const tmp = tempDir("conformance-hostile-tree");
afterAll(() => {
  spawnSync("chmod", ["-R", "u+rwx", tmp.dir]);
  tmp.cleanup();
});
let counter = 0;
const scratch = (name: string): string => {
  const dir = join(tmp.dir, `${name}-${++counter}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

const CLI_SOURCE = "runtime/cli/main.ts";

/** A valid callback_request fixture in the conformance format. */
function validFixture(): string {
  return JSON.stringify({ kind: "callback_request", expect: "valid", data: envelope().request });
}

interface Row {
  readonly path: string;
  readonly actual: string;
  readonly pass: boolean;
  readonly pointer?: string;
  readonly rule?: string;
  readonly reason?: string;
}

function rows(stdout: string): Row[] {
  return stdout
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Row);
}

describe("2: conformance run never blocks on a FIFO", () => {
  it("a FIFO named *.json is reported as a row (not a regular file) and the run ends with exit 3", () => {
    const dir = scratch("fifo");
    writeFileSync(join(dir, "a-valid.json"), validFixture());
    const made = spawnSync("mkfifo", [join(dir, "b-fifo.json")]);
    expect(made.status, String(made.stderr)).toBe(0);
    const r = runTs(CLI_SOURCE, ["conformance", "run", "--root", dir], { timeoutMs: 30_000 });
    expect(r.signal, "the run blocked on the FIFO and was killed").toBeNull();
    expect(r.code, r.stderr).toBe(3);
    const fifo = rows(r.stdout).find((x) => x.path.endsWith("b-fifo.json"));
    expect(fifo).toMatchObject({ actual: "unreadable", pass: false });
    expect(fifo?.reason).toContain("not a regular file");
    expect(rows(r.stdout).find((x) => x.path.endsWith("a-valid.json"))?.pass).toBe(true);
  });
});

describe("3: conformance run reports odd directory entries instead of crashing", () => {
  const cases: [string, (dir: string) => void, string][] = [
    ["a symlink loop", (dir) => symlinkSync("loop.json", join(dir, "loop.json")), "ELOOP"],
    ["a dangling symlink", (dir) => symlinkSync(join(dir, "missing-target"), join(dir, "dangling.json")), "ENOENT"],
    ["a directory symlink cycle", (dir) => symlinkSync(".", join(dir, "again")), ""],
  ];
  for (const [what, make, code] of cases) {
    it(`${what} → a row or nothing, never "internal error"; exit 3 when a row is unreadable`, () => {
      const dir = scratch("links");
      writeFileSync(join(dir, "a-valid.json"), validFixture());
      make(dir);
      const r = runTs(CLI_SOURCE, ["conformance", "run", "--root", dir], { timeoutMs: 30_000 });
      expect(r.stderr).not.toContain("internal error");
      const all = rows(r.stdout);
      expect(all.find((x) => x.path.endsWith("a-valid.json"))?.pass).toBe(true);
      if (code === "") {
        // The cycle is walked once: the valid fixture is judged once.
        expect(all.filter((x) => x.path.endsWith("a-valid.json"))).toHaveLength(1);
        expect(r.code, r.stderr).toBe(0);
      } else {
        expect(r.code, r.stderr).toBe(3);
        expect(all.find((x) => x.actual === "unreadable")?.reason).toContain(code);
      }
    });
  }

  it("an unreadable subdirectory → a row naming it, exit 3", () => {
    const dir = scratch("unreadable");
    writeFileSync(join(dir, "a-valid.json"), validFixture());
    const locked = join(dir, "locked");
    mkdirSync(locked);
    writeFileSync(join(locked, "inner.json"), validFixture());
    chmodSync(locked, 0o000);
    // root reads every directory: run the CLI as an unprivileged user then (the tree stays readable to it otherwise).
    const asNobody = process.getuid?.() === 0;
    if (asNobody) spawnSync("chmod", ["-R", "o+rX", tmp.dir]);
    chmodSync(locked, 0o000);
    const r = asNobody
      ? runAs(65534, ["conformance", "run", "--root", dir])
      : runTs(CLI_SOURCE, ["conformance", "run", "--root", dir], { timeoutMs: 30_000 });
    chmodSync(locked, 0o755);
    expect(r.stderr).not.toContain("internal error");
    expect(r.code, r.stderr).toBe(3);
    const row = rows(r.stdout).find((x) => x.path === locked);
    expect(row).toMatchObject({ actual: "unreadable", pass: false });
    expect(row?.reason).toContain("EACCES");
  });
});

/** Run the CLI from source as another user (root only), with a private tsx cache. */
function runAs(uid: number, args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(REPO_ROOT, CLI_SOURCE), ...args], {
    cwd: REPO_ROOT,
    uid,
    gid: uid,
    env: { ...process.env, HOME: tmp.dir, TSX_TSCONFIG_PATH: join(REPO_ROOT, "tsconfig.json") },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

describe("7: conformance run --substitute-version keeps __proto__ members", () => {
  it("an invalid fixture stays invalid, at the same pointer", () => {
    const dir = scratch("proto");
    const data = `{"schema_version":"lifeloop.v0.2","event":"session.started","event_id":"evt-1","adapter_id":"a","adapter_version":"1","integration_mode":"native_hook","invocation_id":"inv-1","__proto__":{"x":1}}`;
    writeFileSync(
      join(dir, "proto.json"),
      `{"kind":"callback_request","expect":"invalid","expect_pointer":"/__proto__","data":${data}}`,
    );
    const r = runTs(CLI_SOURCE, ["conformance", "run", "--root", dir, "--substitute-version", "lifeloop.v0.2"], {
      timeoutMs: 30_000,
    });
    const [row] = rows(r.stdout);
    expect(row, r.stderr).toMatchObject({ pass: true, pointer: "/__proto__", rule: "schema.additional-properties" });
    expect(r.code).toBe(0);
  });
});
