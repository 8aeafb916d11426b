/**
 * The one child-process supervisor of the runtime (spec/host-runtime.md §"Round trip", §"Deadline
 * and kill policy", §"Stream invoker (v2)"), used by the subprocess run of v1
 * (runtime/invoker/child-run.ts) and the stream connection of v2 (runtime/stream/connection.ts):
 *
 * - the spawn goes through the spawn gate (runtime/process/spawn-gate.ts), without a shell, as the
 *   leader of a new process group (`detached`), which is tracked (runtime/process/process-group.ts)
 *   until it is swept;
 * - a spawn that fails is reported once: synchronously when `spawn` throws, else by the `error`
 *   event Node emits on a later tick;
 * - stdin, stdout and stderr are wired to the owner's hooks, stderr into a bounded {@link ByteTail};
 * - the exit is recorded (with whether the host had signalled the child before it);
 * - the kill ladder: SIGTERM to the group, SIGKILL and every pipe destroyed after a grace
 *   ({@link ChildSupervisor.killLadder}); after the reap the group gets SIGKILL and is untracked
 *   ({@link ChildSupervisor.sweep});
 * - the owner's timers live here and are cleared together ({@link ChildSupervisor.clearTimers}).
 *
 * Policy (when to settle, what a cause means) stays with the owner; this module records facts.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { performance } from "node:perf_hooks";
import type { Readable, Writable } from "node:stream";
import { signalGroup, trackGroup, untrackGroup } from "./process-group.js";
import { requestSpawn, type SpawnTicket } from "./spawn-gate.js";
import { ByteTail } from "./stderr-tail.js";

/** How the child ended, as Node reports it: exactly one of code and signal is non-null. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * What a write strategy (runtime/invoker/child-run.ts `WriteStrategy`) gets: the child's stdin, a
 * way to signal its process group, and whether (and when) the child has exited.
 */
export interface ChildStdin {
  readonly stdin: Writable;
  /** Send `signal` to the child's process group (a no-op once the group is gone). */
  signalGroup(signal: NodeJS.Signals): void;
  /** True once the child has exited. */
  exited(): boolean;
  /** Resolves when the child has exited (or the run settled without an exit). */
  readonly exit: Promise<void>;
}

/**
 * Write `bytes` to a child's stdin in one write; resolves when the write completed or failed (the
 * child read it, or is gone), at once when stdin is already destroyed. Never rejects.
 */
export function writeToChild(io: ChildStdin, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if (io.stdin.destroyed) {
      resolve();
      return;
    }
    io.stdin.write(bytes, () => resolve());
  });
}

/**
 * The owner's side of a supervised child; every hook is called synchronously from a Node event.
 * - `spawnDue`: the spawn left the gate; false when the owner ended meanwhile (nothing is spawned).
 * - `spawnFailed`: the program could not be started (`synchronous`: `spawn` threw, so the owner is
 *   still inside `spawnDue`'s caller; otherwise the `error` event of a later tick).
 * - `spawned`: the pipes are wired; the owner may write to stdin now.
 * - `exited`: the child was reaped ({@link ChildSupervisor.exit} is set before the call).
 * - stdout, stdin and stderr events as Node reports them (stream errors never throw).
 */
export interface ChildHooks {
  spawnDue(): boolean;
  spawnFailed(error: NodeJS.ErrnoException, synchronous: boolean): void;
  spawned(): void;
  exited(exit: ChildExit): void;
  stdout(chunk: Buffer): void;
  stdoutEnd?(): void;
  stdoutError?(error: Error): void;
  stdoutClosed(): void;
  stderrClosed?(): void;
  stdinError(error: NodeJS.ErrnoException): void;
  stdinFinished?(): void;
  stdinClosed?(): void;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

/** One child process: spawn, pipes, exit, signals, reap (see the module doc). */
export class ChildSupervisor {
  /** The bounded tail of the child's stderr. */
  readonly stderr: ByteTail;
  private child: Child | null = null;
  private pidValue = 0;
  private ticket: SpawnTicket | null = null;
  private exitValue: ChildExit | null = null;
  private exitedAtValue: number | null = null;
  private readonly sentSignals = new Set<string>();
  private exitedUnprompted = false;
  private pipesDestroyedValue = false;
  private readonly timers: NodeJS.Timeout[] = [];

  /**
   * @param program - the program, verbatim (no shell)
   * @param args - its arguments, verbatim
   * @param stderrTailBytes - bytes of stderr kept (limits.stderr_tail_bytes)
   * @param hooks - the owner's hooks
   */
  constructor(
    private readonly program: string,
    private readonly args: readonly string[],
    stderrTailBytes: number,
    private readonly hooks: ChildHooks,
  ) {
    this.stderr = new ByteTail(stderrTailBytes);
  }

  /** The child's pid (also its process group id), 0 before a successful spawn. */
  get pid(): number {
    return this.pidValue;
  }

  /** The child's stdin once spawned (also after a failed spawn whose error is still to come), else null. */
  get stdin(): Writable | null {
    return this.child?.stdin ?? null;
  }

  /** The child's stdout once spawned, else null. */
  get stdout(): Readable | null {
    return this.child?.stdout ?? null;
  }

  /** How the child ended; null until it was reaped. */
  get exit(): ChildExit | null {
    return this.exitValue;
  }

  /** When the child was seen to exit (performance.now() ms), or null. */
  get exitedAt(): number | null {
    return this.exitedAtValue;
  }

