/**
 * CLI conventions every command shares (runtime/cli/io.ts, runtime/cli/main.ts), run as a real
 * process: `--version`/`-V`/`version`, `--flag=value` equal to `--flag value`, one message per
 * integer flag whatever is wrong with its value, and file errors in prose with the errno kept.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { REPO_ROOT, runCli } from "../support/cli-process.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-conventions-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const PACKAGE_VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
  .version;
const ECHO = join(REPO_ROOT, "test", "fixtures", "client-lang-neutral", "shell", "echo.sh");

describe("lifeloop-callback CLI conventions", () => {
  it("the built bin is executable as it is: `npx lifeloop-callback` in a clone runs it directly (packaging/mark-bin.mjs)", () => {
    const bin = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { bin: Record<string, string> })
      .bin["lifeloop-callback"] as string;
    const run = spawnSync(join(REPO_ROOT, bin), ["--version"], { encoding: "utf8", timeout: 30_000 });
    expect(run.error?.message ?? null).toBeNull();
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`lifeloop-callback ${PACKAGE_VERSION} (wire ${WIRE_VERSION})\n`);
  });

  it("--version, -V and version print the package and wire versions; version --json as JSON", () => {
    const line = `lifeloop-callback ${PACKAGE_VERSION} (wire ${WIRE_VERSION})\n`;
    for (const args of [["--version"], ["-V"], ["version"]]) {
      expect(runCli(args)).toMatchObject({ code: 0, stdout: line, stderr: "" });
    }
    const json = runCli(["version", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ package_version: PACKAGE_VERSION, wire_version: WIRE_VERSION });
  });

  it("accepts --flag=value exactly like --flag value", () => {
    const missing = join(TMP, "absent.json");
    const spaced = runCli(["invoke", "--program", ECHO, "--timeout-ms", "5000", missing]);
    const joined = runCli(["invoke", `--program=${ECHO}`, "--timeout-ms=5000", missing]);
    expect(spaced.code).toBe(3);
    expect(joined).toEqual(spaced);
  });

  it("gives the same message for every bad --timeout-ms, naming the range and unit", () => {
    const expected = (got: string): string =>
      `--timeout-ms takes a whole number of milliseconds from 1 to ${LIMITS.max_timeout_ms} (got ${JSON.stringify(got)})`;
    for (const bad of ["5s", "0", "-1", "1e3", String(LIMITS.max_timeout_ms + 1), ""]) {
      const r = runCli(["invoke", "--program", ECHO, `--timeout-ms=${bad}`, "-"]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain(expected(bad));
    }
  });

  it("says what to write for an unknown flag, a missing value and a repeated flag", () => {
    expect(runCli(["invoke", "--shell"]).stderr).toContain("unknown flag --shell; run with --help");
    expect(runCli(["invoke", "--program"]).stderr).toContain(
      "--program needs a value (write --program VALUE or --program=VALUE)",
    );
    expect(runCli(["invoke", "--program", ECHO, "--program", ECHO]).stderr).toContain(
      "--program is given twice; give it once",
    );
  });

  it("names --program the same way in every command that spawns a client, and `help COMMAND` prints that command's usage (hostile review)", () => {
    for (const command of [
      ["invoke", "-"],
      ["session", "-"],
      ["hook", "--adapter", "codex", "--event", "Stop"],
    ]) {
      const r = runCli([...command, "--program", "relative/client", "--timeout-ms", "1000"], { input: "" });
      expect(r.stderr, command[0]).toContain('--program must be an absolute path (got "relative/client")');
    }
    // A flag a command does not take is refused, and the help lists every exit code of the table.
    expect(runCli(["events", "--bogus"]).code).toBe(2);
    expect(runCli(["--help"]).stdout).toContain("5 not_measured");
    const help = runCli(["help", "invoke"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: lifeloop-callback invoke /);
  });

  it("reports an unreadable file in prose and keeps the errno as detail", () => {
    const missing = join(TMP, "absent.json");
    const r = runCli(["validate", "callback-request", missing]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`validate: cannot read ${missing}: no such file or directory (ENOENT)\n`);
    const dir = runCli(["validate", "callback-request", TMP]);
    expect(dir.code).toBe(3);
    expect(dir.stderr).toMatch(/^validate: cannot read .*: illegal operation on a directory \(EISDIR\)\n$/);
  });
});
