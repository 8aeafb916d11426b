/**
 * The host's answers to stream-mode `continuation/*` requests (spec/stream-protocol.md §"Methods",
 * spec/continuation-store.md §"Over the stream"): every method of spec/tables/stream-v2.json
 * `reverse_methods` of the continuation group served by a {@link ContinuationStore}, so a stream
 * client's put, get, drop, list and drop-thread read and write the same store, with the same entry
 * format, as `lifeloop-callback continuation` and the reference's `lifeloop continuation`.
 *
 * - Params arrive checked against the table by the stream host (runtime/stream/reverse.ts); each
 *   member is the CLI flag of the same name (`ttl_s` is `--ttl-s`), absent members take the CLI's
 *   defaults (client id `unknown`, no TTL).
 * - Results have exactly the table's result members, as the CLI prints them; u64 members become
 *   JSON integers, which the wire bounds to 0 .. 2^53 - 1 (limits.max_safe_integer): an entry whose
 *   `ttl_s` lies beyond (only the CLI can write one) is answered `internal_error`, never rounded.
 * - A store error becomes the stream error of the same name (spec/tables/stream-v2.json
 *   `error_codes`, -32020..-32024) with the CLI's JSON error members as `data`; e.g. a get of a
 *   missing key is `-32020`, data `{"error": "not_found"}`. An error the table lacks, and anything
 *   unexpected (an unusable `$LIFELOOP_CONTINUATION_MAX_BYTES`), is `-32603 internal_error`.
 * - A get whose reply would not fit in one frame (`maxFrameBytes`: the blob travels as base64, so
 *   about three quarters of limits.max_frame_bytes) is `blob_too_large` with `max_bytes` the largest
 *   blob that fits; the entry itself is untouched (read it with the CLI).
 * - `list` diagnostics (entries skipped, printed on stderr by the CLI) go to `onDiagnostic`.
 * - A lock wait gives up when the request's stream ends (its signal), so a session that has ended
 *   never waits for another process to release a thread's lock.
 */
import { join } from "node:path";
import { LIMITS } from "../../generated/ts/spec/limits.js";
import { STREAM_V2, type StreamErrorName } from "../../generated/ts/spec/stream-v2.js";
import { ReverseRequestError, type ReverseHandlers, type ReverseRequest } from "../stream/reverse.js";
import { ContinuationError } from "./errors.js";
import { checkIdentifier } from "./identifier.js";
import type { StoreUse } from "./root.js";
import type { ContinuationStore, EntryInfo, ListDiagnostic, ListedKey } from "./store.js";

/** How the handlers are set up. */
export interface ContinuationHandlerOptions {
  /** The frame bound of the stream the replies travel on, in bytes (default limits.max_frame_bytes). */
  readonly maxFrameBytes?: number;
  /** Called with every entry `list` skipped (default: dropped). */
  readonly onDiagnostic?: (diagnostic: ListDiagnostic) => void;
}

/**
 * A store, or a function making one per request from what the request needs (e.g.
 * `(use) => storeForCommand(process.env, use)`, whose errors are then answered too, in the CLI's
 * order: it is called after the identifiers are checked).
 */
export type ContinuationStoreSource = ContinuationStore | ((use: StoreUse) => ContinuationStore);

const ERROR_NAMES: ReadonlySet<string> = new Set(STREAM_V2.error_codes.map((r) => r.name));

/** A u64 member as a wire integer; throws (→ internal_error) beyond limits.max_safe_integer. */
function wireInteger(value: bigint | number, member: string): number {
  if (BigInt(value) > BigInt(LIMITS.max_safe_integer))
    throw new Error(
      `${member} is ${value}, beyond the wire's integer range 0 .. ${LIMITS.max_safe_integer} (limits.max_safe_integer); read the entry with the CLI`,
    );
  return Number(value);
}

/** The error members of a CLI error envelope as JSON values (u64 members as wire integers). */
function wireData(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = typeof v === "bigint" ? wireInteger(v, k) : v;
  return out;
}

/** `{client_id, ttl_s, written_at_epoch_s}` as the CLI prints it. */
function wireInfo(info: EntryInfo): Record<string, unknown> {
  return {
    client_id: info.client_id,
    ttl_s: info.ttl_s === null ? null : wireInteger(info.ttl_s, "ttl_s"),
    written_at_epoch_s: wireInteger(info.written_at_epoch_s, "written_at_epoch_s"),
  };
}

/** Thread, key and client ids of a request checked in the CLI's order, before the store is opened. */
function checkIds(
  request: ReverseRequest,
  members: readonly ("thread" | "key" | "client_id" | "require_client_id")[],
): void {
  for (const m of members) {
    const value = request.params[m];
    if (typeof value === "string") checkIdentifier(value, m === "require_client_id" ? "client_id" : m);
  }
}

/** Whether a u64 member fits the wire's integers (limits.max_safe_integer). */
function fitsWire(value: bigint | null): boolean {
  return value === null || value <= BigInt(LIMITS.max_safe_integer);
}

/** Run one store call; a ContinuationError becomes the ReverseRequestError of its name. */
async function answering<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ContinuationError && ERROR_NAMES.has(error.code)) {
      const { error: name, ...fields } = error.envelope;
      throw new ReverseRequestError(name as StreamErrorName, error.message, wireData(fields));
    }
    throw error;
  }
}

