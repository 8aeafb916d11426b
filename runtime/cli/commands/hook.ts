/**
 * `lifeloop-callback hook --adapter claude|codex --event <HookEventName> --program ABS [--arg A]...
 *  --timeout-ms N [--on-failure open|closed] [--receipts FILE] [--ledger PATH] [--state-dir DIR]
 *  [--wire-version V]`: the command a Claude Code or Codex command hook runs (spec/hook-command.md).
 * Reads the harness's hook input on stdin (at most limits.max_request_bytes), delivers the
 * lifecycle events to the client, prints the harness's output on stdout. `--wire-version V`
 * (spec/wire-window.md, "Who speaks which version"; default current): the version of the requests
 * it builds and of its receipts, and the one every response must carry.
 *
 * `lifeloop-callback hook config --adapter claude|codex --program ABS [--arg A]... --timeout-ms N
 *  [--on-failure open|closed] [--receipts FILE] [--ledger PATH] [--state-dir DIR] [--wire-version V]`:
 * prints the hooks block for the harness's settings file, one entry per served hook event (its
 * commands carry `--wire-version V` when it is given).
 *
 * Exit codes: 0, or 1 for everything else (usage errors included): never 2, which Claude Code reads
 * as "block".
 */
import { resolve } from "node:path";
import { LIMITS } from "../../../generated/ts/spec/limits.js";
import { hookConfig, type HookCommandOptions } from "../../hooks/command/config.js";
import { runHookCommand } from "../../hooks/command/run.js";
import { defaultStateDir } from "../../hooks/command/state.js";
import { hookInputAdapter, servedHookEvents } from "../../hooks/command/tables.js";
import { HOOK_ADAPTERS, isHookAdapter } from "../../hooks/mapping.js";
import { SubprocessInvoker } from "../../invoker/subprocess.js";
import { InvokerConfigError } from "../../invoker/types.js";
import { defaultClientId } from "../client-options.js";
import {
  invokerFlagError,
  EXIT,
  HelpRequested,
  integerFlag,
  parseFlags,
  readBoundedInput,
  UsageError,
  type CliIo,
  type InputRead,
} from "../io.js";
import { packageBin } from "../../process/package-root.js";
import { executableProblem } from "../program-check.js";
import { WIRE_VERSION_FLAG, WIRE_VERSION_USAGE, wireVersionFlag } from "../wire-version-flag.js";

/** Usage text of the hook command. */
export const HOOK_USAGE = `usage: lifeloop-callback hook --adapter ${HOOK_ADAPTERS.join("|")} --event HOOK_EVENT --program ABS [--arg A]...
                       --timeout-ms N [--on-failure open|closed] [--receipts FILE] [--ledger PATH] [--state-dir DIR]
                       [--wire-version V]
       lifeloop-callback hook config --adapter ${HOOK_ADAPTERS.join("|")} --program ABS [--arg A]... --timeout-ms N
                       [--on-failure open|closed] [--receipts FILE] [--ledger PATH] [--state-dir DIR]
                       [--wire-version V]
       lifeloop-callback hook install <the flags of hook config> [--settings FILE] [--dry-run]
       lifeloop-callback hook uninstall --adapter ${HOOK_ADAPTERS.join("|")} [--settings FILE] [--dry-run]
  hook: reads a Claude Code or Codex hook input on standard input, delivers its lifecycle events to
  the client (one process each), prints the harness's hook output. HOOK_EVENT: ${HOOK_ADAPTERS.map((a) => `${a}: ${servedHookEvents(a).join(", ")}`).join("; ")}.
  --on-failure  open (default): a client failure lets the harness continue, with a systemMessage;
                closed: the event's blocking form where it has one
  --receipts    append one LifecycleReceipt per delivery (JSON Lines)
  --ledger      record each receipt in a durable SQLite receipt ledger, kept across hook calls (read
                it with receipt list --ledger PATH); hook requests carry no harness_run_id and no
                idempotency_key, so sequence stays null and no retry is detected as a replay;
                unusable: exit 1, nothing delivered
  --state-dir   per-session state (default $XDG_STATE_HOME/lifeloop-callback/hooks)
  ${WIRE_VERSION_USAGE}:
                the requests and receipts carry it, every response must carry it
  hook config: prints the hooks block for ${HOOK_ADAPTERS.map((a) => hookInputAdapter(a).config_file).join(" / ")}.
  hook install: merges that block into the settings file (--settings FILE; default
  ${HOOK_ADAPTERS.map((a) => `./${hookInputAdapter(a).config_file}`).join(" or ")}, created if missing): our entries (commands that run
  lifeloop-callback hook) are replaced, everything else is kept; a malformed file is refused; the
  file is replaced atomically. --dry-run prints the unified diff and writes nothing.
  hook uninstall: removes exactly our entries.
  exit 0 ok (a client failure under --on-failure is reported, not an exit code), 1 anything else; never 2`;

