/**
 * The `--receipts` file of one `hook` call (spec/hook-command.md, "Receipts"): opened before the
 * first delivery, so a file that cannot be appended to is found before any client runs, and held
 * open until the call ends (a FIFO's reader sees one writer for the whole call).
 *
 * Every line is whole: an append cut short (a full disk: ENOSPC, or EFBIG past a file-size limit)
 * truncates a regular file back to its size before the append, so no half line is left for the
 * next call's receipt to be glued onto. (The file stays write-only: opening it for reading too
 * would make open(2) of a FIFO without a reader succeed instead of failing with ENXIO.)
 */
import { closeSync, constants, fstatSync, ftruncateSync, openSync, unlinkSync } from "node:fs";
import { writeAllSync } from "../../process/write-all.js";

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

  /**
   * Append one line (a receipt and its newline), whole or not at all (see the module doc; a FIFO or
   * other non-regular file cannot be cut back: there a failed append may leave part of the line).
   * @throws the file system's error (ENOSPC, EFBIG, EAGAIN on a full FIFO, ...)
   */
  append(line: string): void {
    const bytes = Buffer.from(line);
    const stats = fstatSync(this.fd);
    const before = stats.isFile() ? stats.size : null;
    try {
      writeAllSync(this.fd, bytes);
    } catch (error) {
      try {
        if (before !== null) ftruncateSync(this.fd, before);
      } catch {
        // The write's error is the one to report.
      }
      throw error;
    }
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
