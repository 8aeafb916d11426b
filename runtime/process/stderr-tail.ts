/**
 * A bounded tail of a byte stream (the client's stderr, spec/tables/subprocess-wire-framing.json):
 * keeps only the last `capacity` bytes, whatever arrives, so stderr never grows host memory and
 * never fails an exchange.
 */

/** Collects the last `capacity` bytes pushed into it; memory stays at `capacity` bytes. */
export class ByteTail {
  private buffer: Buffer | null = null;
  private length = 0;
  private total = 0;
  /** {@link text} of the bytes kept now; null once more bytes arrived. */
  private cached: string | null = null;

  /** `capacity`: bytes kept (limits.stderr_tail_bytes); the buffer is allocated on the first byte. */
  constructor(readonly capacity: number) {}

  /** Append a chunk; older bytes beyond the capacity are dropped. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.cached = null;
    this.total += chunk.length;
    const cap = this.capacity;
    this.buffer ??= Buffer.alloc(cap);
    const buffer = this.buffer;
    if (chunk.length >= cap) {
      buffer.set(chunk.subarray(chunk.length - cap));
      this.length = cap;
      return;
    }
    const keep = Math.min(this.length, cap - chunk.length);
    if (keep < this.length) buffer.copyWithin(0, this.length - keep, this.length);
    buffer.set(chunk, keep);
    this.length = keep + chunk.length;
  }

  /** Bytes seen in total (kept or dropped). */
  get totalBytes(): number {
    return this.total;
  }

  /** True when bytes were dropped from the front. */
  get truncated(): boolean {
    return this.total > this.length;
  }

  /**
   * The kept bytes as text: UTF-8 with invalid sequences replaced by U+FFFD; when the front was cut,
   * continuation bytes of a character split by the cut are skipped first.
   */
  text(): string {
    if (this.cached !== null) return this.cached;
    this.cached = this.decode();
    return this.cached;
  }

  private decode(): string {
    const buffer = this.buffer;
    if (buffer === null) return "";
    let start = 0;
    if (this.truncated) {
      while (start < this.length && start < 3 && ((buffer[start] as number) & 0xc0) === 0x80) start++;
    }
    return buffer.toString("utf8", start, this.length);
  }
}