const FLAGS = {
  values: [
    "--adapter",
    "--event",
    "--program",
    "--timeout-ms",
    "--on-failure",
    "--receipts",
    "--ledger",
    "--state-dir",
    WIRE_VERSION_FLAG,
  ],
  repeatable: ["--arg"],
};

/** The flags `hook`, `hook config` and `hook install` share. */
export type Common = HookCommandOptions;

/** Read the shared flags; throws UsageError naming the flag at fault. */
export function common(values: ReadonlyMap<string, string>, lists: ReadonlyMap<string, readonly string[]>): Common {
  const adapter = values.get("--adapter");
  if (adapter === undefined) throw new UsageError("--adapter is required");
  if (!isHookAdapter(adapter))
    throw new UsageError(`unknown adapter ${adapter} (expected one of ${HOOK_ADAPTERS.join(", ")})`);
  const program = values.get("--program");
  if (program === undefined) throw new UsageError("--program is required");
  const timeoutMs = integerFlag("--timeout-ms", values.get("--timeout-ms"), {
    min: 1,
    max: LIMITS.max_timeout_ms,
    unit: "of milliseconds",
  });
  if (timeoutMs === undefined)
    throw new UsageError("--timeout-ms is required: there is no default timeout (e.g. --timeout-ms 5000)");
  const onFailure = values.get("--on-failure") ?? "open";
  if (onFailure !== "open" && onFailure !== "closed")
    throw new UsageError(`--on-failure must be open or closed (got ${JSON.stringify(onFailure)})`);
  for (const flag of ["--receipts", "--ledger", "--state-dir"]) {
    if (values.get(flag) === "")
      throw new UsageError(
        `${flag} is an empty path: name a file or directory (an absolute path, since the harness picks the working directory)`,
      );
  }
  const wireVersion = wireVersionFlag(values);
  return {
    adapter,
    program,
    args: lists.get("--arg") ?? [],
    timeoutMs,
    onFailure,
    receiptsFile: values.get("--receipts") ?? null,
    ledgerFile: values.get("--ledger") ?? null,
    stateDir: values.get("--state-dir") ?? null,
    ...(wireVersion === undefined ? {} : { wireVersion }),
  };
}

function invokerFor(c: Common): SubprocessInvoker {
  try {
    return new SubprocessInvoker({
      program: c.program,
      args: c.args,
      timeoutMs: c.timeoutMs,
      ...(c.wireVersion === undefined || c.wireVersion === null ? {} : { wireVersion: c.wireVersion }),
    });
  } catch (error) {
    if (error instanceof InvokerConfigError) throw invokerFlagError(error.message);
    throw error;
  }
}

/**
 * The hook input, or null when stdin is not at EOF within `timeoutMs` (then stdin is destroyed): a
 * harness that never closes stdin must not hang the hook past its deadline.
 */
