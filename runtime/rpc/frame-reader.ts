/**
 * The byte-bounded line reader of stream mode (spec/stream-protocol.md §"Framing", rules
 * `stream.frame-lf`, `stream.frame-cr`, `stream.empty-frame`, `stream.frame-too-large`,
 * `stream.unterminated-frame`). Shared by the host and the TypeScript client runner.
 *
 * - Frames end at LF (0x0A) only; no other byte or character splits (never `readline`).
 * - The bound counts the bytes of the current frame since the last LF (a CR included): a frame of
 *   exactly `maxFrameBytes` bytes passes; the chunk that brings byte `maxFrameBytes + 1` yields the
 *   violation at once, and nothing more is buffered or read after it.
 * - Buffering is linear: the pieces of a partial frame are gathered by a ByteGather (slices joined
 *   once at the LF; a frame past 1 MiB is copied chunk by chunk into one buffer that doubles when
 *   full, so a 16 MiB frame is never joined in one long step).
 * - One CR right before the LF is removed; an empty frame (after that removal) is a violation.
 */
import { ByteGather } from "../wire/byte-gather.js";
import type { ValidationIssue } from "../wire/issues.js";

/** What {@link FrameReader.push} and {@link FrameReader.end} yield, in stream order. */
export type FrameEvent =
  | { readonly type: "frame"; readonly bytes: Buffer }
  | { readonly type: "violation"; readonly issue: ValidationIssue };

const LF = 0x0a;
const CR = 0x0d;

/** Splits a byte stream into frames; after the first violation it yields nothing more. */
export class FrameReader {
  private readonly parts: ByteGather;
  private failed = false;
  private frames = 0;

  /** `maxFrameBytes`: bytes per frame, LF excluded (limits.max_frame_bytes). */
  constructor(readonly maxFrameBytes: number) {
    this.parts = new ByteGather(maxFrameBytes);
  }

  /** True once a violation was yielded (the stream is over). */
  get broken(): boolean {
    return this.failed;
  }

  /** Bytes held for the current partial frame (never more than maxFrameBytes). */
  get bufferedBytes(): number {
    return this.parts.length;
  }

  /** Feed one chunk; returns the frames it completes and at most one violation (the last event). */
  push(chunk: Uint8Array): FrameEvent[] {
    if (this.failed || chunk.length === 0) return [];
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const out: FrameEvent[] = [];
    let pos = 0;
    for (;;) {
      const lf = buf.indexOf(LF, pos);
      const end = lf === -1 ? buf.length : lf;
      if (this.parts.length + (end - pos) > this.maxFrameBytes) {
        out.push(
          this.fail(
            "stream.frame-too-large",
            `frame ${this.frames + 1} is longer than ${this.maxFrameBytes} bytes (limits.max_frame_bytes) without its LF; nothing more is read`,
          ),
        );
        return out;
      }
      if (lf === -1) {
        if (end > pos) this.parts.push(buf.subarray(pos, end));
        return out;
      }
      const piece = buf.subarray(pos, lf);
      let frame: Buffer;
      if (this.parts.length === 0) frame = piece;
      else {
        this.parts.push(piece);
        frame = this.parts.take();
      }
      pos = lf + 1;
      this.frames++;
      if (frame.length > 0 && frame[frame.length - 1] === CR) frame = frame.subarray(0, frame.length - 1);
      if (frame.length === 0) {
        out.push(this.fail("stream.empty-frame", `frame ${this.frames} is an empty line`));
        return out;
      }
      out.push({ type: "frame", bytes: frame });
      // The chunk ended with this LF (the common chunk: one whole frame): no second search.
      if (pos === buf.length) return out;
    }
  }

  /** The input ended: a partial frame left over is `stream.unterminated-frame`. */
  end(): FrameEvent[] {
    if (this.failed || this.parts.length === 0) return [];
    return [
      this.fail(
        "stream.unterminated-frame",
        `the input ended inside frame ${this.frames + 1} (${this.parts.length} bytes without LF)`,
      ),
    ];
  }

  private fail(rule: string, message: string): FrameEvent {
    this.failed = true;
    this.parts.clear();
    return { type: "violation", issue: { rule, pointer: "", message } };
  }
}