const text = (request: ReverseRequest, member: string): string => request.params[member] as string;
const optionalText = (request: ReverseRequest, member: string): string | undefined =>
  request.params[member] as string | undefined;

/** The diagnostic of a listed entry the wire cannot carry (ttl_s or written_at_epoch_s above limits.max_safe_integer). */
function beyondWire(path: string, k: ListedKey): ListDiagnostic {
  return {
    diagnostic: "list_skipped_entry",
    path,
    reason: "beyond_wire_integer_range",
    error: `ttl_s ${k.ttl_s ?? "null"}, written_at_epoch_s ${k.written_at_epoch_s}: beyond the wire's integer range 0 .. ${LIMITS.max_safe_integer} (limits.max_safe_integer); read the entry with the CLI`,
  };
}

/** The largest blob whose get reply fits in `maxFrameBytes` (base64: 4 bytes per 3), given the reply without its blob. */
function largestBlob(maxFrameBytes: number, frameWithoutBlob: number): number {
  return Math.max(0, Math.floor((maxFrameBytes - frameWithoutBlob) / 4) * 3);
}

/**
 * Handlers of every `continuation/*` method, answered from `store` (see the module comment), to pass
 * as `reverseHandlers` of a {@link StreamInvoker}. Never throws itself; each handler rejects only
 * with {@link ReverseRequestError} (a store error) or an Error (answered `internal_error`).
 */
export function continuationHandlers(
  store: ContinuationStoreSource,
  options: ContinuationHandlerOptions = {},
): ReverseHandlers {
  const open = typeof store === "function" ? store : (_use: StoreUse) => store;
  const maxFrameBytes = options.maxFrameBytes ?? LIMITS.max_frame_bytes;
  return {
    "continuation/put": (request) =>
      answering(async () => {
        const clientId = optionalText(request, "client_id");
        const ttl = request.params.ttl_s as number | undefined;
        checkIds(request, ["thread", "key", "client_id"]);
        const put = await open({ command: "put", blobBytes: request.blob?.length ?? 0 }).put(
          text(request, "thread"),
          text(request, "key"),
          request.blob ?? Buffer.alloc(0),
          {
            ...(clientId === undefined ? {} : { clientId }),
            ...(ttl === undefined ? {} : { ttlS: ttl }),
            signal: request.signal,
          },
        );
        return {
          result: { status: put.status, written_at_epoch_s: wireInteger(put.written_at_epoch_s, "written_at_epoch_s") },
        };
      }),
    "continuation/get": (request) =>
      answering(async () => {
        const requireClientId = optionalText(request, "require_client_id");
        checkIds(request, ["thread", "key", "require_client_id"]);
        const got = await open({ command: "get" }).get(
          text(request, "thread"),
          text(request, "key"),
          requireClientId === undefined ? {} : { requireClientId },
        );
        const result = wireInfo(got.meta);
        // The reply frame as the host writes it, minus the blob's base64 (LF excluded, as the bound counts).
        const without = Buffer.byteLength(
          JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { blob_base64: "", ...result } }),
        );
        const fits = largestBlob(maxFrameBytes, without);
        if (got.blob.length > fits) {
          throw new ReverseRequestError(
            "blob_too_large",
            `the entry's blob is ${got.blob.length} bytes; a get reply carries at most ${fits} bytes in one frame (limits.max_frame_bytes ${maxFrameBytes}); read it with the CLI`,
            { max_bytes: fits },
          );
        }
        return { result, blob: got.blob };
      }),
    "continuation/drop": (request) =>
      answering(async () => {
        const requireClientId = optionalText(request, "require_client_id");
        checkIds(request, ["thread", "key", "require_client_id"]);
        const dropped = await open({ command: "drop", guarded: requireClientId !== undefined }).drop(
          text(request, "thread"),
          text(request, "key"),
          { ...(requireClientId === undefined ? {} : { requireClientId }), signal: request.signal },
        );
        return { result: { status: dropped.status } };
      }),
    "continuation/list": (request) =>
      answering(async () => {
        checkIds(request, ["thread"]);
        const opened = open({ command: "list" });
        const listed = await opened.list(text(request, "thread"), { signal: request.signal });
        for (const d of listed.diagnostics) options.onDiagnostic?.(d);
        // An entry whose u64 members the wire cannot carry is skipped with a diagnostic, as the CLI's
        // list skips an entry it cannot report; the others are still listed.
        const keys: Record<string, unknown>[] = [];
        for (const k of listed.keys) {
          if (fitsWire(k.ttl_s) && fitsWire(k.written_at_epoch_s)) keys.push({ key: k.key, ...wireInfo(k) });
          else options.onDiagnostic?.(beyondWire(join(opened.root, listed.thread, k.key), k));
        }
        return { result: { keys, thread: listed.thread } };
      }),
    "continuation/drop-thread": (request) =>
      answering(async () => {
        checkIds(request, ["thread"]);
        const dropped = await open({ command: "drop-thread" }).dropThread(text(request, "thread"), {
          signal: request.signal,
        });
        return { result: { dropped_count: dropped.dropped_count, status: dropped.status } };
      }),
  };
}
