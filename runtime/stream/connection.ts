/**
 * One child of a stream (spec/host-runtime.md §"Stream invoker (v2)", spec/stream-protocol.md):
 * spawned once (through the spawn gate, runtime/process/spawn-gate.ts) without a shell as the
 * leader of a new process group, its stdout cut into frames and
 * judged, its stderr drained into the bounded tail, its stdin written one frame at a time. It
 * records why it ended; correlation and respawning are the invoker's (runtime/stream/invoker.ts).
 *
 * - Writes: one frame at a time, the next only after the previous one's write completed (the OS
 *   took it at once: Node's buffer is empty after the write; else an empty write's callback), so a client
 *   that stops reading holds at most the queued frames (each bounded by max_frame_bytes; the frame
 *   of an event that settled before it was written is dropped) and never an unbounded Node buffer. A write error
 *   (EPIPE) is recorded, never thrown.
 * - Reads: every frame goes to `onFrame`; the first violation stops reading (`violation` or
 *   `frame_too_large`) and terminates the group. A frame above SLICED_FRAME_BYTES is judged in
 *   slices (the event loop stays free); the frames after it wait in order behind it (stdout is
 *   paused while more than max_frame_bytes, or MAX_BACKLOG_FRAMES frames, wait) and are judged in
 *   slices too, and the end of stdout and the connection's end
 *   wait until every frame read has been judged and delivered.
 * - End: once the child has exited and stdout is closed (or, after the exit, `kill_grace_ms` has
 *   passed: a descendant holding stdout gets SIGKILL and the pipes are destroyed). Then the group
 *   gets SIGKILL, is untracked, and `onEnd` runs once with the cause.
 * - Causes the host infers (stdout closed, a partial frame at EOF, a write error) wait
 *   stream_term_grace_ms for the child's exit before terminating it, and are kept only when the
 *   child did not exit by itself: a child reaped before the host signalled it, or killed by a
 *   signal the host did not send, ended because of that exit (`exit`).
 */
import { ChildSupervisor, type ChildExit } from "../process/child.js";
import { runInSlices } from "../process/slices.js";
import type { ValidationIssue } from "../wire/issues.js";
import { Fifo } from "./fifo.js";
import { FrameReader, type FrameEvent } from "../rpc/frame-reader.js";
import {
  FRAME_OWN_VALUES,
  parseHostFrame,
  parseHostFrameSliced,
  SLICED_FRAME_BYTES,
  type FrameResult,
  type StreamFrame,
} from "../rpc/frame.js";
import type { StreamInvokerLimits } from "./limits.js";

/** Why a connection ended (see the module doc for how inferred causes yield to `exit`). */
export type EndCause =
  | "spawn"
  | "exit"
  | "violation"
  | "frame_too_large"
  | "unterminated"
  | "stdout_closed"
  | "write_error"
  | "timeouts"
  | "close";

/** The facts of a connection's end. */
export interface ConnectionEnd {
  readonly cause: EndCause;
  readonly exit: ChildExit | null;
  /** The framing issue for violation / frame_too_large / unterminated. */
  readonly issue: ValidationIssue | null;
  /** The first bytes of the offending frame (violation), for the detail. */
  readonly frameBytes: Buffer | null;
  readonly spawnError: NodeJS.ErrnoException | null;
  readonly writeError: NodeJS.ErrnoException | null;
  readonly stderrTail: string;
}

/**
 * Callbacks of a connection; called synchronously from stream events, never after `onEnd`.
 * `resultAccepted`: the frame is a success reply whose result is proved a valid CallbackResponse
 * (runtime/rpc/frame.ts FrameResult).
 */
export interface ConnectionHooks {
  onFrame(frame: StreamFrame, nonIntegerNumberPointers: readonly string[], resultAccepted: boolean): void;
  onEnd(end: ConnectionEnd): void;
  /** The child's spawn is attempted now (it left the spawn gate); never called for a spawn cancelled while queued. */
  onSpawn?(): void;
}

/** A queued write; `cancel()` drops it when it has not started (returns false when it has). */
export interface QueuedWrite {
  cancel(): boolean;
  readonly started: boolean;
}

