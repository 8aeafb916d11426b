/**
 * One stream (v2) session with the client under test, driven over its raw pipes
 * (spec/conformance-runner.md, "Stream scenarios"). The runner plays the host, but byte by byte:
 * it writes exactly the frames (and the broken lines) a scenario asks for, in the writes it asks
 * for, and sees every frame the client writes. The process handling is the subprocess invoker's
 * ({@link runChild}: no shell, its own process group, bounded stdout and stderr tail, SIGTERM then
 * SIGKILL at the deadline, the group killed after the reap); the session is its write strategy.
 *
 * Barriers, not sleeps: every wait is for a frame, for the child's exit or for the end of a
 * watchdog (the scenario's deadline); nothing waits a fixed time to let the client "catch up".
 */
import { performance } from "node:perf_hooks";
import { LIMITS, STREAM_V2 } from "../../generated/ts/spec.js";
import { runChild, type ChildRun } from "../invoker/child-run.js";
import { writeToChild, type ChildStdin } from "../process/child.js";
import { DEFAULT_INVOKER_LIMITS } from "../invoker/config.js";
import { errorCode } from "../rpc/error-codes.js";
import { FrameReader } from "../rpc/frame-reader.js";
import { NO_FRAME_HINT } from "../stream/invoker.js";
import { encodeErrorReply, parseFrame, sameId, type JsonRpcId, type StreamFrame } from "../rpc/frame.js";
import { CURRENT_HOST_WINDOW } from "../invoker/config.js";
import type { WireWindow } from "../wire/window.js";

/** A reply frame the client wrote, with the strict parser's non-integer pointers (for validating `result`). */
export type ReplyFrame = Extract<StreamFrame, { kind: "success_reply" | "error_reply" }> & {
  readonly pointers: readonly string[];
};

/** Thrown by a script when the client does not show the expected behaviour; the message is the verdict's detail. */
export class ConformFailure extends Error {}

/** A stream scenario's steps, run against one live client; throws {@link ConformFailure}. */
export type StreamScript = (session: StreamSession) => Promise<void>;

/** What a stream scenario run came to: the script's failure (or null) and the process facts. */
export interface StreamRunResult {
  readonly failure: string | null;
  readonly run: ChildRun;
  readonly elapsedMs: number;
  /** Bytes the client wrote to stdout (frames or not). */
  readonly stdoutBytes: number;
}

/**
 * The host side of one session. `reply(id)` waits for the reply to `id`; replies nobody waited
 * for stay in the inbox and fail the scenario at the end (a duplicate, a reply to a notification,
 * an unsolicited frame). Client requests (continuation/*) get -32000 not_available, as from a
 * host without a continuation store; client notifications are discarded.
 */
export class StreamSession {
  private readonly reader = new FrameReader(LIMITS.max_frame_bytes);
  private readonly inbox: ReplyFrame[] = [];
  private stdoutProblem: string | null = null;
  private readonly listeners = new Set<() => void>();
  /** Ids whose wait ended without the reply (the scenario failed on it): a late reply to one is that scenario's, not the next one's. */
  private readonly abandoned = new Set<string>();
  /** True once {@link drain} ran: the client has had its exit grace. */
  drained = false;
  /** Frames (replies) received so far, all kinds counted. */
  framesReceived = 0;

  constructor(
    readonly io: ChildStdin,
    /** The watchdog of each wait (ms): the scenario's deadline. */
    readonly waitMs: number,
    /** The window every reply's result is judged with: closed to the version the scenarios speak (default current). */
    readonly answerWindow: WireWindow = CURRENT_HOST_WINDOW,
  ) {}

  /** Feed a stdout chunk (runChild's tap). Anything that is not a frame is recorded and ends the waits. */
  onStdout(chunk: Buffer): void {
    for (const event of this.reader.push(chunk)) {
      if (event.type === "violation") {
        this.stdoutProblem ??= `stdout carries something that is not a frame: ${event.issue.rule}: ${event.issue.message}`;
        continue;
      }
      const judged = parseFrame(event.bytes);
      if (!judged.ok) {
        const text = event.bytes.subarray(0, 120).toString("utf8");
        this.stdoutProblem ??= `stdout carries something that is not a frame (${judged.issue.rule} at "${judged.issue.pointer}": ${judged.issue.message}): ${JSON.stringify(text)}`;
        continue;
      }
      this.framesReceived++;
      const frame = judged.frame;
      if (frame.kind === "request") {
        // A client → host request: the runner has no continuation store (never silence).
        void writeToChild(
          this.io,
          encodeErrorReply(frame.id, {
            code: errorCode("not_available"),
            message: `${frame.method} is not available from the conformance runner`,
            data: { error: "not_available", method: frame.method },
          }),
        );
      } else if (frame.kind !== "notification") {
        this.inbox.push({ ...frame, pointers: judged.nonIntegerNumberPointers });
      }
    }
    for (const listener of [...this.listeners]) listener();
  }

