/**
 * Process groups of running clients (spec/host-runtime.md §"Kill policy"). Each client is spawned
 * as the leader of a new process group (POSIX `setsid`), so one signal to `-pgid` reaches the child
 * and every descendant that did not leave the group.
 *
 * While a group is tracked, a host that is about to die takes it along:
 * - on the process `exit` event (normal end, `process.exit()`, an uncaught exception) every tracked
 *   group gets SIGKILL;
 * - on SIGINT, SIGTERM or SIGHUP, when no other listener handles that signal (so the host would die
 *   of it), every tracked group gets SIGKILL and the signal is raised again with Node's default
 *   action. When the host has its own listener, that listener decides; if it exits, the `exit` hook
 *   runs.
 * A SIGKILL of the host itself cannot be intercepted; its clients then run until their own end.
 */

const live = new Set<number>();
const HOST_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
let hooksInstalled = false;

function killAllTracked(): void {
  for (const pgid of live) signalGroup(pgid, "SIGKILL");
}

function onHostSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAllTracked();
  process.removeListener(signal, onHostSignal);
  process.kill(process.pid, signal);
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", killAllTracked);
  for (const signal of HOST_SIGNALS) process.on(signal, onHostSignal);
}

/**
 * Send `signal` to every process of group `pgid`. Returns false when the group no longer exists
 * (ESRCH) or cannot be signalled; never throws. A pgid below 2 is refused (false): `kill(-0)` would
 * signal the host's own group and `kill(-1)` every process the host may signal.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  if (!Number.isInteger(pgid) || pgid < 2) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Start tracking a client's group (its leader's pid) for the host-exit hooks. */
export function trackGroup(pgid: number): void {
  installHooks();
  live.add(pgid);
}

/** Stop tracking a group (after its leader was reaped and the group was killed). */
export function untrackGroup(pgid: number): void {
  live.delete(pgid);
}

/** The process groups currently tracked (leader pids), for diagnostics and tests. */
export function trackedGroups(): readonly number[] {
  return [...live];
}