/**
 * A queued frame; it is its own {@link QueuedWrite} (no handle allocated per write). A cancelled
 * entry lets go of its bytes at once: it may wait in the queue behind a write that never completes
 * (a client that stops reading), and only the frames of pending events may be held then.
 */
class Entry implements QueuedWrite {
  started = false;
  cancelled = false;

  constructor(
    public bytes: Buffer | string,
    readonly done: ((error: Error | null) => void) | undefined,
    private readonly onCancel: () => void,
  ) {}

  cancel(): boolean {
    if (this.started || this.cancelled) return false;
    this.cancelled = true;
    this.bytes = EMPTY;
    this.onCancel();
    return true;
  }
}

/**
 * Frames waiting in the backlog beyond which stdout is paused until it is judged (as beyond
 * max_frame_bytes of them): each costs the host a few hundred bytes however small it is, so a flood
 * of tiny frames behind a large one is bounded by count as well as by bytes.
 */
const MAX_BACKLOG_FRAMES = 8192;

/** Cancelled entries a write queue holds before it is swept (once they are also most of it): short queues are left to pump. */
const SWEEP_MIN_CANCELLED = 64;

/** Written behind a frame still in flight: its callback tells when that frame's write completed. */
const EMPTY = Buffer.alloc(0);

/** The handle of a write refused because the stream is ending. */
const REFUSED_WRITE: QueuedWrite = Object.freeze({ cancel: () => false, started: false });

/** One spawned stream child. */
export class StreamConnection {
  /** The child: spawn, pipes, exit, signals and reap (runtime/process/child.ts). */
  private readonly proc: ChildSupervisor;
  private readonly reader: FrameReader;
  private readonly queue = new Fifo<Entry>();
  /** Cancelled entries still in {@link queue} (they leave it when pump reaches them, or in a sweep). */
  private cancelledQueued = 0;
  private writing = false;
  private stdinEnded = false;
  private endStdinWhenDrained = false;
  private stdoutClosed = false;
  private cause: EndCause | null = null;
  private issue: ValidationIssue | null = null;
  private frameBytes: Buffer | null = null;
  private spawnError: NodeJS.ErrnoException | null = null;
  private writeError: NodeJS.ErrnoException | null = null;
  private finished = false;
  private readonly closedPromise: Promise<void>;
  private resolveClosed!: () => void;
  private readonly abort = new AbortController();
  /** Frames read but not judged yet, in order, behind a large frame being judged in slices. */
  private readonly backlog = new Fifo<FrameEvent>();
  private backlogBytes = 0;
  private judging = false;
  private stdoutPaused = false;
  /** Bytes of stdout read in all (see bytesRead). */
  private stdoutBytes = 0;
  /** Bytes of stdout read after the child's exit (see afterExitGrace). */
  private bytesAfterExit = 0;
  /** The exit's grace came while the host held stdout paused: it starts again once the backlog is drained. */
  private graceAfterDrain = false;
  /** stdout's end, and the connection's end, came while frames were still being judged. */
  private stdoutEndWaiting = false;
  private finishWaiting = false;

  constructor(
    program: string,
    args: readonly string[],
    private readonly limits: StreamInvokerLimits,
    private readonly hooks: ConnectionHooks,
  ) {
    this.reader = new FrameReader(limits.max_frame_bytes);
    this.closedPromise = new Promise((resolve) => (this.resolveClosed = resolve));
    this.proc = new ChildSupervisor(program, args, limits.stderr_tail_bytes, {
      spawnDue: () => {
        if (this.finished) return false;
        this.hooks.onSpawn?.();
        return true;
      },
      spawnFailed: (error, synchronous) => {
        if (this.finished) return;
        this.spawnError = error;
        this.cause = "spawn";
        if (synchronous) queueMicrotask(() => this.finish());
        else this.finish();
      },
      // Frames queued while the spawn waited in the gate (and a close() meanwhile).
      spawned: () => this.pump(),
      exited: () => this.onExit(),
      stdout: (chunk) => this.onStdout(chunk),
      stdoutEnd: () => this.onStdoutEnd(),
      stdoutClosed: () => {
        this.stdoutClosed = true;
        this.maybeFinish();
      },
      stdinError: (error) => this.onWriteError(error),
    });
  }

