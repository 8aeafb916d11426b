/**
 * The response gather (ByteGather, issue 8): a client's stdout of every size around the gather's thresholds
 * (1 MiB inline, 2/4/8/16 MiB doublings, exactly limits.max_response_bytes and one byte over),
 * written by a real child in chunks that straddle the thresholds, arrives byte for byte.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { pythonInterpreter } from "../support/python.js";
import { envelope, tempDir } from "./support.js";

const tmp = tempDir("response-gather");
afterAll(() => tmp.cleanup());
const MiB = 1 << 20;
const HEAD = `{"schema_version":"${WIRE_VERSION}","status":"delivered","metadata":{"a":"`;
const TAIL = '"}}';

/** A response of exactly `total` bytes whose string holds a 4-byte character across each MiB boundary. */
function response(total: number): string {
  let s = HEAD;
  let len = HEAD.length;
  for (let b = MiB; b + 8 < total - TAIL.length; b += MiB) {
    s += "x".repeat(b - 2 - len) + "😀";
    len = b + 2;
  }
  s += "y".repeat(total - TAIL.length - len) + TAIL;
  expect(Buffer.byteLength(s)).toBe(total);
  return s;
}

/** A python client writing `file` in chunks: cuts at each threshold ±3 and 1-byte writes around them. */
function chunkedClient(file: string, timeoutMs: number): SubprocessInvoker {
  const py = `
import os, sys, time
sys.stdin.buffer.read()
data = open(sys.argv[1], 'rb').read()
cuts = set()
for t in (1<<20, 2<<20, 4<<20, 8<<20, 16<<20):
    for d in range(-3, 4): cuts.add(t + d)
at = 0
for c in sorted(x for x in cuts if 0 < x < len(data)):
    if c > at:
        os.write(1, data[at:c]); at = c
        time.sleep(0.002)
while at < len(data):
    at += os.write(1, data[at:at + 65536])
`;
  return new SubprocessInvoker({ program: pythonInterpreter(), args: ["-c", py, file], timeoutMs });
}

describe("stdout gathered across the ByteGather thresholds", () => {
  const sizes = [
    MiB - 1,
    MiB,
    MiB + 1,
    2 * MiB - 1,
    2 * MiB,
    2 * MiB + 1,
    4 * MiB + 1,
    8 * MiB,
    8 * MiB + 1,
    LIMITS.max_response_bytes,
  ];
  for (const total of sizes) {
    it(`${total} bytes → the exact value`, async () => {
      const text = response(total);
      const file = join(tmp.dir, `r${total}.json`);
      writeFileSync(file, text);
      const result = await chunkedClient(file, 20_000).invoke(envelope());
      expect(result.ok ? "ok" : `${result.failure.variant}: ${result.failure.detail}`).toBe("ok");
      if (result.ok)
        expect(
          (result.response.metadata as { a: string }).a ===
            (JSON.parse(text) as { metadata: { a: string } }).metadata.a,
        ).toBe(true);
    });
  }
  it("one byte over limits.max_response_bytes → response_too_large", async () => {
    const file = join(tmp.dir, "over.json");
    writeFileSync(file, response(LIMITS.max_response_bytes + 1));
    const result = await chunkedClient(file, 20_000).invoke(envelope());
    expect(result.ok ? "ok" : result.failure.variant).toBe("response_too_large");
  });
});
