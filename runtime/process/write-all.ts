/**
 * Writing every byte or failing (spec/continuation-store.md §"Durability", spec/hook-command.md
 * §"State" and §"Receipts"). write(2) may write less than asked: a full file system (or a file-size
 * limit, RLIMIT_FSIZE) cuts the write short and fails the next one with ENOSPC (or EFBIG). A caller
 * that ignores the short count keeps a cut file as if it were whole, so every write loop of the
 * project goes through these helpers: they continue after a short write and throw on the error
 * that follows. Node ignores SIGXFSZ, so a file-size limit reaches us as EFBIG, not as a signal.
 */
import { writeSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";

/** The errno-shaped error of a write(2) that wrote nothing and reported no error (a full device). */
function wroteNothing(): NodeJS.ErrnoException {
  return Object.assign(new Error("ENOSPC: write wrote 0 bytes (no space left on device)"), {
    code: "ENOSPC",
    syscall: "write",
  });
}

/**
 * Write all of `chunks`, in order, to `handle` from file offset `position` (bytes) on, continuing
 * after short writes. @throws the file system's error (ENOSPC, EFBIG, EIO, ...), after which part of
 * the bytes may be in the file: the caller removes or truncates it.
 */
export async function writeAll(handle: FileHandle, chunks: readonly Uint8Array[], position = 0): Promise<void> {
  let pending = chunks.filter((c) => c.byteLength > 0);
  let at = position;
  while (pending.length > 0) {
    const { bytesWritten } = await handle.writev(pending, at);
    if (bytesWritten === 0) throw wroteNothing();
    at += bytesWritten;
    pending = dropBytes(pending, bytesWritten);
  }
}

/** `chunks` without their first `n` bytes. */
function dropBytes(chunks: readonly Uint8Array[], n: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let skip = n;
  for (const c of chunks) {
    if (skip >= c.byteLength) {
      skip -= c.byteLength;
      continue;
    }
    out.push(skip > 0 ? c.subarray(skip) : c);
    skip = 0;
  }
  return out;
}

/**
 * Write all of `bytes` to the descriptor `fd` at its current offset (or its end, for O_APPEND),
 * continuing after short writes. @throws the file system's error (ENOSPC, EFBIG, EAGAIN on a full
 * pipe, ...), after which part of the bytes may have been written: the caller repairs the file.
 */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.byteLength; ) {
    const n = writeSync(fd, bytes, at, bytes.byteLength - at);
    if (n === 0) throw wroteNothing();
    at += n;
  }
}
