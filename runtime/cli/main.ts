#!/usr/bin/env node
/**
 * The `lifeloop-callback` command line. Its commands are the rows of spec/tables/cli-commands.json
 * (in help order); exit codes are spec/tables/cli-exit-codes.json.
 *
 * Start-up cost is a user's latency: `hook` runs on every harness event and `continuation get` per
 * client event (issue 30). So this entry point imports only the small table modules it needs
 * (generated/ts/spec/<table>.js, never the whole generated/ts/spec.js), answers `--help` from the
 * table without loading any command, and imports a command's module only when that command runs;
 * test/cli/lazy-commands.test.ts records the modules each run loads.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CLI_COMMANDS, type CliCommandName } from "../../generated/ts/spec/cli-commands.js";
import { CLI_EXIT_CODES } from "../../generated/ts/spec/cli-exit-codes.js";
import { WIRE_VERSION, WIRE_WINDOW } from "../../generated/ts/spec/wire-version.js";
import { unknownCommandText } from "./help.js";
import { EXIT, HelpRequested, UsageError, type CliIo } from "./io.js";
import { BufferedOutput } from "./output.js";

/** What a command's module provides: its usage text (printed for `--help`) and its entry point. */
export interface LoadedCommand {
  readonly usage: string;
  readonly run: (args: readonly string[], io: CliIo) => Promise<number>;
}

/**
 * How to import each command's module: one dynamic import per row of spec/tables/cli-commands.json
 * (the mapped type makes a row without a loader, or a loader without a row, a type error).
 */
const LOADERS: { readonly [K in CliCommandName]: () => Promise<LoadedCommand> } = {
  validate: async () => import("./commands/validate.js").then((m) => ({ usage: m.VALIDATE_USAGE, run: m.runValidate })),
  conformance: async () =>
    import("./commands/conformance.js").then((m) => ({ usage: m.CONFORMANCE_USAGE, run: m.runConformance })),
  conform: async () => import("./commands/conform.js").then((m) => ({ usage: m.CONFORM_USAGE, run: m.runConform })),
  generate: async () =>
    import("./commands/generate.js").then((m) => ({ usage: m.GENERATE_USAGE, run: m.runGenerateCommand })),
  invoke: async () => import("./commands/invoke.js").then((m) => ({ usage: m.INVOKE_USAGE, run: m.runInvoke })),
  session: async () => import("./commands/session.js").then((m) => ({ usage: m.SESSION_USAGE, run: m.runSessionCli })),
  render: async () => import("./commands/render.js").then((m) => ({ usage: m.RENDER_USAGE, run: m.runRender })),
  continuation: async () =>
    import("./commands/continuation.js").then((m) => ({ usage: m.CONTINUATION_USAGE, run: m.runContinuationCli })),
  diff: async () => import("./commands/diff.js").then((m) => ({ usage: m.DIFF_USAGE, run: m.runDiff })),
  hook: async () => import("./commands/hook.js").then((m) => ({ usage: m.HOOK_USAGE, run: m.runHook })),
  receipt: async () => import("./commands/receipt.js").then((m) => ({ usage: m.RECEIPT_USAGE, run: m.runReceipt })),
  events: async () => import("./commands/events.js").then((m) => ({ usage: m.EVENTS_USAGE, run: m.runEvents })),
  version: async () => import("./commands/version.js").then((m) => ({ usage: m.VERSION_USAGE, run: m.runVersion })),
};

/** A registered command: its table row and the import of its module. */
type Command = (typeof CLI_COMMANDS)[number] & { readonly load: () => Promise<LoadedCommand> };

/** Registered commands by name and by alias (e.g. `--version`), in table order. */
export const COMMANDS: ReadonlyMap<string, Command> = new Map(
  CLI_COMMANDS.flatMap((row) => {
    const command: Command = { ...row, load: LOADERS[row.name] };
    return [row.name, ...row.aliases].map((name) => [name, command] as const);
  }),
);

/** Every command's usage text, in table order (loads every command's module: the docs only). */
export async function commandUsages(): Promise<ReadonlyArray<readonly [name: string, usage: string]>> {
  return Promise.all(CLI_COMMANDS.map(async (row) => [row.name, (await LOADERS[row.name]()).usage] as const));
}

/** The top-level help, from the tables alone (no command module is loaded). */
function help(): string {
  const width = Math.max(...CLI_COMMANDS.map((c) => `${c.name} ${c.synopsis}`.trimEnd().length));
  return [
    `lifeloop-callback: schema-first toolkit for the Lifeloop client callback protocol (wire ${WIRE_VERSION}; reads ${WIRE_WINDOW.join(", ")})`,
    "",
    "usage: lifeloop-callback COMMAND [ARGUMENTS]   (lifeloop-callback COMMAND --help: its usage, flags and exit codes;",
    "       lifeloop-callback help --all: every command's usage)",
    ...CLI_COMMANDS.map((c) => {
      const aliases = c.aliases.length > 0 ? ` (also ${c.aliases.join(", ")})` : "";
      return `  ${`${c.name} ${c.synopsis}`.trimEnd().padEnd(width)}  ${c.summary}${aliases}`;
    }),
    "",
    `Exit codes: ${Object.entries(CLI_EXIT_CODES)
      .map(([name, code]) => `${code} ${name}`)
      .join(", ")} (spec/tables/cli-exit-codes.json).`,
  ].join("\n");
}

