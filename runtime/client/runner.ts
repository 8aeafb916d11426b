/**
 * The TypeScript client runner (spec/stream-protocol.md; CALLBACK-001 §B and §C): the few lines
 * that make a Node program a callback client, serving v1 and v2 with the handler API of the Go and
 * Python SDK runners, `(request, payloads) => CallbackResponse`, plus an optional third argument
 * (cancellation signal, transport, host commands).
 *
 * ```ts
 * import { serve } from "lifeloop-callback";
 * await serve((request) => ({ schema_version: request.schema_version, status: "delivered" }));
 * ```
 *
 * - **v1** (no `--stream` in argv): stdin is read to EOF (at most limits.max_request_bytes bytes kept,
 *   the rest drained) and judged with the bounds of every binding's runner (DEFAULT_DOCUMENT_LIMITS:
 *   bytes, limits.max_depth, limits.max_values, limits.max_object_members), one CallbackResponse is
 *   written to stdout, exit 0.
 * - **v2** (`--stream` in argv): frames are read with the byte-bounded {@link FrameReader} (never
 *   `readline`) and judged like the host judges them (same rule ids). Each `event/<kind>` request
 *   is answered with one success reply whose result is a CallbackResponse; an unknown method gets
 *   `-32601`; notifications are never answered; `lifeloop/cancel` aborts the handler's signal and
 *   its reply is not sent. Requests are handled concurrently. A framing violation by the host ends
 *   the runner (message on stderr, exit 1). stdin EOF, SIGTERM, SIGINT and SIGHUP end it within
 *   limits.stream_client_exit_ms (running handlers are not awaited), unless a handler computes
 *   synchronously for longer: it holds the event loop, so neither is seen until it returns
 *   (spec/stream-protocol.md §Shutdown; let a long handler `await` between pieces of work).
 * - stdout is reserved: while serving v2, `process.stdout.write` (and so `console.log`) goes to
 *   stderr; frames go through the original stream. A child process that inherits fd 1 can still
 *   write to it: spawn children with stdout ignored or piped.
 * - Every answer is in the request's wire version (spec/wire-window.md): a request of any version of
 *   the window is read by that version's rules; a `schema_version` the handler wrote as current
 *   becomes the request's (as in the Go and Python runners) and the response is checked in that
 *   version alone; a request outside the window is refused in current.
 * - Refusals and failures are answered exactly as the SDK runners do: `status: failed`, the
 *   class's default retry class and one warning naming the rule id or failure variant (invalid
 *   envelope: `invalid_request` + rule id; `receipt.emitted`: `receipt_emitted_rejected`; handler
 *   threw: `internal_error` + `handler_threw`; invalid response: `internal_error` + rule id).
 */
import {
  CLIENT_INITIATED_COMMANDS,
  EVENT_VOCABULARY,
  FAILURE_RETRY_DEFAULTS,
  LIMITS,
  RECEIPT_EMITTED_GUARD,
  STREAM_V2,
  WIRE_VERSION,
} from "../../generated/ts/spec.js";
import type {
  CallbackRequest,
  CallbackResponse,
  DispatchEnvelope,
  FailureClass,
  PayloadEnvelope,
} from "../../generated/ts/types.js";
import { failureClassOf, issueText } from "../invoker/failure.js";
import { wireSnapshot } from "../invoker/request.js";
import type { ValidationIssue } from "../wire/issues.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument, validateParsed, type WireResult } from "../wire/validate.js";
import { answerVersion, closedWindow } from "../wire/window.js";
import { parseStrictJson } from "../wire/json/parse.js";
import { FrameReader } from "../rpc/frame-reader.js";
import {
  encodeErrorReply,
  encodeFrame,
  encodeResultAround,
  framePointers,
  idKey,
  parseFrame,
  type JsonRpcId,
  type StreamFrame,
} from "../rpc/frame.js";
import { errorCode } from "../rpc/error-codes.js";
import { RequestIds, RpcPeer } from "../rpc/peer.js";
import { ClientCommands, RequestFrameTooLargeError, StreamClosedError, type CommandTransport } from "./commands.js";

