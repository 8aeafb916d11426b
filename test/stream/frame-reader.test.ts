/**
 * FrameReader bounds (spec/stream-protocol.md §"Framing"): the bytes held never exceed
 * max_frame_bytes whatever arrives, a stream without LF fails at exactly the byte after the limit,
 * and a large frame delivered in small chunks is joined once (its pieces are kept, not re-scanned),
 * or, past 1 MiB, copied chunk by chunk into a growing buffer of its own (runtime/wire/byte-gather.ts).
 */
import { describe, expect, it } from "vitest";
import { GATHER_INLINE_BYTES } from "../../runtime/wire/byte-gather.js";
import { FrameReader } from "../../runtime/stream/frame-reader.js";

describe("FrameReader", () => {
  it("64 MiB without LF: fails at byte max+1 and never holds more than max bytes", () => {
    const max = 1024 * 1024;
    const reader = new FrameReader(max);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let fed = 0;
    let failedAt = -1;
    for (let i = 0; i < 1024 && failedAt < 0; i++) {
      const events = reader.push(chunk);
      fed += chunk.length;
      expect(reader.bufferedBytes).toBeLessThanOrEqual(max);
      if (events.some((e) => e.type === "violation")) failedAt = fed;
    }
    expect(failedAt).toBe(max + chunk.length);
    expect(reader.broken).toBe(true);
    expect(reader.bufferedBytes).toBe(0);
    expect(reader.push(chunk)).toEqual([]);
  });

  it("exactly the limit passes and one more byte fails, fed one byte at a time", () => {
    for (const [size, ok] of [
      [16, true],
      [17, false],
    ] as const) {
      const reader = new FrameReader(16);
      const bytes = Buffer.concat([Buffer.alloc(size, 0x20), Buffer.from("\n")]);
      const events = [...bytes].flatMap((b) => reader.push(Buffer.from([b])));
      expect(events.map((e) => e.type)).toEqual([ok ? "frame" : "violation"]);
    }
  });

  it("an 8 MiB frame in 1 KiB chunks arrives whole, as one frame", () => {
    const reader = new FrameReader(16 * 1024 * 1024);
    const body = Buffer.alloc(8 * 1024 * 1024, 0x78);
    const frames: Buffer[] = [];
    for (let at = 0; at < body.length; at += 1024) for (const e of reader.push(body.subarray(at, at + 1024))) if (e.type === "frame") frames.push(e.bytes);
    for (const e of reader.push(Buffer.from("\n"))) if (e.type === "frame") frames.push(e.bytes);
    expect(frames.length).toBe(1);
    expect((frames[0] as Buffer).equals(body)).toBe(true);
  });

  it("frames just under, at and over 1 MiB and far over it, back to back in 64 KiB chunks: each arrives whole and stays intact", () => {
    const sizes = [GATHER_INLINE_BYTES - 1, GATHER_INLINE_BYTES, GATHER_INLINE_BYTES + 1, 3 * GATHER_INLINE_BYTES + 12345, 10];
    // Distinct bytes per frame (never LF), so a frame that shared memory with a later one would differ.
    const bodies = sizes.map((n, f) => Buffer.from(Array.from({ length: n }, (_, i) => 0x20 + ((i * 7 + f * 13) % 90))));
    const stream = Buffer.concat(bodies.flatMap((b) => [b, Buffer.from("\n")]));
    const reader = new FrameReader(4 * GATHER_INLINE_BYTES);
    const frames: Buffer[] = [];
    for (let at = 0; at < stream.length; at += 65536) {
      for (const e of reader.push(stream.subarray(at, at + 65536))) {
        expect(e.type).toBe("frame");
        if (e.type === "frame") frames.push(e.bytes);
      }
    }
    expect(frames.length).toBe(bodies.length);
    for (const [i, body] of bodies.entries()) expect((frames[i] as Buffer).equals(body)).toBe(true);
  });
});
