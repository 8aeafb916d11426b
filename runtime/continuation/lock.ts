/**
 * The per-thread lock of the continuation store (ours: the reference takes none; see
 * spec/continuation-store.md §"Concurrency"). One lock file per thread at the store root,
 * `entry_format.lock_file` (`.<thread>.lock`, never a valid thread name), locked with a Linux
 * open-file-description lock (`F_OFD_SETLK`, through the `fs-native-extensions` package; flock on
 * macOS). The kernel releases such a lock when its holder's file description closes, so a holder that
 * crashes or is killed with SIGKILL cannot wedge the thread: the next waiter gets the lock at once,
 * with no stale-lock timeout to guess. Writers take it exclusive, `list` shared.
 *
 * Acquisition never blocks a libuv thread: it polls the non-blocking lock with a short, jittered
 * backoff up to a deadline, and then fails with `storage_failure`. The holder may unlink the lock file
 * before releasing it (drop-thread does); a waiter then finds that the file it locked is no longer the
 * one at the path (device and inode differ) and retries on the new file.
 */
import { open, stat, unlink, type FileHandle } from "node:fs/promises";
import { constants } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describeIoError, storageFailure } from "./errors.js";
import { CONTINUATION, FILE_MODE, expandName } from "./table.js";

interface NativeLocks {
  tryLock(fd: number, offset: number, length: number, options: { readonly shared: boolean }): boolean;
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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Take the lock of `thread` (exclusive unless `shared`), waiting at most `timeoutMs`. The root must
 * exist. Throws ContinuationError `storage_failure` when the lock file cannot be opened or the wait
 * times out.
 */
export async function acquireThreadLock(root: string, thread: string, options: { readonly shared: boolean; readonly timeoutMs: number }): Promise<HeldLock> {
  const path = lockPath(root, thread);
  const deadline = Date.now() + options.timeoutMs;
  let delay = 1;
  for (;;) {
    let handle: FileHandle;
    try {
      handle = await open(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, FILE_MODE);
    } catch (error) {
      throw storageFailure(describeIoError("open lock file", path, error));
    }
    let locked = false;
    try {
      locked = locks().tryLock(handle.fd, 0, 0, { shared: options.shared });
      if (locked && (await sameFile(handle, path))) return held(handle, path);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw storageFailure(describeIoError("lock", path, error));
    }
    await handle.close().catch(() => undefined);
    if (!locked && Date.now() >= deadline) throw storageFailure(`lock ${path}: still held by another process after ${options.timeoutMs} ms`);
    await sleep(locked ? 0 : delay * (0.5 + Math.random()));
    delay = Math.min(delay * 2, 16);
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
