/**
 * The CLI's help conventions (runtime/cli/help.ts, runtime/cli/main.ts), run as real processes:
 * `--help` is a short command list that points to `<command> --help`; an unknown command is one
 * short error with the closest command and where to look; `-v` is the version; every command and
 * subcommand answers `--help` and `-h` with its usage on stdout and exit 0.
 */
import { describe, expect, it } from "vitest";
import { CLI_COMMANDS } from "../../generated/ts/spec/cli-commands.js";
import { closestCommand } from "../../runtime/cli/help.js";
import { runCli } from "../support/cli-process.js";

/** The commands (spec/tables/cli-commands.json), without their aliases. */
const NAMES = CLI_COMMANDS.map((c) => c.name);

describe("lifeloop-callback help", () => {
  it("--help is a short list: one line per command, a pointer to <command> --help, the exit codes", () => {
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const r = runCli(args);
      expect(r.code, args[0]).toBe(0);
      const lines = r.stdout.trimEnd().split("\n");
      // A header, the usage line, the list, the pointers: far from the 85 lines of every usage.
      expect(lines.length, args[0]).toBeLessThanOrEqual(NAMES.length + 10);
      for (const name of NAMES)
        expect(
          lines.filter((l) => l.startsWith(`  ${name} `)),
          name,
        ).toHaveLength(1);
      expect(r.stdout).toContain("lifeloop-callback COMMAND --help");
      expect(r.stdout).toContain("5 not_measured");
    }
    // Every usage is still one command away.
    const all = runCli(["help", "--all"]);
    expect(all.code).toBe(0);
    for (const name of NAMES) expect(all.stdout).toContain(`usage: lifeloop-callback ${name}`);
  });

  it("every command has a one-line summary (spec/tables/cli-commands.json)", () => {
    for (const c of CLI_COMMANDS) expect(c.summary, c.name).toMatch(/^[^\n]{10,100}$/);
  });

  it("an unknown command is a short error with the closest command and where to look, exit 2", () => {
    const r = runCli(["valdiate", "callback-request", "-"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('lifeloop-callback: unknown command "valdiate"; did you mean validate?');
    expect(lines[1]).toContain("lifeloop-callback --help");
    const far = runCli(["xyzzy"]);
    expect(far.code).toBe(2);
    expect(far.stderr).not.toContain("did you mean");
    expect(far.stderr.trimEnd().split("\n")).toHaveLength(2);
  });

  it("finds the closest command for transpositions, a missing letter, a prefix and case", () => {
    expect(closestCommand("valdiate", NAMES)).toBe("validate");
    expect(closestCommand("invok", NAMES)).toBe("invoke");
    expect(closestCommand("sesion", NAMES)).toBe("session");
    expect(closestCommand("conti", NAMES)).toBe("continuation");
    expect(closestCommand("Hook", NAMES)).toBe("hook");
    expect(closestCommand("conforme", NAMES)).toBe("conform");
    expect(closestCommand("zzz", NAMES)).toBeNull();
  });

  it("-v, --version and -V print the version", () => {
    const line = runCli(["version"]).stdout;
    expect(line).toMatch(/^lifeloop-callback \S+ \(wire \S+\)\n$/);
    for (const flag of ["-v", "--version", "-V"])
      expect(runCli([flag]), flag).toMatchObject({ code: 0, stdout: line, stderr: "" });
  });

  it("every command and subcommand answers --help and -h with its usage on stdout, exit 0", () => {
    const invocations = [
      ...NAMES.map((n) => [n]),
      ["conformance", "run"],
      ["continuation", "put"],
      ["continuation", "get"],
      ["continuation", "list"],
      ["hook", "config"],
      ["hook", "install"],
      ["hook", "uninstall"],
      ["receipt", "list"],
      ["receipt", "get"],
      ["receipt", "emit"],
    ];
    for (const words of invocations) {
      for (const flag of ["--help", "-h"]) {
        const r = runCli([...words, flag]);
        const what = `${words.join(" ")} ${flag}`;
        expect(r.code, what).toBe(0);
        expect(r.stderr, what).toBe("");
        expect(r.stdout, what).toMatch(new RegExp(`^usage: lifeloop-callback ${words[0]}`));
      }
    }
  });
});