/** The names that print the top-level help (no argument at all does too, with exit 2). */
const TOP_LEVEL_HELP: readonly string[] = ["help", "--help", "-h"];

/**
 * The argument lists whose whole answer (standard output and exit code, nothing on stderr) depends
 * only on this build of the package: `version` under its name and each alias, alone and with
 * `--json`, and the top-level help (`help`, `--help`, `-h`, no argument). The package's `bin`, a
 * CommonJS launcher (packaging/launcher.cjs), answers exactly these from what this CLI printed for
 * them at build time (packaging/bundle-cli.mjs runs it) without starting the ES module graph, so
 * `--version` costs about a bare node start (issue 30); anything else goes to {@link main}.
 */
export function staticAnswerArgvs(): string[][] {
  const version = CLI_COMMANDS.find((c) => c.name === "version");
  const names = version === undefined ? [] : [version.name, ...version.aliases];
  return [...names.flatMap((n) => [[n], [n, "--json"]]), ...TOP_LEVEL_HELP.map((n) => [n]), []];
}

/** Run the CLI with `argv` (without node and script); returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...args] = argv;
  // An alias (`--version`, `-V`: spec/tables/cli-commands.json) is its command.
  const name = first === undefined ? undefined : (COMMANDS.get(first)?.name ?? first);
  // `help COMMAND`: that command's usage, as `COMMAND --help` prints it.
  if (name === "help" && args.length === 1 && COMMANDS.has(args[0] as string))
    return runCli([args[0] as string, "--help"], io);
  // `help --all`: every command's usage (loads every command's module).
  if (name === "help" && args.length === 1 && args[0] === "--all") {
    io.out(`${(await commandUsages()).map(([, usage]) => usage).join("\n\n")}\n`);
    return EXIT.ok;
  }
  if (name === undefined || TOP_LEVEL_HELP.includes(name)) {
    io.out(`${help()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const registered = COMMANDS.get(name);
  if (!registered) {
    io.err(
      unknownCommandText(
        name,
        CLI_COMMANDS.map((c) => c.name),
      ),
    );
    return EXIT.usage;
  }
  let command: LoadedCommand;
  try {
    command = await registered.load();
  } catch (error) {
    // A module that cannot be loaded is a broken installation: reported like any internal error.
    io.err(
      `lifeloop-callback ${name}: internal error: cannot load the command: ${(error as Error).stack ?? String(error)}\n`,
    );
    return EXIT.validation;
  }
  // Anywhere else, `--help` is recognized by parseFlags: as a flag's value (`--arg -h`) it is that
  // value, and a hook must not print usage text on stdout instead of delivering. A command that
  // parses its own arguments (`own_help` in the table) answers --help itself.
  if (!registered.own_help && (args[0] === "--help" || args[0] === "-h")) {
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
  // session: its exit code says whether every envelope was answered, and stopping at the first
  // lost line of its per-event output would abandon the rest of the run (and its receipts).
  if (name === "diff" || name === "validate" || name === "conform" || name === "session") return true;
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

/**
 * Run the CLI as the `lifeloop-callback` process: arguments from process.argv, standard output
 * buffered, output errors handled ({@link exitOnOutputError}), the exit code set on process.exitCode.
 * Called when this file is the entry point, and by the package's launcher (packaging/launcher.cjs)
 * for every argument list it does not answer itself. Never rejects.
 */
export async function main(): Promise<void> {
  process.stdout.on("error", exitOnOutputError);
  // Buffered (runtime/cli/output.ts): one write per line was a quarter of a session's time per event.
  // Once the reader went away (stdoutGone), what is still gathered or written later is dropped.
  const stdout = new BufferedOutput({
    write: (chunk) => stdoutGone || process.stdout.write(chunk),
    once: (event, listener) => process.stdout.once(event, listener),
  });
  process.on("exit", () => stdout.flush());
  const code = await runCli(process.argv.slice(2), {
    stdin: process.stdin,
    out: (t) => stdout.write(t),
    err: (t) => process.stderr.write(t),
    outBytes: (b) => stdout.write(b),
  });
  stdout.flush();
  process.exitCode = code;
}

// Not awaited at the top level: the same module is bundled as CommonJS too (packaging/bundle-cli.mjs).
if (isEntryPoint()) void main();