  /** True once the pipes were destroyed by {@link destroyPipes} (later write failures are the host's doing). */
  get pipesDestroyed(): boolean {
    return this.pipesDestroyedValue;
  }

  /** True while the spawn waits in the spawn gate behind other spawns (nothing runs yet). */
  get awaitingSpawn(): boolean {
    return this.ticket !== null;
  }

  /**
   * Queue the spawn in the spawn gate: it runs at once, or on a later turn when other spawns are
   * queued; a spawn still queued at `deadlineAt` (performance.now() ms) is not started by the gate.
   */
  requestSpawn(deadlineAt?: number): void {
    this.ticket = requestSpawn(() => {
      this.ticket = null;
      this.spawnNow();
    }, deadlineAt);
  }

  /** Cancel a spawn still queued in the gate; false when there is none (it ran, or was never queued). */
  cancelSpawn(): boolean {
    if (this.ticket === null) return false;
    this.ticket.cancel();
    this.ticket = null;
    return true;
  }

  private spawnNow(): void {
    if (!this.hooks.spawnDue()) return;
    let child: Child;
    try {
      child = spawn(this.program, this.args, {
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        shell: false,
        windowsHide: true,
      });
    } catch (error) {
      this.hooks.spawnFailed(error as NodeJS.ErrnoException, true);
      return;
    }
    this.child = child;
    child.on("error", (error: NodeJS.ErrnoException) => {
      // After a successful spawn, errors come from the streams.
      if (this.pidValue === 0) this.hooks.spawnFailed(error, false);
    });
    if (child.pid === undefined) {
      // The spawn failed; Node reports why with an `error` event on the next tick.
      this.destroyPipes();
      return;
    }
    this.pidValue = child.pid;
    trackGroup(this.pidValue);
    const hooks = this.hooks;
    child.on("exit", (code, signal) => {
      const exit: ChildExit = { code, signal };
      this.exitValue = exit;
      this.exitedAtValue = performance.now();
      this.exitedUnprompted = this.sentSignals.size === 0;
      hooks.exited(exit);
    });
    child.stdin.on("error", (error: NodeJS.ErrnoException) => hooks.stdinError(error));
    if (hooks.stdinFinished !== undefined) child.stdin.on("finish", () => hooks.stdinFinished?.());
    if (hooks.stdinClosed !== undefined) child.stdin.on("close", () => hooks.stdinClosed?.());
    child.stdout.on("data", (chunk: Buffer) => hooks.stdout(chunk));
    child.stdout.on("error", (error: Error) => hooks.stdoutError?.(error));
    if (hooks.stdoutEnd !== undefined) child.stdout.on("end", () => hooks.stdoutEnd?.());
    child.stdout.on("close", () => hooks.stdoutClosed());
    child.stderr.on("data", (chunk: Buffer) => this.stderr.push(chunk));
    child.stderr.on("error", () => undefined);
    if (hooks.stderrClosed !== undefined) child.stderr.on("close", () => hooks.stderrClosed?.());
    hooks.spawned();
  }

  /** Send `signal` to the child's process group, also after the child's exit (descendants); false when nothing was signalled. */
  signalGroup(signal: NodeJS.Signals): boolean {
    return signalGroup(this.pidValue, signal);
  }

  /**
   * Send `signal` to the group while the child runs (a no-op before the spawn and after the exit),
   * and remember it: {@link exitedByItself} tells a signal the host sent from one it did not.
   */
  signal(signal: NodeJS.Signals): void {
    if (this.pidValue === 0 || this.exitValue !== null) return;
    this.sentSignals.add(signal);
    signalGroup(this.pidValue, signal);
  }

  /** Did the child end by itself: reaped before the host signalled it, or killed by a signal the host did not send? */
  exitedByItself(): boolean {
    const exit = this.exitValue;
    if (exit === null) return false;
    return this.exitedUnprompted || (exit.signal !== null && !this.sentSignals.has(exit.signal));
  }

  /**
   * The kill ladder: SIGTERM to the group now, then after `graceMs` SIGKILL and every pipe
   * destroyed (a descendant holding a pipe cannot delay the owner), then `after`. `whileRunning`:
   * signal only while the child runs, and remember the signals ({@link signal}); otherwise the
   * group is signalled whatever the child's state ({@link signalGroup}).
   */
  killLadder(graceMs: number, whileRunning: boolean, after?: () => void): void {
    const send = (signal: NodeJS.Signals): void => {
      if (whileRunning) this.signal(signal);
      else this.signalGroup(signal);
    };
    send("SIGTERM");
    this.after(graceMs, () => {
      send("SIGKILL");
      this.destroyPipes();
      after?.();
    });
  }

  /** Destroy stdin, stdout and stderr (no-op before the spawn). */
  destroyPipes(): void {
    const child = this.child;
    if (child === null) return;
    this.pipesDestroyedValue = true;
    child.stdin?.destroy();
    child.stdout?.destroy();
    child.stderr?.destroy();
  }

  /** After the reap: SIGKILL to whatever is left of the group, which is no longer tracked. */
  sweep(): void {
    if (this.pidValue === 0) return;
    signalGroup(this.pidValue, "SIGKILL");
    untrackGroup(this.pidValue);
  }

  /** Run `fn` after `ms` unless {@link clearTimers} comes first. */
  after(ms: number, fn: () => void): void {
    this.timers.push(setTimeout(fn, ms));
  }

  /** Clear every timer set with {@link after} or {@link killLadder}. */
  clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.length = 0;
  }
}