  /** The first problem with the client's stdout (a non-frame line), or null. */
  get problem(): string | null {
    return this.stdoutProblem;
  }

  /** Write bytes in one write; resolves when written (or the child is gone). */
  write(bytes: Uint8Array): Promise<void> {
    return writeToChild(this.io, bytes);
  }

  /** Write bytes one byte per write, each write completed before the next. */
  async writeBytewise(bytes: Uint8Array): Promise<void> {
    for (let i = 0; i < bytes.length && !this.io.exited(); i++) await writeToChild(this.io, bytes.subarray(i, i + 1));
  }

  /** End the client's stdin (EOF); returns the time it was ended (performance.now() ms). */
  endStdin(): number {
    this.io.stdin.end();
    return performance.now();
  }

  /** Wait for the reply to `id` (type and value); fails when the client exits first or the watchdog fires. */
  async reply(id: JsonRpcId, what: string): Promise<ReplyFrame> {
    // A non-frame line does not end the wait: the reply may still follow it (in another read), and
    // the line is reported with the scenario either way.
    const found = await this.until(
      () => this.inbox.findIndex((f) => sameId(f.id, id)),
      (i) => i >= 0,
      { stopOnProblem: false },
    );
    if (found.value === undefined || found.value < 0) {
      // An id that came back with another type (7 for "7") is named as such.
      const retyped = this.inbox.find((f) => String(f.id) === String(id));
      if (retyped !== undefined)
        throw new ConformFailure(
          `the reply to ${what} came back with the id ${JSON.stringify(retyped.id)}: ids keep their type (${typeof id})`,
        );
      this.abandoned.add(JSON.stringify(id));
      const hint = this.framesReceived === 0 && this.stdoutProblem === null ? NO_FRAME_HINT : "";
      throw new ConformFailure(`no reply to ${what} (id ${JSON.stringify(id)}): ${found.why}${hint}`);
    }
    return this.inbox.splice(found.value, 1)[0] as ReplyFrame;
  }

  /** Wait until `count` replies that `match` are in the inbox (they stay there); fails like {@link reply}. */
  async replies(count: number, match: (f: ReplyFrame) => boolean, what: string): Promise<ReplyFrame[]> {
    const found = await this.until(
      () => this.inbox.filter(match),
      (list) => list.length >= count,
      { stopOnProblem: false },
    );
    if (found.value === undefined) throw new ConformFailure(`not ${count} replies to ${what}: ${found.why}`);
    return found.value;
  }

  /** Wait for the child's exit; resolves with ms from `since` to the exit, or fails after the watchdog. */
  async exited(since: number, what: string, waitMs = this.waitMs): Promise<number> {
    const found = await this.until(
      () => this.io.exited(),
      (v) => v,
      { stopOnExit: false, stopOnProblem: false, waitMs },
    );
    if (found.value !== true) throw new ConformFailure(`the client did not exit ${what}: ${found.why}`);
    return performance.now() - since;
  }

  /** Wait until the client exits or writes a frame beyond the first `frames`; fails after the watchdog. */
  async exitedOrFrame(frames: number, what: string): Promise<void> {
    const found = await this.until(
      () => this.io.exited() || this.framesReceived > frames,
      (v) => v,
      { stopOnExit: false, stopOnProblem: false },
    );
    if (found.value !== true) throw new ConformFailure(`the client did not exit ${what}: ${found.why}`);
  }

  /** The first problem with stdout since the last call, cleared (for scenarios sharing a session). */
  takeProblem(): string | null {
    const problem = this.stdoutProblem;
    this.stdoutProblem = null;
    return problem;
  }

  /**
   * End stdin and give the client limits.stream_client_exit_ms to exit, so that every frame it
   * still writes has arrived (a barrier: its exit). Not a verdict: a slow exit is judged elsewhere.
   */
  async drain(): Promise<void> {
    this.drained = true;
    if (!this.io.exited()) this.io.stdin.end();
    await this.until(
      () => this.io.exited(),
      (v) => v,
      { stopOnExit: false, stopOnProblem: false, waitMs: LIMITS.stream_client_exit_ms },
    );
  }

