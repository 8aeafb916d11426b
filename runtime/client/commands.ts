/**
 * Host commands for TypeScript clients (CALLBACK-001 §"Client-Initiated Commands";
 * spec/tables/client-initiated-commands.json and spec/tables/stream-v2.json `reverse_methods`).
 * The same names in both transports: `commands.call("continuation/put", {thread, key}, blob)` (and
 * `commands.continuation.put(...)`) spawns the host CLI in v1 and sends a request over the pipe in v2.
 *
 * - Result: `{result, blob}`: the command's JSON members, and the blob for commands that print one
 *   (`get`), else null.
 * - A command error (v1: non-zero exit with `{"error": ...}` on stderr; v2: an error reply) is a
 *   {@link CommandError} with the error's name (e.g. `not_found`, `not_available`) and fields.
 * - Param names mirror the CLI flags (`--ttl-s` → `ttl_s`), every method's table row lists them.
 * - v1: the CLI runs in its own process group; at `timeoutMs` the group is killed with SIGKILL and
 *   the call rejects at once (CommandError, errorName null), whatever still holds its pipes.
 */
import { spawn } from "node:child_process";
import { CLIENT_INITIATED_COMMANDS, STREAM_V2, type StreamReverseMethodName } from "../../generated/ts/spec.js";
import { errorCode, errorNameForCode } from "../rpc/error-codes.js";
import type { StreamFrame } from "../rpc/frame.js";
import { canonicalBase64 } from "../wire/base64.js";

/** How commands travel: by spawning the host CLI (v1) or as requests on the stream (v2). */
export type CommandTransport =
  | { readonly kind: "cli"; readonly cli: string; readonly timeoutMs: number }
  | {
      readonly kind: "stream";
      readonly request: (
        method: string,
        params: Record<string, unknown>,
      ) => Promise<Extract<StreamFrame, { kind: "success_reply" | "error_reply" }>>;
    };

/** A command failed: `errorName` is the table's error name (null when none was reported), `data` its fields. */
export class CommandError extends Error {
  constructor(
    readonly errorName: string | null,
    message: string,
    readonly data: Readonly<Record<string, unknown>> = {},
    readonly code: number | null = null,
  ) {
    super(message);
    this.name = "CommandError";
  }
}

/**
 * A client request whose frame would be `bytes` long (LF not counted), over `maxBytes`
 * (limits.max_frame_bytes): it is not sent, since the host would end the stream for it
 * (stream.frame-too-large) and fail every pending event. A blob of more than about three quarters
 * of max_frame_bytes goes through the CLI instead (spec/stream-protocol.md §Limits).
 */
export class RequestFrameTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(
      `the request frame would be ${bytes} bytes, over the maximum frame size (${maxBytes} bytes); send a blob this large through the CLI`,
    );
    this.name = "RequestFrameTooLargeError";
  }
}

/** The stream ended (stdin EOF, a signal, a framing violation) before the host answered a client request, or before it was sent. */
export class StreamClosedError extends Error {
  constructor(message = "the stream ended before the host answered") {
    super(message);
    this.name = "StreamClosedError";
  }
}

/** What a command returns. */
export interface CommandResult {
  readonly result: Readonly<Record<string, unknown>>;
  readonly blob: Buffer | null;
}

type MethodRow = {
  readonly method: string;
  readonly group: string;
  readonly command: string;
  readonly params: readonly { readonly name: string; readonly flag: string | null }[];
  readonly result: readonly string[];
};
const METHODS: ReadonlyMap<string, MethodRow> = new Map(
  (STREAM_V2.reverse_methods as readonly MethodRow[]).map((m) => [m.method, m]),
);
const MAX_OUTPUT = 64 * 1024 * 1024;

