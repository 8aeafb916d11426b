/**
 * One cooperative scheduler for every piece of resumable work the host does in slices (the sliced
 * strict parser, the sliced serializer): however many invocations judge large documents at once,
 * together they use at most about {@link TURN_MS} of one event-loop turn, then yield
 * (setImmediate), so timers (deadlines) and I/O of every other invocation keep running. Jobs take
 * turns round-robin; each gets at most {@link SLICE_MS} per go.
 */
import { LIMITS } from "../../generated/ts/spec/limits.js";

/** A resumable job: do at most about `budgetMs` of work; return true when it is finished. It should not throw. */
export type SliceStep = (budgetMs: number) => boolean;

/**
 * Work per event-loop turn for all jobs together (ms), when the rest of the loop is quiet. With a
 * slice's overrun (it ends at the next value boundary) and a young-generation GC pause that may
 * fall into the turn, a turn stays well under the 50 ms bound on a loaded 2-core machine.
 */
export const TURN_MS = 10;
/**
 * The most work per turn (ms): when the rest of the process (I/O callbacks, timers) used more CPU
 * time than TURN_MS between two turns, the turn may use as long as that, up to this, so that
 * sliced work keeps at least the share of the CPU it had with 20 ms turns when the host is
 * saturated (a shorter turn would not shorten the loop's longest block then, only delay settling).
 * CPU time, not wall time: on a machine whose other processes take the CPU, the gap between two
 * turns grows without the host being any busier.
 */
export const TURN_MAX_MS = 20;
/** Work per job per go (ms). */
export const SLICE_MS = 5;

interface Job {
  readonly step: SliceStep;
  readonly done: (finished: boolean) => void;
  cancelled: boolean;
}

const queue: Job[] = [];
let scheduled = false;
/** When the running turn of {@link pump} began (performance.now() ms), or -1 outside it. */
let turnStartedAt = -1;
/** The process CPU time (ms) when the last turn of {@link pump} ended, or -1 when the queue ran empty since. */
let lastTurnEndedCpu = -1;
/** Set by {@link endTurn}: the pump yields after the current step. */
let turnEndRequested = false;
/** Set by {@link deferToNextTurn}: the running job sits out the rest of this turn and goes first in the next. */
let deferRequested = false;

/**
 * Milliseconds of the current scheduler turn used so far by all jobs; outside a turn (a first
 * slice run synchronously by its caller) the time since `fallbackStart` (performance.now() ms).
 */
export function turnElapsedMs(fallbackStart: number): number {
  return performance.now() - (turnStartedAt < 0 ? fallbackStart : turnStartedAt);
}

/**
 * Ask the scheduler to yield the event loop right after the running step (a step that is about to
 * do, or just did, one long native step, e.g. listing the keys of a large object, so that step is
 * alone in its turn). Outside a turn it has no effect.
 */
export function endTurn(): void {
  if (turnStartedAt >= 0) turnEndRequested = true;
}

/**
 * Ask the scheduler to run the current job first thing in the next turn, and not again in this
 * one (a job about to do one long native step that should start a turn; the other jobs go on
 * with the rest of this turn). Outside a turn it has no effect (the job's first slice ran
 * synchronously; its next runs on a later turn anyway).
 */
export function deferToNextTurn(): void {
  if (turnStartedAt >= 0) deferRequested = true;
}

/**
 * Call `fn` on a later turn of the event loop, with the timers and the I/O poll of that turn run
 * before it. One setImmediate is not enough: called from an I/O callback (the poll phase), it runs
 * in the check phase of the same iteration, so the long step it was meant to separate from the
 * callback's own work would follow that work with no timer in between.
 */
export function afterTimers(fn: () => void): void {
  setImmediate(() => setImmediate(fn));
}

/** A promise resolved on a later turn of the event loop (after pending I/O and timers; see afterTimers). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => afterTimers(resolve));
}

/** CPU time of the process so far (ms, user + system). */
function cpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

function pump(): void {
  scheduled = false;
  turnStartedAt = performance.now();
  turnEndRequested = false;
  const othersMs = lastTurnEndedCpu < 0 ? 0 : cpuMs() - lastTurnEndedCpu;
  const turnEnd = turnStartedAt + Math.min(TURN_MAX_MS, Math.max(TURN_MS, othersMs));
  const deferred: Job[] = [];
  /** The first job run in this turn. */
  let front: Job | null = null;
  /** The jobs that had a go in this turn. */
  const ran = new Set<Job>();
  while (queue.length > 0) {
    const left = turnEnd - performance.now();
    if (left <= 0) break;
    const job = queue.shift() as Job;
    if (job.cancelled) continue;
    front ??= job;
    ran.add(job);
    let finished: boolean;
    deferRequested = false;
    try {
      finished = job.step(Math.min(left, SLICE_MS));
    } catch {
      finished = true; // a step must not throw; never let one stall the queue
    }
    if (finished) job.done(true);
    else if (deferRequested) deferred.push(job);
    else queue.push(job);
    if (turnEndRequested) break;
  }
  // The job that had the front of this turn and asks for it again yields it to the others that
  // asked, and to those that got no go at all in this turn (else a job deferring on every go, e.g.
  // a serializer listing one large object after another, would keep them, the spawn gate's drain
  // among them, from the front as long as it runs; on a loaded machine its slice alone can use up
  // the turn, so the others never even get a go).
  if (deferred.length > 0 && deferred[0] === front && (deferred.length > 1 || queue.some((job) => !ran.has(job)))) {
    const yielded = deferred.shift() as Job;
    queue.unshift(...deferred);
    queue.push(yielded);
  } else queue.unshift(...deferred);
  turnStartedAt = -1;
  turnEndRequested = false;
  deferRequested = false;
  lastTurnEndedCpu = queue.length > 0 ? cpuMs() : -1;
  if (queue.length > 0 && !scheduled) {
    scheduled = true;
    setImmediate(pump);
  }
}

/**
 * Run `step` in slices until it reports that it is finished; resolves true then. With `deadlineAt`
 * (performance.now() ms), a timer resolves false at that moment however long the queue is, and
 * the step is not called again. Never rejects. The first slice runs on a later turn of the loop.
 */
export function runInSlices(step: SliceStep, deadlineAt?: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const job: Job = {
      step,
      cancelled: false,
      done: (finished) => {
        if (timer !== undefined) clearTimeout(timer);
        resolve(finished);
      },
    };
    if (deadlineAt !== undefined && Number.isFinite(deadlineAt)) {
      // A deadline further away than the longest timer delay (limits.max_timeout_ms; Node runs a
      // longer one after 1 ms), e.g. the settle bound of the longest timeoutMs: wait in steps.
      const arm = (): void => {
        const left = Math.max(0, deadlineAt - performance.now());
        timer =
          left > LIMITS.max_timeout_ms
            ? setTimeout(arm, LIMITS.max_timeout_ms)
            : setTimeout(() => {
                job.cancelled = true;
                resolve(false);
              }, left);
      };
      arm();
    }
    queue.push(job);
    if (!scheduled) {
      // The first turn comes after the timers: the caller's turn may have done long work already.
      scheduled = true;
      afterTimers(pump);
    }
  });
}
