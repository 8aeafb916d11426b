/**
 * Shared plumbing of the `lifeloop-callback` CLI: exit codes (spec/tables/cli-exit-codes.json),
 * bounded input reading, and the streams a command writes to.
 */
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { CLI_EXIT_CODES } from "../../generated/ts/spec.js";

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
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, tooLarge: false, message: `cannot read ${source === "-" ? "standard input" : source}: ${code ?? (error as Error).message}` };
  }
  return { ok: true, bytes: Buffer.concat(chunks, total) };
}

/**
 * Read a command's input (see {@link readBoundedInput}); when it cannot be read or is too large,
 * write `<command>: <why>` to stderr and return null (the command then exits with EXIT.input).
 */
export async function readCommandInput(command: string, source: string, maxBytes: number, io: CliIo): Promise<Uint8Array | null> {
  const read = await readBoundedInput(source, maxBytes, io.stdin);
  if (read.ok) return read.bytes;
  io.err(`${command}: ${read.tooLarge ? `json.max-bytes: input is larger than ${read.maxBytes} bytes` : read.message}\n`);
  return null;
}

/** Compact JSON plus newline. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/**
 * A tiny flag parser: `--name value` pairs, repeatable flags collected in order, boolean switches,
 * and positional arguments. Unknown flags and missing values are usage errors.
 */
export function parseFlags(
  args: readonly string[],
  spec: { readonly values?: readonly string[]; readonly repeatable?: readonly string[]; readonly switches?: readonly string[] },
): { readonly values: ReadonlyMap<string, string>; readonly lists: ReadonlyMap<string, readonly string[]>; readonly switches: ReadonlySet<string>; readonly positionals: readonly string[] } {
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
    if (spec.switches?.includes(arg)) {
      switches.add(arg);
      continue;
    }
    const takesValue = spec.values?.includes(arg) || spec.repeatable?.includes(arg);
    if (!takesValue) throw new UsageError(`unknown flag ${arg}`);
    const value = args[i + 1];
    if (value === undefined) throw new UsageError(`flag ${arg} needs a value`);
    i++;
    if (spec.repeatable?.includes(arg)) lists.set(arg, [...(lists.get(arg) ?? []), value]);
    else {
      if (values.has(arg)) throw new UsageError(`flag ${arg} given twice`);
      values.set(arg, value);
    }
  }
  return { values, lists, switches, positionals };
}