  /** The child's pid (also its process group id), 0 before a successful spawn. */
  get pid(): number {
    return this.proc.pid;
  }

  /** How the child ended; null until it was reaped. */
  private get exit(): ChildExit | null {
    return this.proc.exit;
  }

  /** True once `onEnd` ran. */
  get ended(): boolean {
    return this.finished;
  }

  /** True once the connection stopped accepting frames (ending, or ended). */
  get ending(): boolean {
    return this.finished || this.cause !== null;
  }

  /**
   * Whether a new event may go to this connection: not ending, and its child has not exited (an
   * exited child's connection may still be judging the frames it read, with its end deferred
   * until then; the next event spawns a new child instead).
   */
  get acceptsEvents(): boolean {
    return !this.ending && this.exit === null && !this.stdinEnded;
  }

  /** Bytes read from the child's stdout so far (frames, partial frames and violations alike). */
  get bytesRead(): number {
    return this.stdoutBytes;
  }

  /** Aborted when the connection ends (for reverse-request handlers). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Resolves after `onEnd`. */
  get closed(): Promise<void> {
    return this.closedPromise;
  }

  /** True while the child's spawn waits in the spawn gate behind other spawns (nothing runs yet). */
  get awaitingSpawn(): boolean {
    return this.proc.awaitingSpawn;
  }

  /**
   * Spawn the child through the spawn gate (runtime/process/spawn-gate.ts): at once, or on a later
   * turn when other spawns are queued (frames written meanwhile wait in the queue). Failures end
   * the connection with cause `spawn` (asynchronously).
   */
  start(): void {
    this.proc.requestSpawn();
  }

  /** The current stderr tail as text. */
  stderrTail(): string {
    return this.proc.stderr.text();
  }

  /**
   * Queue one frame (LF included; a string is written as UTF-8); `done` runs when it was handed to
   * the OS, failed, or was dropped (error then).
   */
  write(bytes: Buffer | string, done?: (error: Error | null) => void): QueuedWrite {
    if (this.ending || this.stdinEnded) {
      done?.(new Error("the stream is ending; nothing more is written"));
      return REFUSED_WRITE;
    }
    const entry = new Entry(bytes, done, this.onEntryCancelled);
    this.queue.push(entry);
    this.pump();
    return entry;
  }

  /**
   * A queued frame was cancelled (its event settled or timed out before it was written): once
   * cancelled entries are most of a long queue, they leave it, so a client that stops reading while
   * its events keep settling (replies to ids it guessed) cannot make the queue grow either.
   */
  private readonly onEntryCancelled = (): void => {
    this.cancelledQueued++;
    if (this.cancelledQueued > SWEEP_MIN_CANCELLED && this.cancelledQueued * 2 > this.queue.length) {
      this.queue.retain((entry) => !entry.cancelled);
      this.cancelledQueued = 0;
    }
  };

  private pump(): void {
    const stdin = this.proc.stdin;
    if (this.writing || stdin === null) return;
    for (;;) {
      const entry = this.queue.shift();
      if (entry === undefined) break;
      if (entry.cancelled) {
        if (this.cancelledQueued > 0) this.cancelledQueued--;
        entry.done?.(new Error("dropped before it was written"));
        continue;
      }
      if (this.ending && this.cause !== "close") {
        entry.done?.(new Error("the stream is ending; nothing more is written"));
        continue;
      }
      entry.started = true;
      if (entry.done === undefined) {
        // No callback: Node then completes a write the OS took at once without a process.nextTick
        // (with one it schedules its after-write tick and ours), measured ~5 µs per stream event.
        stdin.write(entry.bytes);
        // Nothing left in Node's buffer: the OS has the whole frame, the next may go now. A write
        // that failed at once (EPIPE; or stdin already destroyed) ends the stream as a write error
        // would with a callback (stdin's `error` event may report it too).
        if (stdin.writableLength === 0) {
          if (stdin.errored !== null || stdin.destroyed) {
            this.onWriteError(
              (stdin.errored ??
                Object.assign(new Error("write after stdin was destroyed"), {
                  code: "ERR_STREAM_DESTROYED",
                })) as NodeJS.ErrnoException,
            );
            return;
          }
          continue;
        }
        // Still in flight (a client that reads slowly): an empty write's callback runs once it
        // completed (writes complete in order), so the next frame waits for it as before.
        this.writing = true;
        stdin.write(EMPTY, this.afterWrite);
        return;
      }
      this.writing = true;
      stdin.write(entry.bytes, (error) => {
        entry.done?.(error ?? null);
        this.afterWrite(error);
      });
      return;
    }
    if (this.endStdinWhenDrained && !this.stdinEnded) {
      this.stdinEnded = true;
      stdin.end();
    }
  }

