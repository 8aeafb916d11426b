/**
 * `ContinuationStore`: the continuation store of CONTINUATION-001 (thread-keyed, size-bounded,
 * TTL'd blobs that survive restarts), used by the `lifeloop-callback continuation` CLI and by hosts
 * that answer `continuation/*` requests. Same identifiers, layout and entry format as the reference
 * (lifeloop-cli 0.5.0), so the two read each other's stores; durable and safe under concurrency
 * where the reference is not (spec/continuation-store.md):
 *
 * - writers of one thread are serialized by a kernel lock that dies with its holder (lock.ts);
 * - put writes a temp file, fsyncs it, renames it over the entry and fsyncs the directory; drop
 *   fsyncs the directory after the unlink;
 * - drop-thread renames the thread directory away in one step, so a reader sees the whole thread or
 *   none of it, then removes the files;
 * - expired entries are removed when a read sees them; a corrupt entry is a storage_failure that names
 *   the file, never a crash.
 *
 * Every method throws only {@link ContinuationError} for store outcomes (`not_found`,
 * `client_id_mismatch`, `invalid_identifier`, `blob_too_large`, `storage_failure`,
 * `precondition_failed`) and RangeError for an argument outside its type (a negative TTL).
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, rename, rm, rmdir, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { checkIdentifier } from "./identifier.js";
import { decodeEntry, encodeEntry, type EntryMeta } from "./entry.js";
import {
  blobTooLarge,
  clientIdMismatch,
  ContinuationError,
  describeIoError,
  notFound,
  preconditionFailed,
  storageFailure,
} from "./errors.js";
import { acquireThreadLock, isReadOnlyLockError, tryAcquireThreadLock, type HeldLock } from "./lock.js";
import {
  CONTINUATION,
  DEFAULT_MAX_BLOB_BYTES,
  DIRECTORY_MODE,
  expandName,
  FILE_MODE,
  LOCK_TIMEOUT_MS,
  nameMatcher,
  READ_OVERHEAD_BYTES,
} from "./table.js";
import { isExpired, U64_MAX } from "./u64.js";
import { writeAll } from "../process/write-all.js";

/** How a store is set up. */
export interface ContinuationStoreOptions {
  /** The store's root directory (see resolveRoot for the environment's choice); relative to the cwd when relative. */
  readonly root: string;
  /** Largest blob in bytes (default: the table's 16777216). */
  readonly maxBlobBytes?: bigint | number;
  /** The clock, in whole seconds since the epoch (default: wall clock). Tests inject one. */
  readonly now?: () => bigint | number;
  /** Longest wait for a thread's lock in ms before storage_failure (default: the table's 10000). */
  readonly lockTimeoutMs?: number;
}

/** What `get` prints on stderr, and what `list` reports per key: u64 members exact. */
export interface EntryInfo {
  readonly client_id: string;
  readonly ttl_s: bigint | null;
  readonly written_at_epoch_s: bigint;
}

/** A live entry's blob and meta. */
export interface GetResult {
  readonly blob: Buffer;
  readonly meta: EntryInfo;
}

/** Options of put. */
export interface PutOptions {
  /** Stored as the entry's owner (default: the table's `unknown`). */
  readonly clientId?: string;
  /** Seconds until the entry expires (0 .. 2^64 - 1); none by default. */
  readonly ttlS?: bigint | number | null;
  /** Ours: write only when there is no live entry or its client_id is this one (else client_id_mismatch). */
  readonly requireClientId?: string;
  /** Ours, compare-and-swap: the live blob's SHA-256 in lowercase hex, or `absent` (else precondition_failed). */
  readonly expectSha256?: string;
  /** Give up waiting for the thread's lock when this aborts (storage_failure): a stream request's signal. */
  readonly signal?: AbortSignal;
}

/** Options of the commands that wait for a thread's lock (drop, list, drop-thread). */
export interface LockWaitOptions {
  /** Give up waiting for the thread's lock when this aborts (storage_failure): a stream request's signal. */
  readonly signal?: AbortSignal;
}

