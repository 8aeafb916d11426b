/**
 * The shared stream vectors (generated/vectors/stream/, spec/stream-protocol.md §"Shared vectors")
 * through the TypeScript reader: FrameReader + parseFrame, fed whole, one byte at a time and in
 * 7-byte chunks, must yield exactly the vector's frames and then its violation rule. Accepted
 * frames are also checked against the frame schemas (schemas/stream/), compiled here with a fresh
 * ajv, and envelope-layer violations must be refused by every frame schema (except number-lexeme
 * cases, which a schema validator cannot see): the hand-written judge and the schemas agree.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { FrameReader } from "../../runtime/rpc/frame-reader.js";
import { parseFrame } from "../../runtime/rpc/frame.js";
import { REPO_ROOT } from "../support/fixture-clients.js";

interface Vector {
  readonly id: string;
  readonly verdict: "valid" | "invalid";
  readonly rule: string | null;
  readonly max_frame_bytes: number;
  readonly lexeme: boolean;
  readonly frames: readonly { kind: string; id?: string | number; method?: string }[];
  readonly input_base64: string;
}

const DIR = join(REPO_ROOT, "generated", "vectors", "stream");
const index = JSON.parse(readFileSync(join(DIR, "index.json"), "utf8")) as { vectors: { path: string }[] };
const vectors = index.vectors.map(
  (v) => JSON.parse(readFileSync(join(REPO_ROOT, "generated", "vectors", v.path), "utf8")) as Vector,
);

function run(
  input: Buffer,
  maxFrameBytes: number,
  chunk: number,
): { frames: { kind: string; id?: string | number; method?: string }[]; rule: string | null; values: unknown[] } {
  const reader = new FrameReader(maxFrameBytes);
  const frames: { kind: string; id?: string | number; method?: string }[] = [];
  const values: unknown[] = [];
  let rule: string | null = null;
  const consume = (events: ReturnType<FrameReader["push"]>): boolean => {
    for (const e of events) {
      if (e.type === "violation") {
        rule = e.issue.rule;
        return false;
      }
      const judged = parseFrame(e.bytes, maxFrameBytes);
      if (!judged.ok) {
        rule = judged.issue.rule;
        return false;
      }
      const f = judged.frame;
      const out: { kind: string; id?: string | number; method?: string } = { kind: f.kind };
      if ("id" in f) out.id = f.id;
      if ("method" in f) out.method = f.method;
      frames.push(out);
      values.push(JSON.parse(e.bytes.toString("utf8")));
    }
    return true;
  };
  let going = true;
  for (let at = 0; going && at < input.length; at += chunk)
    going = consume(reader.push(input.subarray(at, at + chunk)));
  if (going) consume(reader.end());
  return { frames, rule, values };
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
for (const keyword of ["x-open", "x-emit-null", "x-wire-document"]) ajv.addKeyword({ keyword });
for (const name of readdirSync(join(REPO_ROOT, "schemas")).filter((n) => n.endsWith(".schema.json")))
  ajv.addSchema(JSON.parse(readFileSync(join(REPO_ROOT, "schemas", name), "utf8")));
for (const name of readdirSync(join(REPO_ROOT, "schemas", "stream")))
  ajv.addSchema(JSON.parse(readFileSync(join(REPO_ROOT, "schemas", "stream", name), "utf8")));
const schemaOf = (kind: string) =>
  ajv.getSchema(`https://lifeloop-callback.dev/schemas/stream/jsonrpc-${kind.replace("_", "-")}.schema.json`);
const KINDS = ["request", "notification", "success_reply", "error_reply"];

describe("stream vectors (TypeScript reader)", () => {
  it("the corpus has valid and invalid cases", () => {
    expect(vectors.filter((v) => v.verdict === "valid").length).toBeGreaterThan(5);
    expect(vectors.filter((v) => v.verdict === "invalid").length).toBeGreaterThan(20);
  });

  for (const v of vectors) {
    it(`${v.id}: ${v.rule ?? "valid"}`, () => {
      const input = Buffer.from(v.input_base64, "base64");
      for (const chunk of [Math.max(1, input.length), 1, 7]) {
        const got = run(input, v.max_frame_bytes, chunk);
        expect({ chunk, frames: got.frames, rule: got.rule }).toEqual({ chunk, frames: v.frames, rule: v.rule });
      }
      const whole = run(input, v.max_frame_bytes, Math.max(1, input.length));
      whole.values.forEach((value, i) => {
        const validate = schemaOf((v.frames[i] as { kind: string }).kind);
        expect(validate?.(value), JSON.stringify(validate?.errors)).toBe(true);
      });
      if (
        v.rule?.startsWith("stream.") &&
        !["stream.frame-too-large", "stream.empty-frame", "stream.unterminated-frame"].includes(v.rule) &&
        !v.lexeme
      ) {
        const lines = input
          .toString("utf8")
          .split("\n")
          .filter((l) => l !== "");
        const bad = lines[v.frames.length] ?? "";
        const value = JSON.parse(bad) as unknown;
        for (const kind of KINDS) expect(schemaOf(kind)?.(value), `${kind} schema accepts ${bad}`).toBe(false);
      }
    });
  }
});
