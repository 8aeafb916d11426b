#!/usr/bin/env node
/**
 * The `lifeloop-callback` command line. Commands:
 *   validate <type> [FILE|-]              judge one wire document
 *   conformance run --root DIR            run fixtures in the reference's format
 *   generate [--check]                    regenerate generated/ (development checkout)
 *   invoke --program ABS --timeout-ms N   send one DispatchEnvelope to a client process
 *   session [--transport T] --program ABS --timeout-ms N FILE   deliver a JSON Lines session (v1 or v2)
 *   events                                print the event vocabulary
 *   version | --version | -V              print the package and wire versions
 * Exit codes (spec/tables/cli-exit-codes.json): 0 ok, 1 validation, 2 usage, 3 input, 4 unsupported.
 */
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EVENT_VOCABULARY, WIRE_VERSION } from "../../generated/ts/spec.js";
import { CONFORMANCE_USAGE, runConformance } from "./commands/conformance.js";
import { GENERATE_USAGE, runGenerateCommand } from "./commands/generate.js";
import { INVOKE_USAGE, runInvoke } from "./commands/invoke.js";
import { RENDER_USAGE, runRender } from "./commands/render.js";
import { runSession, SESSION_USAGE } from "./commands/session.js";
import { runValidate, VALIDATE_USAGE } from "./commands/validate.js";
import { EXIT, jsonLine, parseFlags, UsageError, type CliIo } from "./io.js";
import { packageRoot } from "./package-root.js";

type Command = { readonly usage: string; readonly run: (args: readonly string[], io: CliIo) => Promise<number> };

/** Registered commands; other modules add theirs here. */
export const COMMANDS: ReadonlyMap<string, Command> = new Map<string, Command>([
  ["validate", { usage: VALIDATE_USAGE, run: runValidate }],
  ["conformance", { usage: CONFORMANCE_USAGE, run: runConformance }],
  ["generate", { usage: GENERATE_USAGE, run: runGenerateCommand }],
  ["invoke", { usage: INVOKE_USAGE, run: runInvoke }],
  ["session", { usage: SESSION_USAGE, run: runSession }],
  ["render", { usage: RENDER_USAGE, run: runRender }],
  [
    "events",
    {
      usage: "usage: lifeloop-callback events\n  Prints the event vocabulary (spec/tables/event-vocabulary.json) as JSON.",
      run: async (_args, io) => {
        io.out(`${JSON.stringify(EVENT_VOCABULARY, null, 2)}\n`);
        return EXIT.ok;
      },
    },
  ],
  [
    "version",
    {
      usage: "usage: lifeloop-callback version [--json]   (also --version, -V)\n  Prints `lifeloop-callback <package version> (wire <wire version>)`; --json prints {package_version, wire_version}.",
      run: async (args, io) => {
        const { switches, positionals } = parseFlags(args, { switches: ["--json"] });
        if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
        const version = packageVersion();
        io.out(switches.has("--json") ? jsonLine({ package_version: version, wire_version: WIRE_VERSION }) : `lifeloop-callback ${version} (wire ${WIRE_VERSION})\n`);
        return EXIT.ok;
      },
    },
  ],
]);

/** The `version` of the package.json this CLI belongs to (e.g. `0.1.0`). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

function help(): string {
  return [
    `lifeloop-callback: schema-first toolkit for the Lifeloop client callback protocol (wire ${WIRE_VERSION})`,
    "",
    ...[...COMMANDS.values()].map((c) => c.usage),
    "",
    "Exit codes: 0 ok, 1 validation, 2 usage, 3 input, 4 unsupported (render).",
  ].join("\n");
}

/** Run the CLI with `argv` (without node and script); returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...args] = argv;
  // `--version` and `-V` are the usual spellings of the version command.
  const name = first === "--version" || first === "-V" ? "version" : first;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.out(`${help()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.get(name);
  if (!command) {
    io.err(`lifeloop-callback: unknown command ${name}\n\n${help()}\n`);
    return EXIT.usage;
  }
  if (args.includes("--help") || args.includes("-h")) {
    io.out(`${command.usage}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
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
 * A reader that went away (EPIPE, e.g. `| head -1`) or a full disk (ENOSPC) ends the command with one
 * line on stderr and exit 3 (an I/O error), instead of an unhandled stream error.
 */
function exitOnOutputError(error: NodeJS.ErrnoException): void {
  try {
    process.stderr.write(`lifeloop-callback: cannot write the output: ${error.code ?? error.message}\n`);
  } catch {
    // stderr is gone too; the exit code still tells.
  }
  process.exit(EXIT.input);
}

if (isEntryPoint()) {
  process.stdout.on("error", exitOnOutputError);
  const code = await runCli(process.argv.slice(2), {
    stdin: process.stdin,
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
  });
  process.exitCode = code;
}
