/**
 * Crash safety (spec/continuation-store.md §"Durability"): 200 runs each start a process that puts
 * 256 KiB values to one key back to back and SIGKILL it at a random moment (a seeded PRNG picks the
 * delay after its ready line, so the kill lands in every phase: lock, temp write, fsync, rename,
 * directory fsync). After each kill the entry is absent or one whole written value with its
 * writer's client id (never torn), list shows only the entry, and the lock is free at once (the
 * kernel released the dead holder's lock: the next put gets it within a short timeout). Ten more
 * runs kill the real CLI `put` mid-stdin or mid-write.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ContinuationStore } from "../../runtime/continuation/store.js";
import { mulberry32 } from "../support/prng.js";
import { spawnChild } from "../support/spawn-child.js";
import { CLI, removeDir, scratch, storeEnv } from "./support.js";
// @ts-expect-error plain ESM helper without types
import * as worker from "./race-worker.mjs";

const WORKER = fileURLToPath(new URL("./race-worker.mjs", import.meta.url));
const RUNS = 200;
const LANES = 2;
const writerOf = worker.writerOf as (b: Buffer) => number | null;

/** Spawn `argv`, wait for its first stdout byte (its ready line), SIGKILL it `delayMs` later, and reap it. */
function killAfterReady(argv: readonly string[], delayMs: number): Promise<NodeJS.Signals | null> {
  let timer: NodeJS.Timeout | undefined;
  return spawnChild({
    command: process.execPath,
    args: argv,
    stdin: "ignore",
    stderr: "ignore",
    env: storeEnv({}),
    watchdogMs: 60_000, // a watchdog for a child that never prints its ready line
    onSpawn: (child) => child.stdout?.once("data", () => (timer = setTimeout(() => child.kill("SIGKILL"), delayMs))),
  }).then((r) => {
    clearTimeout(timer);
    return r.signal;
  });
}

async function checkEntry(store: ContinuationStore, thread: string): Promise<string | null> {
  let state: string;
  try {
    const got = await store.get(thread, "k");
    const id = writerOf(got.blob);
    if (id === null) return `torn value (${got.blob.length} bytes)`;
    if (got.meta.client_id !== `w${id}`) return `value of w${id} with client ${got.meta.client_id}`;
    state = "value";
  } catch (error) {
    if ((error as { code?: string }).code !== "not_found") return `get failed: ${(error as Error).message}`;
    state = "absent";
  }
  const listed = await store.list(thread);
  if (
    listed.diagnostics.length > 0 ||
    listed.keys.some((k) => k.key !== "k") ||
    listed.keys.length !== (state === "value" ? 1 : 0)
  )
    return `list ${JSON.stringify(listed)}`;
  return null;
}

describe("continuation: crash safety under SIGKILL", () => {
  const dir = scratch("cont-crash-");
  const root = join(dir, "store");
  afterAll(() => removeDir(dir));

  it(`${RUNS} puts killed at random moments leave the old or the new value, never a torn one, and never wedge the lock`, async () => {
    const random = mulberry32(11);
    const go = join(dir, "go");
    writeFileSync(go, "");
    const problems: string[] = [];
    let values = 0;
    const lane = async (laneId: number): Promise<void> => {
      const thread = `crash-${laneId}`;
      const store = new ContinuationStore({ root, lockTimeoutMs: 5_000 });
      for (let run = laneId; run < RUNS; run += LANES) {
        const delay = Math.floor(random() * 60);
        await killAfterReady([WORKER, "looper", root, go, thread, String(run)], delay);
        const problem = await checkEntry(store, thread);
        if (problem) problems.push(`run ${run} (kill after ${delay} ms): ${problem}`);
        else values += 1;
        // The dead holder's lock is free: a put with a short timeout gets it.
        await store
          .put(thread, "probe", Buffer.from("p"), { clientId: "probe" })
          .catch((e: Error) => problems.push(`run ${run}: lock wedged: ${e.message}`));
        await store.drop(thread, "probe");
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
    expect(problems).toEqual([]);
    expect(values).toBe(RUNS);
    // Killed puts leave their temp files (hidden; list never shows them); drop-thread removes them.
    const store = new ContinuationStore({ root });
    for (let i = 0; i < LANES; i++) await store.dropThread(`crash-${i}`);
    expect(readdirSync(root).filter((n) => !n.endsWith(".lock"))).toEqual([]);
  }, 600_000); // 15 s or so on a quiet 2-core machine; a shared, loaded one needs far more

  it("the real CLI put killed mid-stdin or mid-write leaves the prior value", async () => {
    const store = new ContinuationStore({ root });
    const prior = worker.blob(7, 0, 1024) as Buffer;
    await store.put("cli", "k", prior, { clientId: "w7" });
    const random = mulberry32(5);
    const env = { LIFELOOP_CONTINUATION_ROOT: root };
    for (let run = 0; run < 10; run++) {
      const big = worker.blob(8, run, 8 * 1024 * 1024) as Buffer;
      const before = await store.get("cli", "k");
      // Half the runs: killed while stdin is half written; the others: stdin complete, killed during the write.
      const delay = run % 2 === 0 ? 0 : 100 + Math.floor(random() * 200);
      await spawnChild({
        command: process.execPath,
        args: [CLI, "continuation", "put", "--thread", "cli", "--key", "k", "--client-id", "w8"],
        stdout: "ignore",
        stderr: "ignore",
        env: storeEnv(env),
        keepStdinOpen: true, // written here, at the moment each run kills it
        watchdogMs: 60_000,
        onSpawn: (child) => {
          if (run % 2 === 0) child.stdin?.write(big.subarray(0, big.length >> 1), () => child.kill("SIGKILL"));
          else child.stdin?.end(big, () => setTimeout(() => child.kill("SIGKILL"), delay));
        },
      });
      const got = await store.get("cli", "k");
      const id = writerOf(got.blob);
      expect(got.meta.client_id).toBe(`w${id}`);
      // Killed before its stdin ended: nothing stored. Killed later: the prior value or the whole new one.
      if (run % 2 === 0) expect(got.blob.equals(before.blob)).toBe(true);
      else expect(got.blob.equals(before.blob) || got.blob.equals(big)).toBe(true);
    }
  }, 600_000); // 15 s or so on a quiet 2-core machine; a shared, loaded one needs far more
});
