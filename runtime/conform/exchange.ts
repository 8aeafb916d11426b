/**
 * One v1 exchange with the client under test, with the process control a conformance runner needs
 * (spec/conformance-runner.md, "Process control"): the client runs without a shell as the leader of
 * its own process group; the request is written whole, in small chunks with pauses, or half of it
 * followed by SIGTERM to the group; stdout (bounded) and stderr (bounded tail) are read
 * concurrently; at the deadline the group gets SIGTERM and, after limits.kill_grace_ms, SIGKILL.
 * Every exchange ends with SIGKILL to the group, so nothing the client started outlives it.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { performance } from "node:perf_hooks";
import { LIMITS } from "../../generated/ts/spec.js";
import { signalGroup, trackGroup, untrackGroup } from "../invoker/process-group.js";
import { ByteTail } from "../invoker/stderr-tail.js";
import type { ScenarioInput } from "./scenarios.js";

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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Run the client once with `input` under a deadline of `timeoutMs`. Never rejects: a client that
 * cannot be started comes back with `spawnError`.
 */
export function exchange(program: string, args: readonly string[], input: ScenarioInput, timeoutMs: number): Promise<ExchangeResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    let child: ChildProcessByStdio<Writable, Readable, Readable>;
    try {
      child = spawn(program, [...args], { stdio: ["pipe", "pipe", "pipe"], detached: true, shell: false });
    } catch (error) {
      resolve(failed(`${(error as Error).message}`, started));
      return;
    }
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stdoutTooLarge = false;
    const stderr = new ByteTail(LIMITS.stderr_tail_bytes);
    let timedOut = false;
    let sigtermAt: number | null = null;
    let spawnError: string | null = null;
    let exited = false;
    let pid = 0;
    const timers: NodeJS.Timeout[] = [];
    child.on("error", (error) => {
      spawnError = error.message;
      if (pid === 0) finish(null, null);
    });
    if (child.pid === undefined) return; // the error event follows
    pid = child.pid;
    trackGroup(pid);
    child.stdout.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > LIMITS.max_response_bytes) {
        stdoutTooLarge = true;
        signalGroup(pid, "SIGKILL");
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on("error", () => undefined); // a client that exits early breaks the pipe: that is its answer
    const streamsDone = Promise.all([
      new Promise<void>((r) => child.stdout.once("close", () => r())),
      new Promise<void>((r) => child.stderr.once("close", () => r())),
    ]);
    child.once("exit", (code, signal) => {
      exited = true;
      // Wait for the pipes, but never past the grace: a descendant may hold them open.
      void Promise.race([streamsDone, sleep(LIMITS.kill_grace_ms)]).then(() => finish(code, signal));
    });
    timers.push(
      setTimeout(() => {
        if (exited) return;
        timedOut = true;
        signalGroup(pid, "SIGTERM");
        timers.push(setTimeout(() => signalGroup(pid, "SIGKILL"), LIMITS.kill_grace_ms));
      }, timeoutMs),
    );
    void write();

    async function write(): Promise<void> {
      const bytes = Buffer.from(input.bytes);
      if (input.kind === "bytes") {
        child.stdin.end(bytes);
        return;
      }
      if (input.kind === "slow") {
        await new Promise<void>((r) => child.stdin.write(Buffer.alloc(input.leadingWhitespace, 0x20), () => r()));
        for (let at = 0; at < bytes.length && !exited; at += input.chunkBytes) {
          child.stdin.write(bytes.subarray(at, at + input.chunkBytes));
          await sleep(input.pauseMs);
        }
        child.stdin.end();
        return;
      }
      // sigterm: half the request, then SIGTERM. The half is far larger than a pipe buffer, so the
      // write completes only once the client has read most of it: the client is running and in
      // the middle of the exchange (a barrier, not a sleep).
      await new Promise<void>((r) => child.stdin.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => r()));
      if (exited) return;
      sigtermAt = performance.now();
      signalGroup(pid, "SIGTERM");
    }

    function finish(code: number | null, signal: NodeJS.Signals | null): void {
      for (const t of timers) clearTimeout(t);
      if (pid !== 0) {
        signalGroup(pid, "SIGKILL");
        untrackGroup(pid);
      }
      child.stdin.destroy();
      child.stdout.destroy();
      child.stderr.destroy();
      const now = performance.now();
      resolve({
        spawnError,
        code,
        signal,
        stdout: Buffer.concat(chunks),
        stdoutTooLarge,
        stderrTail: stderr.text(),
        timedOut,
        elapsedMs: now - started,
        exitAfterSigtermMs: sigtermAt === null || timedOut ? null : now - sigtermAt,
      });
    }
  });
}

function failed(spawnError: string, started: number): ExchangeResult {
  return { spawnError, code: null, signal: null, stdout: Buffer.alloc(0), stdoutTooLarge: false, stderrTail: "", timedOut: false, elapsedMs: performance.now() - started, exitAfterSigtermMs: null };
}
