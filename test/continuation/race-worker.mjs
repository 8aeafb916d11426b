// One process of the continuation concurrency suite (concurrency.test.ts), using the built store
// (dist/). Roles:
//   writer  ROOT GO ID COUNT   COUNT puts of blob(ID, n) to (race, k) as client wID
//   dropper ROOT GO STOP       drop-thread race, until the file STOP exists
//   reader  ROOT GO STOP       list race and get (race, k), checking every blob read, until STOP exists
//   looper  ROOT GO THREAD ID  puts of blob(ID, n, 256 KiB) to (THREAD, k) until killed (crash suite)
// Each prints "ready", waits for the file GO (the start barrier), and ends with one JSON line
// {role, ops, failures: [...]}. A blob is `ID:n:` then a filler byte repeated to BLOB_BYTES, so a
// reader can tell a whole written value from a torn or mixed one.
import { existsSync } from "node:fs";
import { ContinuationStore } from "../../dist/runtime/continuation/store.js";

export const BLOB_BYTES = 512;
export function blob(id, n, size = BLOB_BYTES) {
  const head = Buffer.from(`${id}:${n}:${size}:`);
  return Buffer.concat([head, Buffer.alloc(size - head.length, 0x41 + ((id * 7 + n) % 26))]);
}
/** The writer id of a blob that is exactly one written value, else null. */
export function writerOf(bytes) {
  const m = /^(\d+):(\d+):(\d+):/.exec(bytes.subarray(0, 40).toString("latin1"));
  if (!m) return null;
  const id = Number(m[1]);
  return blob(id, Number(m[2]), Number(m[3])).equals(bytes) ? id : null;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const [role, root, go, ...rest] = process.argv.slice(2);
  const store = new ContinuationStore({ root, lockTimeoutMs: 60_000 });
  const failures = [];
  let ops = 0;
  process.stdout.write("ready\n");
  while (!existsSync(go)) await sleep(2);
  const attempt = async (what, fn) => {
    ops++;
    try {
      await fn();
    } catch (error) {
      failures.push(`${what}: ${error.code ?? ""} ${error.message}`);
    }
  };
  if (role === "looper") {
    const [thread, id] = rest;
    for (let n = 0; ; n++) await store.put(thread, "k", blob(Number(id), n, 256 * 1024), { clientId: `w${id}` });
  }
  if (role === "writer") {
    const id = Number(rest[0]);
    for (let n = 0; n < Number(rest[1]); n++)
      await attempt(`put ${id}:${n}`, () => store.put("race", "k", blob(id, n), { clientId: `w${id}` }));
  } else {
    const stop = rest[0];
    while (!existsSync(stop)) {
      await sleep(20); // pacing, so racers do not starve the writers of the lock
      if (role === "dropper") await attempt("drop-thread", () => store.dropThread("race"));
      else {
        await attempt("list", async () => {
          const listed = await store.list("race");
          if (listed.diagnostics.length > 0) throw new Error(`diagnostics ${JSON.stringify(listed.diagnostics)}`);
          for (const k of listed.keys)
            if (k.key !== "k" || !/^w\d+$/.test(k.client_id)) throw new Error(`unexpected key ${JSON.stringify(k)}`);
        });
        await attempt("get", async () => {
          try {
            const got = await store.get("race", "k");
            const id = writerOf(got.blob);
            if (id === null || got.meta.client_id !== `w${id}`)
              throw new Error(
                `torn or mixed value: ${got.blob.subarray(0, 24).toString("latin1")} from ${got.meta.client_id}`,
              );
          } catch (error) {
            if (error.code !== "not_found") throw error;
          }
        });
      }
    }
  }
  process.stdout.write(`${JSON.stringify({ role, ops, failures: failures.slice(0, 20), failed: failures.length })}\n`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) await main();
