/**
 * Reading a file the user named (a baseline, a fixture, a schema) without ever blocking or growing
 * without bound: it is opened non-blocking (a FIFO without a writer opens at once instead of waiting
 * in open(2)), must be a regular file (a FIFO, socket, device or directory is refused by kind) and,
 * when a bound is given, at most `maxBytes` bytes (at most `maxBytes` + 1 bytes are ever read, even
 * when the file grows after fstat).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats } from "node:fs";

/** What {@link readRegularFile} found: the bytes, or why not (`error` is the file system's). */
export type RegularFileRead =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly problem: "open" | "read"; readonly error: unknown }
  | { readonly ok: false; readonly problem: "not_regular"; readonly kind: string }
  | { readonly ok: false; readonly problem: "too_large" };

/** What a file that is not a regular file is, for messages: "a FIFO", "a socket", "a device", "a directory" or "not a file". */
export function fileKind(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isDirectory()) return "a directory";
  return "not a file";
}

/**
 * The bytes of the regular file at `path`, at most `maxBytes` bytes (default: unbounded). With
 * `regularOnly` false, any kind of file is read up to the bound (a FIFO without a writer reads as
 * empty, `/dev/zero` as too large). Never throws and never blocks (see the module doc).
 */
export function readRegularFile(
  path: string,
  maxBytes = Number.POSITIVE_INFINITY,
  regularOnly = true,
): RegularFileRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, problem: "open", error };
  }
  try {
    const stats = fstatSync(fd);
    const regular = stats.isFile();
    if (!regular && regularOnly) return { ok: false, problem: "not_regular", kind: fileKind(stats) };
    if (maxBytes === Number.POSITIVE_INFINITY) return { ok: true, bytes: readFileSync(fd) };
    if (regular && stats.size > maxBytes) return { ok: false, problem: "too_large" };
    // The size may change between fstat and read (and a device has none): read until EOF or one
    // byte past the bound, in chunks of at most 1 MiB.
    const chunks: Buffer[] = [];
    let n = 0;
    const limit = maxBytes + 1;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(1 << 20, Math.max(1, limit - n)));
      const got = readSync(fd, chunk, 0, chunk.length, null);
      if (got === 0) break;
      chunks.push(chunk.subarray(0, got));
      n += got;
      if (n >= limit) return { ok: false, problem: "too_large" };
    }
    return { ok: true, bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, n) };
  } catch (error) {
    return { ok: false, problem: "read", error };
  } finally {
    closeSync(fd);
  }
}
