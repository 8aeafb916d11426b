/**
 * A full disk never loses a continuation (issue 25, item 1). `prlimit --fsize` gives a CLI process
 * a file-size limit, which cuts write(2) short as a full disk does and fails the next write with
 * EFBIG (Node ignores SIGXFSZ): a put over a good entry must fail with storage_failure, leave the
 * old entry byte for byte, and leave no temp file. Before the fix the put wrote once, ignored the
 * short count, synced and renamed the cut file over the entry and printed {"status":"ok"}.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, runSide, scratch, storeEnv } from "./support.js";

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
    const put = await runSide("ours", ["put", "--thread", "t", "--key", "k"], { input: big, env: env(), fileSizeLimit: 4096 });
    expect(put.signal, "the put died of a signal (SIGXFSZ?)").toBeNull();
    expect(put.stdout.toString(), "the put reported success").toBe("");
    expect(put.code).toBe(3);
    expect(JSON.parse(put.stderr)).toMatchObject({ error: "storage_failure", reason: expect.stringMatching(/write temp file .*: (EFBIG|ENOSPC)$/) });
    const got = await runSide("ours", ["get", "--thread", "t", "--key", "k"], { env: env() });
    expect(got.code).toBe(0);
    expect(got.stdout.equals(good), "get returned something else than the old blob").toBe(true);
    expect(readdirSync(join(root, "t"))).toEqual(["k"]);
  }, 60_000);
});
