/**
 * The per-thread lock of the continuation store (ours: the reference takes none; see
 * spec/continuation-store.md §"Concurrency"). One lock file per thread at the store root,
 * `entry_format.lock_file` (`.<thread>.lock`, never a valid thread name), locked with a Linux
 * open-file-description lock (`F_OFD_SETLK`, through the `fs-native-extensions` package; flock on
 * macOS). The kernel releases such a lock when its holder's file description closes, so a holder that
 * crashes or is killed with SIGKILL cannot wedge the thread: the next waiter gets the lock at once,
 * with no stale-lock timeout to guess. Writers take it exclusive, `list` shared.
 *
 * Acquisition first tries the lock without blocking; when it is held, one waiter per lock file and
 * process (an in-process FIFO queues the others) blocks in a libuv thread (`F_OFD_SETLKW`), so the
 * kernel hands the lock over the moment it is released; past `timeoutMs` the command fails with
 * `storage_failure`. The holder may unlink the lock file
 * before releasing it (drop-thread does); a waiter then finds that the file it locked is no longer the
 * one at the path (device and inode differ) and retries on the new file.
 */
import { open, stat, unlink, type FileHandle } from "node:fs/promises";
import { constants } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { ContinuationError, describeIoError, storageFailure } from "./errors.js";
import { CONTINUATION, FILE_MODE, expandName } from "./table.js";

interface NativeLocks {
  tryLock(fd: number, offset: number, length: number, options: { readonly shared: boolean }): boolean;
  waitForLock(fd: number, offset: number, length: number, options: { readonly shared: boolean }): Promise<void>;
}

let native: NativeLocks | undefined;
function locks(): NativeLocks {
  // Loaded on first use: commands that take no lock (get) do not pay for the native addon.
  native ??= createRequire(import.meta.url)("fs-native-extensions") as NativeLocks;
  return native;
}

/** A lock the caller holds; release it exactly once. */
export interface HeldLock {
  /** The lock file's path. */
  readonly path: string;
  /** Release the lock; with `unlinkFile`, remove the lock file first (nothing is left at the root). */
  release(options?: { readonly unlinkFile?: boolean }): Promise<void>;
}

/** The lock file of `thread` under `root`. */
export function lockPath(root: string, thread: string): string {
  return join(root, expandName(CONTINUATION.entry_format.lock_file, { thread }));
}

let abandoned = 0;
/**
 * Blocking waits given up at their deadline that are still parked in a libuv thread (the kernel call
 * cannot be interrupted; it ends when the holder releases or dies). A one-shot CLI exits explicitly
 * when this is non-zero instead of waiting for them.
 */
export function abandonedLockWaits(): number {
  return abandoned;
}

/** In-process FIFO per lock file: at most one waiter of this process blocks a libuv thread per file. */
const queues = new Map<string, Promise<void>>();
/** Commands of this process holding or waiting for each lock file, counted synchronously (the queue's tail is dropped a few microtasks late). */
const busy = new Map<string, number>();

/**
 * How many commands of this process hold or wait for the lock of `thread` under `root` (0 when
 * none): a diagnostic, and a barrier for tests that need one command queued before the next.
 */
export function threadLockUsers(root: string, thread: string): number {
  return busy.get(lockPath(root, thread)) ?? 0;
}

/** Count one more holder or waiter of `path`; returns the function that counts it out (idempotent). */
function enter(path: string): () => void {
  busy.set(path, (busy.get(path) ?? 0) + 1);
  let left = false;
  return () => {
    if (left) return;
    left = true;
    const n = (busy.get(path) ?? 1) - 1;
    if (n === 0) busy.delete(path);
    else busy.set(path, n);
  };
}

/**
 * The wait timed out: behind another process's lock (`kernel`), or still queued behind this process's
 * own earlier commands on the same thread (`queue`), which hold or wait for the lock themselves.
 */
