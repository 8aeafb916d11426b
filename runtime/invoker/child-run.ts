/**
 * One child process run of the subprocess transport (spec/host-runtime.md §"Round trip",
 * §"Deadline and kill policy", §"Bounds"): arm the deadline, spawn (through the spawn gate) without
 * a shell as the leader of a new process group, write the request to stdin and close it, read
 * stdout (bounded) and stderr (bounded tail) concurrently, wait for the exit, all under one
 * absolute deadline. It records facts only; the
 * classification into failure variants is runtime/invoker/classify.ts.
 *
 * Settling:
 * - normally when the child has exited, stdout and stderr reached EOF and the write to stdin ended
 *   (completed or failed; a broken pipe can be reported after the exit);
 * - at once (after the reap) when stdout exceeds `max_response_bytes`: the group gets SIGKILL and no
 *   more stdout is read;
 * - at the deadline, while the spawn is still queued in the spawn gate (runtime/process/spawn-gate.ts:
 *   spawns are spread over turns of the event loop): the spawn is cancelled and the run timed out
 *   with nothing started (`neverSpawned`);
 * - at the deadline: if the child exited and stdout reached EOF, only a descendant holds stderr or
 *   stdin, so the group gets SIGKILL and the run settles normally; otherwise the run timed out:
 *   SIGTERM to the group, SIGKILL after `kill_grace_ms`, all pipes destroyed (a descendant holding a
 *   pipe cannot delay settling), then settle once the child is reaped, and at the latest half-way
 *   through the rest of the settle margin.
 * When a run settles after its child was reaped, the group gets SIGKILL (no process started for an
 * invocation outlives it) and is no longer tracked; otherwise that happens when the reap comes.
 * The process mechanics (spawn, pipes, exit, signals, reap) are the shared supervisor's
 * (runtime/process/child.ts); this module is the v1 policy over it.
 */
import { performance } from "node:perf_hooks";
import type { InvokerLimits } from "./config.js";
import { ChildSupervisor, type ChildExit, type ChildStdin } from "../process/child.js";
import type { ByteTail } from "../process/stderr-tail.js";
import { ByteGather } from "../wire/byte-gather.js";

export type { ChildExit, ChildStdin } from "../process/child.js";

/**
 * How the input reaches the child's stdin. The default writes it whole and closes stdin (the v1
 * round trip); a conformance runner writes it in small pieces with pauses, signals the group in
 * the middle of a write, or holds a whole stream session (spec/conformance-runner.md). The
 * strategy's errors are ignored: a write the child cut off is recorded as `writeError`.
 */
export type WriteStrategy = (io: ChildStdin, input: Uint8Array) => Promise<void>;

/**
 * What to run: program and args verbatim, the request bytes, the absolute deadline
 * (performance.now() ms); optionally how to write (`write`, default: whole, then EOF) and a tap
 * that sees every stdout chunk as it arrives (`onStdout`, within the max_response_bytes bound).
 */
export interface ChildRunSpec {
  readonly program: string;
  readonly args: readonly string[];
  readonly input: Uint8Array;
  readonly deadlineAt: number;
  readonly limits: InvokerLimits;
  readonly write?: WriteStrategy;
  readonly onStdout?: (chunk: Buffer) => void;
  /**
   * Keep stdout chunks for `ChildRun.stdout` (default true). A caller whose `onStdout` tap consumes
   * the stream (a stream session, whose frame reader bounds each frame) passes false, so a long
   * session does not hold all its output; `max_response_bytes` still bounds the total.
   */
  readonly retainStdout?: boolean;
}

/**
 * Facts of one run.
 * - `spawnError`: the program could not be started (nothing ran).
 * - `exit`: null when the child was never reaped before settling.
 * - `stdout`: the bytes read (at most max_response_bytes; emptied when `stdoutTooLarge`).
 * - `stdoutError` / `writeError`: stream errors (e.g. ECONNRESET, EPIPE).
 * - `timedOut`: the deadline passed before the child exited and stdout reached EOF.
 * - `neverSpawned`: the deadline passed while the spawn was still queued behind others
 *   (runtime/process/spawn-gate.ts), or before it was due: nothing was started (`timedOut` is true too).
 * - `deadlinePassedBeforeSpawn`: with `neverSpawned`, the deadline had already passed when the run
 *   started (spent preparing the request, or on other work of the host): the spawn was never queued.
 * - `exitedBeforeDeadline`: the child had exited when the deadline fired (a descendant held stdout).
 * - `stderr`: the bounded tail of stderr.
 */
