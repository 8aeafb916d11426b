/**
 * FrameReader bounds (spec/stream-protocol.md §"Framing"): the bytes held never exceed
 * max_frame_bytes whatever arrives, a stream without LF fails at exactly the byte after the limit,
 * and a large frame delivered in small chunks is joined once (its pieces are kept, not re-scanned),
 * or, past 1 MiB, copied chunk by chunk into a growing buffer of its own (runtime/wire/byte-gather.ts).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GATHER_INLINE_BYTES } from "../../runtime/wire/byte-gather.js";
import { FrameReader } from "../../runtime/rpc/frame-reader.js";

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
    for (let at = 0; at < body.length; at += 1024)
      for (const e of reader.push(body.subarray(at, at + 1024))) if (e.type === "frame") frames.push(e.bytes);
    for (const e of reader.push(Buffer.from("\n"))) if (e.type === "frame") frames.push(e.bytes);
    expect(frames.length).toBe(1);
    expect((frames[0] as Buffer).equals(body)).toBe(true);
  });

  it("frames just under, at and over 1 MiB and far over it, back to back in 64 KiB chunks: each arrives whole and stays intact", () => {
    const sizes = [
      GATHER_INLINE_BYTES - 1,
      GATHER_INLINE_BYTES,
      GATHER_INLINE_BYTES + 1,
      3 * GATHER_INLINE_BYTES + 12345,
      10,
    ];
    // Distinct bytes per frame (never LF), so a frame that shared memory with a later one would differ.
    const bodies = sizes.map((n, f) =>
      Buffer.from(Array.from({ length: n }, (_, i) => 0x20 + ((i * 7 + f * 13) % 90))),
    );
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

  it("any stream cut into chunks anywhere (several frames per chunk, a chunk ending at an LF, CR LF, empty lines, the limit and one over) yields what one pass over the whole stream yields", () => {
    const max = 8;
    /** The reference: the whole stream at once, frame by frame, by the rules of the module doc. */
    const reference = (bytes: Buffer): string[] => {
      const out: string[] = [];
      let pos = 0;
      for (;;) {
        const lf = bytes.indexOf(0x0a, pos);
        const end = lf === -1 ? bytes.length : lf;
        if (end - pos > max) return [...out, "too-large"];
        if (lf === -1) return pos < bytes.length ? [...out, "partial"] : out;
        let frame = bytes.subarray(pos, lf);
        if (frame.length > 0 && frame[frame.length - 1] === 0x0d) frame = frame.subarray(0, frame.length - 1);
        if (frame.length === 0) return [...out, "empty"];
        out.push(frame.toString("latin1"));
        pos = lf + 1;
      }
    };
    const run = (bytes: Buffer, cuts: number[]): string[] => {
      const reader = new FrameReader(max);
      const out: string[] = [];
      const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
      let from = 0;
      const take = (events: ReturnType<FrameReader["push"]>): void => {
        for (const e of events)
          out.push(
            e.type === "frame"
              ? e.bytes.toString("latin1")
              : e.issue.rule === "stream.frame-too-large"
                ? "too-large"
                : e.issue.rule === "stream.empty-frame"
                  ? "empty"
                  : "partial",
          );
      };
      for (const cut of [...at, bytes.length]) {
        take(reader.push(bytes.subarray(from, cut)));
        from = Math.max(from, cut);
      }
      take(reader.end());
      return out;
    };
    const frame = fc.oneof(
      { weight: 6, arbitrary: fc.stringMatching(/^[a-z{}"]{1,9}$/) },
      fc.constantFrom("", "\r", "a\r", "12345678", "1234567\r", "123456789", "1234567\r\r"),
    );
    fc.assert(
      fc.property(
        fc.array(frame, { maxLength: 8 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 10 }),
        (frames, lastLf, cuts) => {
          const bytes = Buffer.from(frames.join("\n") + (lastLf && frames.length > 0 ? "\n" : ""), "latin1");
          expect(run(bytes, cuts)).toEqual(reference(bytes));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