async function readInputWithin(io: CliIo, timeoutMs: number): Promise<InputRead | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((done) => {
    timer = setTimeout(() => done(null), timeoutMs);
  });
  try {
    const read = await Promise.race([readBoundedInput("-", LIMITS.max_request_bytes, io.stdin), late]);
    if (read === null) io.stdin.destroy();
    return read;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The hooks block of `hook config` and `hook install`: the command runs this installation's CLI
 * (node and its entry point, absolute); relative --receipts and --state-dir are made absolute,
 * since the harness runs the command from its own working directory.
 */
function configBlock(c: Common): ReturnType<typeof hookConfig> {
  const cli = [process.execPath, packageBin()];
  const abs = (p: string | null | undefined): string | null => (p === null || p === undefined ? null : resolve(p));
  const paths = { receiptsFile: abs(c.receiptsFile), ledgerFile: abs(c.ledgerFile), stateDir: abs(c.stateDir) };
  return hookConfig({ ...c, ...paths, cli });
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (args[0] === "install" || args[0] === "uninstall") {
    const { runHookSettings } = await import("./hook-install.js");
    return runHookSettings(args[0], args.slice(1), io, { flags: FLAGS, common, configBlock, check: invokerFor });
  }
  const isConfig = args[0] === "config";
  const { values, lists, positionals } = parseFlags(isConfig ? args.slice(1) : args, FLAGS);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const c = common(values, lists);
  invokerFor(c); // the same checks as a real hook call: absolute program, a usable timeout
  if (isConfig) {
    if (values.has("--event")) throw new UsageError("hook config prints every event: drop --event");
    io.out(`${JSON.stringify(configBlock(c), null, 2)}\n`);
    // Still exit 0: the block may be written for another machine, where the program exists.
    const problem = executableProblem(c.program);
    if (problem !== null)
      io.err(
        `lifeloop-callback hook config: warning: --program ${c.program}: ${problem} here; every hook call will fail until it is an executable file\n`,
      );
    return EXIT.ok;
  }
  const hookEvent = values.get("--event");
  if (hookEvent === undefined) throw new UsageError("--event is required");
  if (!servedHookEvents(c.adapter).includes(hookEvent))
    throw new UsageError(
      `--event ${hookEvent} is not served for ${c.adapter} (expected one of ${servedHookEvents(c.adapter).join(", ")})`,
    );
  const read = await readInputWithin(io, c.timeoutMs);
  if (read === null) {
    io.err(
      `lifeloop-callback hook: standard input was not closed within --timeout-ms ${c.timeoutMs} ms: the harness must write the hook input and close stdin\n`,
    );
    return EXIT.validation;
  }
  if (!read.ok) {
    io.err(
      `lifeloop-callback hook: ${read.tooLarge ? `the hook input is larger than ${read.maxBytes} bytes` : read.message}\n`,
    );
    return EXIT.validation;
  }
  const invoker = invokerFor(c);
  const outcome = await runHookCommand(
    {
      adapter: c.adapter,
      hookEvent,
      invoker,
      wireVersion: invoker.wireVersion,
      clientId: defaultClientId(c.program, c.args),
      onFailure: c.onFailure,
      receiptsFile: c.receiptsFile,
      ledgerFile: c.ledgerFile ?? null,
      stateDir: c.stateDir ?? defaultStateDir(),
    },
    read.bytes,
  );
  if (outcome.stdout !== "") io.out(outcome.stdout);
  if (outcome.stderr !== "") io.err(outcome.stderr);
  return outcome.exitCode === 0 ? EXIT.ok : EXIT.validation;
}

/**
 * Run the hook command (or `hook config`); returns 0 or 1. A usage error is reported on stderr and
 * exits 1 here, not with the CLI's usage code 2: a harness reads 2 as "block".
 */
export async function runHook(args: readonly string[], io: CliIo): Promise<number> {
  try {
    return await run(args, io);
  } catch (error) {
    if (error instanceof HelpRequested) throw error; // the CLI prints the usage, exit 0
    if (error instanceof UsageError) io.err(`lifeloop-callback hook: ${error.message}\n${HOOK_USAGE}\n`);
    else io.err(`lifeloop-callback hook: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.validation;
  }
}
