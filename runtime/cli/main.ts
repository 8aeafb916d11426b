#!/usr/bin/env node
/**
 * The `lifeloop-callback` command line. Commands:
 *   validate <type> [FILE|-]              judge one wire document
 *   conformance run --root DIR            run fixtures in the reference's format
 *   generate [--check]                    regenerate generated/ (development checkout)
 *   invoke --program ABS --timeout-ms N   send one DispatchEnvelope to a client process
 *   continuation put|get|drop|list|drop-thread   the continuation store (CONTINUATION-001)
 *   session [--transport T] --program ABS --timeout-ms N FILE   deliver a JSON Lines session (v1 or v2)
 *   diff --base A --head B | --schema OLD NEW   breaking-change gate between two spec versions
 *   hook --adapter A --event E ...        run as a Claude Code / Codex command hook (hook config: the hooks block)
 *   receipt emit|list|get --ledger PATH   the durable receipt ledger (SQLite, the reference's --ledger format)
 *   events                                print the event vocabulary
 *   version | --version | -v | -V         print the package and wire versions
 * Exit codes (spec/tables/cli-exit-codes.json): 0 ok, 1 validation, 2 usage, 3 input, 4 unsupported.
 * A command's module is imported only when that command runs (or for help), so start-up costs one
 * command's dependencies (test/cli/lazy-commands.test.ts).
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CLI_EXIT_CODES, EVENT_VOCABULARY, WIRE_VERSION } from "../../generated/ts/spec.js";
import { shortHelp, unknownCommandText } from "./help.js";
import { EXIT, HelpRequested, jsonLine, parseFlags, UsageError, type CliIo } from "./io.js";
import { packageVersion } from "./package-root.js";

/** What a command's module provides: its usage text (printed for `--help`) and its entry point. */
export interface LoadedCommand {
  readonly usage: string;
  readonly run: (args: readonly string[], io: CliIo) => Promise<number>;
}

type Command = {
  /**
   * Imports the command's module (only when that command runs, or for help), so start-up pays for
   * one command's dependencies, not every command's (e.g. `continuation get` loads no validator).
   */
  readonly load: () => Promise<LoadedCommand>;
  /** The command reads `--help` itself (continuation: `-h` can be a valid identifier value). */
  readonly ownHelp?: boolean;
};

/** Registered commands, in help order; other modules add theirs here (a dynamic import each). */
export const COMMANDS: ReadonlyMap<string, Command> = new Map<string, Command>([
  ["validate", { load: async () => import("./commands/validate.js").then((m) => ({ usage: m.VALIDATE_USAGE, run: m.runValidate })) }],
  ["conformance", { load: async () => import("./commands/conformance.js").then((m) => ({ usage: m.CONFORMANCE_USAGE, run: m.runConformance })) }],
  ["conform", { load: async () => import("./commands/conform.js").then((m) => ({ usage: m.CONFORM_USAGE, run: m.runConform })) }],
  ["generate", { load: async () => import("./commands/generate.js").then((m) => ({ usage: m.GENERATE_USAGE, run: m.runGenerateCommand })) }],
  ["invoke", { load: async () => import("./commands/invoke.js").then((m) => ({ usage: m.INVOKE_USAGE, run: m.runInvoke })) }],
  ["session", { load: async () => import("./commands/session.js").then((m) => ({ usage: m.SESSION_USAGE, run: m.runSessionCli })) }],
  ["render", { load: async () => import("./commands/render.js").then((m) => ({ usage: m.RENDER_USAGE, run: m.runRender })) }],
  ["continuation", { load: async () => import("./commands/continuation.js").then((m) => ({ usage: m.CONTINUATION_USAGE, run: m.runContinuationCli })), ownHelp: true }],
  ["diff", { load: async () => import("./commands/diff.js").then((m) => ({ usage: m.DIFF_USAGE, run: m.runDiff })) }],
  ["hook", { load: async () => import("./commands/hook.js").then((m) => ({ usage: m.HOOK_USAGE, run: m.runHook })) }],
  ["receipt", { load: async () => import("./commands/receipt.js").then((m) => ({ usage: m.RECEIPT_USAGE, run: m.runReceipt })) }],
  [
    "events",
    {
      load: async () => ({
        usage: "usage: lifeloop-callback events\n  Prints the event vocabulary (spec/tables/event-vocabulary.json) as JSON.",
        run: async (args, io) => {
          const { positionals } = parseFlags(args, {});
          if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
          io.out(`${JSON.stringify(EVENT_VOCABULARY, null, 2)}\n`);
          return EXIT.ok;
        },
      }),
    },
  ],
  [
    "version",
    {
      load: async () => ({
        usage: "usage: lifeloop-callback version [--json]   (also --version, -v, -V)\n  Prints `lifeloop-callback <package version> (wire <wire version>)`; --json prints {package_version, wire_version}.",
        run: async (args, io) => {
          const { switches, positionals } = parseFlags(args, { switches: ["--json"] });
          if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
          const version = packageVersion();
          io.out(switches.has("--json") ? jsonLine({ package_version: version, wire_version: WIRE_VERSION }) : `lifeloop-callback ${version} (wire ${WIRE_VERSION})\n`);
          return EXIT.ok;
        },
      }),
    },
  ],
]);

