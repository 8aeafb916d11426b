/**
 * Shared plumbing of the `lifeloop-callback` CLI: exit codes (spec/tables/cli-exit-codes.json),
 * bounded input reading, and the streams a command writes to.
 */
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { CLI_EXIT_CODES } from "../../generated/ts/spec/cli-exit-codes.js";
import { describeIoError } from "../process/io-error.js";

/** Exit codes by name, from the spec table. */
export const EXIT = CLI_EXIT_CODES;

/** The streams a command uses; tests and embedders may substitute their own. */
export interface CliIo {
  readonly stdin: Readable;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Raw bytes to stdout (`continuation get` prints a blob); absent where only text is captured. */
  readonly outBytes?: (bytes: Uint8Array) => void;
}

/** A usage error: the command line itself is wrong (exit 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * `--help` or `-h` in a flag position (not the value of a flag such as `--arg -h`): the caller
 * prints the command's usage on stdout and exits 0.
 */
export class HelpRequested extends Error {
  constructor() {
    super("help requested");
    this.name = "HelpRequested";
  }
}

/** Outcome of reading one input: its bytes, or why it could not be read. `tooLarge` means more than `maxBytes` arrived. */
export type InputRead =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly tooLarge: true; readonly maxBytes: number }
  | { readonly ok: false; readonly tooLarge: false; readonly message: string };

/**
 * Read a file path, or standard input for `-`, keeping at most `maxBytes` bytes in memory: the read
 * stops (and the stream is destroyed) as soon as one byte more than the limit has arrived.
 */
export async function readBoundedInput(source: string, maxBytes: number, stdin: Readable): Promise<InputRead> {
  const stream = source === "-" ? stdin : createReadStream(source);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      total += buf.length;
      if (total > maxBytes) {
        if (source !== "-") (stream as Readable).destroy();
        return { ok: false, tooLarge: true, maxBytes };
      }
      chunks.push(buf);
    }
  } catch (error) {
    return {
      ok: false,
      tooLarge: false,
      message: describeIoError(`read ${source === "-" ? "standard input" : source}`, error),
    };
  }
  return { ok: true, bytes: Buffer.concat(chunks, total) };
}

/**
 * Read a command's input (see {@link readBoundedInput}); when it cannot be read or is too large,
 * write `<command>: <why>` to stderr and return null (the command then exits with EXIT.input).
 */
export async function readCommandInput(
  command: string,
  source: string,
  maxBytes: number,
  io: CliIo,
): Promise<Uint8Array | null> {
  const read = await readBoundedInput(source, maxBytes, io.stdin);
  if (read.ok) return read.bytes;
  io.err(
    `${command}: ${read.tooLarge ? `json.max-bytes: input is larger than ${read.maxBytes} bytes` : read.message}\n`,
  );
  return null;
}

/** Compact JSON plus newline. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/**
 * A tiny flag parser: `--name value` or `--name=value` pairs, repeatable flags collected in order,
 * boolean switches, and positional arguments (`-` is standard input; everything after `--` is
 * positional). Unknown flags, missing values and a flag given twice are usage errors
 * ({@link UsageError}) whose message says what to write instead; `--help`/`-h` where a flag may
 * stand throws {@link HelpRequested} (as the value of a flag it is that value).
 */
export function parseFlags(
  args: readonly string[],
  spec: {
    readonly values?: readonly string[];
    readonly repeatable?: readonly string[];
    readonly switches?: readonly string[];
  },
): {
  readonly values: ReadonlyMap<string, string>;
  readonly lists: ReadonlyMap<string, readonly string[]>;
  readonly switches: ReadonlySet<string>;
  readonly positionals: readonly string[];
} {
  const values = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const switches = new Set<string>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "-" || !arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg === "--help" || arg === "-h") throw new HelpRequested();
    // `--name=value` is the same as `--name value` (GNU style); only the first `=` splits.
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (spec.switches?.includes(name)) {
      if (eq > 0)
        throw new UsageError(
          `${name} is a switch and takes no value (got ${JSON.stringify(arg)}); write ${name} alone`,
        );
      switches.add(name);
      continue;
    }
    const takesValue = spec.values?.includes(name) || spec.repeatable?.includes(name);
    if (!takesValue) throw new UsageError(`unknown flag ${name}; run with --help to see the flags this command takes`);
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      value = args[i + 1];
      if (value === undefined) throw new UsageError(`${name} needs a value (write ${name} VALUE or ${name}=VALUE)`);
      i++;
    }
    if (spec.repeatable?.includes(name)) lists.set(name, [...(lists.get(name) ?? []), value]);
    else {
      if (values.has(name)) throw new UsageError(`${name} is given twice; give it once`);
      values.set(name, value);
    }
  }
  return { values, lists, switches, positionals };
}

const DIGITS = /^[0-9]+$/;

/**
 * Parse an integer flag value (decimal digits only: no sign, unit or exponent).
 * @param flag - the flag name, for the message (e.g. `--timeout-ms`)
 * @param text - the raw value, or undefined when the flag was not given (then undefined is returned)
 * @param bounds - inclusive range and the unit named in the message (e.g. `ms`)
 * @throws UsageError naming the flag, the accepted range and unit, and the value given; the same
 *   message for every way the value can be wrong (`5s`, `-1`, `0` when the minimum is 1, too large).
 */
export function integerFlag(
  flag: string,
  text: string | undefined,
  bounds: { readonly min: number; readonly max: number; readonly unit?: string },
): number | undefined {
  if (text === undefined) return undefined;
  const n = DIGITS.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < bounds.min || n > bounds.max) {
    const unit = bounds.unit ? ` ${bounds.unit}` : "";
    throw new UsageError(
      `${flag} takes a whole number${unit} from ${bounds.min} to ${bounds.max} (got ${JSON.stringify(text)})`,
    );
  }
  return n;
}

/**
 * A usage error for an invoker configuration the flags produced, naming the flag (`--program`,
 * `--timeout-ms`) where the invoker's message names its option (`program`, `timeoutMs`), so the
 * same flag reads the same in every command.
 * @param message - the InvokerConfigError's message
 */
export function invokerFlagError(message: string): UsageError {
  return new UsageError(message.replace(/^timeoutMs/, "--timeout-ms").replace(/^program/, "--program"));
}