/** What a handler gets besides the request and payloads. */
export interface ClientContext {
  /** `subprocess` (v1) or `stream` (v2). */
  readonly transport: "subprocess" | "stream";
  /** Aborted when the host cancels the request (`lifeloop/cancel`) or the runner is ending. Never aborted in v1. */
  readonly signal: AbortSignal;
  /** Host commands (continuation/*): over the pipe in v2, by spawning the host CLI in v1. */
  readonly commands: ClientCommands;
}

/** The handler: the same shape as the SDK runners' (request, payloads), plus the context. */
export type ClientHandler = (
  request: CallbackRequest,
  payloads: readonly PayloadEnvelope[],
  context: ClientContext,
) => CallbackResponse | Promise<CallbackResponse>;

/**
 * Options of {@link serve}; all optional.
 * - `argv`: the arguments to look for `--stream` in (default process.argv.slice(2));
 * - `stdin`/`stdout`/`stderr`: streams (default the process's); when `stdout` is the process's own,
 *   stray writes are diverted to stderr in v2;
 * - `exit`: call process.exit with the status when done (default true when using process stdio), so
 *   timers or sockets a handler left open cannot keep the client alive;
 * - `cli`: the host CLI for v1 commands (default: `$LIFELOOP_CLI` when set and non-empty, else
 *   `lifeloop-callback` on PATH: the table's `cli_program_environment` and `cli`, as the Go and
 *   Python helpers; the continuation group is this toolkit's extension, which the reference's
 *   `lifeloop` no longer ships), `commandTimeoutMs` their deadline.
 */
export interface ServeOptions {
  readonly argv?: readonly string[];
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
  readonly exit?: boolean;
  readonly cli?: string;
  readonly commandTimeoutMs?: number;
}

const NOT_DISPATCHABLE: ReadonlySet<string> = new Set(
  EVENT_VOCABULARY.filter((e) => !e.dispatchable).map((e) => e.event),
);
const EVENT_KINDS: ReadonlySet<string> = new Set(EVENT_VOCABULARY.map((e) => e.event));
const EVENT_PREFIX = STREAM_V2.host_to_client.event_method_prefix;
const MAX_WARNING_MESSAGE = LIMITS.runner_warning_message_code_points;

/** A `status: failed` response with the class's default retry class and one warning. */
export function failureResponse(
  failureClass: FailureClass,
  code: string,
  message: string,
  schemaVersion: string,
): CallbackResponse {
  return {
    schema_version: schemaVersion,
    status: "failed",
    failure_class: failureClass,
    retry_class: FAILURE_RETRY_DEFAULTS[failureClass],
    warnings: [{ code, message: [...message].slice(0, MAX_WARNING_MESSAGE).join("") }],
  } as CallbackResponse;
}

function writeErr(stderr: NodeJS.WritableStream, text: string): void {
  try {
    stderr.write(`lifeloop-callback client: ${text}\n`);
  } catch {
    // stderr gone: nothing left to tell.
  }
}

/**
 * The answer to one judged DispatchEnvelope: refusals, the handler call, response validation.
 * `version`: the wire version to answer in ({@link answerVersion} of the request); the response is
 * judged with the window closed to it. Returns the response's JSON bytes (valid, at most
 * limits.max_response_bytes). Never throws.
 */
