/**
 * `lifeloop-callback continuation put|get|drop|list|drop-thread`: a drop-in for the reference's
 * `lifeloop continuation` group (CONTINUATION-001; spec/continuation-store.md). Flags, identifier
 * rule, root resolution, size limit, output shapes, JSON error codes and exit codes come from
 * spec/tables/client-initiated-commands.json; the store is {@link ContinuationStore}.
 *
 * The command line is parsed the way the reference parses it, so every argument vector means the
 * same to both: `--thread` and `--key` are picked out first, each taking the next argument whatever it
 * is; then the optional flags, in table order, from what is left; a repeated flag keeps its last
 * value; anything left over is a usage error. `list` and `drop-thread` take their flags in one pass.
 * Supersets: `--flag=value`, `--help`, and the opt-in `extension_flags` of the table.
 *
 * The checks run in the reference's order too (which check wins when several fail): arguments
 * (exit 2), identifiers, then for put the max-bytes variable, stdin and the size, then the root.
 */
import { checkIdentifier } from "../../continuation/identifier.js";
import { ContinuationError, blobTooLarge, storageFailure } from "../../continuation/errors.js";
import { sortedJsonLine } from "../../continuation/json.js";
import {
  MaxBytesSettingError,
  resolveMaxBlobBytes,
  resolveRoot,
  rootResolutionText,
  storeForCommand,
  type ContinuationEnvironment,
} from "../../continuation/root.js";
import { ContinuationStore } from "../../continuation/store.js";
import { abandonedLockWaits } from "../../continuation/lock.js";
import { CONTINUATION, type ContinuationCommandName } from "../../continuation/table.js";
import { parseU64 } from "../../continuation/u64.js";
import { readBoundedInput, type CliIo } from "../io.js";

const NAMES = CONTINUATION.commands.map((c) => c.command);

/** Usage text of the group (printed for `--help`). */
export const CONTINUATION_USAGE = [
  "usage: lifeloop-callback continuation <command> [flags]   (CONTINUATION-001; a drop-in for `lifeloop continuation`)",
  ...CONTINUATION.commands.map((c) => {
    const flags = c.flags.map((f) =>
      f.required ? `${f.flag} ID` : `[${f.flag} ${f.value === "unsigned_integer" ? "N" : "ID"}]`,
    );
    const ours = CONTINUATION.extension_flags
      .filter((f) => f.command === c.command)
      .map((f) => `[${f.flag}${f.value === "switch" ? "" : f.value === "identifier" ? " ID" : " HEX|absent"}]`);
    return `  continuation ${c.command} ${[...flags, ...ours].join(" ")}${c.stdin === "blob" ? "   < blob" : ""}`;
  }),
  `  The store: ${rootResolutionText()}.`,
  `  Exit codes: 0 ok, ${CONTINUATION.usage_error_exit_code} usage (plain text), ${[...new Set(CONTINUATION.errors.map((e) => e.exit_code))].join("/")} a JSON error on stderr: ${[...CONTINUATION.errors, ...CONTINUATION.extension_errors].map((e) => e.error).join(", ")}.`,
].join("\n");

/** A command-line mistake: exit `usage_error_exit_code` with the message in plain text. */
class ContinuationUsage extends Error {}

type Parsed = { readonly values: ReadonlyMap<string, string>; readonly switches: ReadonlySet<string> };

interface FlagSpec {
  readonly flag: string;
  readonly takesValue: boolean;
}

function flagsOf(command: ContinuationCommandName): {
  readonly required: readonly FlagSpec[];
  readonly optional: readonly FlagSpec[];
} {
  const row = CONTINUATION.commands.find((c) => c.command === command);
  if (!row) throw new Error(`no continuation command ${command}`);
  const required = row.flags.filter((f) => f.required).map((f) => ({ flag: f.flag, takesValue: true }));
  const optional = [
    ...row.flags.filter((f) => !f.required).map((f) => ({ flag: f.flag, takesValue: true })),
    ...CONTINUATION.extension_flags
      .filter((f) => f.command === command)
      .map((f) => ({ flag: f.flag, takesValue: f.value !== "switch" })),
  ];
  return { required, optional };
}

