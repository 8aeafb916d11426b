/**
 * Gathers the chunks of one bounded byte sequence read from a pipe (a client's stdout, one stream
 * frame) into one Buffer without ever copying a large document in one step (spec/host-runtime.md
 * §"Bounds", "never block the event loop for more than 50 ms"): joining 16 MiB of chunks at EOF is
 * one native copy that, with the page faults of the fresh memory, costs 15-25 ms on a loaded
 * 2-core machine. Small sequences (up to {@link GATHER_INLINE_BYTES}) are kept as chunks and joined
 * once; past that, one buffer of the sequence's bound (`capacity` bytes, the limit the caller
 * enforces) is reserved and every chunk is copied into it as it arrives. The reserve is
 * uninitialised memory that the OS maps on first write, so only the bytes written cost memory.
 */

/** Up to this many bytes, chunks are joined once at the end (a copy of at most about 1 ms). */
export const GATHER_INLINE_BYTES = 1 << 20;

/** A bound above this is not reserved up front (the chunks are then joined once at the end, as for small sequences). */
const RESERVE_MAX_BYTES = 1 << 30;

/** One byte sequence being gathered; {@link take} hands it over and starts the next. */
export class ByteGather {
  private parts: Buffer[] = [];
  private reserve: Buffer | null = null;
  private bytes = 0;
  /** False once a reserve could not be allocated (this gatherer joins its chunks from then on). */
  private canReserve: boolean;

  /** `capacity`: the most bytes the caller ever pushes for one sequence (it enforces its limit before pushing). */
  constructor(readonly capacity: number) {
    this.canReserve = capacity > GATHER_INLINE_BYTES && capacity <= RESERVE_MAX_BYTES;
  }

  /** Bytes gathered so far. */
  get length(): number {
    return this.bytes;
  }

  /** Append `chunk` (the caller guarantees length + chunk.length <= capacity). The chunk is not copied while the sequence is small; do not reuse it. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const reserve = this.reserve === null && this.canReserve && this.bytes + chunk.length > GATHER_INLINE_BYTES ? this.reserveNow() : null;
    if (reserve !== null) {
      this.reserve = reserve;
      let at = 0;
      for (const part of this.parts) {
        reserve.set(part, at);
        at += part.length;
      }
      this.parts = [];
    }
    if (this.reserve !== null) this.reserve.set(chunk, this.bytes);
    else this.parts.push(chunk);
    this.bytes += chunk.length;
  }

  /** Reserve `capacity` bytes; null when the allocation fails (then the chunks are joined at the end). */
  private reserveNow(): Buffer | null {
    try {
      return Buffer.allocUnsafeSlow(this.capacity);
    } catch {
      this.canReserve = false;
      return null;
    }
  }

  /** The gathered bytes as one Buffer (at most one copy of at most GATHER_INLINE_BYTES); the gatherer is empty again. */
  take(): Buffer {
    const out = this.reserve !== null ? this.reserve.subarray(0, this.bytes) : this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.bytes);
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