export async function answerEnvelope(
  judged: WireResult<DispatchEnvelope>,
  handler: ClientHandler,
  context: ClientContext,
  stderr: NodeJS.WritableStream,
  version: string,
): Promise<Buffer> {
  // The response is judged in the request's version alone: an answer in another version is invalid.
  const window = closedWindow(version);
  const encode = (response: CallbackResponse): Buffer => {
    const snap = wireSnapshot("CallbackResponse", inVersion(response, version), LIMITS.max_response_bytes, [], window);
    if (snap.ok) return snap.bytes;
    const code = snap.problem === "invalid" ? (snap.issues[0] as ValidationIssue).rule : "invalid_response";
    const text = snap.problem === "invalid" ? snap.issues.slice(0, 8).map(issueText).join("; ") : snap.detail;
    writeErr(stderr, `the handler returned an invalid CallbackResponse: ${text}`);
    const fallback = wireSnapshot(
      "CallbackResponse",
      failureResponse(failureClassOf("handler_threw"), code, text, version),
      LIMITS.max_response_bytes,
      [],
      window,
    );
    return fallback.ok ? fallback.bytes : Buffer.from("{}");
  };
  if (!judged.ok) {
    const issue = judged.issues[0] as ValidationIssue;
    writeErr(stderr, `rejected DispatchEnvelope: ${issueText(issue)}`);
    return encode(failureResponse(failureClassOf("invalid_request"), issue.rule, issueText(issue), version));
  }
  const envelope = judged.value;
  if (NOT_DISPATCHABLE.has(envelope.request.event)) {
    const text = `${envelope.request.event} is never dispatched to a client (notification-only event)`;
    writeErr(stderr, `rejected DispatchEnvelope: ${text}`);
    return encode(
      failureResponse(
        failureClassOf(RECEIPT_EMITTED_GUARD.failure_variant),
        RECEIPT_EMITTED_GUARD.failure_variant,
        text,
        version,
      ),
    );
  }
  try {
    return encode(await handler(envelope.request, envelope.payloads ?? [], context));
  } catch (error) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    writeErr(stderr, `the handler threw: ${error instanceof Error ? (error.stack ?? text) : text}`);
    return encode(failureResponse(failureClassOf("handler_threw"), "handler_threw", text, version));
  }
}

/**
 * Serve the handler on this process's stdio (or the given streams) in v1 or v2 mode, depending on
 * `--stream` in argv. Resolves with the exit status (0, or 1 when stdout failed or the host broke
 * the framing), after calling process.exit with it when `exit` is on.
 */
export async function serve(handler: ClientHandler, options: ServeOptions = {}): Promise<number> {
  const argv = options.argv ?? process.argv.slice(2);
  const usesProcess = options.stdout === undefined;
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const exit = options.exit ?? usesProcess;
  const stream = argv.includes(STREAM_V2.launch.flag);
  const status = stream
    ? await serveStream(handler, stdin, stdout, stderr, usesProcess)
    : await serveOnce(handler, stdin, stdout, stderr, options);
  if (exit) process.exit(status);
  return status;
}

async function serveOnce(
  handler: ClientHandler,
  stdin: NodeJS.ReadableStream,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
  options: ServeOptions,
): Promise<number> {
  const limit = LIMITS.max_request_bytes;
  const kept: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stdin as AsyncIterable<Buffer>) {
      if (size <= limit) {
        const take = chunk.subarray(0, limit + 1 - size);
        kept.push(take);
        size += take.length;
      }
    }
  } catch (error) {
    const text = `stdin cannot be read: ${(error as Error).message}`;
    writeErr(stderr, text);
    return writeOut(
      stdout,
      Buffer.from(
        JSON.stringify(failureResponse(failureClassOf("write_request"), "write_request", text, WIRE_VERSION)),
      ),
    );
  }
  const context: ClientContext = {
    transport: "subprocess",
    signal: new AbortController().signal,
    commands: new ClientCommands(cliTransport(options)),
  };
  // The bounds every binding's runner judges a request with (bytes, depth, values, members per object).
  const bytes = Buffer.concat(kept, size);
  const judged = parseWireDocument("DispatchEnvelope", bytes, DEFAULT_DOCUMENT_LIMITS);
  const version = judged.ok ? judged.value.schema_version : requestVersionOf(bytes);
  return writeOut(stdout, await answerEnvelope(judged, handler, context, stderr, version));
}

/**
 * `response` with every `schema_version` that is the current version (the root's and each client
 * payload's) set to `version`, as the Go and Python runners do: a handler that answers in current,
 * whatever the request, still answers an older host in its version. Any other version is left as
 * written (and refused by the check in the request's version). Never throws: a response that cannot
 * be read is returned as given.
 */
