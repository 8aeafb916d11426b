/**
 * The host's frame judge (parseHostFrame: one parse without lexeme patterns, a second with them
 * only where a lexeme could matter) must give exactly the verdict, frame and pointers of the full
 * judge with the host's patterns, on every frame of the shared stream vectors and on frames built
 * to need the second parse (integer ids, error codes, result integer fields, client requests).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { FrameReader } from "../../runtime/stream/frame-reader.js";
import { HOST_NON_INTEGER_PATHS, parseFrameRecording, parseHostFrame, parseHostFrameSliced } from "../../runtime/stream/frame.js";
import { REPO_ROOT } from "../support/fixture-clients.js";

const DIR = join(REPO_ROOT, "generated", "vectors", "stream");
const index = JSON.parse(readFileSync(join(DIR, "index.json"), "utf8")) as { vectors: { path: string }[] };
const vectors = index.vectors.map((v) => JSON.parse(readFileSync(join(REPO_ROOT, "generated", "vectors", v.path), "utf8")) as { id: string; max_frame_bytes: number; input_base64: string });

const MAX = 1 << 20;
const expectSame = (bytes: Uint8Array, max = MAX): void => {
  expect(parseHostFrame(bytes, max)).toEqual(parseFrameRecording(bytes, max, HOST_NON_INTEGER_PATHS));
};
const result = `{"schema_version":"${WIRE_VERSION}","status":"delivered","failure_class":null,"retry_class":null`;

describe("parseHostFrame", () => {
  it.each(vectors.map((v) => [v.id, v] as const))("agrees with the full host judge on every frame of vector %s", (_id, vector) => {
    const reader = new FrameReader(vector.max_frame_bytes);
    for (const event of reader.push(Buffer.from(vector.input_base64, "base64"))) if (event.type === "frame") expectSame(event.bytes, vector.max_frame_bytes);
  });

  it.each([
    ['{"jsonrpc":"2.0","id":7,"result":RESULT}}', "integer id"],
    ['{"jsonrpc":"2.0","id":7.0,"result":RESULT}}', "integer id with a fraction"],
    ['{"jsonrpc":"2.0","id":7e0,"result":RESULT}}', "integer id with an exponent"],
    ['{"jsonrpc":"2.0","id":"1","error":{"code":-32000.0,"message":"m"}}', "error code with a fraction"],
    ['{"jsonrpc":"2.0","id":"1","error":{"code":-32000,"message":"m"}}', "error code"],
    ['{"jsonrpc":"2.0","id":"1","result":RESULT,"client_payloads":[{"byte_size":1.0}]}}', "result integer field with a fraction"],
    ['{"jsonrpc":"2.0","id":"c1","method":"continuation/get","params":{"id":1.0}}', "client request"],
    ['{"jsonrpc":"2.0","method":"lifeloop/cancel","params":{"id":1.0}}', "client notification"],
    ['{"jsonrpc":"2.0","id":"1","result":RESULT,"metadata":{"n":1.5}}}', "non-integer number where none matters"],
  ])("agrees on %s (%s)", (text) => {
    expectSame(Buffer.from(text.replace("RESULT", result)));
  });

  it("refuses a duplicate id paid for by integers above 2^53 written shorter than String(x)", async () => {
    // 123456789e12 is 9 characters shorter than String(123456789e12): as many as '"id":"a",'
    const bytes = Buffer.from(`{"jsonrpc":"2.0","id":"a","id":"b","result":${result},"metadata":{"n":123456789e12}}}`);
    const judged = parseHostFrame(bytes, MAX);
    expect(judged.ok ? "accepted" : `${judged.issue.rule} ${judged.issue.pointer}`).toBe("json.duplicate-key /id");
    expect(await parseHostFrameSliced(bytes, MAX)).toEqual(judged);
    expectSame(bytes);
  });

  it("agrees on generated replies", () => {
    const id = fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.nat(), fc.constantFrom("1.0", "2e0", "-0", "3.5"));
    const number = fc.oneof(fc.nat().map(String), fc.constantFrom("1.0", "1e3", "-0", "0.5"));
    fc.assert(
      fc.property(id, number, fc.boolean(), fc.boolean(), (rawId, n, asError, withPayloads) => {
        const idText = typeof rawId === "number" || /^[-0-9.e]+$/.test(rawId) ? String(rawId) : JSON.stringify(rawId);
        const body = asError
          ? `"error":{"code":${n},"message":"m"}`
          : `"result":${result}${withPayloads ? `,"client_payloads":[{"byte_size":${n},"expires_at_epoch_s":${n}}]` : `,"metadata":{"n":${n}}`}}`;
        expectSame(Buffer.from(`{"jsonrpc":"2.0","id":${idText},${body}}`));
      }),
      { numRuns: 500 },
    );
  });
});
