/**
 * Gathers the chunks of one bounded byte sequence read from a pipe (a client's stdout, one stream
 * frame) into one Buffer without ever copying a large document in one step (spec/host-runtime.md
 * §"Bounds", "never block the event loop for more than 50 ms"): joining 16 MiB of chunks at EOF is
 * one native copy that, with the page faults of the fresh memory, costs 15-25 ms on a loaded
 * 2-core machine. Small sequences (up to {@link GATHER_INLINE_BYTES}) are kept as chunks and joined
 * once; past that, the chunks are copied as they arrive into one buffer that doubles when full
 * (2, 4, 8, 16 MiB ... up to `capacity`, the bound the caller enforces): each step copies at most
 * half the bound (a few ms), and the buffer is at most twice the bytes gathered. (Reserving the
 * whole bound at once would cost no RSS, but V8 counts it as external memory: many concurrent
 * large responses would then bring on full garbage collections.)
 */

/** Up to this many bytes, chunks are joined once at the end (a copy of at most about 1 ms). */
export const GATHER_INLINE_BYTES = 1 << 20;

/** One byte sequence being gathered; {@link take} hands it over and starts the next. */
export class ByteGather {
  private parts: Buffer[] = [];
  private reserve: Buffer | null = null;
  private bytes = 0;
  /** False once a reserve could not be allocated (this gatherer joins its chunks from then on). */
  private canReserve: boolean;

  /** `capacity`: the most bytes the caller ever pushes for one sequence (it enforces its limit before pushing). */
  constructor(readonly capacity: number) {
    this.canReserve = capacity > GATHER_INLINE_BYTES;
  }

  /** Bytes gathered so far. */
  get length(): number {
    return this.bytes;
  }

  /** Append `chunk` (the caller guarantees length + chunk.length <= capacity). The chunk is not copied while the sequence is small; do not reuse it. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const need = this.bytes + chunk.length;
    if (this.canReserve && need > (this.reserve === null ? GATHER_INLINE_BYTES : this.reserve.length)) this.grow(need);
    if (this.reserve !== null) this.reserve.set(chunk, this.bytes);
    else this.parts.push(chunk);
    this.bytes = need;
  }

  /** Move what was gathered into a buffer of at least `need` bytes (doubling, at most `capacity`); on a failed allocation, go on with chunks. */
  private grow(need: number): void {
    let size = this.reserve === null ? 2 * GATHER_INLINE_BYTES : this.reserve.length;
    while (size < need) size *= 2;
    let next: Buffer;
    try {
      next = Buffer.allocUnsafeSlow(Math.min(Math.max(size, need), Math.max(this.capacity, need)));
    } catch {
      this.canReserve = false;
      if (this.reserve !== null) this.parts = [this.reserve.subarray(0, this.bytes)];
      this.reserve = null;
      return;
    }
    if (this.reserve !== null) this.reserve.copy(next, 0, 0, this.bytes);
    else {
      let at = 0;
      for (const part of this.parts) {
        next.set(part, at);
        at += part.length;
      }
      this.parts = [];
    }
    this.reserve = next;
  }

  /** The gathered bytes as one Buffer (no copy of more than GATHER_INLINE_BYTES); the gatherer is empty again. */
  take(): Buffer {
    const out =
      this.reserve !== null
        ? this.reserve.subarray(0, this.bytes)
        : this.parts.length === 1
          ? (this.parts[0] as Buffer)
          : Buffer.concat(this.parts, this.bytes);
    this.clear();
    return out;
  }

  /** Drop what was gathered. */
  clear(): void {
    this.parts = [];
    this.reserve = null;
    this.bytes = 0;
  }
}