  /**
   * Replies that no step waited for (each one a protocol fault), removed from the inbox. A late
   * reply to an id whose wait already failed is dropped here: the scenario that sent it has its
   * verdict (the timeout), and the scenario now running did not cause it.
   */
  unclaimed(): ReplyFrame[] {
    return this.inbox.splice(0, this.inbox.length).filter((f) => !this.abandoned.has(JSON.stringify(f.id)));
  }

  /**
   * Re-evaluate `probe` whenever stdout brings something or the child exits, until `done` holds,
   * the child exits or stdout breaks (unless told otherwise), or `waitMs` passes.
   */
  private until<T>(
    probe: () => T,
    done: (v: T) => boolean,
    opts: { stopOnExit?: boolean; stopOnProblem?: boolean; waitMs?: number } = {},
  ): Promise<{ value: T | undefined; why: string }> {
    const { stopOnExit = true, stopOnProblem = true, waitMs = this.waitMs } = opts;
    return new Promise((resolve) => {
      let settled = false;
      const check = (): void => {
        if (settled) return;
        const value = probe();
        if (done(value)) finish(value, "");
        else if (stopOnProblem && this.stdoutProblem !== null) finish(undefined, this.stdoutProblem);
        else if (stopOnExit && this.io.exited()) finish(undefined, "the client exited first");
      };
      const watchdog = setTimeout(() => finish(undefined, `nothing within ${waitMs} ms`), waitMs);
      const finish = (value: T | undefined, why: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(watchdog);
        this.listeners.delete(check);
        resolve({ value, why });
      };
      this.listeners.add(check);
      void this.io.exit.then(() => setImmediate(check)); // stdout chunks of the exit come first
      check();
    });
  }
}

/** Waits (each with its own watchdog of the scenario timeout) one stream scenario makes at most. */
export const WAITS_PER_SCENARIO = 4;
/** Frames per wait a correct client may write (a reply, plus a client request or notification). */
const FRAMES_PER_SCENARIO = 2;

/**
 * A derived delay (ms) clamped to limits.max_timeout_ms, the longest delay a Node.js timer holds:
 * a longer one would fire after 1 ms (a TimeoutOverflowWarning), not later.
 */
export function clampTimerMs(ms: number): number {
  return Math.min(ms, LIMITS.max_timeout_ms);
}

/**
 * Spawn `program args... --stream` and run `script` against it. The run's deadline is the script's
 * own watchdogs plus a margin; when the script is done, stdin is ended and the client gets
 * stream_client_exit_ms to exit before the group is killed (a slow exit is a scenario of its own,
 * not a fault here). `answerWindow`: the session's ({@link StreamSession}; default closed to
 * current). Never rejects.
 */
export async function runStreamScript(
  program: string,
  args: readonly string[],
  timeoutMs: number,
  script: StreamScript,
  waits = WAITS_PER_SCENARIO,
  answerWindow: WireWindow = CURRENT_HOST_WINDOW,
): Promise<StreamRunResult> {
  const started = performance.now();
  let session: StreamSession | null = null;
  let failure: string | null = null;
  let scriptDone!: () => void;
  let scriptStarted = false;
  let stdoutBytes = 0;
  const scriptFinished = new Promise<void>((r) => (scriptDone = r));
  const exitGrace = LIMITS.stream_client_exit_ms;
  const run = await runChild({
    program,
    args: [...args, STREAM_V2.launch.flag],
    input: new Uint8Array(0),
    // Each wait has its own watchdog of timeoutMs; the run's deadline is only a backstop that
    // covers all of them (`waits` in a row) and the exit grace, clamped to a timer Node can hold.
    deadlineAt: started + clampTimerMs(waits * timeoutMs + exitGrace),
    // Each frame is bounded by the frame reader (limits.max_frame_bytes); the session's total is
    // what its scenarios can need: a few frames of at most max_frame_bytes each per scenario (a
    // total of max_response_bytes would fail a valid client with large replies in a long session).
    limits: { ...DEFAULT_INVOKER_LIMITS, max_response_bytes: FRAMES_PER_SCENARIO * waits * LIMITS.max_frame_bytes },
    retainStdout: false,
    onStdout: (chunk) => {
      stdoutBytes += chunk.length;
      session?.onStdout(chunk);
    },
    write: async (io) => {
      scriptStarted = true;
      session = new StreamSession(io, timeoutMs, answerWindow);
      try {
        await script(session);
        // Frames written late (a reply to a notification, a duplicate) arrive before the exit.
        await session.drain();
        if (session.problem !== null) failure = session.problem;
        const extra = session.unclaimed();
        if (failure === null && extra.length > 0) failure = unexpectedFrames(extra);
      } catch (error) {
        failure = scriptFailure(error);
        if (session.problem !== null && !failure.includes(session.problem)) failure += `; ${session.problem}`;
      } finally {
        scriptDone();
      }
      if (!io.exited()) {
        // The script ended without its exit (a runner error) or drain() gave the grace already.
        io.stdin.end();
        const killAt = setTimeout(() => io.signalGroup("SIGKILL"), session.drained ? 0 : exitGrace);
        await io.exit;
        clearTimeout(killAt);
      }
    },
  });
  if (scriptStarted) await scriptFinished;
  if (run.spawnError !== null) failure = `the program could not be started: ${run.spawnError.message}`;
  else if (failure === null && run.stdoutTooLarge)
    failure = `stdout exceeded ${FRAMES_PER_SCENARIO * waits} frames of limits.max_frame_bytes (the session's bound)`;
  return { failure, run, elapsedMs: performance.now() - started, stdoutBytes };
}

