/**
 * The JSON-RPC peer state of one stream (spec/stream-protocol.md §"Ids", §"Cancellation",
 * §"Bounds"), shared by both ends of this runtime: the stream host (runtime/stream/invoker.ts)
 * and the TypeScript client runner (runtime/client/runner.ts). One {@link RpcPeer} holds
 * - the ids of this side's own requests ({@link RequestIds}),
 * - this side's requests awaiting their reply, by id ({@link PendingReplies}: correlation),
 * - the other side's requests being served ({@link InboundRequests}: duplicate ids refused, an
 *   in-flight bound, one AbortController each for cancellation),
 * - the requests waiting for an in-flight place of their own ({@link SlotWaiters}).
 * Framing and encoding are runtime/rpc/frame.ts; what a request means is the owner's.
 */
import { idKey, type JsonRpcId } from "./frame.js";

/**
 * This side's requests waiting for their reply, by id key, in the order they were sent. A Map
 * that keeps one placeholder entry under the empty key, which is never an id key (host ids are
 * decimal strings, idKey() keys are prefixed, and spec/stream-protocol.md's id rule refuses an
 * empty id string in any frame), so the Map never empties: V8 shrinks a Map's table, with a call
 * into the runtime and a new table, each time its last entry is deleted, which with one event at
 * a time was once per event.
 */
export class PendingReplies<T extends object> {
  private readonly map = new Map<string, T | null>([["", null]]);

  /** How many requests are pending (the placeholder is not one). */
  get size(): number {
    return this.map.size - 1;
  }

  /** The pending request of `id`; undefined for an unknown id and for the empty id. */
  get(id: string): T | undefined {
    return id === "" ? undefined : (this.map.get(id) ?? undefined);
  }

  /** True when a request of `id` is pending. */
  has(id: string): boolean {
    return id !== "" && this.map.has(id);
  }

  /** Add (or replace) the pending request of `id`; `id` is never empty (a TypeError otherwise: a bug of the caller). */
  set(id: string, event: T): void {
    if (id === "") throw new TypeError("a host id is never empty");
    this.map.set(id, event);
  }

  /** Remove the pending request of `id`; false when there was none. */
  delete(id: string): boolean {
    return id !== "" && this.map.delete(id);
  }

  /** The pending requests in the order they were sent (a copy: settling them while iterating is safe). */
  list(): T[] {
    const out: T[] = [];
    for (const event of this.map.values()) if (event !== null) out.push(event);
    return out;
  }

  /** Forget every pending request. */
  clear(): void {
    this.map.clear();
    this.map.set("", null);
  }
}

/** The stream host's name for its pending events (runtime/stream/invoker.ts). */
export { PendingReplies as PendingEvents };

/** Ids of this side's own requests: `${prefix}1`, `${prefix}2`, ... (the host: "1", "2"; the TS client runner: "c1", "c2"). */
export class RequestIds {
  private last = 0;

  /** `prefix`: written before the counter ("" for bare decimal ids). */
  constructor(readonly prefix = "") {}

  /** The next id (never the empty string). */
  next(): string {
    return this.prefix === "" ? String(++this.last) : `${this.prefix}${++this.last}`;
  }
}

/** Why {@link InboundRequests.begin} refused a request: its id is being served already, or `max` are. */
export type InboundRefusal = "duplicate" | "flood";

/**
 * The other side's requests being served, by id key: a second request with the id of one still
 * unanswered is refused (`stream.duplicate-request-id`), at most `max` are served at once (one
 * more is `stream.request-flood` for the host; the client runner bounds its handlers elsewhere), and
 * each has an AbortController that `lifeloop/cancel` or the end of the stream aborts.
 */
export class InboundRequests {
  private readonly running = new Map<string, AbortController>();

  /** `max`: requests served at once (default: unbounded). */
  constructor(readonly max = Number.POSITIVE_INFINITY) {}

  /** Requests being served now. */
  get size(): number {
    return this.running.size;
  }

  /** True when a request of `id` is being served. */
  has(id: JsonRpcId): boolean {
    return this.running.has(idKey(id));
  }

  /** Start serving `id`: its controller, or why it is refused (nothing is recorded then). */
  begin(id: JsonRpcId): AbortController | InboundRefusal {
    const key = idKey(id);
    if (this.running.has(key)) return "duplicate";
    if (this.running.size >= this.max) return "flood";
    const controller = new AbortController();
    this.running.set(key, controller);
    return controller;
  }

  /** The request of `id` was answered (or will never be): it no longer counts. */
  end(id: JsonRpcId): void {
    this.running.delete(idKey(id));
  }

  /** Abort the request of `id` (cancellation); false when none is being served. */
  cancel(id: JsonRpcId): boolean {
    const controller = this.running.get(idKey(id));
    if (controller === undefined) return false;
    controller.abort();
    return true;
  }

  /** Abort every request being served (the stream ends); they stay counted until {@link end}. */
  abortAll(): void {
    for (const controller of this.running.values()) controller.abort();
  }
}

/** Requests waiting for an in-flight place, woken in order. */
export class SlotWaiters {
  private readonly waiters: (() => void)[] = [];

  /** Requests waiting now. */
  get size(): number {
    return this.waiters.length;
  }

  /** Resolves when {@link wakeOne} or {@link wakeAll} reaches this waiter. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** A place came free: wake the longest waiter, if any. */
  wakeOne(): void {
    this.waiters.shift()?.();
  }

  /** Wake every waiter (the stream ends). */
  wakeAll(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/**
 * One side of a JSON-RPC stream: its own requests (ids, awaiting replies, waiters for a place) and
 * the other side's (being served). `P` is what the owner keeps per pending request.
 */
export class RpcPeer<P extends object> {
  /** This side's requests awaiting their reply, by id (the host: the id; others: idKey(id)). */
  readonly outbound = new PendingReplies<P>();
  /** The other side's requests being served. */
  readonly inbound: InboundRequests;
  /** This side's requests waiting for an in-flight place. */
  readonly slots = new SlotWaiters();

  /**
   * @param ids - where this side's request ids come from (shared by the streams of one host, so ids are never reused)
   * @param maxInbound - the other side's requests served at once (default: unbounded)
   */
  constructor(
    readonly ids: RequestIds = new RequestIds(),
    maxInbound = Number.POSITIVE_INFINITY,
  ) {
    this.inbound = new InboundRequests(maxInbound);
  }

  /** The id of this side's next request. */
  nextId(): string {
    return this.ids.next();
  }
}
