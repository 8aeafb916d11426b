/**
 * The suites' one async spawn helper (spawn-child.ts): output as bytes and text, stdin fed and
 * closed, and the watchdog that kills the child's whole process group, descendants included.
 */
import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { spawnChild } from "./spawn-child.js";

describe("spawnChild", () => {
  it("feeds stdin, then returns the exit code and stdout/stderr as bytes and text", async () => {
    const r = await spawnChild({
      command: "/bin/sh",
      args: ["-c", "cat; printf '\\377' >&2; exit 3"],
      input: "héllo",
      watchdogMs: 60_000,
    });
    expect({ code: r.code, signal: r.signal, timedOut: r.timedOut, stdout: r.stdout }).toEqual({
      code: 3,
      signal: null,
      timedOut: false,
      stdout: "héllo",
    });
    expect([...r.stderrBytes]).toEqual([0xff]);
  });

  it("kills the whole process group at the watchdog and resolves once the pipes close", async () => {
    // The grandchild holds stdout: without the group kill the pipe would stay open for 120 s.
    const started = performance.now();
    const r = await spawnChild({ command: "/bin/sh", args: ["-c", "sleep 120 & echo $!; wait"], watchdogMs: 500 });
    expect({ timedOut: r.timedOut, signal: r.signal }).toEqual({ timedOut: true, signal: "SIGKILL" });
    expect(Number(r.stdout.trim())).toBeGreaterThan(0);
    // Far below the grandchild's 120 s, generous for a loaded machine: the pipe closed at its kill.
    expect(performance.now() - started).toBeLessThan(60_000);
  });

  it("rejects when the program cannot be started", async () => {
    await expect(spawnChild({ command: "/no/such/program", watchdogMs: 1_000 })).rejects.toThrow(/ENOENT/);
  });
});
