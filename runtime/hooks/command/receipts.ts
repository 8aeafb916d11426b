/**
 * The `--receipts` file of one `hook` call (spec/hook-command.md, "Receipts"): opened before the
 * first delivery, so a file that cannot be appended to is found before any client runs, and held
 * open until the call ends (a FIFO's reader sees one writer for the whole call).
 */
import { closeSync, constants, openSync, unlinkSync, writeSync } from "node:fs";

/** Open flags of every attempt: non-blocking, so a FIFO nobody reads fails at once (ENXIO). */
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK;

/** An open receipts file. */
export class ReceiptsFile {
  private lines = 0;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    /** This call created the file: with no line written it is removed again on close. */
    private readonly created: boolean,
  ) {}

  /**
   * Open `path` for appending, creating it (mode 0666 less the umask) when it does not exist; the
   * directory must exist. Non-blocking: a FIFO without a reader throws ENXIO instead of blocking
   * in open(2) past every deadline and deaf to SIGTERM; a regular file is unaffected.
   * @throws the file system's error (ENOENT, ENOTDIR, EISDIR, EACCES, ENXIO, ...)
   */
  static open(path: string): ReceiptsFile {
    for (let attempt = 0; ; attempt++) {
      try {
        return new ReceiptsFile(path, openSync(path, APPEND), false);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt > 0) throw error;
      }
      try {
        // O_EXCL: know whether this call made the file (another hook call may make it meanwhile).
        return new ReceiptsFile(path, openSync(path, APPEND | constants.O_CREAT | constants.O_EXCL, 0o666), true);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
  }

  /** Append one line (a receipt and its newline). @throws the file system's error (ENOSPC, EAGAIN on a full FIFO, ...) */
  append(line: string): void {
    const bytes = Buffer.from(line);
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at);
    this.lines++;
  }

  /** Close the file; a file this call created and wrote nothing to is removed, leaving no stray file. Never throws. */
  close(): void {
    try {
      closeSync(this.fd);
      if (this.created && this.lines === 0) unlinkSync(this.path);
    } catch {
      // Nothing to report: every receipt written has been written.
    }
  }
}
