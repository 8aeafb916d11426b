/**
 * Concurrency (CONTINUATION-001, spec/continuation-store.md §"Concurrency"): 32 writer processes x 100
 * puts to one (thread, key) race drop-thread, list and get loops in other processes, plus real CLI
 * commands (put, drop-thread, list) started in the middle. No command may fail; every value read is
 * one whole written value with its writer's client id; the final state is one written value or
 * absent; no temp file or dropped-thread directory is left. Start and stop are file barriers.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { spawnChild } from "../support/spawn-child.js";
import { limited, removeDir, requireReference, runSide, scratch, storeEnv } from "./support.js";
// @ts-expect-error plain ESM helper without types
import { writerOf } from "./race-worker.mjs";

const WORKER = fileURLToPath(new URL("./race-worker.mjs", import.meta.url));
const WRITERS = 32;
const PUTS = 100;

interface WorkerReport {
  readonly role: string;
  readonly ops: number;
  readonly failed: number;
  readonly failures: readonly string[];
}

function startWorker(args: readonly string[]): {
  child: ChildProcess;
  ready: Promise<void>;
  done: Promise<WorkerReport>;
} {
  let child: ChildProcess | undefined;
  let out = "";
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => (markReady = r));
  const ended = spawnChild({
    command: process.execPath,
    args: [WORKER, ...args],
    keepStdinOpen: true,
    watchdogMs: 590_000, // a watchdog, just under the test's 600 s
    onSpawn: (c) => {
      child = c;
      c.stdout?.on("data", (b: Buffer) => {
        out += b.toString();
        if (out.startsWith("ready\n")) markReady();
      });
    },
  });
  const done = ended.then(({ code, stdout, stderr }) => {
    markReady();
    const line = stdout.split("\n").find((l) => l.startsWith("{"));
    if (code !== 0 || !line) throw new Error(`worker ${args.join(" ")} exited ${code}: ${stderr}`);
    return JSON.parse(line) as WorkerReport;
  });
  if (child === undefined) throw new Error("the worker was not started");
  return { child, ready, done };
}

describe("continuation: concurrency", () => {
  const dir = scratch("cont-race-");
  const root = join(dir, "store");
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    removeDir(dir);
  });

  it(`${WRITERS} writers x ${PUTS} puts to one key racing drop-thread, list and get: nothing fails, nothing torn`, async () => {
    requireReference();
    const go = join(dir, "go");
    const stop = join(dir, "stop");
    const writers = Array.from({ length: WRITERS }, (_, i) =>
      startWorker(["writer", root, go, String(i), String(PUTS)]),
    );
    const racers = [...["dropper", "dropper", "reader", "reader"].map((role) => startWorker([role, root, go, stop]))];
    children.push(...[...writers, ...racers].map((w) => w.child));
    await Promise.all([...writers, ...racers].map((w) => w.ready));
    writeFileSync(go, "");
    // Real CLI processes in the middle of the race.
    const env = storeEnv({ LIFELOOP_CONTINUATION_ROOT: root });
    const cli = limited(4, [
      ...Array.from(
        { length: 6 },
        (_, i) => () =>
          runSide("ours", ["put", "--thread", "race", "--key", "k", "--client-id", `w${1000 + i}`], {
            env,
            input: blobFor(1000 + i),
          }),
      ),
      ...Array.from({ length: 3 }, () => () => runSide("ours", ["drop-thread", "--thread", "race"], { env })),
      ...Array.from({ length: 3 }, () => () => runSide("ours", ["list", "--thread", "race"], { env })),
    ]);
    const writerReports = await Promise.all(writers.map((w) => w.done));
    const cliRuns = await cli;
    writeFileSync(stop, "");
    const racerReports = await Promise.all(racers.map((w) => w.done));

    const reports = [...writerReports, ...racerReports];
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    expect(writerReports.reduce((n, r) => n + r.ops, 0)).toBe(WRITERS * PUTS);
    expect(racerReports.every((r) => r.ops > 0)).toBe(true);
    expect(cliRuns.map((r) => [r.code, r.stderr])).toEqual(cliRuns.map(() => [0, ""]));

    const final = await runSide("ours", ["get", "--thread", "race", "--key", "k"], { env });
    if (final.code === 0) {
      const id = writerOf(final.stdout) as number | null;
      expect(id).not.toBeNull();
      expect(JSON.parse(final.stderr).client_id).toBe(`w${id}`);
    } else expect(final.stderr).toBe('{"error":"not_found"}\n');
    const leftovers = [
      ...(existsSync(join(root, "race")) ? readdirSync(join(root, "race")).map((n) => `race/${n}`) : []),
      ...readdirSync(root).filter((n) => n.startsWith(".race.drop.")),
    ];
    expect(leftovers.filter((n) => n !== "race/k")).toEqual([]);
  }, 600_000); // 15 s or so on a quiet 2-core machine; a shared, loaded one needs far more
});

function blobFor(id: number): Buffer {
  return (writerOfModule.blob as (id: number, n: number) => Buffer)(id, 0);
}
// @ts-expect-error plain ESM helper without types
import * as writerOfModule from "./race-worker.mjs";