function inVersion(response: CallbackResponse, version: string): CallbackResponse {
  if (version === WIRE_VERSION) return response;
  try {
    if (response === null || typeof response !== "object" || Array.isArray(response)) return response;
    const out: Record<string, unknown> = { ...response };
    if (out.schema_version === WIRE_VERSION) out.schema_version = version;
    if (Array.isArray(out.client_payloads))
      out.client_payloads = out.client_payloads.map((p: unknown) =>
        p !== null && typeof p === "object" && (p as { schema_version?: unknown }).schema_version === WIRE_VERSION
          ? { ...p, schema_version: version }
          : p,
      );
    return out as unknown as CallbackResponse;
  } catch {
    return response;
  }
}

/** The version to answer an invalid request's bytes in: its own when readable and in the window, else current. */
function requestVersionOf(bytes: Uint8Array): string {
  const parsed = parseStrictJson(bytes, DEFAULT_DOCUMENT_LIMITS, { nonIntegerPaths: [] });
  return parsed.ok ? answerVersion(parsed.value) : WIRE_VERSION;
}

function writeOut(stdout: NodeJS.WritableStream, bytes: Buffer): Promise<number> {
  return new Promise((resolve) => {
    stdout.write(Buffer.concat([bytes, Buffer.from("\n")]), (error) => resolve(error ? 1 : 0));
  });
}

/** The host CLI of v1 commands when `cli` is not given (spec/tables/client-initiated-commands.json; one program for every group today). */
function defaultCli(): string {
  const group = CLIENT_INITIATED_COMMANDS.groups[0];
  const chosen = group === undefined ? undefined : process.env[group.cli_program_environment];
  return chosen !== undefined && chosen !== "" ? chosen : (group?.cli[0] ?? "lifeloop-callback");
}

function cliTransport(options: ServeOptions): CommandTransport {
  return {
    kind: "cli",
    cli: options.cli ?? defaultCli(),
    timeoutMs: options.commandTimeoutMs ?? LIMITS.client_command_timeout_ms,
  };
}

function serveStream(
  handler: ClientHandler,
  stdin: NodeJS.ReadableStream,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
  divert: boolean,
): Promise<number> {
  return new StreamServer(handler, stdin, stdout, stderr, divert).run();
}

type Reply = Extract<StreamFrame, { kind: "success_reply" | "error_reply" }>;

/** What the runner keeps per request of its own awaiting the host's reply. */
interface Waiter {
  readonly resolve: (frame: Reply) => void;
  readonly reject: (error: Error) => void;
}

/**
 * One v2 session of the client runner over the JSON-RPC peer (runtime/rpc/peer.ts): the host's
 * event requests are served by the handler (`peer.inbound`: duplicate ids refused, each with its
 * cancellation), the client's own requests (host commands) get ids `c1`, `c2`, ... and wait for
 * their reply in `peer.outbound`, at most limits.max_client_requests_in_flight at once (the rest
 * wait in `peer.slots`).
 */
class StreamServer {
  /** stdout is for frames only: the real write (every other write goes to stderr when diverted). */
  private readonly wireWrite: (chunk: Uint8Array, cb?: (error?: Error | null) => void) => boolean;
  private outstandingWrites = 0;
  private drained: (() => void) | null = null;
  private stdoutFailed = false;
  private readonly ending = new AbortController();
  private readonly peer = new RpcPeer<Waiter>(new RequestIds("c"));
  private readonly commands: ClientCommands;
  private finishWith!: (status: number) => void;
  private readonly finished = new Promise<number>((resolve) => (this.finishWith = resolve));
  private done = false;
  /**
   * Handlers running (limits.client_handler_concurrency; each client request that waits for the
   * host, in flight or for a slot, adds a place, so that handlers awaiting the host never keep the
   * reader from reading the replies they wait for).
   * While every place is taken stdin is paused and the frames already read wait in `backlog`
   * (at most one chunk's worth): the host's writes then wait in the pipe (backpressure).
   */
  private handlers = 0;
  private readonly backlog: { readonly frame: StreamFrame; readonly pointers: readonly string[] }[] = [];
  private readonly reader = new FrameReader(LIMITS.max_frame_bytes);

