/**
 * The stream benchmark's CPU pinning (tools/bench/cpu-placement.ts): taskset's CPU lists are read
 * as taskset writes them, and pinning a real process changes the affinity the kernel reports for
 * every one of its threads (read back with taskset, not with the module under test).
 */
import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cpuPlacement, parseCpuList, pinProcess } from "../../tools/bench/cpu-placement.js";

describe("parseCpuList", () => {
  it("reads single CPUs, ranges and their mix", () => {
    expect(parseCpuList("0")).toEqual([0]);
    expect(parseCpuList("0,1")).toEqual([0, 1]);
    expect(parseCpuList("0-3,8\n")).toEqual([0, 1, 2, 3, 8]);
  });

  it("throws on anything that is not a CPU list", () => {
    for (const bad of ["", "a", "0,,1", "1-", "-1", "0 1"])
      expect(() => parseCpuList(bad), bad).toThrow(/not a CPU list/);
  });
});

const placement = cpuPlacement();

describe.skipIf(!placement.available)("pinProcess (Linux, taskset)", () => {
  it("pins every thread of a running process to one CPU", async () => {
    if (!placement.available) return;
    const cpu = String(placement.cpus.at(-1));
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      const pid = child.pid as number;
      pinProcess(pid, cpu);
      const read = spawnSync("taskset", ["-a", "-p", "-c", String(pid)], { encoding: "utf8" });
      expect(read.status).toBe(0);
      const lists = [...read.stdout.matchAll(/affinity list:\s*(\S+)/g)].map((m) => m[1]);
      expect(lists.length).toBeGreaterThan(0);
      for (const list of lists) expect(list).toBe(cpu);
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  });

  it("throws with taskset's words for a process that does not exist", () => {
    // Pid numbers above the kernel's pid_max (at most 2^22) are never in use.
    expect(() => pinProcess(2 ** 22 + 1, "0")).toThrow(/taskset -a -p -c 0 4194305 failed/);
  });
});