/** `--flag value` (the next argument, whatever it is) or our `--flag=value`; null when `arg` is not this flag. */
function take(args: readonly string[], i: number, spec: FlagSpec): { value: string; next: number } | null {
  const arg = args[i] as string;
  if (arg === spec.flag) {
    if (!spec.takesValue) return { value: "", next: i + 1 };
    const value = args[i + 1];
    if (value === undefined) throw new ContinuationUsage(`flag \`${spec.flag}\` needs a value`);
    return { value, next: i + 2 };
  }
  if (spec.takesValue && arg.startsWith(`${spec.flag}=`))
    return { value: arg.slice(spec.flag.length + 1), next: i + 1 };
  return null;
}

/** Parse `args` of `command` the way the reference does (see the module comment). */
export function parseContinuationArgs(command: ContinuationCommandName, args: readonly string[]): Parsed {
  const bad = args.find((a) => a === "--output" || a.startsWith("--output="));
  if (bad !== undefined) throw new ContinuationUsage("--output is not a continuation flag");
  const { required, optional } = flagsOf(command);
  const values = new Map<string, string>();
  const switches = new Set<string>();
  const record = (spec: FlagSpec, value: string): void => {
    if (spec.takesValue) values.set(spec.flag, value);
    else switches.add(spec.flag);
  };
  if (required.length === 1) {
    // list, drop-thread: one pass; an unknown argument is an error at once.
    const all = [...required, ...optional];
    for (let i = 0; i < args.length; ) {
      const hit = all.map((spec) => ({ spec, got: take(args, i, spec) })).find((h) => h.got !== null);
      if (!hit?.got) throw new ContinuationUsage(`continuation ${command}: unexpected argument \`${args[i]}\``);
      record(hit.spec, hit.got.value);
      i = hit.got.next;
    }
    for (const spec of required)
      if (!values.has(spec.flag)) throw new ContinuationUsage(`continuation ${command}: ${spec.flag} is required`);
    return { values, switches };
  }
  // put, get, drop: the required pair first, over the whole vector.
  let leftover: string[] = [];
  for (let i = 0; i < args.length; ) {
    const hit = required.map((spec) => ({ spec, got: take(args, i, spec) })).find((h) => h.got !== null);
    if (hit?.got) {
      record(hit.spec, hit.got.value);
      i = hit.got.next;
    } else leftover.push(args[i++] as string);
  }
  for (const spec of required)
    if (!values.has(spec.flag)) throw new ContinuationUsage(`continuation ${command}: ${spec.flag} is required`);
  for (const spec of optional) {
    const rest: string[] = [];
    for (let i = 0; i < leftover.length; ) {
      const got = take(leftover, i, spec);
      if (got) {
        record(spec, got.value);
        i = got.next;
      } else rest.push(leftover[i++] as string);
    }
    leftover = rest;
  }
  if (leftover.length > 0)
    throw new ContinuationUsage(`continuation ${command}: unexpected argument \`${leftover[0]}\``);
  return { values, switches };
}

/** Run `continuation <args>`; returns the exit code. Never throws. */
export async function runContinuation(
  args: readonly string[],
  io: CliIo,
  env: ContinuationEnvironment = process.env,
): Promise<number> {
  const [name, ...rest] = args;
  if (
    name === "--help" ||
    name === "-h" ||
    name === "help" ||
    ((rest[0] === "--help" || rest[0] === "-h") && rest.length === 1 && NAMES.includes(name as ContinuationCommandName))
  ) {
    io.out(`${CONTINUATION_USAGE}\n`);
    return 0;
  }
  try {
    if (name === undefined) throw new ContinuationUsage(`continuation needs a command: ${NAMES.join(" | ")}`);
    if (!NAMES.includes(name as ContinuationCommandName))
      throw new ContinuationUsage(`continuation: unknown command \`${name}\`; the commands are ${NAMES.join(" | ")}`);
    const parsed = parseContinuationArgs(name as ContinuationCommandName, rest);
    return await COMMAND_RUNNERS[name as ContinuationCommandName](parsed, io, env);
  } catch (error) {
    if (error instanceof ContinuationUsage || error instanceof MaxBytesSettingError) {
      io.err(`${error.message}\n`);
      return CONTINUATION.usage_error_exit_code;
    }
    if (error instanceof ContinuationError) {
      io.err(sortedJsonLine(error.envelope));
      return error.exitCode;
    }
    // Anything else is a bug or an unexpected system error: still a structured storage_failure.
    const failure = storageFailure(`unexpected: ${(error as Error).message ?? String(error)}`);
    io.err(sortedJsonLine(failure.envelope));
    return failure.exitCode;
  }
}

/**
 * {@link runContinuation} as the one-shot CLI runs it: when a lock wait was given up at its deadline
 * (its kernel call is still parked in a libuv thread), the process exits at once with the code.
 */