export interface ChildRun {
  readonly spawnError: NodeJS.ErrnoException | null;
  readonly exit: ChildExit | null;
  readonly stdout: Buffer;
  readonly stdoutTooLarge: boolean;
  readonly stdoutError: Error | null;
  readonly writeError: NodeJS.ErrnoException | null;
  readonly timedOut: boolean;
  readonly neverSpawned: boolean;
  readonly deadlinePassedBeforeSpawn: boolean;
  readonly exitedBeforeDeadline: boolean;
  readonly stderr: ByteTail;
  /** When the child was seen to exit (performance.now() ms), or null. */
  readonly exitedAt: number | null;
}

/** The broken pipe of a write that was cut off without an error event (see the stdin `close` handler). */
function unfinishedWrite(): NodeJS.ErrnoException {
  return Object.assign(new Error("stdin closed before the whole request was written"), { code: "EPIPE" });
}

/** Run the child once; never rejects. */
export function runChild(spec: ChildRunSpec): Promise<ChildRun> {
  return new Promise<ChildRun>((resolve) => new ChildRunState(spec, resolve).start());
}

class ChildRunState {
  private readonly proc: ChildSupervisor;
  private spawnError: NodeJS.ErrnoException | null = null;
  private exitSeen: () => void = () => undefined;
  private readonly exitPromise = new Promise<void>((resolve) => (this.exitSeen = resolve));
  /** stdout as read; a large response is copied chunk by chunk into one growing buffer (no join at EOF). */
  private readonly chunks: ByteGather;
  private stdoutBytes = 0;
  private stdoutTooLarge = false;
  private stdoutError: Error | null = null;
  private writeError: NodeJS.ErrnoException | null = null;
  private stdinClosed = false;
  private stdinFinished = false;
  private stdoutClosed = false;
  private stderrClosed = false;
  private timedOut = false;
  private exitedBeforeDeadline = false;
  private settled = false;
  private neverSpawned = false;
  private deadlinePassedBeforeSpawn = false;

  constructor(
    private readonly spec: ChildRunSpec,
    private readonly resolve: (run: ChildRun) => void,
  ) {
    this.chunks = new ByteGather(spec.limits.max_response_bytes);
    this.proc = new ChildSupervisor(spec.program, spec.args, spec.limits.stderr_tail_bytes, {
      spawnDue: () => !this.settled,
      spawnFailed: (error) => this.onSpawnFailed(error),
      spawned: () => this.onSpawned(),
      exited: () => this.onExit(),
      stdout: (chunk) => this.onStdout(chunk),
      stdoutError: (error) => {
        this.stdoutError ??= error;
      },
      stdoutClosed: () => {
        this.stdoutClosed = true;
        this.maybeSettle();
      },
      stderrClosed: () => {
        this.stderrClosed = true;
        this.maybeSettle();
      },
      stdinError: (error) => {
        this.writeError ??= error;
      },
      stdinFinished: () => {
        this.stdinFinished = true;
      },
      stdinClosed: () => {
        this.stdinClosed = true;
        // Node destroys a child's stdin when it sees the exit; if that comes before the kernel's
        // EPIPE, the unwritten rest of the request is dropped without an error event. A write that
        // never finished is the same broken pipe, whichever event came first.
        if (!this.stdinFinished && this.writeError === null) this.writeError = unfinishedWrite();
        this.maybeSettle();
      },
    });
  }

  /**
   * Arm the deadline (it counts from the invocation, not from the spawn), then spawn through the
   * gate (runtime/process/spawn-gate.ts): at once, or on a later turn when other spawns are queued.
   */
  start(): void {
    if (performance.now() >= this.spec.deadlineAt) {
      // Nothing to queue or start: the whole timeout went before the spawn was due (preparing the
      // request, or other work of this turn such as the spawns of other calls).
      this.timedOut = true;
      this.neverSpawned = true;
      this.deadlinePassedBeforeSpawn = true;
      this.finish();
      return;
    }
    this.proc.after(Math.max(0, this.spec.deadlineAt - performance.now()), () => this.onDeadline());
    this.proc.requestSpawn(this.spec.deadlineAt);
  }

