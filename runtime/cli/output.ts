/**
 * Standard output of the one-shot CLI, buffered: `session` prints one line per event, and one
 * synchronous write(2) per line was about a quarter of a stream session's CPU time per event
 * (issue 30). Text and bytes are kept in order and written in one piece when OUTPUT_FLUSH_BYTES
 * have gathered, OUTPUT_FLUSH_DELAY_MS after the first unwritten chunk (so a reader following a
 * long session still sees its lines promptly), and at the end (the caller's {@link BufferedOutput.flush},
 * and at process exit for a command that calls process.exit). A write error (EPIPE, ENOSPC) is the
 * stream's 'error' event, as unbuffered: the caller's handler decides.
 */

/** Bytes gathered before a write, whatever the delay (one pipe buffer's worth). */
export const OUTPUT_FLUSH_BYTES = 64 * 1024;
/** Longest time an unwritten chunk waits, in ms. */
export const OUTPUT_FLUSH_DELAY_MS = 20;

/** Where the buffer writes: a Writable's write, returning false when the stream asks to wait ('drain'). */
export interface OutputSink {
  write(chunk: string | Uint8Array): boolean;
  once(event: "drain", listener: () => void): unknown;
}

/** An ordered buffer of text and bytes in front of one output stream. */
export class BufferedOutput {
  private chunks: Array<string | Uint8Array> = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The sink asked to wait: gather until it drains, so writes never pile up in the stream. */
  private waiting = false;

  constructor(private readonly sink: OutputSink) {}

  /** Append text (UTF-8) or bytes; written at the next flush. */
  write(chunk: string | Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
    if (this.bytes >= OUTPUT_FLUSH_BYTES) this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), OUTPUT_FLUSH_DELAY_MS);
      // The buffer never keeps the process alive: the end of the command flushes it.
      this.timer.unref();
    }
  }

  /** Write everything gathered, in one piece (unless the sink asked to wait: then at its 'drain'). */
  flush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.chunks.length === 0 || this.waiting) return;
    const chunks = this.chunks;
    this.chunks = [];
    this.bytes = 0;
    const piece = chunks.every((c) => typeof c === "string")
      ? (chunks as string[]).join("")
      : Buffer.concat(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : c)));
    if (!this.sink.write(piece)) {
      this.waiting = true;
      this.sink.once("drain", () => {
        this.waiting = false;
        this.flush();
      });
    }
  }
}
