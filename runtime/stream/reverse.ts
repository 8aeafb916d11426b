/**
 * Client → host requests of stream mode (spec/stream-protocol.md §"Methods",
 * spec/tables/stream-v2.json `reverse_methods`, derived from client-initiated-commands.json).
 *
 * The host serves them while events are pending. What happens to one request:
 * 1. unknown method → `-32601 method_not_found`, data `{method}`;
 * 2. params checked against the method's closed shape (every member mirrors a CLI flag, the stdin
 *    blob is `blob_base64`): a missing, unknown or mistyped member, or bad base64 →
 *    `-32602 invalid_params`, data `{error: "invalid_params", member}`; an identifier that breaks
 *    the group's identifier pattern → `-32023 invalid_identifier`, data `{error, field, detail}`
 *    (as the CLI reports it);
 * 3. no handler registered for the method → `-32000 not_available`, data `{error, method}`;
 * 4. the handler's reply must have exactly the table's result members (`blob_base64` is added by the
 *    host from `reply.blob`), else `-32603 internal_error`; a {@link ReverseRequestError} becomes the
 *    error of its name with data `{error: name, ...data}`; any other throw is `-32603`.
 *
 * Plugging in a store (issue 11): pass `reverseHandlers: { "continuation/put": async (req) => ..., ... }`
 * to the StreamInvoker, or call `setReverseHandler`.
 */
import {
  CLIENT_INITIATED_COMMANDS,
  STREAM_V2,
  type StreamErrorName,
  type StreamReverseMethodName,
} from "../../generated/ts/spec.js";
import { toWireJson } from "../wire/wire-json.js";
import { errorCode } from "../rpc/error-codes.js";
import type { JsonRpcError, JsonRpcId } from "../rpc/frame.js";
import { canonicalBase64 } from "../wire/base64.js";

/** One validated client → host request as a handler sees it. */
export interface ReverseRequest {
  readonly method: StreamReverseMethodName;
  /** The client's id (string or integer, as sent). */
  readonly id: JsonRpcId;
  /** The params, checked against the table, without `blob_base64`. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The decoded `blob_base64`, or null for methods without a blob. */
  readonly blob: Buffer | null;
  /** Aborted when the stream ends (the reply could no longer be delivered). */
  readonly signal: AbortSignal;
}

/** A handler's answer: the result members (without `blob_base64`) and the blob for methods that return one. */
export interface ReverseReply {
  readonly result: Readonly<Record<string, unknown>>;
  readonly blob?: Uint8Array;
}

/** Serves one method; may be async. Throw {@link ReverseRequestError} for a command error. */
export type ReverseMethodHandler = (request: ReverseRequest) => ReverseReply | Promise<ReverseReply>;

/** Handlers keyed by method name (e.g. `continuation/put`); a missing method answers `not_available`. */
export type ReverseHandlers = Readonly<Partial<Record<StreamReverseMethodName, ReverseMethodHandler>>>;

/**
 * A command error a handler reports: `errorName` is a row of the error-code table (e.g. `not_found`,
 * `blob_too_large`), `data` the error's fields (e.g. `{max_bytes: 1024}`).
 */
export class ReverseRequestError extends Error {
  constructor(
    readonly errorName: StreamErrorName,
    message: string,
    readonly data: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = "ReverseRequestError";
  }
}

/** One method row, widened (the literal types of the generated constant are too narrow to look up by string). */
interface MethodRow {
  readonly method: string;
  readonly group: string;
  readonly params: readonly {
    readonly name: string;
    readonly required: boolean;
    readonly value: "identifier" | "unsigned_integer" | "base64";
  }[];
  readonly result: readonly string[];
}
const METHODS: ReadonlyMap<string, MethodRow> = new Map(
  (STREAM_V2.reverse_methods as readonly MethodRow[]).map((m) => [m.method, m]),
);
const IDENTIFIER: ReadonlyMap<string, RegExp> = new Map(
  CLIENT_INITIATED_COMMANDS.groups.map((g) => [g.group, new RegExp(g.identifier.pattern)]),
);

/** True when `method` is a client → host method of the table. */
export function isReverseMethod(method: string): method is StreamReverseMethodName {
  return METHODS.has(method);
}

/** Outcome of serving one request: the result's JSON bytes, or the error object to reply with. */
export type ReverseOutcome =
  | { readonly ok: true; readonly resultJson: Buffer }
  | { readonly ok: false; readonly error: JsonRpcError };

function fail(name: StreamErrorName, message: string, data: Record<string, unknown>): ReverseOutcome {
  return { ok: false, error: { code: errorCode(name), message, data } };
}