  private onSpawnFailed(error: NodeJS.ErrnoException): void {
    if (this.settled) return;
    this.spawnError = error;
    this.finish();
  }

  private onSpawned(): void {
    const stdin = this.proc.stdin as NonNullable<ChildSupervisor["stdin"]>;
    if (this.spec.write === undefined) stdin.end(this.spec.input);
    else {
      const io: ChildStdin = {
        stdin,
        signalGroup: (signal) => this.proc.signalGroup(signal),
        exited: () => this.proc.exit !== null,
        exit: this.exitPromise,
      };
      this.spec.write(io, this.spec.input).catch(() => undefined);
    }
  }

  private onStdout(chunk: Buffer): void {
    if (this.stdoutTooLarge) return;
    this.stdoutBytes += chunk.length;
    if (this.stdoutBytes > this.spec.limits.max_response_bytes) {
      this.stdoutTooLarge = true;
      this.chunks.clear();
      this.proc.signalGroup("SIGKILL");
      this.proc.stdout?.destroy();
      return;
    }
    if (this.spec.retainStdout !== false) this.chunks.push(chunk);
    this.spec.onStdout?.(chunk);
  }

  private onExit(): void {
    this.exitSeen();
    if (this.settled) {
      this.proc.sweep();
      return;
    }
    this.maybeSettle();
  }

  /**
   * Settle once the child is reaped, stdout and stderr reached EOF and the write to stdin has ended
   * (completed, or failed: a broken pipe may be reported after the exit), or once the child is
   * reaped after a timeout. After stdout overflowed, stdout is already closed and stderr's EOF
   * follows the group's SIGKILL.
   */
  private maybeSettle(): void {
    if (this.settled || this.proc.exit === null) return;
    if ((this.stdinClosed && this.stdoutClosed && this.stderrClosed) || this.timedOut) this.finish();
  }

  private onDeadline(): void {
    if (this.settled) return;
    if (this.proc.cancelSpawn()) {
      // Still queued behind other spawns: nothing was started, nothing was delivered.
      this.timedOut = true;
      this.neverSpawned = true;
      this.finish();
      return;
    }
    if (this.proc.pid === 0) {
      // The spawn's `error` event has not come by the deadline: nothing runs, nothing to kill.
      this.timedOut = true;
      this.finish();
      return;
    }
    if (this.proc.exit !== null && this.stdoutClosed) {
      // Only stderr or stdin is still open, held by a descendant: not a timeout of the exchange.
      this.proc.signalGroup("SIGKILL");
      this.proc.destroyPipes();
      this.finish();
      return;
    }
    this.exitedBeforeDeadline = this.proc.exit !== null;
    this.timedOut = !this.stdoutTooLarge;
    const { kill_grace_ms, settle_margin_ms } = this.spec.limits;
    this.proc.killLadder(kill_grace_ms, false, () => this.maybeSettle());
    const reapWait = kill_grace_ms + Math.max(0, settle_margin_ms - kill_grace_ms) / 2;
    this.proc.after(reapWait, () => this.finish());
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    this.exitSeen();
    this.proc.clearTimers();
    this.proc.destroyPipes();
    if (this.proc.exit !== null) this.proc.sweep();
    // take() empties the gatherer (this state lives on while the child's handles do).
    const stdout = this.chunks.take();
    this.resolve({
      spawnError: this.spawnError,
      exit: this.proc.exit,
      stdout,
      stdoutTooLarge: this.stdoutTooLarge,
      stdoutError: this.stdoutError,
      writeError: this.writeError,
      timedOut: this.timedOut,
      neverSpawned: this.neverSpawned,
      deadlinePassedBeforeSpawn: this.deadlinePassedBeforeSpawn,
      exitedBeforeDeadline: this.exitedBeforeDeadline,
      stderr: this.proc.stderr,
      exitedAt: this.proc.exitedAt,
    });
  }
}