export async function runContinuationCli(args: readonly string[], io: CliIo): Promise<number> {
  const code = await runContinuation(args, io);
  if (abandonedLockWaits() > 0) process.exit(code);
  return code;
}

type Runner = (parsed: Parsed, io: CliIo, env: ContinuationEnvironment) => Promise<number>;

const thread = (p: Parsed): string => p.values.get("--thread") as string;
const key = (p: Parsed): string => p.values.get("--key") as string;

function store(env: ContinuationEnvironment, maxBlobBytes?: bigint): ContinuationStore {
  return new ContinuationStore({ root: resolveRoot(env), ...(maxBlobBytes === undefined ? {} : { maxBlobBytes }) });
}

function optionalClient(p: Parsed, flag: string): string | undefined {
  const value = p.values.get(flag);
  if (value !== undefined) checkIdentifier(value, "client_id");
  return value;
}

/** get and drop: thread, key and `--require-client-id` checked in the reference's order. */
function checkedEntry(p: Parsed): { readonly guard: { readonly requireClientId?: string } } {
  checkIdentifier(thread(p), "thread");
  checkIdentifier(key(p), "key");
  const requireClientId = optionalClient(p, "--require-client-id");
  return { guard: requireClientId === undefined ? {} : { requireClientId } };
}

function writeBytes(io: CliIo, bytes: Uint8Array): void {
  if (!io.outBytes) throw new Error("this CLI host cannot write bytes to stdout");
  io.outBytes(bytes);
}

const COMMAND_RUNNERS: Readonly<Record<ContinuationCommandName, Runner>> = {
  async put(p, io, env) {
    const ttlText = p.values.get("--ttl-s");
    const ttl = ttlText === undefined ? null : parseU64(ttlText);
    if (ttl === null && ttlText !== undefined)
      throw new ContinuationUsage("flag `--ttl-s` needs an unsigned integer (0 .. 18446744073709551615)");
    const expect = p.values.get("--expect-sha256");
    if (expect !== undefined && expect !== "absent" && !/^[0-9a-f]{64}$/.test(expect))
      throw new ContinuationUsage("flag `--expect-sha256` needs 64 lowercase hex digits or `absent`");
    checkIdentifier(thread(p), "thread");
    checkIdentifier(key(p), "key");
    const clientId = p.values.get("--client-id") ?? CONTINUATION.defaults.client_id;
    checkIdentifier(clientId, "client_id");
    const requireClientId = optionalClient(p, "--require-client-id");
    const max = resolveMaxBlobBytes(env);
    const read = await readBoundedInput(
      "-",
      Number(max > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : max),
      io.stdin,
    );
    if (!read.ok) throw read.tooLarge ? blobTooLarge(max) : storageFailure(`put: ${read.message}`);
    const result = await store(env, max).put(thread(p), key(p), read.bytes, {
      clientId,
      ttlS: ttl,
      ...(requireClientId === undefined ? {} : { requireClientId }),
      ...(expect === undefined ? {} : { expectSha256: expect }),
    });
    io.out(sortedJsonLine(result));
    return 0;
  },
  async get(p, io, env) {
    const { guard } = checkedEntry(p);
    const { blob, meta } = await storeForCommand(env, { command: "get" }).get(thread(p), key(p), guard);
    // The meta line first, then the blob, nothing appended (as the reference).
    io.err(sortedJsonLine({ ...meta }));
    writeBytes(io, blob);
    return 0;
  },
  async drop(p, io, env) {
    const { guard } = checkedEntry(p);
    // Only a guarded drop reads entries, so only it reads the max-bytes variable (as the reference).
    const s = storeForCommand(env, { command: "drop", guarded: guard.requireClientId !== undefined });
    io.out(sortedJsonLine(await s.drop(thread(p), key(p), guard)));
    return 0;
  },
  async list(p, io, env) {
    checkIdentifier(thread(p), "thread");
    const result = await storeForCommand(env, { command: "list" }).list(thread(p), { long: p.switches.has("--long") });
    for (const d of result.diagnostics) io.err(sortedJsonLine({ ...d }));
    io.out(sortedJsonLine({ keys: result.keys.map((k) => ({ ...k })), thread: result.thread }));
    return 0;
  },
  async "drop-thread"(p, io, env) {
    checkIdentifier(thread(p), "thread");
    io.out(sortedJsonLine(await storeForCommand(env, { command: "drop-thread" }).dropThread(thread(p))));
    return 0;
  },
};