/** One key of `list`; `blob_bytes` and `expires_at_epoch_s` only with `long`. */
export interface ListedKey extends EntryInfo {
  readonly key: string;
  readonly blob_bytes?: number;
  readonly expires_at_epoch_s?: bigint | null;
}

/**
 * An entry list skipped (printed on stderr by the CLI, as the reference does). `beyond_wire_integer_range`
 * is the stream's own (continuationHandlers): an entry whose u64 members exceed the wire's integers.
 */
export interface ListDiagnostic {
  readonly diagnostic: "list_skipped_entry";
  readonly path: string;
  readonly reason: "bounded_read_too_large" | "io_error" | "malformed_meta" | "beyond_wire_integer_range";
  readonly actual_bytes?: number;
  readonly error?: string;
}

/** The result of list: keys sorted by name (code-unit order). */
export interface ListResult {
  readonly thread: string;
  readonly keys: ListedKey[];
  readonly diagnostics: ListDiagnostic[];
}

/** A file read from the store: its meta, size, identity and (when asked) blob. */
interface ReadEntry {
  readonly meta: EntryMeta;
  readonly fileBytes: number;
  readonly blobBytes: number;
  readonly dev: number;
  readonly ino: number;
  readonly blob: Buffer | null;
}

const SHA256 = /^[0-9a-f]{64}$/;
let uniqueSeq = 0;

/** `{pid}`, `{seq}`, `{nanos}` of a temp or dropped-thread name, unique per process as in the reference. */
function uniqueParts(): { pid: string; seq: string; nanos: string } {
  const nanos = BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  return { pid: String(process.pid), seq: String(uniqueSeq++), nanos: String(nanos) };
}

