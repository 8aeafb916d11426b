/**
 * The common reply's shortcut (runtime/rpc/frame.ts judgeCommonReply) on generated replies the
 * shortcut now proves by the CallbackResponse accept check where the host used to validate: results
 * with client_payloads (integer paths with fractions, exponents, -0, big and tiny numbers), every
 * status with failure_class / retry_class, warnings, receipt_refs, whitespace anywhere inside the
 * result, member orders, `__proto__` and `\u`-escaped names. Whenever it proves a frame, the full
 * judge gives that frame and pointers and validateParsed finds nothing. Seeded: reproducible.
 */
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import {
  framePointers,
  HOST_NON_INTEGER_PATHS,
  judgeCommonReply,
  parseFrameRecording,
} from "../../runtime/rpc/frame.js";
import { validateParsed } from "../../runtime/wire/validate.js";

/** A small seeded generator (mulberry32): the same frames on every run. */
let seed = 0x5eed;
function rnd(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const statuses = ["observed", "delivered", "skipped", "degraded", "failed"];
const classes = ["null", '"timeout"', '"internal_error"', '"payload_rejected"'];
const retries = ["null", '"safe_retry"', '"retry_after_reconfigure"', '"do_not_retry"', '"bogus"'];
function resultHead(): string {
  let r = `{"schema_version":"${WIRE_VERSION}","status":"${pick(statuses)}"`;
  if (rnd() < 0.5) r += `,"failure_class":${pick(classes)}`;
  if (rnd() < 0.5) r += `,"retry_class":${pick(retries)}`;
  if (rnd() < 0.3) r += `,"receipt_refs":[${rnd() < 0.5 ? '"r1"' : ""}]`;
  if (rnd() < 0.3) r += `,"warnings":[{"code":"${pick(["handler_threw", "x"])}","message":"m"}]`;
  return r;
}
const nums = [
  "2",
  "2.0",
  "20e-1",
  "0.2e1",
  "2E0",
  "-0",
  "0",
  "0.0",
  "0e0",
  "1e2",
  "100",
  "1200",
  "12e2",
  "9007199254740991",
  "9007199254740993",
  "1e400",
  "-1",
  "1e-400",
  "5e-324",
  "1E+2",
  "1.5",
];
const strs = [`"a"`, `"\\u0041"`, `"é"`, `"\\ud83d\\ude00"`, `"\\ud800"`, `"a\\"b"`, `"\\/"`, `""`];
const keys = [
  "byte_size",
  "expires_at_epoch_s",
  "__proto__",
  "constructor",
  "\\u0062yte_size",
  "n",
  "toString",
  "hasOwnProperty",
  "status",
  "schema_version",
];
function pick<T>(a: readonly T[]): T {
  return a[Math.floor(rnd() * a.length)] as T;
}
function ws(): string {
  return pick(["", "", "", " ", "\t", "\r", " \r\t"]);
}
function val(d: number): string {
  const r = rnd();
  if (d > 2 || r < 0.4) return pick([...nums, ...strs, "null", "true", "[]", "{}"]);
  if (r < 0.7)
    return `{${Array.from({ length: Math.floor(rnd() * 3) }, () => `${ws()}"${pick(keys)}"${ws()}:${ws()}${val(d + 1)}${ws()}`).join(",")}}`;
  return `[${Array.from({ length: Math.floor(rnd() * 3) }, () => ws() + val(d + 1) + ws()).join(",")}]`;
}
function payload(): string {
  const members: [string, string][] = [
    ["schema_version", `"${WIRE_VERSION}"`],
    ["payload_id", `"p1"`],
    ["client_id", `"c"`],
    ["payload_kind", `"k"`],
    ["format", `"text"`],
    ["content_encoding", `"utf8"`],
    ["body", `"hi"`],
    ["body_ref", "null"],
    ["byte_size", pick(nums)],
    ["acceptable_placements", `[{"placement":"side_channel_context","requirement":"optional"}]`],
    ["idempotency_key", "null"],
    ["expires_at_epoch_s", pick([...nums, "null"])],
  ];
  if (rnd() < 0.3) members.push(["metadata", val(0)]);
  if (rnd() < 0.1) members.push([pick(keys), val(1)]);
  if (rnd() < 0.1) members.splice(Math.floor(rnd() * members.length), 1);
  if (rnd() < 0.5) members.sort(() => rnd() - 0.5);
  return `{${members.map(([k, v]) => `${ws()}"${k}"${ws()}:${ws()}${v}${ws()}`).join(",")}}`;
}
function body(): string {
  let b = resultHead();
  if (rnd() < 0.6) b += `,"client_payloads":[${Array.from({ length: 1 + Math.floor(rnd() * 2) }, payload).join(",")}]`;
  if (rnd() < 0.4) b += `,"metadata":${val(0)}`;
  if (rnd() < 0.1) b += `,"${pick(keys)}":${val(1)}`;
  if (rnd() < 0.1) b += `,"warnings":${val(1)}`;
  return ws() + b + "}" + ws();
}

describe("judgeCommonReply on generated CallbackResponse replies", () => {
  it("whenever it proves a frame, the full judge gives that frame and pointers and the result is valid (4000 frames, both outcomes exercised)", () => {
    let proved = 0;
    const mismatches: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const id = pick(["1", "17", "abc", "x".repeat(128), " ", "~"]);
      const bytes = Buffer.from(`{"jsonrpc":"2.0","id":"${id}","result":${body()}}`);
      const common = judgeCommonReply(bytes, LIMITS.max_frame_bytes, LIMITS.max_frame_values);
      if (common === null) continue;
      proved++;
      const full = parseFrameRecording(bytes, LIMITS.max_frame_bytes, HOST_NON_INTEGER_PATHS, LIMITS.max_frame_values);
      const { resultAccepted, ...judged } = common as typeof common & {
        resultAccepted?: true;
      };
      const valid =
        full.ok &&
        full.frame.kind === "success_reply" &&
        validateParsed("CallbackResponse", full.frame.result, framePointers(full.nonIntegerNumberPointers, "/result"))
          .length === 0;
      if (resultAccepted !== true || !isDeepStrictEqual(judged, full) || !valid) mismatches.push(bytes.toString());
    }
    expect(mismatches).toEqual([]);
    expect(proved).toBeGreaterThan(200);
    expect(proved).toBeLessThan(3800);
  });
});
