/**
 * The spawn gate (spec/host-runtime.md §"Bounds", "Spawns in a burst"): `child_process.spawn` is
 * synchronous (fork and exec on the main thread: about 1 ms on a quiet machine, 10 ms and more on
 * a loaded one or with a large heap), so a burst of invocations started together (`Promise.all`
 * over a session) would spawn back to back in one turn of the event loop and hold every timer and
 * I/O callback of the process for the whole burst (measured: 0.4 s for 32 spawns, 1.2 s for 64, on
 * the shared 2-core machine). Every spawn of the host goes through this gate:
 *
 * - a spawn runs at once when no spawn is queued and no spawn ran yet in this turn of the loop
 *   (one call alone has no added latency);
 * - otherwise it is queued, first in, first out, and the queue is drained by one job of the shared
 *   turn scheduler (runtime/process/slices.ts), so spawns and the other sliced work (parsing,
 *   serializing) share the same per-turn budget: a drain spawns at the start of a turn, and more in
 *   that turn only while the recent cost of a spawn fits in what is left of its budget;
 * - a queued spawn that is cancelled (its invocation's deadline passed, or its stream ended) leaves
 *   the queue at once: the queue never holds more than the spawns in flight; a spawn whose
 *   deadline has passed is never started, even before its owner's timer has fired.
 *
 * The deadline of an invocation is its own (armed at `invoke`, runtime/invoker/child-run.ts); the
 * gate only orders and spreads the spawns.
 */
import { performance } from "node:perf_hooks";
import { afterTimers, deferToNextTurn, runInSlices, turnElapsedMs } from "./slices.js";

/**
 * A drain go that starts within this many ms of the start of a scheduler turn spawns at least one
 * child whatever the estimate (as the serializer's key listing: the step that cannot be split gets
 * the front of a turn).
 */
const TURN_FRONT_MS = 1;
/** Weight of the newest measurement in the running estimate of one spawn's cost. */
const COST_WEIGHT = 0.3;

/** A queued spawn; `cancel()` removes it (a no-op once it ran). */
export interface SpawnTicket {
  cancel(): void;
}

/** The ticket of a request whose deadline had passed when it was made: never queued, never run. */
const EXPIRED: SpawnTicket = Object.freeze({ cancel: () => undefined });

/** A queued request: the spawn, and the deadline after which it is no longer wanted (performance.now() ms). */
interface Entry {
  readonly spawnNow: () => void;
  readonly deadlineAt: number;
}

/** Queued spawns in arrival order (a Set: O(1) removal of a cancelled one, iteration in insertion order). */
const queue = new Set<Entry>();
let draining = false;
/** A spawn ran in this turn of the loop: the next one waits for the queue (cleared on a later turn, after the timers). */
let spawnedThisTurn = false;
/** A spawn ran at once (outside the drain) in this turn: the drain waits for a later turn too. */
let spawnedAtOnce = false;
/** Running estimate of one spawn's cost (ms of the main thread); 0 until the first spawn. */
let costMs = 0;
let started = 0;

/** False only while a benchmark measures its baseline (see {@link setSpawnSpreading}). */
let spreading = true;

/**
 * Turn the spreading off (every spawn at once, back to back, as before the gate) or on again. For
 * the benchmark that compares the gate with that baseline in the same process
 * (tools/bench/event-loop-block.ts); the host never turns it off. Spawns already queued still
 * drain in order.
 */
export function setSpawnSpreading(enabled: boolean): void {
  spreading = enabled;
}

/** Spawns started through the gate since the process started (diagnostics and tests). */
export function spawnsStarted(): number {
  return started;
}

/** Spawns waiting in the gate now. */
export function queuedSpawns(): number {
  return queue.size;
}

/** The running estimate of one spawn's cost (ms). */
export function spawnCostMs(): number {
  return costMs;
}

/** Mark a spawn in this turn; the marks are cleared on a later turn, after the timers (slices.ts afterTimers). */
function markSpawned(atOnce: boolean): void {
  if (atOnce) spawnedAtOnce = true;
  if (spawnedThisTurn) return;
  spawnedThisTurn = true;
  afterTimers(() => {
    spawnedThisTurn = false;
    spawnedAtOnce = false;
  });
}

/** Run one spawn and fold its duration into the estimate. A spawn function must not throw; if it does, the gate goes on. */
function runSpawn(spawnNow: () => void, atOnce: boolean): void {
  const t0 = performance.now();
  started++;
  markSpawned(atOnce);
  try {
    spawnNow();
  } catch {
    // the caller's spawn function reports its own failures; the queue must not stall
  }
  const took = performance.now() - t0;
  costMs = costMs === 0 ? took : costMs + COST_WEIGHT * (took - costMs);
}

/**
 * One go of the drain job (a runtime/process/slices.ts step): spawn from the front of the queue, the
 * first one of the go when the go is at the front of its turn or the estimate fits `budgetMs`,
 * each further one while the estimate fits what is left of it. Finished when the queue is empty.
 */
function drainStep(budgetMs: number): boolean {
  const goStart = performance.now();
  let spawned = 0;
  for (const next of queue) {
    // Its deadline passed while it waited (its timer may fire a little later): never spawn it.
    if (performance.now() >= next.deadlineAt) {
      queue.delete(next);
      continue;
    }
    if (spawned === 0) {
      // A spawn ran at once in this very turn (before the timers ran): wait for a later turn.
      if (spawnedAtOnce) break;
      if (turnElapsedMs(goStart) >= TURN_FRONT_MS && costMs > budgetMs) break;
    } else if (performance.now() - goStart + costMs > budgetMs) break;
    queue.delete(next);
    runSpawn(next.spawnNow, false);
    spawned++;
  }
  if (queue.size === 0) {
    draining = false;
    return true;
  }
  // Nothing fitted: be first in the next turn instead of waiting behind the others' slices.
  if (spawned === 0) deferToNextTurn();
  return false;
}

/**
 * Spawn through the gate: `spawnNow` (which starts the child and never throws) runs at once when
 * nothing is queued and no spawn ran yet in this turn, else later, in order, on a later turn.
 * With `deadlineAt` (performance.now() ms; the invocation's deadline), it is never called once
 * that has passed (not at once, not from the queue): the caller's own deadline timer, which can
 * fire a little after the deadline, then finds it not started.
 * Returns null when it ran at once, else the ticket to cancel the queued spawn (cancel it when
 * its invocation settles first; `spawnNow` is then never called).
 */
export function requestSpawn(spawnNow: () => void, deadlineAt = Number.POSITIVE_INFINITY): SpawnTicket | null {
  if (performance.now() >= deadlineAt) return EXPIRED;
  if (queue.size === 0 && (!spawnedThisTurn || !spreading)) {
    runSpawn(spawnNow, true);
    return null;
  }
  const entry: Entry = { spawnNow, deadlineAt };
  queue.add(entry);
  if (!draining) {
    draining = true;
    void runInSlices(drainStep);
  }
  return { cancel: () => void queue.delete(entry) };
}
