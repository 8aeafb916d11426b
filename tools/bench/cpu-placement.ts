/**
 * CPU placement for the stream benchmark (tools/bench/stream.ts): which CPUs this process may run
 * on, and pinning a process (every thread of it) to some of them with util-linux's `taskset`
 * (Linux only; sched_setaffinity has no Node API).
 *
 * Why the benchmark pins: a round trip of one event at a time is two wake-ups, host → client and
 * back. On a virtual machine whose idle vCPUs halt at once (this kind of machine boots with
 * `haltpoll.guest_halt_poll_ns=0`), waking a peer on a halted vCPU costs the waker 15-20 µs inside
 * its write(2) and the peer as long again before it runs, whereas a peer on the waker's own CPU,
 * or on a CPU that has not halted yet, costs a context switch. Where the kernel puts the two
 * processes therefore decides a round trip's wall time more than the work either side does, and it
 * decides differently for a fast loop than for a slower one (measured on the floor loop: 20 µs of
 * useless spinning after each write made it twice as fast, 9.7k → 20.4k round trips/s, because the
 * reply then arrived before the host's vCPU halted). Pinned placements take that choice away.
 */
import { spawnSync } from "node:child_process";

/** The CPUs this process may run on (its affinity list), or why CPUs cannot be pinned here. */
export type CpuPlacement =
  | { readonly available: true; readonly cpus: readonly number[]; readonly list: string }
  | { readonly available: false; readonly why: string };

/** Parse an affinity list as taskset prints it (`0,1`, `0-3,8`) into CPU numbers; throws on anything else. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(",")) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (range === null) throw new Error(`not a CPU list: ${JSON.stringify(list)}`);
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    for (let cpu = from; cpu <= to; cpu++) cpus.push(cpu);
  }
  return cpus;
}

/**
 * This process's CPU affinity, from `taskset -p -c PID`. Not available off Linux, without
 * `taskset` on PATH, or when the list cannot be read.
 */
export function cpuPlacement(): CpuPlacement {
  if (process.platform !== "linux")
    return { available: false, why: `CPU pinning needs Linux (this is ${process.platform})` };
  const asked = spawnSync("taskset", ["-p", "-c", String(process.pid)], { encoding: "utf8" });
  if (asked.error !== undefined || asked.status !== 0) {
    return {
      available: false,
      why: `taskset (util-linux) is not usable here: ${asked.error?.message ?? asked.stderr.trim()}`,
    };
  }
  const list = /affinity list:\s*(\S+)/.exec(asked.stdout)?.[1];
  if (list === undefined)
    return { available: false, why: `cannot read taskset's answer: ${JSON.stringify(asked.stdout.trim())}` };
  try {
    return { available: true, cpus: parseCpuList(list), list };
  } catch (error) {
    return { available: false, why: (error as Error).message };
  }
}

/**
 * Pin every thread of process `pid` to the CPUs of `list` (taskset syntax). Threads the process
 * starts later inherit the affinity of the thread that starts them, children the affinity of the
 * thread that forks them. Throws with taskset's output when it fails, or when it pinned no thread
 * (`taskset -a` exits 0 for a pid that does not exist: it finds no thread to pin).
 */
export function pinProcess(pid: number, list: string): void {
  const pinned = spawnSync("taskset", ["-a", "-p", "-c", list, String(pid)], { encoding: "utf8" });
  if (pinned.error !== undefined || pinned.status !== 0) {
    throw new Error(`taskset -a -p -c ${list} ${pid} failed: ${pinned.error?.message ?? pinned.stderr.trim()}`);
  }
  if (!/new affinity list/.test(pinned.stdout))
    throw new Error(`taskset -a -p -c ${list} ${pid} failed: it pinned no thread (no such process?)`);
}