  constructor(
    private readonly handler: ClientHandler,
    private readonly stdin: NodeJS.ReadableStream,
    private readonly stdout: NodeJS.WritableStream,
    private readonly stderr: NodeJS.WritableStream,
    private readonly divert: boolean,
  ) {
    this.wireWrite = stdout.write.bind(stdout) as (chunk: Uint8Array, cb?: (error?: Error | null) => void) => boolean;
    if (divert) (process.stdout as { write: unknown }).write = process.stderr.write.bind(process.stderr);
    this.commands = new ClientCommands({ kind: "stream", request: (method, params) => this.request(method, params) });
  }

  /** Serve until the stream ends; resolves with the exit status. */
  async run(): Promise<number> {
    const { stdin, stdout } = this;
    stdin.on("data", (chunk: Buffer) => this.onData(chunk));
    stdin.on("end", () => {
      const tail = this.reader.end()[0];
      this.end(
        tail !== undefined && tail.type === "violation" ? 1 : 0,
        tail !== undefined && tail.type === "violation"
          ? `the host broke the stream framing: ${issueText(tail.issue)}`
          : null,
      );
    });
    stdin.on("error", (error: Error) => this.end(1, `stdin cannot be read: ${error.message}`));
    stdout.on("error", () => {
      this.stdoutFailed = true;
    });
    const onSignal = (): void => this.end(0, null);
    const signals = STREAM_V2.shutdown.client_exit_signals;
    if (this.divert) for (const s of signals) process.on(s, onSignal);
    const status = await this.finished;
    if (this.divert) for (const s of signals) process.removeListener(s, onSignal);
    return status;
  }

  private send(bytes: Buffer): void {
    this.outstandingWrites++;
    this.wireWrite(bytes, (error) => {
      if (error) this.stdoutFailed = true;
      if (--this.outstandingWrites === 0) this.drained?.();
    });
  }

  /**
   * A host command over the pipe. The client's own requests the host has not answered are at most
   * limits.max_client_requests_in_flight (one more ends the stream, stream.request-flood); the
   * requests waiting for one of them to be answered wait for a slot.
   */
  private async request(method: string, params: Record<string, unknown>): Promise<Reply> {
    // Encoded and sized first: a request that cannot go fails before it waits for a slot, so a
    // slot's wake-up always goes to a request that is then written.
    const id = this.peer.nextId();
    const frame = encodeFrame({ jsonrpc: "2.0", id, method, params });
    if (frame.length - 1 > LIMITS.max_frame_bytes)
      throw new RequestFrameTooLargeError(frame.length - 1, LIMITS.max_frame_bytes);
    while (this.peer.outbound.size >= LIMITS.max_client_requests_in_flight && !this.ending.signal.aborted) {
      const slot = this.peer.slots.wait();
      this.drainBacklog(); // waiting for the host too: one more place for a handler meanwhile
      await slot;
    }
    if (this.ending.signal.aborted) throw new StreamClosedError("the stream has ended; the request was not sent");
    return new Promise<Reply>((resolve, reject) => {
      this.peer.outbound.set(idKey(id), { resolve, reject });
      this.send(frame);
      this.drainBacklog(); // the request in flight makes room for one more handler
    });
  }

  private end(status: number, why: string | null): void {
    if (this.done) return;
    this.done = true;
    if (why !== null) writeErr(this.stderr, why);
    this.ending.abort();
    this.peer.inbound.abortAll();
    for (const w of this.peer.outbound.list()) w.reject(new StreamClosedError());
    this.peer.outbound.clear();
    this.peer.slots.wakeAll();
    // Flush what is already written, but never wait longer than the exit bound allows.
    const bound = setTimeout(() => this.finishWith(status), Math.max(0, LIMITS.stream_client_exit_ms - 200));
    const flushed = (): void => {
      clearTimeout(bound);
      this.finishWith(this.stdoutFailed ? 1 : status);
    };
    if (this.outstandingWrites === 0) flushed();
    else this.drained = flushed;
  }