  /** The in-flight write completed (or failed): the next queued frame may go. */
  private readonly afterWrite = (error?: Error | null): void => {
    this.writing = false;
    if (error) this.onWriteError(error as NodeJS.ErrnoException);
    else this.pump();
  };

  private onWriteError(error: NodeJS.ErrnoException): void {
    this.cancelledQueued = 0;
    for (const entry of this.queue.drain()) entry.done?.(error);
    // A write that fails because stdin was destroyed (by the host's SIGKILL step, or by Node when
    // the child exited; a frame buffered behind the one in flight, or written after) is no fault of
    // the client's: the exit or the host's own sequence ends the stream, with its own cause.
    if (this.proc.pipesDestroyed || error.code === "ERR_STREAM_DESTROYED") return;
    this.writeError ??= error;
    this.inferred("write_error");
  }

  /**
   * A cause seen from the host's side (stdout closed, a partial frame at EOF, a broken pipe) usually
   * announces the child's own exit: give the exit stream_term_grace_ms to arrive before terminating
   * (a busy machine can delay the exit report well past the pipe's EOF), so a crash is reported as
   * the exit it is.
   */
  private inferred(cause: EndCause): void {
    if (this.finished) return;
    if (this.cause === null || this.cause === "close") this.cause = cause;
    this.proc.after(this.limits.stream_term_grace_ms, () => this.terminate(cause));
  }

  private onStdout(chunk: Buffer): void {
    if (this.ending && this.cause !== "close") return;
    // Paused by the host, yet data came: Node resumes a child's stdout after its exit (flushStdio),
    // and a descendant may still write. Pause again: the backlog stays bounded.
    const stdout = this.proc.stdout;
    if (this.stdoutPaused && stdout !== null && !stdout.isPaused()) stdout.pause();
    this.stdoutBytes += chunk.length;
    if (this.exit !== null) this.bytesAfterExit += chunk.length;
    for (const event of this.reader.push(chunk)) {
      if (
        this.backlog.length > 0 ||
        this.judging ||
        (event.type === "frame" && event.bytes.length > SLICED_FRAME_BYTES)
      ) {
        this.backlog.push(event);
        this.backlogBytes += event.type === "frame" ? event.bytes.length : 0;
        if (
          (this.backlogBytes > this.limits.max_frame_bytes || this.backlog.length > MAX_BACKLOG_FRAMES) &&
          !this.stdoutPaused
        ) {
          this.stdoutPaused = true;
          stdout?.pause();
        }
        if (!this.judging) void this.drainBacklog();
        continue;
      }
      if (!this.deliver(event, event.type === "frame" ? this.judgeNow(event.bytes) : null)) return;
    }
  }

  /** The carried document is bounded by max_values (overridable) plus the frame's own values. */
  private judgeNow(bytes: Buffer): FrameResult {
    return parseHostFrame(bytes, this.limits.max_frame_bytes, this.limits.max_values + FRAME_OWN_VALUES);
  }

  /** Hand one judged frame on, or end on a violation; false when reading is to stop. */
  private deliver(event: FrameEvent, judged: FrameResult | null): boolean {
    if (event.type === "violation") {
      // The reader's own rules: an oversized frame is its own failure (stream_frame_too_large);
      // an empty line is a framing violation like any other (stream_framing).
      this.issue = event.issue;
      this.proc.stdout?.destroy();
      this.terminate(event.issue.rule === "stream.frame-too-large" ? "frame_too_large" : "violation");
      return false;
    }
    const result = judged as FrameResult;
    if (!result.ok) {
      this.issue = result.issue;
      this.frameBytes = event.bytes.subarray(0, this.limits.failure_detail_preview_bytes + 1);
      this.proc.stdout?.destroy();
      this.terminate("violation");
      return false;
    }
    this.hooks.onFrame(result.frame, result.nonIntegerNumberPointers, result.resultAccepted === true);
    return !(this.finished || (this.ending && this.cause !== "close"));
  }

