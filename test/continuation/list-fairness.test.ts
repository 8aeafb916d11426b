/**
 * Lock fairness and symbolic links (issue 25, item 3), with real CLI processes.
 *
 * - A thread of 20,000 entries listed over and over by three overlapping `list` loops: a `put` to
 *   the thread must succeed. Before, `list` held the thread's shared lock while it read every entry
 *   (seconds per list), overlapping lists kept it held without a gap, and the put failed when its
 *   10 s lock wait timed out; the spec promises that another client's command never makes yours fail.
 *   (The 80,000-entry figure of the review is measured by `npm run bench -- continuation`.)
 * - A thread directory or an entry that is a symbolic link is never followed: every command
 *   refuses it with storage_failure naming the path, and nothing lands where the link points.
 */
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { encodeEntry } from "../../runtime/continuation/entry.js";
import { CONTINUATION } from "../../runtime/continuation/table.js";
import { removeDir, runSide, scratch, storeEnv, type Run } from "./support.js";

const dir = scratch("cont-fair-");
afterAll(() => removeDir(dir));

/** Plant `count` entries of `thread` directly (a put per entry would fsync 40,000 times). */
function plant(root: string, thread: string, count: number): void {
  mkdirSync(join(root, thread), { recursive: true, mode: 0o700 });
  const now = BigInt(Math.floor(Date.now() / 1000));
  for (let i = 0; i < count; i++) {
    const bytes = Buffer.concat(
      encodeEntry(
        {
          schema_version: CONTINUATION.entry_format.meta_schema_version,
          client_id: "planted",
          written_at_epoch_s: now,
          ttl_s: null,
        },
        Buffer.from(`blob ${i}`),
      ),
    );
    writeFileSync(join(root, thread, `k${String(i).padStart(5, "0")}`), bytes, { mode: 0o600 });
  }
}

describe("list never makes a writer of the thread fail", () => {
  it("a put to a thread of 20,000 entries succeeds while three list loops overlap on it", async () => {
    const root = join(dir, "fair");
    const env = storeEnv({ LIFELOOP_CONTINUATION_ROOT: root });
    const ENTRIES = 20_000;
    plant(root, "t", ENTRIES);
    let stop = false;
    const listed: number[] = [];
    let firstRound: () => void = () => undefined;
    let rounds = 0;
    const warmed = new Promise<void>((r) => (firstRound = r));
    const loop = async (): Promise<void> => {
      let mine = 0;
      while (!stop) {
        const r = await runSide("ours", ["list", "--thread", "t"], { env, timeoutMs: 120_000 });
        expect(r.code, r.stderr).toBe(0);
        listed.push((JSON.parse(r.stdout.toString()) as { keys: unknown[] }).keys.length);
        if (++mine === 1 && ++rounds === 3) firstRound();
      }
    };
    const loops = [loop(), loop(), loop()];
    try {
      await warmed; // every loop has listed once: from here on the lists overlap
      const started = Date.now();
      const put = await runSide("ours", ["put", "--thread", "t", "--key", "during-list"], {
        input: "written during the lists",
        env,
        timeoutMs: 120_000,
      });
      const ms = Date.now() - started;
      expect(put.code, `the put failed after ${ms} ms: ${put.stderr}`).toBe(0);
    } finally {
      stop = true;
      await Promise.all(loops);
    }
    expect(
      listed.every((n) => n === ENTRIES || n === ENTRIES + 1),
      `list counts ${listed.join(",")}`,
    ).toBe(true);
    const got = await runSide("ours", ["get", "--thread", "t", "--key", "during-list"], { env });
    expect(got.stdout.toString()).toBe("written during the lists");
  }, 600_000);
});

describe("a symbolic link in the store is never followed", () => {
  const root = join(dir, "links");
  const outside = join(dir, "outside");
  const env = storeEnv({ LIFELOOP_CONTINUATION_ROOT: root });
  const run = (args: string[], input = ""): Promise<Run> => runSide("ours", args, { env, input });
  const refused = (r: Run, path: string): void => {
    expect(r.code, r.stderr).toBe(3);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: "storage_failure", reason: expect.stringContaining(path) });
    expect(JSON.parse(r.stderr).reason).toContain("symbolic link");
  };

  it("a thread directory that is a link: put, get, list, drop and drop-thread refuse it, naming it", async () => {
    mkdirSync(outside, { recursive: true, mode: 0o700 });
    mkdirSync(root, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(outside, "k"),
      Buffer.concat(
        encodeEntry(
          {
            schema_version: CONTINUATION.entry_format.meta_schema_version,
            client_id: "c",
            written_at_epoch_s: 1n,
            ttl_s: null,
          },
          Buffer.from("outside"),
        ),
      ),
    );
    const link = join(root, "t");
    symlinkSync(outside, link);
    refused(await run(["put", "--thread", "t", "--key", "new"], "would land outside"), link);
    refused(await run(["get", "--thread", "t", "--key", "k"]), link);
    refused(await run(["list", "--thread", "t"]), link);
    refused(await run(["drop", "--thread", "t", "--key", "k"]), link);
    refused(await run(["drop-thread", "--thread", "t"]), link);
    expect(readdirSync(outside)).toEqual(["k"]);
  });

  it("an entry that is a link: get refuses it naming it, list skips it with a diagnostic", async () => {
    expect((await run(["put", "--thread", "e", "--key", "real"], "real")).code).toBe(0);
    const link = join(root, "e", "linked");
    symlinkSync(join(outside, "k"), link);
    refused(await run(["get", "--thread", "e", "--key", "linked"]), link);
    const listed = await run(["list", "--thread", "e"]);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout.toString()) as { keys: { key: string }[] }).keys.map((k) => k.key)).toEqual([
      "real",
    ]);
    expect(JSON.parse(listed.stderr)).toMatchObject({
      diagnostic: "list_skipped_entry",
      path: link,
      reason: "io_error",
      error: expect.stringContaining("symbolic link"),
    });
  });
});