  private async onRequest(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
    pointers: readonly string[],
  ): Promise<void> {
    const kind = method.startsWith(EVENT_PREFIX) ? method.slice(EVENT_PREFIX.length) : null;
    if (kind === null || !EVENT_KINDS.has(kind)) {
      this.send(
        encodeErrorReply(id, {
          code: errorCode("method_not_found"),
          message: `unknown method ${method}`,
          data: { method },
        }),
      );
      return;
    }
    // stream.duplicate-request-id: the first request keeps running (and can still be cancelled).
    const controller = this.peer.inbound.begin(id);
    if (controller === "duplicate" || controller === "flood") {
      this.send(
        encodeErrorReply(id, {
          code: errorCode("invalid_request"),
          message: "id is already in use by a request being handled",
        }),
      );
      return;
    }
    const judged: WireResult<DispatchEnvelope> = (() => {
      const issues = validateParsed("DispatchEnvelope", params, framePointers(pointers, "/params"));
      if (issues.length > 0) return { ok: false, issues };
      const event = (params as unknown as DispatchEnvelope).request.event;
      // A method that names another event than its envelope is refused like any invalid request.
      if (event !== kind)
        return {
          ok: false,
          issues: [
            {
              rule: "invalid_request",
              pointer: "/request/event",
              message: `method ${method} carries a ${event} request`,
            },
          ],
        };
      return { ok: true, value: params as unknown as DispatchEnvelope };
    })();
    const bytes = await answerEnvelope(
      judged,
      this.handler,
      { transport: "stream", signal: controller.signal, commands: this.commands },
      this.stderr,
      answerVersion(params),
    );
    this.peer.inbound.end(id);
    if (controller.signal.aborted || this.done) return; // cancelled: the host no longer wants the reply
    this.send(encodeResultAround(id, bytes));
  }

  private placeFree(): boolean {
    return this.handlers < LIMITS.client_handler_concurrency + this.peer.outbound.size + this.peer.slots.size;
  }

  private startHandler(frame: Extract<StreamFrame, { kind: "request" }>, pointers: readonly string[]): void {
    this.handlers++;
    void this.onRequest(frame.id, frame.method, frame.params, pointers).finally(() => {
      this.handlers--;
      this.drainBacklog();
    });
  }

  private drainBacklog(): void {
    const backlog = this.backlog;
    while (backlog.length > 0 && !this.done) {
      const next = backlog[0] as (typeof backlog)[number];
      if (next.frame.kind === "request" && !this.placeFree()) return;
      backlog.shift();
      this.onFrame(next.frame, next.pointers);
    }
    if (backlog.length === 0 && !this.done) this.stdin.resume();
  }

  private onFrame(frame: StreamFrame, pointers: readonly string[]): void {
    switch (frame.kind) {
      case "request":
        this.startHandler(frame, pointers);
        return;
      case "notification":
        if (frame.method === STREAM_V2.cancel.method && frame.params !== undefined) {
          const target = frame.params.id;
          if (typeof target === "string" || typeof target === "number") this.peer.inbound.cancel(target);
        }
        return;
      default: {
        const waiter = this.peer.outbound.get(idKey(frame.id));
        if (waiter === undefined) return;
        this.peer.outbound.delete(idKey(frame.id));
        this.peer.slots.wakeOne();
        waiter.resolve(frame);
      }
    }
  }

  private onData(chunk: Buffer): void {
    if (this.done) return;
    for (const event of this.reader.push(chunk)) {
      if (event.type === "violation") {
        this.end(1, `the host broke the stream framing: ${issueText(event.issue)}`);
        return;
      }
      const judged = parseFrame(event.bytes);
      if (!judged.ok) {
        this.end(1, `the host broke the stream framing: ${issueText(judged.issue)}`);
        return;
      }
      if (this.backlog.length > 0 || (judged.frame.kind === "request" && !this.placeFree()))
        this.backlog.push({ frame: judged.frame, pointers: judged.nonIntegerNumberPointers });
      else this.onFrame(judged.frame, judged.nonIntegerNumberPointers);
    }
    if (this.backlog.length > 0) this.stdin.pause();
  }
}