async function fsyncDirectory(path: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
    await handle.sync();
  } catch (error) {
    throw storageFailure(describeIoError("fsync directory", path, error));
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

function toU64(value: bigint | number, what: string): bigint {
  const v = typeof value === "bigint" ? value : Number.isSafeInteger(value) ? BigInt(value) : -1n;
  if (v < 0n || v > U64_MAX) throw new RangeError(`${what} must be an integer in 0 .. 2^64 - 1`);
  return v;
}

/** The continuation store under one root (see the module comment). */
export class ContinuationStore {
  /** The root directory. */
  readonly root: string;
  /** Largest blob in bytes. */
  readonly maxBlobBytes: bigint;
  private readonly clock: () => bigint;
  private readonly lockTimeoutMs: number;

  constructor(options: ContinuationStoreOptions) {
    this.root = options.root;
    this.maxBlobBytes = toU64(options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES, "maxBlobBytes");
    const now = options.now;
    this.clock = now ? () => toU64(now(), "now()") : () => BigInt(Math.max(0, Math.floor(Date.now() / 1000)));
    this.lockTimeoutMs = options.lockTimeoutMs ?? LOCK_TIMEOUT_MS;
  }

  /** Largest file a read accepts: the blob limit plus the table's read overhead. */
  private get maxFileBytes(): bigint {
    return this.maxBlobBytes + BigInt(READ_OVERHEAD_BYTES);
  }

  private threadDir(thread: string): string {
    return join(this.root, thread);
  }

  private entryPath(thread: string, key: string): string {
    const [first, ...rest] = CONTINUATION.entry_format.path;
    return join(
      this.root,
      expandName(first as string, { thread, key }),
      ...rest.map((p) => expandName(p, { thread, key })),
    );
  }

  private lock(thread: string, shared: boolean, signal: AbortSignal | undefined): Promise<HeldLock> {
    return acquireThreadLock(this.root, thread, {
      shared,
      timeoutMs: this.lockTimeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
  }

  /**
   * Store `blob` under (thread, key), replacing any entry (last writer wins), and return the
   * `written_at_epoch_s` it recorded. Throws `invalid_identifier`, `blob_too_large`,
   * `storage_failure`, and with the opt-in guards `client_id_mismatch` / `precondition_failed`.
   */
  async put(
    thread: string,
    key: string,
    blob: Uint8Array,
    options: PutOptions = {},
  ): Promise<{ readonly status: "ok"; readonly written_at_epoch_s: bigint }> {
    checkIdentifier(thread, "thread");
    checkIdentifier(key, "key");
    const clientId = options.clientId ?? CONTINUATION.defaults.client_id;
    checkIdentifier(clientId, "client_id");
    if (options.requireClientId !== undefined) checkIdentifier(options.requireClientId, "client_id");
    if (options.expectSha256 !== undefined && options.expectSha256 !== "absent" && !SHA256.test(options.expectSha256)) {
      throw new RangeError("expectSha256 must be 64 lowercase hex digits or absent");
    }
    const ttl = options.ttlS === undefined || options.ttlS === null ? null : toU64(options.ttlS, "ttlS");
    if (BigInt(blob.byteLength) > this.maxBlobBytes) throw blobTooLarge(this.maxBlobBytes);

    const dir = this.threadDir(thread);
    await checkThreadDirectory(dir); // before mkdir -p, which would follow a link
    await this.makeDirectories(this.root); // the lock file lives at the root
    const lock = await this.lock(thread, false, options.signal);
    try {
      if (options.requireClientId !== undefined || options.expectSha256 !== undefined) {
        await this.checkPutGuards(thread, key, options);
      }
      await this.makeDirectories(dir); // under the lock: no drop-thread can remove it now
      await checkThreadDirectory(dir);
      const writtenAt = this.clock();
      await this.writeEntry(
        dir,
        key,
        {
          schema_version: CONTINUATION.entry_format.meta_schema_version,
          client_id: clientId,
          written_at_epoch_s: writtenAt,
          ttl_s: ttl,
        },
        blob,
      );
      return { status: "ok", written_at_epoch_s: writtenAt };
    } finally {
      await lock.release();
    }
  }

  private async checkPutGuards(thread: string, key: string, options: PutOptions): Promise<void> {
    await checkThreadDirectory(this.threadDir(thread));
    const path = this.entryPath(thread, key);
    const current = await this.readEntry(path, options.expectSha256 !== undefined && options.expectSha256 !== "absent");
    const live =
      current !== null && !isExpired(current.meta.written_at_epoch_s, current.meta.ttl_s, this.clock())
        ? current
        : null;
    if (options.requireClientId !== undefined && live !== null && live.meta.client_id !== options.requireClientId) {
      throw clientIdMismatch(options.requireClientId, live.meta.client_id);
    }
    if (options.expectSha256 !== undefined) {
      const actual =
        live === null
          ? null
          : createHash("sha256")
              .update(live.blob ?? (await this.readBlob(path)))
              .digest("hex");
      if (options.expectSha256 === "absent" ? actual !== null : actual !== options.expectSha256)
        throw preconditionFailed(actual);
    }
  }

  private async readBlob(path: string): Promise<Buffer> {
    const entry = await this.readEntry(path, true);
    return entry?.blob ?? Buffer.alloc(0);
  }

  /** mkdir -p with the table's directory mode; newly created directories are made durable in their parents. */
  private async makeDirectories(dir: string): Promise<void> {
    let first: string | undefined;
    try {
      first = await mkdir(dir, { recursive: true, mode: DIRECTORY_MODE });
    } catch (error) {
      throw storageFailure(describeIoError("create directory", dir, error));
    }
    if (first === undefined) return;
    // fsync the parent of the first created directory and every created one down to `dir`.
    const created = [first];
    let p = first;
    const rel = relative(first, dir);
    for (const part of rel === "" ? [] : rel.split(sep)) {
      p = join(p, part);
      created.push(p);
    }
    await fsyncDirectory(dirname(first));
    for (const d of created.slice(0, -1)) await fsyncDirectory(d);
  }

  /** Temp file, write, fsync, rename over the entry, fsync the directory. The temp file is removed on failure. */
  private async writeEntry(dir: string, key: string, meta: EntryMeta, blob: Uint8Array): Promise<void> {
    const target = join(dir, key);
    const temp = join(dir, expandName(CONTINUATION.entry_format.temp_file, { key, ...uniqueParts() }));
    let handle: FileHandle | undefined;
    let step = "create temp file";
    try {
      handle = await open(
        temp,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        FILE_MODE,
      );
      step = "write temp file";
      // Every byte or a failure: a short write (a full disk) must never be renamed over the entry.
      await writeAll(handle, encodeEntry(meta, blob));
      step = "fsync temp file";
      await handle.sync();
      await handle.close();
      handle = undefined;
      step = `rename temp file to ${target}:`;
      await rename(temp, target);
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw storageFailure(describeIoError(step, temp, error));
    }
    await fsyncDirectory(dir);
  }

  /**
   * Read the file at `path`: null when absent; throws storage_failure (naming the file) when it is
   * not a regular file, larger than the read bound, or corrupt, and when a path component is not a
   * directory (ENOTDIR, as the reference). With `withBlob` the blob is read too; otherwise only the
   * header and meta. Never blocks: the file is opened O_NONBLOCK (a FIFO or device planted as an entry
   * would otherwise park a libuv worker in open(2) forever) and refused unless fstat says regular.
   */
  private async readEntry(path: string, withBlob: boolean): Promise<ReadEntry | null> {
    let handle: FileHandle;
    try {
      handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      // O_NOFOLLOW: an entry that is a symbolic link is refused, never followed.
      if ((error as NodeJS.ErrnoException).code === "ELOOP")
        throw storageFailure(`open ${path}: a symbolic link; the store never follows one (ELOOP)`);
      throw storageFailure(describeIoError("open", path, error));
    }
    try {
      const st = await handle.stat().catch((error: unknown) => {
        throw storageFailure(describeIoError("stat", path, error));
      });
      if (!st.isFile()) throw storageFailure(`read ${path}: not a regular file`);
      if (BigInt(st.size) > this.maxFileBytes)
        throw storageFailure(
          `read ${path}: ${st.size} bytes is more than the ${this.maxFileBytes} a read accepts (blob limit plus ${READ_OVERHEAD_BYTES})`,
        );
      const headerBytes = CONTINUATION.entry_format.header_bytes;
      // With the blob: one read of the whole file. Without: the header, then header and meta.
      let head = await readAt(handle, path, 0, withBlob ? st.size : Math.min(st.size, headerBytes));
      if (!withBlob && head.length === headerBytes) {
        const metaEnd = headerBytes + head.readUInt32BE(0);
        if (metaEnd <= st.size) head = await readAt(handle, path, 0, metaEnd);
      }
      const decoded = decodeEntry(head, st.size);
      if (!decoded.ok) throw storageFailure(`corrupt entry ${path}: ${decoded.reason}`);
      const blob = withBlob ? head.subarray(decoded.blobOffset) : null;
      return {
        meta: decoded.meta,
        fileBytes: st.size,
        blobBytes: st.size - decoded.blobOffset,
        dev: st.dev,
        ino: st.ino,
        blob,
      };
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /**
   * The live entry at (thread, key): blob and meta. Throws `not_found` (absent or expired; an
   * expired file is removed), `client_id_mismatch` when `requireClientId` differs from the owner,
   * `storage_failure` for an unreadable or corrupt file, `invalid_identifier`.
   */
  async get(thread: string, key: string, options: { readonly requireClientId?: string } = {}): Promise<GetResult> {
    checkIdentifier(thread, "thread");
    checkIdentifier(key, "key");
    if (options.requireClientId !== undefined) checkIdentifier(options.requireClientId, "client_id");
    await checkThreadDirectory(this.threadDir(thread));
    const path = this.entryPath(thread, key);
    const entry = await this.readEntry(path, true);
    if (entry === null) throw notFound();
    if (isExpired(entry.meta.written_at_epoch_s, entry.meta.ttl_s, this.clock())) {
      await this.removeExpired(thread, [{ key, dev: entry.dev, ino: entry.ino }]);
      throw notFound();
    }
    if (options.requireClientId !== undefined && entry.meta.client_id !== options.requireClientId)
      throw clientIdMismatch(options.requireClientId, entry.meta.client_id);
    return { blob: entry.blob ?? Buffer.alloc(0), meta: info(entry.meta) };
  }

  /**
   * Remove entries seen expired, when they are still the same file and still expired. Best effort and
   * never waits: only when the thread's lock is free right now (a try-lock); otherwise, and on any
   * error, the entry stays (hidden as before) for a later read to remove.
   */
  private async removeExpired(
    thread: string,
    seen: readonly { readonly key: string; readonly dev: number; readonly ino: number }[],
  ): Promise<void> {
    let lock: HeldLock | null = null;
    try {
      lock = await tryAcquireThreadLock(this.root, thread);
      if (lock === null) return;
      let removed = false;
      for (const s of seen) {
        const path = this.entryPath(thread, s.key);
        const again = await this.readEntry(path, false).catch(() => null);
        if (again === null || again.dev !== s.dev || again.ino !== s.ino) continue;
        if (!isExpired(again.meta.written_at_epoch_s, again.meta.ttl_s, this.clock())) continue;
        await unlink(path);
        removed = true;
      }
      if (removed) await fsyncDirectory(this.threadDir(thread));
    } catch {
      // A read-only store or a busy lock: the entry stays, hidden as before.
    } finally {
      await lock?.release();
    }
  }

  /**
   * Remove (thread, key). Absent is success. With `requireClientId`, a live entry owned by another
   * client is kept and `client_id_mismatch` thrown; an expired entry is removed and counts as absent.
   */
  async drop(
    thread: string,
    key: string,
    options: { readonly requireClientId?: string } & LockWaitOptions = {},
  ): Promise<{ readonly status: "ok" }> {
    checkIdentifier(thread, "thread");
    checkIdentifier(key, "key");
    if (options.requireClientId !== undefined) checkIdentifier(options.requireClientId, "client_id");
    const dir = this.threadDir(thread);
    if (!(await checkThreadDirectory(dir))) return { status: "ok" };
    const path = this.entryPath(thread, key);
    const lock = await this.lock(thread, false, options.signal).catch(async (error: unknown) => {
      // A store we cannot write: dropping an absent entry still succeeds, as in the reference.
      if (isReadOnlyLockError(error) && !(await exists(path))) return null;
      throw error;
    });
    if (lock === null) return { status: "ok" };
    try {
      await checkThreadDirectory(dir); // again under the lock: it may have been replaced meanwhile
      if (options.requireClientId !== undefined) {
        const entry = await this.readEntry(path, false);
        if (entry === null) return { status: "ok" };
        if (
          !isExpired(entry.meta.written_at_epoch_s, entry.meta.ttl_s, this.clock()) &&
          entry.meta.client_id !== options.requireClientId
        ) {
          throw clientIdMismatch(options.requireClientId, entry.meta.client_id);
        }
      }
      try {
        await unlink(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return { status: "ok" };
        throw storageFailure(describeIoError("remove", path, error));
      }
      await fsyncDirectory(dir);
      return { status: "ok" };
    } finally {
      await lock.release();
    }
  }

  /**
   * The live keys of `thread`, sorted by key, with their meta (and with `long`, blob size and expiry).
   * Entries that cannot be read are skipped and described in `diagnostics`; expired ones are left out
   * and removed. A missing thread is an empty list. Reads only each file's header and meta.
   *
   * The shared lock is held only while the thread's names are read (one readdir), not while the
   * entries are: a list of many entries must never make a writer of the thread wait past its lock
   * timeout (spec/continuation-store.md §"Concurrency"). Each entry is then read on its own; a rename
   * replaces an entry whole, so each is the entry before or after a concurrent put, and a name
   * dropped meanwhile is left out.
   */
  async list(thread: string, options: { readonly long?: boolean } & LockWaitOptions = {}): Promise<ListResult> {
    checkIdentifier(thread, "thread");
    const dir = this.threadDir(thread);
    const result: ListResult = { thread, keys: [], diagnostics: [] };
    if (!(await checkThreadDirectory(dir))) return result;
    const expired: { key: string; dev: number; ino: number }[] = [];
    let names: string[];
    const lock = await this.lock(thread, true, options.signal);
    try {
      await checkThreadDirectory(dir); // again under the lock: it may have been replaced meanwhile
      names = await readdir(dir);
    } catch (error) {
      if (error instanceof ContinuationError) throw error;
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return result;
      throw storageFailure(describeIoError("read directory", dir, error));
    } finally {
      await lock.release();
    }
    const now = this.clock();
    for (const name of names.filter((n) => !n.startsWith(".")).sort(byCodeUnit)) {
      const path = join(dir, name);
      let entry: ReadEntry | null;
      try {
        entry = await this.readEntry(path, false);
      } catch (error) {
        result.diagnostics.push(await this.diagnose(path, error));
        continue;
      }
      if (entry === null) continue;
      const m = entry.meta;
      if (isExpired(m.written_at_epoch_s, m.ttl_s, now)) {
        expired.push({ key: name, dev: entry.dev, ino: entry.ino });
        continue;
      }
      const listed: ListedKey = options.long
        ? {
            key: name,
            ...info(m),
            blob_bytes: entry.blobBytes,
            expires_at_epoch_s: m.ttl_s === null ? null : m.written_at_epoch_s + m.ttl_s,
          }
        : { key: name, ...info(m) };
      result.keys.push(listed);
    }
    if (expired.length > 0) await this.removeExpired(thread, expired);
    return result;
  }

  /** The reference's diagnostic for an entry list skips. */
  private async diagnose(path: string, error: unknown): Promise<ListDiagnostic> {
    if (!(error instanceof ContinuationError))
      return { diagnostic: "list_skipped_entry", path, reason: "io_error", error: String(error) };
    const reason = String(error.envelope.reason ?? "");
    if (reason.includes("a read accepts")) {
      const st = await lstat(path).catch(() => null);
      return { diagnostic: "list_skipped_entry", path, reason: "bounded_read_too_large", actual_bytes: st?.size ?? 0 };
    }
    if (reason.startsWith("corrupt entry"))
      return {
        diagnostic: "list_skipped_entry",
        path,
        reason: "malformed_meta",
        error: JSON.stringify(error.envelope),
      };
    return { diagnostic: "list_skipped_entry", path, reason: "io_error", error: reason };
  }

  /**
   * Remove every entry of `thread` at once and return how many there were (non-hidden files,
   * expired and corrupt ones included). The thread directory is renamed away first, so readers see
   * the whole thread or none of it; the reference's own temp and claim files go too, other hidden
   * files stay. A subdirectory that is not hidden makes it fail with storage_failure before anything
   * is removed.
   */
  async dropThread(
    thread: string,
    options: LockWaitOptions = {},
  ): Promise<{ readonly dropped_count: number; readonly status: "ok" }> {
    checkIdentifier(thread, "thread");
    if (!(await exists(this.root))) return { dropped_count: 0, status: "ok" };
    const lock = await this.lock(thread, false, options.signal).catch(async (error: unknown) => {
      // A store we cannot write: a thread that is not there drops nothing and succeeds, as in the reference.
      if (isReadOnlyLockError(error) && !(await exists(this.threadDir(thread)))) return null;
      throw error;
    });
    if (lock === null) return { dropped_count: 0, status: "ok" };
    try {
      await this.removeDroppedLeftovers(thread);
      const dir = this.threadDir(thread);
      const dirStat = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return null;
        throw storageFailure(describeIoError("stat", dir, error));
      });
      if (dirStat === null) return { dropped_count: 0, status: "ok" };
      if (dirStat.isSymbolicLink()) throw symlinkedThread(dir);
      if (!dirStat.isDirectory()) throw storageFailure(`drop-thread ${dir}: not a directory`);
      const names = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
        throw storageFailure(describeIoError("read directory", dir, error));
      });
      const blocking = names.find((d) => !d.name.startsWith(".") && d.isDirectory());
      if (blocking)
        throw storageFailure(`drop-thread ${join(dir, blocking.name)}: a directory, not an entry; nothing was removed`);

      const dropped = join(
        this.root,
        expandName(CONTINUATION.entry_format.dropped_thread_directory, { thread, ...uniqueParts() }),
      );
      try {
        await rename(dir, dropped);
      } catch (error) {
        throw storageFailure(describeIoError("rename thread directory to", dropped, error));
      }
      await fsyncDirectory(this.root);

      const ours = nameMatcher(CONTINUATION.entry_format.temp_file, {});
      const claims = nameMatcher(CONTINUATION.entry_format.delete_claim_file, {});
      let count = 0;
      const kept: string[] = [];
      for (const d of names) {
        if (!d.name.startsWith(".")) count++;
        else if (!ours.test(d.name) && !claims.test(d.name)) kept.push(d.name);
      }
      if (kept.length > 0) {
        // Hidden files that are not ours go back into a fresh thread directory, as the reference leaves them.
        await mkdir(dir, { mode: dirStat.mode & 0o7777 }).catch(() => undefined);
        for (const name of kept) await rename(join(dropped, name), join(dir, name)).catch(() => undefined);
      }
      await rm(dropped, { recursive: true, force: true }).catch(() => undefined);
      await fsyncDirectory(this.root);
      return { dropped_count: count, status: "ok" };
    } finally {
      // The lock file stays: unlinking it would send every waiter back to reopen the new one.
      await lock.release();
    }
  }

  /** Directories a drop-thread of `thread` renamed away but did not finish removing (it was killed). */
  private async removeDroppedLeftovers(thread: string): Promise<void> {
    const pattern = nameMatcher(CONTINUATION.entry_format.dropped_thread_directory, { thread });
    const names = await readdir(this.root).catch(() => [] as string[]);
    for (const name of names) if (pattern.test(name)) await rmdirDeep(join(this.root, name));
  }
}

async function rmdirDeep(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true }).catch(() => rmdir(path).catch(() => undefined));
}

