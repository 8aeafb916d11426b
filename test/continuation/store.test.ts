/**
 * ContinuationStore (runtime/continuation/store.ts) on real files: hostile identifiers refused before
 * any file is touched, blobs at the limit and one byte over, empty and binary blobs byte for byte,
 * TTL with an injected clock (expiry boundary, u64 overflow, removal of expired files), the opt-in
 * guards (client guard and compare-and-swap on put, list --long), corrupt entries as storage_failure
 * naming the file, modes, atomic drop-thread, and the lock released by a dead holder.
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContinuationError, ContinuationStore, type PutOptions } from "../../runtime/index.js";
import { CLIENT_INITIATED_COMMANDS } from "../../generated/ts/spec.js";
import { frameEntry, removeDir, scratch } from "./support.js";

const GROUP = CLIENT_INITIATED_COMMANDS.groups.find((g) => g.group === "continuation");
if (!GROUP) throw new Error("no continuation group");

let dir = "";
let root = "";
let clock = 1_000n;
const store = (extra: { maxBlobBytes?: number } = {}): ContinuationStore =>
  new ContinuationStore({ root, now: () => clock, ...extra });

async function failure(p: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (error) {
    if (error instanceof ContinuationError) return { ...error.envelope };
    throw error;
  }
  throw new Error("expected a ContinuationError");
}

beforeEach(() => {
  dir = scratch("cont-store-");
  root = join(dir, "store");
  clock = 1_000n;
});
afterEach(() => removeDir(dir));

describe("identifiers", () => {
  const hostile = [
    "",
    ".",
    "..",
    "../x",
    "a/b",
    "a\\b",
    "/abs",
    ".hidden",
    "a b",
    "a\u0000b",
    "a\nb",
    "naïve",
    "a:b",
    "a<b",
    "a*b",
    "x".repeat(GROUP.identifier.max_length + 1),
    "é".repeat(65),
    "%2e%2e",
    "~",
  ];
  it.each(hostile.map((h) => [JSON.stringify(h).slice(0, 40), h]))(
    "%s is refused as thread, key and client id before any file exists",
    async (_label, id) => {
      const s = store();
      for (const [field, call] of [
        ["thread", () => s.put(id, "k", Buffer.from("x"))],
        ["key", () => s.put("t", id, Buffer.from("x"))],
        ["client_id", () => s.put("t", "k", Buffer.from("x"), { clientId: id })],
        ["thread", () => s.get(id, "k")],
        ["key", () => s.drop("t", id)],
        ["thread", () => s.list(id)],
        ["thread", () => s.dropThread(id)],
      ] as const) {
        expect(await failure(call())).toMatchObject({ error: "invalid_identifier", field });
      }
      expect(existsSync(root)).toBe(false);
    },
  );

  it("accepts the whole charset, 128 bytes, trailing and inner dots, leading dashes; keys are case-sensitive", async () => {
    const s = store();
    for (const id of ["abc_DEF-123.tag", "k".repeat(128), "k.", "a..b", "-h", "--help", "0"]) {
      await s.put(id, id, Buffer.from(id));
      expect((await s.get(id, id)).blob.toString()).toBe(id);
    }
    await s.put("t", "a", Buffer.from("lower"));
    await s.put("t", "A", Buffer.from("upper"));
    expect((await s.get("t", "a")).blob.toString()).toBe("lower");
    expect((await s.list("t")).keys.map((k) => k.key)).toEqual(["A", "a"]);
  });
});

describe("blobs and limits", () => {
  it("a binary blob with NUL and invalid UTF-8 round-trips byte for byte; an empty blob too", async () => {
    const s = store();
    const binary = Buffer.from([
      0x00, 0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80, 0x0a, 0x0d, 0x00,
    ]);
    await s.put("t", "bin", binary);
    expect((await s.get("t", "bin")).blob.equals(binary)).toBe(true);
    await s.put("t", "empty", new Uint8Array(0));
    expect((await s.get("t", "empty")).blob.length).toBe(0);
  });

  it("a blob at the limit is stored, one byte over is blob_too_large and the prior entry stays", async () => {
    const s = store({ maxBlobBytes: 1000 });
    await s.put("t", "k", Buffer.alloc(1000, 1));
    expect(await failure(s.put("t", "k", Buffer.alloc(1001, 2)))).toEqual({
      error: "blob_too_large",
      max_bytes: 1000n,
    });
    expect((await s.get("t", "k")).blob.equals(Buffer.alloc(1000, 1))).toBe(true);
    expect(GROUP.limits.max_blob_bytes).toBe(16 * 1024 * 1024);
    const zero = store({ maxBlobBytes: 0 });
    await zero.put("t", "z", new Uint8Array(0));
    expect(await failure(zero.put("t", "z", Buffer.from("x")))).toMatchObject({ error: "blob_too_large" });
  });

  it("a file larger than the blob limit plus the read overhead is a storage_failure naming it", async () => {
    await store().put("t", "k", Buffer.alloc(5000));
    const f = await failure(store({ maxBlobBytes: 10 }).get("t", "k"));
    expect(f.error).toBe("storage_failure");
    expect(String(f.reason)).toContain(join(root, "t", "k"));
  });
});

describe("TTL with an injected clock", () => {
  it("expires at written_at + ttl exactly, and the expired file is removed when seen", async () => {
    const s = store();
    await s.put("t", "k", Buffer.from("v"), { ttlS: 10 });
    clock = 1_009n;
    expect((await s.get("t", "k")).meta).toEqual({ client_id: "unknown", ttl_s: 10n, written_at_epoch_s: 1_000n });
    clock = 1_010n;
    expect(await failure(s.get("t", "k"))).toEqual({ error: "not_found" });
    expect(existsSync(join(root, "t", "k"))).toBe(false);
  });

  it("list omits and removes expired entries; a guarded drop of an expired foreign entry is ok", async () => {
    const s = store();
    await s.put("t", "short", Buffer.from("s"), { ttlS: 5 });
    await s.put("t", "long", Buffer.from("l"), { ttlS: 500 });
    await s.put("t", "foreign", Buffer.from("f"), { ttlS: 5, clientId: "other" });
    clock = 1_005n;
    expect((await s.list("t", { long: true })).keys).toEqual([
      {
        key: "long",
        client_id: "unknown",
        ttl_s: 500n,
        written_at_epoch_s: 1_000n,
        blob_bytes: 1,
        expires_at_epoch_s: 1_500n,
      },
    ]);
    expect(readdirSync(join(root, "t")).filter((n) => !n.startsWith("."))).toEqual(["long"]);
    await s.put("t", "f2", Buffer.from("f"), { ttlS: 1, clientId: "other" });
    clock = 1_006n;
    expect(await s.drop("t", "f2", { requireClientId: "me" })).toEqual({ status: "ok" });
  });

  it("a TTL whose sum overflows u64 counts as expired; ttl 0 expires at once", async () => {
    const s = store();
    await s.put("t", "max", Buffer.from("m"), { ttlS: (1n << 64n) - 1n });
    await s.put("t", "zero", Buffer.from("z"), { ttlS: 0 });
    expect(await failure(s.get("t", "max"))).toEqual({ error: "not_found" });
    expect(await failure(s.get("t", "zero"))).toEqual({ error: "not_found" });
    await expect(s.put("t", "neg", Buffer.from("n"), { ttlS: -1 })).rejects.toThrow(RangeError);
  });
});

describe("opt-in guards on put", () => {
  it("--require-client-id: writes over its own or an absent entry, refuses a live foreign one", async () => {
    const s = store();
    await s.put("t", "k", Buffer.from("a1"), { clientId: "alice", requireClientId: "alice" });
    expect(await failure(s.put("t", "k", Buffer.from("b1"), { clientId: "bob", requireClientId: "bob" }))).toEqual({
      error: "client_id_mismatch",
      required: "bob",
      actual: "alice",
    });
    expect((await s.get("t", "k")).blob.toString()).toBe("a1");
  });

  it("--expect-sha256: compare-and-swap against the live blob, `absent` for a new entry", async () => {
    const s = store();
    const opts = (expectSha256: string): PutOptions => ({ expectSha256 });
    await s.put("t", "k", Buffer.from("v1"), opts("absent"));
    const v1 = createHash("sha256").update("v1").digest("hex");
    expect(await failure(s.put("t", "k", Buffer.from("x"), opts("absent")))).toEqual({
      error: "precondition_failed",
      actual_sha256: v1,
    });
    expect(await failure(s.put("t", "k", Buffer.from("x"), opts("0".repeat(64))))).toEqual({
      error: "precondition_failed",
      actual_sha256: v1,
    });
    await s.put("t", "k", Buffer.from("v2"), opts(v1));
    expect((await s.get("t", "k")).blob.toString()).toBe("v2");
    await s.drop("t", "k");
    expect(await failure(s.put("t", "k", Buffer.from("x"), opts(v1)))).toEqual({
      error: "precondition_failed",
      actual_sha256: null,
    });
  });
});

describe("storage", () => {
  it("files are 0600 and created directories 0700 under umask 022; no temp file is left", async () => {
    const old = process.umask(0o022);
    try {
      await store().put("t", "k", Buffer.from("v"));
    } finally {
      process.umask(old);
    }
    expect(lstatSync(root).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(root, "t")).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(root, "t", "k")).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(root, "t"))).toEqual(["k"]);
  });

  it("writes the reference's framing: u32 BE meta length, meta members in table order, blob", async () => {
    await store().put("t", "k", Buffer.from("hello"), { clientId: "ccd", ttlS: 600 });
    const meta = `{"schema_version":"${GROUP.entry_format.meta_schema_version}","client_id":"ccd","written_at_epoch_s":1000,"ttl_s":600}`;
    expect(readFileSync(join(root, "t", "k")).equals(frameEntry(meta, Buffer.from("hello")))).toBe(true);
  });

  it.each([
    ["truncated header", Buffer.from([0, 0])],
    ["meta length past the end", Buffer.from([0, 0, 3, 232, 0x7b])],
    ["meta not JSON", frameEntry("{nope", Buffer.from("b"))],
    [
      "client_id not a string",
      frameEntry('{"schema_version":"x","client_id":5,"written_at_epoch_s":1,"ttl_s":null}', Buffer.alloc(0)),
    ],
    [
      "written_at negative",
      frameEntry('{"schema_version":"x","client_id":"c","written_at_epoch_s":-1,"ttl_s":null}', Buffer.alloc(0)),
    ],
    [
      "written_at above u64",
      frameEntry(
        '{"schema_version":"x","client_id":"c","written_at_epoch_s":18446744073709551616,"ttl_s":null}',
        Buffer.alloc(0),
      ),
    ],
    ["meta not UTF-8", frameEntry("\uFFFD", Buffer.alloc(0)).fill(0xff, 4, 7)],
  ])(
    "a corrupt entry (%s) is storage_failure naming the file; list skips it with a diagnostic",
    async (_name, bytes) => {
      mkdirSync(join(root, "t"), { recursive: true });
      writeFileSync(join(root, "t", "bad"), bytes);
      const f = await failure(store().get("t", "bad"));
      expect(f.error).toBe("storage_failure");
      expect(String(f.reason)).toContain(join(root, "t", "bad"));
      const listed = await store().list("t");
      expect(listed.keys).toEqual([]);
      expect(listed.diagnostics).toMatchObject([
        { diagnostic: "list_skipped_entry", reason: "malformed_meta", path: join(root, "t", "bad") },
      ]);
    },
  );

  it("drop-thread is all or nothing: a subdirectory refuses it before anything is removed", async () => {
    const s = store();
    await s.put("t", "a", Buffer.from("1"));
    await s.put("t", "b", Buffer.from("2"));
    mkdirSync(join(root, "t", "sub"));
    expect(await failure(s.dropThread("t"))).toMatchObject({ error: "storage_failure" });
    expect((await s.list("t")).keys.map((k) => k.key)).toEqual(["a", "b"]);
  });

  it("drop-thread counts entries, removes our temp and claim files, keeps foreign hidden files, leaves no dropped directory", async () => {
    const s = store();
    await s.put("t", "a", Buffer.from("1"));
    writeFileSync(join(root, "t", ".a.tmp.1-2-3"), "temp");
    writeFileSync(join(root, "t", ".a.delete-claim.1-2-3"), "claim");
    writeFileSync(join(root, "t", ".DS_Store"), "finder");
    writeFileSync(join(root, "t", "corrupt"), "xx");
    expect(await s.dropThread("t")).toEqual({ dropped_count: 2, status: "ok" });
    expect(readdirSync(join(root, "t"))).toEqual([".DS_Store"]);
    expect(readdirSync(root).filter((n) => n.includes(".drop."))).toEqual([]);
  });
});