  /**
   * Judge the backlog in order, then let stdout's end and the connection's end proceed. A large
   * frame is judged in slices by the sliced parser; a run of small frames behind it, in slices of
   * the shared scheduler too (runtime/process/slices.ts): judged one after the other in one go they
   * held the event loop for seconds (93,228 frames queued behind an 8 MB one: 8 s).
   */
  private async drainBacklog(): Promise<void> {
    this.judging = true;
    for (let event = this.backlog.peek(); event !== undefined; event = this.backlog.peek()) {
      if (event.type === "frame" && event.bytes.length > SLICED_FRAME_BYTES) {
        this.takeFromBacklog();
        const judged = await parseHostFrameSliced(
          event.bytes,
          this.limits.max_frame_bytes,
          this.limits.max_values + FRAME_OWN_VALUES,
        );
        this.deliverFromBacklog(event, judged);
      } else {
        await runInSlices((budgetMs) => this.judgeSmallFrames(budgetMs));
      }
    }
    this.judging = false;
    if (this.stdoutPaused) {
      this.stdoutPaused = false;
      if (!this.finished) this.proc.stdout?.resume();
    }
    if (this.graceAfterDrain && !this.finished) {
      this.graceAfterDrain = false;
      this.proc.after(this.limits.kill_grace_ms, this.afterExitGrace);
    }
    if (this.stdoutEndWaiting) {
      this.stdoutEndWaiting = false;
      this.onStdoutEnd();
    }
    if (this.finishWaiting) {
      this.finishWaiting = false;
      this.finish();
    }
  }

  /**
   * Judge and deliver the small frames at the head of the backlog for about `budgetMs`; true when
   * the head is a large frame or nothing is left (a sliced step: runtime/process/slices.ts).
   */
  private judgeSmallFrames(budgetMs: number): boolean {
    const until = performance.now() + budgetMs;
    for (let event = this.backlog.peek(); event !== undefined; event = this.backlog.peek()) {
      if (event.type === "frame" && event.bytes.length > SLICED_FRAME_BYTES) return true;
      this.takeFromBacklog();
      this.deliverFromBacklog(event, event.type === "frame" ? this.judgeNow(event.bytes) : null);
      if (performance.now() >= until) return this.backlog.length === 0;
    }
    return true;
  }

  /** Dequeue the head of the backlog (O(1)). */
  private takeFromBacklog(): void {
    const event = this.backlog.shift();
    if (event?.type === "frame") this.backlogBytes -= event.bytes.length;
  }

  /** Deliver a frame taken from the backlog; when reading is to stop, the rest of the backlog is dropped. */
  private deliverFromBacklog(event: FrameEvent, judged: FrameResult | null): void {
    if (this.finished || (this.ending && this.cause !== "close") || !this.deliver(event, judged)) {
      this.backlog.clear();
      this.backlogBytes = 0;
    }
  }

  private onStdoutEnd(): void {
    if (this.finished) return;
    if (this.judging) {
      this.stdoutEndWaiting = true;
      return;
    }
    const tail = this.reader.end();
    const violation = tail[0];
    if (violation !== undefined && violation.type === "violation" && this.issue === null) {
      this.issue = violation.issue;
      this.inferred("unterminated");
      return;
    }
    this.inferred("stdout_closed");
  }

  private onExit(): void {
    if (this.finished) {
      this.proc.sweep();
      return;
    }
    if (this.stdoutClosed) {
      this.finish();
      return;
    }
    // A descendant may hold stdout open: give the last frames kill_grace_ms, then end.
    this.proc.after(this.limits.kill_grace_ms, this.afterExitGrace);
  }