/** Every command's usage text, in registry order (loads every command's module: help and the docs only). */
export async function commandUsages(): Promise<ReadonlyArray<readonly [name: string, usage: string]>> {
  return Promise.all([...COMMANDS].map(async ([name, c]) => [name, (await c.load()).usage] as const));
}

/** The exit-code line of the help (spec/tables/cli-exit-codes.json). */
const EXIT_CODES_LINE = `Exit codes: ${Object.entries(CLI_EXIT_CODES).map(([name, code]) => `${code} ${name}`).join(", ")} (spec/tables/cli-exit-codes.json).`;

/** `--help`: the short command list (runtime/cli/help.ts); `help --all`: every command's usage too. */
async function help(all = false): Promise<string> {
  const header = `lifeloop-callback: schema-first toolkit for the Lifeloop client callback protocol (wire ${WIRE_VERSION})`;
  if (!all) return shortHelp([...COMMANDS.keys()], header, EXIT_CODES_LINE);
  return [header, "", ...(await commandUsages()).map(([, usage]) => usage), "", EXIT_CODES_LINE].join("\n");
}

/** Run the CLI with `argv` (without node and script); returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...args] = argv;
  // `--version` and `-V` are the usual spellings of the version command.
  const name = first === "--version" || first === "-V" || first === "-v" ? "version" : first;
  // `help COMMAND`: that command's usage, as `COMMAND --help` prints it.
  if (name === "help" && args.length === 1 && COMMANDS.has(args[0] as string)) return runCli([args[0] as string, "--help"], io);
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.out(`${await help(args[0] === "--all")}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const registered = COMMANDS.get(name);
  if (!registered) {
    io.err(unknownCommandText(name, [...COMMANDS.keys()]));
    return EXIT.usage;
  }
  let command: LoadedCommand;
  try {
    command = await registered.load();
  } catch (error) {
    // A module that cannot be loaded is a broken installation: reported like any internal error.
    io.err(`lifeloop-callback ${name}: internal error: cannot load the command: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.validation;
  }
  // Anywhere else, `--help` is recognized by parseFlags: as a flag's value (`--arg -h`) it is that
  // value, and a hook must not print usage text on stdout instead of delivering. A command that
  // parses its own arguments (`ownHelp`) answers --help itself.
  if (!registered.ownHelp && (args[0] === "--help" || args[0] === "-h")) {
    io.out(`${command.usage}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof HelpRequested) {
      io.out(`${command.usage}\n`);
      return EXIT.ok;
    }
    if (error instanceof UsageError) {
      io.err(`lifeloop-callback ${name}: ${error.message}\n${command.usage}\n`);
      return EXIT.usage;
    }
    io.err(`lifeloop-callback ${name}: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.validation;
  }
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/**
 * Commands whose exit code is their verdict (valid or not, drift or not, pass or fail): when the
 * reader of their output goes away they run to the end and keep that code, since a caller such as
 * `validate ... | head -1` in a script with `pipefail` still asks for the verdict.
 * Every other command ends quietly with exit 0, as the reference CLI does (spec/README.md, "CLI").
 */
export function exitCodeIsVerdict(argv: readonly string[]): boolean {
  const [name, sub] = argv;
  if (name === "diff" || name === "validate" || name === "conform") return true;
  if (name === "conformance") return sub === "run";
  return name === "generate" && argv.includes("--check");
}

/** Set once the reader of standard output went away: later output is dropped, never written. */
let stdoutGone = false;

/**
 * A reader that went away (EPIPE, e.g. `| head -1`): a verdict command ({@link exitCodeIsVerdict})
 * goes on and exits with its verdict; any other command exits 0 at once, with nothing on stderr.
 * A full disk (ENOSPC) or any other write error ends the command with one line on stderr and exit
 * 3 (an I/O error), instead of an unhandled stream error.
 */
function exitOnOutputError(error: NodeJS.ErrnoException): void {
  if (error.code === "EPIPE") {
    stdoutGone = true;
    if (exitCodeIsVerdict(process.argv.slice(2))) return;
    process.exit(EXIT.ok);
  }
  try {
    process.stderr.write(`lifeloop-callback: cannot write the output: ${error.code ?? error.message}\n`);
  } catch {
    // stderr is gone too; the exit code still tells.
  }
  process.exit(outputErrorExit());
}

/**
 * The exit code of an output that cannot be written: 3 (input/output), except for `hook`, which
 * exits only 0 or 1 (spec/hook-command.md: a harness reads other codes as its own signals).
 */
function outputErrorExit(): number {
  return process.argv[2] === "hook" ? EXIT.validation : EXIT.input;
}

// A standard output that is /dev/null (what Python's DEVNULL, Go's nil Stdout and Node's 'ignore'
// give a child, all opened read-write) is an output like any other: everything written is
// discarded and the exit code is the command's. A shell's `>&-` looks exactly the same to the
// process (Node reopens a closed fd 1 on /dev/null, read-write), so it is treated alike.

if (isEntryPoint()) {
  process.stdout.on("error", exitOnOutputError);
  const code = await runCli(process.argv.slice(2), {
    stdin: process.stdin,
    out: (t) => {
      if (!stdoutGone) process.stdout.write(t);
    },
    err: (t) => process.stderr.write(t),
    outBytes: (b) => {
      if (!stdoutGone) process.stdout.write(b);
    },
  });
  process.exitCode = code;
}