/** Check params against the method's row; returns the error outcome or the params split from the blob. */
function checkParams(
  row: MethodRow,
  params: Record<string, unknown> | undefined,
): ReverseOutcome | { params: Record<string, unknown>; blob: Buffer | null } {
  const given = params ?? {};
  const known = new Set(row.params.map((p) => p.name));
  for (const key of Object.keys(given)) {
    if (!known.has(key))
      return fail("invalid_params", `${row.method}: unknown member ${JSON.stringify(key)}`, {
        error: "invalid_params",
        member: key,
      });
  }
  const out: Record<string, unknown> = {};
  let blob: Buffer | null = null;
  const identifier = IDENTIFIER.get(row.group);
  for (const p of row.params) {
    const value = given[p.name];
    if (value === undefined || value === null) {
      if (p.required)
        return fail("invalid_params", `${row.method}: member ${p.name} is required`, {
          error: "invalid_params",
          member: p.name,
        });
      continue;
    }
    switch (p.value) {
      case "identifier":
        if (typeof value !== "string")
          return fail("invalid_params", `${row.method}: ${p.name} is a string`, {
            error: "invalid_params",
            member: p.name,
          });
        if (identifier !== undefined && !identifier.test(value)) {
          return fail(
            "invalid_identifier",
            `${row.method}: ${p.name} breaks the identifier pattern ${identifier.source}`,
            { error: "invalid_identifier", field: p.name, detail: `must match ${identifier.source}` },
          );
        }
        out[p.name] = value;
        break;
      case "unsigned_integer":
        if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)
          return fail("invalid_params", `${row.method}: ${p.name} is an integer 0..2^53-1`, {
            error: "invalid_params",
            member: p.name,
          });
        out[p.name] = value;
        break;
      case "base64":
        blob = typeof value === "string" ? canonicalBase64(value) : null;
        if (blob === null)
          return fail("invalid_params", `${row.method}: ${p.name} is canonical RFC 4648 base64 with padding`, {
            error: "invalid_params",
            member: p.name,
          });
        break;
    }
  }
  return { params: out, blob };
}

/**
 * Serve one client → host request; never throws, never rejects. `handlers` may be changed between
 * calls; `signal` is the stream's.
 */
export async function serveReverseRequest(
  method: string,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
  handlers: ReverseHandlers,
  signal: AbortSignal,
): Promise<ReverseOutcome> {
  try {
    return await serve(method, id, params, handlers, signal);
  } catch (error) {
    // A defect of this module must still answer the request, never reject into the host.
    return fail(
      "internal_error",
      `${method} failed inside the host: ${error instanceof Error ? error.message : String(error)}`,
      { error: "internal_error" },
    );
  }
}

async function serve(
  method: string,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
  handlers: ReverseHandlers,
  signal: AbortSignal,
): Promise<ReverseOutcome> {
  const row = METHODS.get(method);
  if (row === undefined)
    return {
      ok: false,
      error: { code: errorCode("method_not_found"), message: `unknown method ${method}`, data: { method } },
    };
  const checked = checkParams(row, params);
  if ("ok" in checked) return checked;
  const handler = handlers[row.method as StreamReverseMethodName];
  if (handler === undefined) {
    return fail("not_available", `${row.method} is not available: the host has no ${row.group} handler configured`, {
      error: "not_available",
      method: row.method,
    });
  }
  let reply: ReverseReply;
  try {
    reply = await handler({
      method: row.method as StreamReverseMethodName,
      id,
      params: checked.params,
      blob: checked.blob,
      signal,
    });
  } catch (error) {
    if (error instanceof ReverseRequestError)
      return fail(error.errorName, error.message, { ...error.data, error: error.errorName });
    return fail("internal_error", `${row.method} failed: ${error instanceof Error ? error.message : String(error)}`, {
      error: "internal_error",
    });
  }
  try {
    const result: Record<string, unknown> = {};
    const wantsBlob = row.result.includes("blob_base64");
    if (wantsBlob !== (reply?.blob !== undefined))
      throw new Error(wantsBlob ? "the reply lacks its blob" : "the reply has a blob the method does not return");
    const members = Object.keys(reply.result ?? {});
    const expected = row.result.filter((m) => m !== "blob_base64");
    if (members.length !== expected.length || expected.some((m) => !(m in reply.result))) {
      throw new Error(
        `the result has members ${JSON.stringify(members.sort())}, expected ${JSON.stringify([...expected].sort())}`,
      );
    }
    for (const m of row.result)
      result[m] = m === "blob_base64" ? Buffer.from(reply.blob as Uint8Array).toString("base64") : reply.result[m];
    return { ok: true, resultJson: Buffer.from(toWireJson(result), "utf8") };
  } catch (error) {
    return fail(
      "internal_error",
      `${row.method}: the handler's reply is not the method's result: ${(error as Error).message}`,
      { error: "internal_error" },
    );
  }
}