/** The outcome of one scenario of a shared session. */
export interface SharedOutcome {
  readonly failure: string | null;
  readonly elapsedMs: number;
  readonly stderrTail: string;
}

/**
 * Run `scripts` one after another in one session, as a host sends events on one stream; when the
 * client exits on the way, the rest continue in a new session (as a host respawns). Each script's
 * verdict is its own: its failure, the stdout problems and the unclaimed replies seen while it
 * ran; frames that only arrive at the end (after EOF) count against the last one. `answerWindow`:
 * every session's (default closed to current). Never rejects.
 */
export async function runSharedSession(
  program: string,
  args: readonly string[],
  timeoutMs: number,
  scripts: readonly { readonly id: string; readonly script: StreamScript }[],
  answerWindow: WireWindow = CURRENT_HOST_WINDOW,
): Promise<Map<string, SharedOutcome>> {
  const outcomes = new Map<string, { failure: string | null; elapsedMs: number }>();
  const stderr = new Map<string, string>();
  let next = 0;
  while (next < scripts.length) {
    const first = next;
    const result = await runStreamScript(
      program,
      args,
      timeoutMs,
      async (s) => {
        while (next < scripts.length) {
          const { id, script } = scripts[next++] as (typeof scripts)[number];
          const started = performance.now();
          let failure: string | null = null;
          try {
            await script(s);
          } catch (error) {
            failure = scriptFailure(error);
          }
          const problem = s.takeProblem();
          const extra = s.unclaimed();
          failure ??= problem ?? (extra.length > 0 ? unexpectedFrames(extra) : null);
          outcomes.set(id, { failure, elapsedMs: performance.now() - started });
          if (s.io.exited()) return;
        }
        // The session's backstop covers every scenario still to run (each wait has its own watchdog).
      },
      WAITS_PER_SCENARIO * (scripts.length - next),
      answerWindow,
    );
    if (next === first) {
      // The program could not be started: the first script carries the failure, the rest try again.
      outcomes.set((scripts[first] as (typeof scripts)[number]).id, {
        failure: result.failure ?? "the session ended before the scenario ran",
        elapsedMs: result.elapsedMs,
      });
      stderr.set((scripts[first] as (typeof scripts)[number]).id, result.run.stderr.text());
      next++;
      continue;
    }
    for (const { id } of scripts.slice(first, next)) stderr.set(id, result.run.stderr.text());
    const last = (scripts[next - 1] as (typeof scripts)[number]).id;
    const own = outcomes.get(last);
    if (result.failure !== null && own !== undefined && own.failure === null)
      outcomes.set(last, { failure: result.failure, elapsedMs: own.elapsedMs });
  }
  return new Map(
    scripts.map(({ id }) => [
      id,
      { ...(outcomes.get(id) ?? { failure: "not run", elapsedMs: 0 }), stderrTail: stderr.get(id) ?? "" },
    ]),
  );
}

/** The failure text of frames nobody waited for (a reply to a notification, a duplicate). */
function unexpectedFrames(extra: readonly ReplyFrame[]): string {
  return `unexpected frame(s): ${extra.map((f) => `${f.kind} id ${JSON.stringify(f.id)}`).join(", ")}`;
}

/** The failure text of a script that threw: a {@link ConformFailure}'s message, else a runner error with its stack. */
function scriptFailure(error: unknown): string {
  return error instanceof ConformFailure ? error.message : `runner error: ${(error as Error).stack ?? String(error)}`;
}