function camel(command: string): string {
  return command.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function lastJsonObject(text: string): Record<string, unknown> | null {
  for (const line of text.split("\n").reverse()) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{")) continue;
    try {
      const value = JSON.parse(trimmed) as unknown;
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // not JSON: keep looking
    }
  }
  return null;
}

/** Host commands of one client; see the module doc. */
export class ClientCommands {
  /** `continuation.put/get/drop/list/dropThread` (one function per command of the group). */
  readonly continuation: Readonly<
    Record<string, (params: Record<string, unknown>, blob?: Uint8Array) => Promise<CommandResult>>
  >;

  constructor(private readonly transport: CommandTransport) {
    const group: Record<string, (params: Record<string, unknown>, blob?: Uint8Array) => Promise<CommandResult>> = {};
    for (const m of METHODS.values())
      if (m.group === "continuation")
        group[camel(m.command)] = (params, blob) => this.call(m.method as StreamReverseMethodName, params, blob);
    this.continuation = Object.freeze(group);
  }

  /**
   * Run one command. Rejects with {@link CommandError}; over the stream also with
   * {@link RequestFrameTooLargeError} (not sent) or {@link StreamClosedError}; with an Error for
   * an unknown method or a wrong blob argument.
   */
  async call(
    method: StreamReverseMethodName,
    params: Record<string, unknown>,
    blob?: Uint8Array,
  ): Promise<CommandResult> {
    const row = METHODS.get(method);
    if (row === undefined) throw new Error(`unknown command method ${method}`);
    const wantsBlob = row.params.some((p) => p.name === "blob_base64");
    if (wantsBlob !== (blob !== undefined))
      throw new Error(wantsBlob ? `${method} takes a blob` : `${method} takes no blob`);
    return this.transport.kind === "stream" ? this.overStream(row, params, blob) : this.overCli(row, params, blob);
  }

  private async overStream(
    row: MethodRow,
    params: Record<string, unknown>,
    blob: Uint8Array | undefined,
  ): Promise<CommandResult> {
    if (this.transport.kind !== "stream") throw new Error("not a stream transport");
    const sent = blob === undefined ? { ...params } : { ...params, blob_base64: Buffer.from(blob).toString("base64") };
    const reply = await this.transport.request(row.method, sent);
    if (reply.kind === "error_reply") {
      const data = (
        typeof reply.error.data === "object" && reply.error.data !== null ? reply.error.data : {}
      ) as Record<string, unknown>;
      const name = typeof data.error === "string" ? data.error : errorNameForCode(reply.error.code);
      throw new CommandError(name, `${row.method}: ${reply.error.message}`, data, reply.error.code);
    }
    const result = { ...(reply.result as Record<string, unknown>) };
    if (!row.result.includes("blob_base64")) return { result, blob: null };
    // The host broke the result's shape: refused as the Go and Python helpers refuse it, never a
    // lenient decode (base64url, missing padding) or a null blob the caller trips over.
    const broken = (why: string): CommandError =>
      new CommandError(
        "invalid_request",
        `${row.method}: the result member blob_base64 ${why}`,
        {},
        errorCode("invalid_request"),
      );
    if (typeof result.blob_base64 !== "string") throw broken("is missing or not a string");
    const out = canonicalBase64(result.blob_base64);
    if (out === null) throw broken("is not canonical base64 (RFC 4648, padded)");
    delete result.blob_base64;
    return { result, blob: out };
  }

  private overCli(
    row: MethodRow,
    params: Record<string, unknown>,
    blob: Uint8Array | undefined,
  ): Promise<CommandResult> {
    if (this.transport.kind !== "cli") throw new Error("not a CLI transport");
    const group = CLIENT_INITIATED_COMMANDS.groups.find((g) => g.group === row.group);
    const argv = [...(group?.cli.slice(1) ?? [row.group]), row.command];
    for (const p of row.params) {
      const value = params[p.name];
      if (p.flag !== null && value !== undefined && value !== null) argv.push(p.flag, String(value));
    }
    const { cli, timeoutMs } = this.transport;
    return new Promise((resolve, reject) => {
      // Its own process group (detached), so the deadline reaches whatever the CLI started: a
      // wrapper's child that holds the pipes would otherwise keep "close" away past the deadline.
      const child = spawn(cli, argv, {
        stdio: [blob === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        shell: false,
        detached: true,
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      let settled = false;
      const killGroup = (): void => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // the group is already gone
        }
      };
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      // At the deadline the group is killed and the call settles at once: it does not wait for the
      // pipes' EOF, which a process that left the group could still hold.
      const timer = setTimeout(() => {
        killGroup();
        settle(() =>
          reject(
            new CommandError(
              null,
              `${cli} ${argv.join(" ")} did not finish within ${timeoutMs} ms (its process group was killed)`,
            ),
          ),
        );
      }, timeoutMs);
      child.stdout?.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_OUTPUT) killGroup();
        else out.push(c);
      });
      child.stderr?.on("data", (c: Buffer) => err.push(c));
      // A CLI that refuses before reading the blob (blob_too_large) closes its stdin: the write
      // fails with EPIPE. Its exit status and stderr say why, so the write error is not the outcome.
      child.stdin?.on("error", () => {});
      child.on("error", (error) => settle(() => reject(new CommandError(null, `cannot run ${cli}: ${error.message}`))));
      child.on("close", (code) => {
        const stderr = Buffer.concat(err).toString("utf8");
        const stdout = Buffer.concat(out);
        if (code !== 0) {
          const reported = lastJsonObject(stderr);
          const name = reported !== null && typeof reported.error === "string" ? reported.error : null;
          settle(() =>
            reject(
              new CommandError(
                name,
                `${cli} ${argv.join(" ")} exited ${code}: ${stderr.slice(0, 512)}`,
                reported ?? {},
              ),
            ),
          );
          return;
        }
        if (row.result.includes("blob_base64")) {
          settle(() => resolve({ result: lastJsonObject(stderr) ?? {}, blob: stdout }));
          return;
        }
        const result = lastJsonObject(stdout.toString("utf8"));
        if (result === null)
          settle(() => reject(new CommandError(null, `${cli} ${argv.join(" ")} printed no JSON result`)));
        else settle(() => resolve({ result, blob: null }));
      });
      if (blob !== undefined) child.stdin?.end(blob);
    });
  }
}