function info(meta: EntryMeta): EntryInfo {
  return { client_id: meta.client_id, ttl_s: meta.ttl_s, written_at_epoch_s: meta.written_at_epoch_s };
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** storage_failure for a thread directory that is a symbolic link (never followed). */
function symlinkedThread(dir: string): ContinuationError {
  return storageFailure(
    `thread directory ${dir}: a symbolic link; the store never follows one (remove it, or move the directory it points to there)`,
  );
}

/**
 * Whether the thread directory `dir` exists (false when absent); throws storage_failure when it is
 * a symbolic link, which no command follows (a put would land outside the store), and, as
 * {@link exists}, when a path component is not a directory.
 */
async function checkThreadDirectory(dir: string): Promise<boolean> {
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw storageFailure(describeIoError("stat", dir, error));
  }
  if (st.isSymbolicLink()) throw symlinkedThread(dir);
  return true;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    // ENOTDIR (a path component is a regular file) is a storage_failure, as in the reference.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw storageFailure(describeIoError("stat", path, error));
  }
}

async function readAt(handle: FileHandle, path: string, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    let n: number;
    try {
      ({ bytesRead: n } = await handle.read(buffer, done, length - done, position + done));
    } catch (error) {
      throw storageFailure(describeIoError("read", path, error));
    }
    if (n === 0) throw storageFailure(`read ${path}: the file shrank while it was read`);
    done += n;
  }
  return buffer;
}