function timeoutError(path: string, ms: number, where: "kernel" | "queue"): ContinuationError {
  return storageFailure(
    where === "kernel"
      ? `lock ${path}: still held by another process after ${ms} ms`
      : `lock ${path}: still queued after ${ms} ms behind this process's own earlier commands on the thread (they hold or wait for the lock)`,
  );
}

/** Errors of opening the lock file that mean the store cannot be written by us (read-only). */
const READ_ONLY_CODES: ReadonlySet<string> = new Set(["EACCES", "EPERM", "EROFS"]);

/** True when `error` is a storage_failure of opening a lock file on a store we cannot write. */
export function isReadOnlyLockError(error: unknown): boolean {
  return (
    error instanceof ContinuationError &&
    error.envelope.error === "storage_failure" &&
    typeof error.envelope.reason === "string" &&
    error.envelope.reason.startsWith("open lock file ") &&
    [...READ_ONLY_CODES].some((c) => (error.envelope.reason as string).endsWith(`: ${c}`))
  );
}

/**
 * `settled` when `p` settles first, `timeout` at `deadline`, `cancelled` when `signal` aborts (at
 * once if it already has); neither the timer nor the abort listener outlives the race.
 */
async function before(
  p: Promise<unknown>,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<"settled" | "timeout" | "cancelled"> {
  if (signal?.aborted) return "cancelled";
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const expired = new Promise<"timeout">(
    (r) => (timer = setTimeout(() => r("timeout"), Math.max(0, deadline - Date.now()))),
  );
  const cancelled = new Promise<"cancelled">((r) => {
    onAbort = () => r("cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([p.then(() => "settled" as const), expired, cancelled]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/** The wait was cancelled through its signal (the stream it serves ended) before the lock was taken. */
function cancelledError(path: string): ContinuationError {
  return storageFailure(`lock ${path}: the wait was cancelled (the request's stream ended) before the lock was taken`);
}

/**
 * Join the in-process queue of `path`: `previous` settles when every command ahead has left;
 * `leave` (call it exactly once, idempotent) lets the next one go and counts this one out of `busy`.
 */
function queueUp(path: string): { readonly previous: Promise<void>; readonly leave: () => void } {
  const previous = queues.get(path) ?? Promise.resolve();
  const out = enter(path);
  let settle: () => void = () => undefined;
  const mine = new Promise<void>((r) => (settle = r));
  const tail = previous.then(() => mine);
  queues.set(path, tail);
  void tail.then(() => {
    if (queues.get(path) === tail) queues.delete(path);
  });
  return {
    previous,
    leave: () => {
      out();
      settle();
    },
  };
}

/**
 * Take the lock of `thread` (exclusive unless `shared`), waiting at most `timeoutMs`, and no longer
 * than `signal` stays unaborted. The root must exist. Throws ContinuationError `storage_failure`
 * when the lock file cannot be opened, the wait times out or it is cancelled. A kernel wait given
 * up either way stays parked in its libuv thread until the holder releases (counted by
 * {@link abandonedLockWaits}, so a one-shot CLI knows to exit explicitly).
 */
export async function acquireThreadLock(
  root: string,
  thread: string,
  options: { readonly shared: boolean; readonly timeoutMs: number; readonly signal?: AbortSignal },
): Promise<HeldLock> {
  const path = lockPath(root, thread);
  const deadline = Date.now() + options.timeoutMs;
  const { previous, leave } = queueUp(path);
  try {
    const queued = await before(previous, deadline, options.signal);
    if (queued !== "settled") {
      void previous.then(leave); // keep the queue's order for those after us
      throw queued === "cancelled" ? cancelledError(path) : timeoutError(path, options.timeoutMs, "queue");
    }
    const lock = await lockFile(path, options.shared, deadline, options.timeoutMs, options.signal);
    return {
      path,
      async release(o) {
        await lock.release(o);
        leave();
      },
    };
  } catch (error) {
    leave();
    throw error;
  }
}

/** Lock the file at `path`: a non-blocking try, then a blocking wait in a libuv thread up to the deadline (or the signal). */
async function lockFile(
  path: string,
  shared: boolean,
  deadline: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<HeldLock> {
  for (;;) {
    const opened = await openLockFile(path, shared);
    if (opened === null) return unlocked(path);
    let handle: FileHandle = opened;
    try {
      if (!locks().tryLock(handle.fd, 0, 0, { shared })) {
        const waiting = locks().waitForLock(handle.fd, 0, 0, { shared });
        const waited = await before(waiting, deadline, signal);
        if (waited !== "settled") {
          abandoned++;
          const h = handle;
          void waiting
            .catch(() => undefined)
            .finally(() => {
              abandoned--;
              void h.close().catch(() => undefined);
            });
          handle = undefined as unknown as FileHandle;
          throw waited === "cancelled" ? cancelledError(path) : timeoutError(path, timeoutMs, "kernel");
        }
      }
      // A holder may have unlinked the file (drop-thread) before releasing: then start over.
      if (await sameFile(handle, path)) return held(handle, path);
    } catch (error) {
      await handle?.close().catch(() => undefined);
      throw error instanceof ContinuationError ? error : storageFailure(describeIoError("lock", path, error));
    }
    await handle.close().catch(() => undefined);
  }
}

/**
 * Open the lock file (created when missing). A shared lock (a reader) on a store we cannot write falls
 * back to the existing file opened read-only, and to no lock at all (null) when there is none: no
 * writer of ours can be working there without having created it.
 */
async function openLockFile(path: string, shared: boolean): Promise<FileHandle | null> {
  try {
    return await open(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    if (!shared || !READ_ONLY_CODES.has(code)) throw storageFailure(describeIoError("open lock file", path, error));
    try {
      return await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (again) {
      // No lock file, or one we may not even read (another user's store): read without the lock; an
      // entry is still replaced atomically and drop-thread is one rename, so a reader sees whole entries.
      const code2 = (again as NodeJS.ErrnoException).code ?? "";
      if (code2 === "ENOENT" || READ_ONLY_CODES.has(code2)) return null;
      throw storageFailure(describeIoError("open lock file", path, again));
    }
  }
}

/** The lock of a read-only store that has no lock file: nothing to hold, nothing to release. */
function unlocked(path: string): HeldLock {
  return { path, release: () => Promise.resolve() };
}

/**
 * Take the exclusive lock of `thread` only if it is free right now, in this process and in the
 * kernel; null when it is not (never waits). For best-effort work such as removing expired entries.
 * Throws ContinuationError `storage_failure` when the lock file cannot be opened.
 */
export async function tryAcquireThreadLock(root: string, thread: string): Promise<HeldLock | null> {
  const path = lockPath(root, thread);
  if (busy.has(path)) return null; // this process holds it or waits for it
  const { leave } = queueUp(path); // nobody is ahead: `previous` is settled
  let handle: FileHandle | undefined;
  try {
    handle = (await openLockFile(path, false)) as FileHandle;
    if (locks().tryLock(handle.fd, 0, 0, { shared: false }) && (await sameFile(handle, path))) {
      const lock = held(handle, path);
      return {
        path,
        async release(o) {
          await lock.release(o);
          leave();
        },
      };
    }
    await handle.close().catch(() => undefined);
    leave();
    return null;
  } catch (error) {
    await handle?.close().catch(() => undefined);
    leave();
    throw error instanceof ContinuationError ? error : storageFailure(describeIoError("lock", path, error));
  }
}

async function sameFile(handle: FileHandle, path: string): Promise<boolean> {
  const [a, b] = await Promise.all([handle.stat(), stat(path).catch(() => null)]);
  return b !== null && a.dev === b.dev && a.ino === b.ino;
}

function held(handle: FileHandle, path: string): HeldLock {
  let released = false;
  return {
    path,
    async release(options) {
      if (released) return;
      released = true;
      if (options?.unlinkFile) await unlink(path).catch(() => undefined);
      // Closing the only descriptor of the file description releases the lock.
      await handle.close().catch(() => undefined);
    },
  };
}
