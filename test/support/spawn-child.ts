/**
 * One way for suites to run a child process asynchronously: `spawnChild` starts it in its own
 * process group, feeds its standard input, collects stdout and stderr, and always settles: a
 * watchdog kills the whole group (SIGKILL) when the child outlives `watchdogMs`, and the promise
 * resolves only once the child is reaped and its output pipes are closed. The synchronous helpers
 * (runNode, runCli, runTs) are in cli-process.ts.
 */
import { type ChildProcess, spawn } from "node:child_process";

/** Where one standard stream goes: a pipe (collected, or fed), nowhere, ours, or an open fd. */
export type ChildStdio = "pipe" | "ignore" | "inherit" | number;

/** What to run and how (see {@link spawnChild}). */
export interface SpawnChildOptions {
  /** The program (a path, or a name looked up on PATH). */
  readonly command: string;
  readonly args?: readonly string[];
  /** Working directory (default: this process's). */
  readonly cwd?: string;
  /** The child's whole environment (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Standard input: bytes written then closed (default: an empty, closed stdin). With
   * `keepStdinOpen`, written and left open (the child sees no EOF until it is killed or exits).
   */
  readonly input?: string | Uint8Array;
  readonly keepStdinOpen?: boolean;
  /** stdin/stdout/stderr: "pipe" by default (stdout and stderr collected); "ignore" etc. as spawn's. */
  readonly stdin?: ChildStdio;
  readonly stdout?: ChildStdio;
  readonly stderr?: ChildStdio;
  /**
   * Kill the child's process group (SIGKILL) after this many ms: a watchdog, not a bound, so
   * generous on a loaded machine. Required: a hang must end as a failed test, never a stuck run.
   */
  readonly watchdogMs: number;
  /** Called once the child is spawned, to interact with it (signals, reading as it goes). */
  readonly onSpawn?: (child: ChildProcess) => void;
}

/** How a child ended: exit code or signal, and everything it wrote on piped stdout and stderr. */
export interface ChildOutcome {
  /** Exit code, or null when a signal ended it. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when the watchdog killed the group. */
  readonly timedOut: boolean;
  readonly stdoutBytes: Buffer;
  readonly stderrBytes: Buffer;
  /** The same bytes decoded as UTF-8. */
  readonly stdout: string;
  readonly stderr: string;
  /** The child's pid (also its process group id). */
  readonly pid: number;
}

/** SIGKILL the process group `pgid`; a group already gone is not an error. */
function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // ESRCH: nothing of the group is left.
  }
}

/**
 * Run `options.command` to its end (see {@link SpawnChildOptions}). Resolves with the
 * {@link ChildOutcome} once the child has exited and its stdio pipes are closed; rejects only when
 * it cannot be started (e.g. ENOENT). A child that outlives `watchdogMs` is killed with its whole
 * process group (so descendants holding its pipes go too) and resolves with `timedOut: true`.
 * Writes to a stdin the child closed early (EPIPE) are ignored.
 */
export function spawnChild(options: SpawnChildOptions): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.command, options.args ?? [], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: [options.stdin ?? "pipe", options.stdout ?? "pipe", options.stderr ?? "pipe"],
      detached: true, // its own process group, so the watchdog reaches its descendants
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    let timedOut = false;
    let watchdog: NodeJS.Timeout | undefined;
    child.on("error", (error) => {
      clearTimeout(watchdog);
      if (child.pid !== undefined) killGroup(child.pid);
      reject(error);
    });
    if (child.pid === undefined) return; // not started: "error" follows
    const pid = child.pid;
    watchdog = setTimeout(() => {
      timedOut = true;
      killGroup(pid);
    }, options.watchdogMs);
    child.on("close", (code, signal) => {
      clearTimeout(watchdog);
      child.stdin?.destroy();
      const stdoutBytes = Buffer.concat(out);
      const stderrBytes = Buffer.concat(err);
      resolve({
        code,
        signal,
        timedOut,
        stdoutBytes,
        stderrBytes,
        stdout: stdoutBytes.toString("utf8"),
        stderr: stderrBytes.toString("utf8"),
        pid,
      });
    });
    if (child.stdin) {
      child.stdin.on("error", () => undefined); // the child exited before reading all of it
      if (options.keepStdinOpen) {
        if (options.input !== undefined) child.stdin.write(options.input);
      } else {
        child.stdin.end(options.input ?? "");
      }
    }
    options.onSpawn?.(child);
  });
}
