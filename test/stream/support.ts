/**
 * Helpers of the stream suites: the two TypeScript-side stream clients (the package's client runner
 * and the hand-written raw NDJSON client), envelopes, the clients' frame logs, and the
 * nothing-left-running check (every pid a test saw must be gone, no group still tracked).
 */
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EVENT_VOCABULARY } from "../../generated/ts/spec.js";
import type { DispatchEnvelope, LifecycleEventKind } from "../../generated/ts/types.js";
import { trackedGroups } from "../../runtime/process/process-group.js";
import { StreamInvoker, type StreamInvokerConfig } from "../../runtime/stream/invoker.js";
import { callbackRequest, dispatchEnvelope, frameContext } from "../support/dispatch.js";
import { FIXTURE_CLIENTS_DIR } from "../support/fixture-clients.js";
import { afterEach, expect } from "vitest";

/** The raw client: NDJSON by hand, no package code. */
export const RAW_CLIENT = join(FIXTURE_CLIENTS_DIR, "stream-raw", "raw-client.mjs");
/** The client built on the package's `serve` (dist/). */
export const TS_RUNNER = join(FIXTURE_CLIENTS_DIR, "node", "runner-echo.mjs");

/** Dispatchable events in vocabulary order (a whole session). */
export const SESSION_EVENTS: readonly LifecycleEventKind[] = EVENT_VOCABULARY.filter((e) => e.dispatchable).map(
  (e) => e.event as LifecycleEventKind,
);

/** A valid envelope for `event`, with event_id `e<n>`. */
export function envelope(event: LifecycleEventKind, n: number): DispatchEnvelope {
  const needsFrame = EVENT_VOCABULARY.find((e) => e.event === event)?.requires_frame_context === true;
  return dispatchEnvelope(
    callbackRequest(event, {
      event_id: `e${n}`,
      invocation_id: `i${n}`,
      ...(needsFrame ? { frame_context: frameContext("f1") } : {}),
    }),
  );
}

/** A scratch directory and a log file path in it; `cleanup()` removes it. */
export function scratch(): { dir: string; log: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "lifeloop-stream-"));
  return { dir, log: join(dir, "frames.jsonl"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The JSON lines a client appended to its log (empty when it wrote none). */
export function logLines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** True while a process with this pid exists (a zombie counts: it has not been reaped). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Invokers and pids a test created, for the after-each check: every invoker closed, every pid
 * seen gone, no process group still tracked.
 */
export class Sessions {
  private readonly invokers: StreamInvoker[] = [];
  private readonly pids = new Set<number>();

  /** A new invoker (closed by {@link closeAll}). */
  open(config: StreamInvokerConfig): StreamInvoker {
    const inv = new StreamInvoker(config);
    this.invokers.push(inv);
    return inv;
  }

  /** Remember the live child of `inv` (call while it runs). */
  see(inv: StreamInvoker): number | null {
    const pid = inv.pid;
    if (pid !== null) this.pids.add(pid);
    return pid;
  }

  /** Close everything; returns the pids still alive afterwards and the groups still tracked. */
  async closeAll(): Promise<{ alive: number[]; tracked: readonly number[] }> {
    for (const inv of this.invokers) this.see(inv);
    await Promise.all(this.invokers.splice(0).map((inv) => inv.close()));
    return { alive: [...this.pids].filter(alive), tracked: trackedGroups() };
  }
}

/**
 * The after-each check of a stream suite, registered in the calling file: every invoker of
 * `sessions` closed, the scratch clean-ups pushed to the returned list run, then no process a test
 * saw may still run and no process group may still be tracked.
 */
export function checkNothingLeftAfterEach(sessions: Sessions): (() => void)[] {
  const cleanups: (() => void)[] = [];
  afterEach(async () => {
    const left = await sessions.closeAll();
    for (const c of cleanups.splice(0)) c();
    expect(left.alive, "processes left running").toEqual([]);
    expect(left.tracked, "process groups still tracked").toEqual([]);
  });
  return cleanups;
}
