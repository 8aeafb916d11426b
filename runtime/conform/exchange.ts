/**
 * One v1 exchange with the client under test, with the process control a conformance runner needs
 * (spec/conformance-runner.md, "Process control"). The process handling is the subprocess
 * invoker's own ({@link runChild}: no shell, its own process group, bounded stdout and stderr tail,
 * SIGTERM then SIGKILL at the deadline, the group killed after the reap); this module adds the
 * write strategies of the scenarios: whole, in small chunks with pauses, or half of the request
 * followed by SIGTERM to the group.
 */
import { performance } from "node:perf_hooks";
import { runChild, type WriteStrategy } from "../invoker/child-run.js";
import { writeToChild, type ChildStdin } from "../process/child.js";
import { DEFAULT_INVOKER_LIMITS } from "../invoker/config.js";
import type { ScenarioInput } from "./types.js";

/** What happened: how the client ended, what it wrote, and the timings (ms). */
export interface ExchangeResult {
  readonly spawnError: string | null;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stdoutTooLarge: boolean;
  readonly stderrTail: string;
  readonly timedOut: boolean;
  readonly elapsedMs: number;
  /** For a SIGTERM input: ms from the SIGTERM to the client's exit (null when it did not exit before the deadline). */
  readonly exitAfterSigtermMs: number | null;
}

/** Resolves after `ms`, or at once when the child has exited (a pause between chunks, never a barrier). */
function pause(io: ChildStdin, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void io.exit.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The write strategy of a v1 input; `sigtermAt` receives the time of the SIGTERM it sends. */
function strategyFor(input: ScenarioInput, sigtermAt: (ms: number) => void): WriteStrategy | undefined {
  switch (input.kind) {
    case "bytes":
      return undefined;
    case "slow":
      return async (io) => {
        await writeToChild(io, Buffer.alloc(input.leadingWhitespace, 0x20));
        for (let at = 0; at < input.bytes.length && !io.exited(); at += input.chunkBytes) {
          io.stdin.write(input.bytes.subarray(at, at + input.chunkBytes));
          await pause(io, input.pauseMs);
        }
        io.stdin.end();
      };
    case "sigterm":
      // Half the request, then SIGTERM. The half is far larger than a pipe buffer, so the write
      // completes only once the client has read most of it: the client is running and in the middle
      // of the exchange (a barrier, not a sleep).
      return async (io) => {
        await writeToChild(io, input.bytes.subarray(0, Math.floor(input.bytes.length / 2)));
        if (io.exited()) return;
        sigtermAt(performance.now());
        io.signalGroup("SIGTERM");
      };
  }
}

/**
 * Run the client once with `input` under a deadline of `timeoutMs`. Never rejects: a client that
 * cannot be started comes back with `spawnError`.
 */
export async function exchange(
  program: string,
  args: readonly string[],
  input: ScenarioInput,
  timeoutMs: number,
): Promise<ExchangeResult> {
  const started = performance.now();
  let sigtermAt: number | null = null;
  const write = strategyFor(input, (ms) => (sigtermAt = ms));
  const run = await runChild({
    program,
    args,
    input: input.bytes,
    deadlineAt: started + timeoutMs,
    limits: DEFAULT_INVOKER_LIMITS,
    ...(write ? { write } : {}),
  });
  const exitAfterSigterm =
    sigtermAt === null || run.timedOut || run.exitedAt === null ? null : run.exitedAt - sigtermAt;
  return {
    spawnError: run.spawnError === null ? null : run.spawnError.message,
    code: run.exit?.code ?? null,
    signal: run.exit?.signal ?? null,
    stdout: run.stdout,
    stdoutTooLarge: run.stdoutTooLarge,
    stderrTail: run.stderr.text(),
    timedOut: run.timedOut,
    elapsedMs: performance.now() - started,
    exitAfterSigtermMs: exitAfterSigterm,
  };
}
