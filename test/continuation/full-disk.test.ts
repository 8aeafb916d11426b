/**
 * A full disk never loses a continuation (issue 25, item 1). `prlimit --fsize` gives a CLI process
 * a file-size limit, which cuts write(2) short as a full disk does and fails the next write with
 * EFBIG (Node ignores SIGXFSZ): a put over a good entry, from the CLI or a stream client's
 * continuation/put, must fail with storage_failure, leave the old entry byte for byte, and leave no
 * temp file. Before the fix the put wrote once, ignored the
 * short count, synced and renamed the cut file over the entry and printed {"status":"ok"}.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FIXTURE_CLIENTS_DIR } from "../support/fixture-clients.js";
import { envelope } from "../stream/support.js";
import { CLI, removeDir, runSide, scratch, storeEnv } from "./support.js";

let dir = "";
let root = "";
beforeEach(() => {
  dir = scratch("cont-full-");
  root = join(dir, "store");
});
afterEach(() => removeDir(dir));

const env = (): Record<string, string> => storeEnv({ LIFELOOP_CONTINUATION_ROOT: root });

describe("continuation put on a full disk (prlimit --fsize)", () => {
  it("fails with storage_failure, keeps the old entry intact and leaves no temp file", async () => {
    const good = Buffer.from("the good entry, written while there was room\n");
    expect((await runSide("ours", ["put", "--thread", "t", "--key", "k"], { input: good, env: env() })).code).toBe(0);
    // 64 KiB does not fit under a 4 KiB file-size limit: the first write is cut at 4096 bytes.
    const big = Buffer.alloc(64 * 1024, 0x62);
    const put = await runSide("ours", ["put", "--thread", "t", "--key", "k"], {
      input: big,
      env: env(),
      fileSizeLimit: 4096,
    });
    expect(put.signal, "the put died of a signal (SIGXFSZ?)").toBeNull();
    expect(put.stdout.toString(), "the put reported success").toBe("");
    expect(put.code).toBe(3);
    expect(JSON.parse(put.stderr)).toMatchObject({
      error: "storage_failure",
      reason: expect.stringMatching(/write temp file .*: (EFBIG|ENOSPC)$/),
    });
    const got = await runSide("ours", ["get", "--thread", "t", "--key", "k"], { env: env() });
    expect(got.code).toBe(0);
    expect(got.stdout.equals(good), "get returned something else than the old blob").toBe(true);
    expect(readdirSync(join(root, "t"))).toEqual(["k"]);
  }, 60_000);
});

describe("continuation/put over the stream on a full disk", () => {
  it("the client gets storage_failure and the old entry stays intact, with no temp file", async () => {
    // runner-echo's put-get: continuation/put of "blob of e1" under thread t1, key e1, then get it back.
    const good = Buffer.from("the good entry of e1");
    expect((await runSide("ours", ["put", "--thread", "t1", "--key", "e1"], { input: good, env: env() })).code).toBe(0);
    const events = join(dir, "events.jsonl");
    writeFileSync(events, `${JSON.stringify(envelope("session.started", 1))}\n`);
    const client = join(FIXTURE_CLIENTS_DIR, "node", "runner-echo.mjs");
    // 40 bytes: less than the entry's header and metadata, so the put's first write is cut short.
    const session = spawnSync(
      "prlimit",
      [
        "--fsize=40",
        "--",
        process.execPath,
        CLI,
        "session",
        "--transport",
        "stream",
        "--program",
        process.execPath,
        "--arg",
        client,
        "--arg",
        "--behave",
        "--arg",
        "put-get",
        "--timeout-ms",
        "30000",
        events,
      ],
      { env: env(), encoding: "utf8", timeout: 60_000, killSignal: "SIGKILL" },
    );
    expect(session.signal).toBeNull();
    const line = JSON.parse(session.stdout.split("\n")[0] as string) as {
      response: { metadata: { roundtrip: unknown } };
    };
    expect(line.response.metadata.roundtrip).toMatchObject({
      error_name: "storage_failure",
      message: expect.stringMatching(/write temp file .*: (EFBIG|ENOSPC)/),
    });
    const got = await runSide("ours", ["get", "--thread", "t1", "--key", "e1"], { env: env() });
    expect(got.code).toBe(0);
    expect(got.stdout.equals(good), "get returned something else than the old blob").toBe(true);
    expect(readdirSync(join(root, "t1"))).toEqual(["e1"]);
  }, 60_000);
});