  /**
   * kill_grace_ms after the exit without stdout's end. When the host itself holds stdout paused
   * (it is judging a backlog), the child's last frames may still wait in the pipe unread: the grace
   * starts again once reading resumes, as long as what was read since the exit stays within
   * max_frame_bytes (an exited child left at most a pipe's worth; more is a descendant writing on).
   * Otherwise the group gets SIGKILL, the pipes are destroyed and the connection ends.
   */
  private readonly afterExitGrace = (): void => {
    if (this.finished) return;
    if (this.stdoutPaused && this.bytesAfterExit <= this.limits.max_frame_bytes) {
      this.graceAfterDrain = true;
      return;
    }
    this.proc.signalGroup("SIGKILL");
    this.proc.destroyPipes();
    this.finish();
  };

  private maybeFinish(): void {
    if (this.exit !== null && this.stdoutClosed) this.finish();
  }

  /** A violation found above the frame layer (e.g. stream.request-flood): stop reading and terminate. */
  violate(issue: ValidationIssue): void {
    if (this.finished || (this.ending && this.cause !== "close")) return;
    this.issue = issue;
    this.proc.stdout?.destroy();
    this.terminate("violation");
  }

  /**
   * End the connection without trusting the child: SIGTERM to the group, SIGKILL after
   * kill_grace_ms (pipes destroyed), end at the latest when the child is reaped. The first cause wins.
   */
  terminate(cause: EndCause): void {
    if (this.finished) return;
    if (this.cause === null || this.cause === "close") this.cause = cause;
    if (this.cancelSpawn()) return;
    if (this.proc.pid === 0) return;
    this.proc.killLadder(this.limits.kill_grace_ms, true);
    this.safetyEnd(this.limits.kill_grace_ms + this.limits.settle_margin_ms);
  }

  /**
   * The shutdown sequence (spec/tables/stream-v2.json `shutdown`): end stdin once the queued frames
   * are written, wait stream_close_grace_ms for the exit, SIGTERM, wait stream_term_grace_ms,
   * SIGKILL and destroy the pipes, then the reap. Frames keep being read meanwhile. Resolves after `onEnd`.
   */
  close(): Promise<void> {
    if (this.finished) return this.closedPromise;
    if (this.cause === null) this.cause = "close";
    // Not spawned yet and nothing to deliver: there is no child to start only to stop it.
    if (this.queue.every((entry) => entry.cancelled) && this.cancelSpawn()) return this.closedPromise;
    this.endStdinWhenDrained = true;
    this.pump();
    const {
      stream_close_grace_ms: close,
      stream_term_grace_ms: term,
      kill_grace_ms: kill,
      settle_margin_ms: margin,
    } = this.limits;
    this.proc.after(close, () => {
      // Still not spawned when it would get SIGTERM: it is never started (no child outlives the close sequence).
      if (!this.cancelSpawn()) this.proc.signal("SIGTERM");
    });
    this.proc.after(close + term, () => {
      this.proc.signal("SIGKILL");
      this.proc.destroyPipes();
    });
    this.safetyEnd(close + term + kill + margin);
    return this.closedPromise;
  }

  /** Cancel a spawn still queued in the gate and end (asynchronously, as a failed spawn does); false when there is none. */
  private cancelSpawn(): boolean {
    if (!this.proc.cancelSpawn()) return false;
    queueMicrotask(() => this.finish());
    return true;
  }

  /** End even if no exit is ever reported (bounded settling). */
  private safetyEnd(afterMs: number): void {
    this.proc.after(afterMs, () => this.finish());
  }

  private finish(): void {
    if (this.finished) return;
    if (this.judging) {
      // Every frame read is judged and delivered first (a reply must not be lost to the end).
      this.finishWaiting = true;
      return;
    }
    this.finished = true;
    this.proc.cancelSpawn();
    this.proc.clearTimers();
    this.cancelledQueued = 0;
    for (const entry of this.queue.drain()) entry.done?.(new Error("the stream ended"));
    this.proc.destroyPipes();
    if (this.exit !== null) this.proc.sweep();
    let cause: EndCause = this.cause ?? "exit";
    if (
      (cause === "stdout_closed" || cause === "unterminated" || cause === "write_error") &&
      this.proc.exitedByItself()
    )
      cause = "exit";
    this.abort.abort();
    this.hooks.onEnd({
      cause,
      exit: this.exit,
      issue: this.issue,
      frameBytes: this.frameBytes,
      spawnError: this.spawnError,
      writeError: this.writeError,
      stderrTail: this.proc.stderr.text(),
    });
    this.resolveClosed();
  }
}
