/**
 * The host's frame judge (runtime/rpc/frame.ts) enforces the bounds the stream frame schemas state
 * (schemas/stream/*.schema.json): method length, the reserved `rpc.` prefix, error.message length
 * and the frame and error member sets. Read from the schema files themselves, so a schema change
 * the judge does not follow fails here (the Go and Python SDKs have the same check:
 * sdk/go/stream_vectors_test.go, sdk/python/tests).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseFrame } from "../../runtime/rpc/frame.js";
import { REPO_ROOT } from "../support/cli-process.js";

type Schema = { properties?: Record<string, Schema>; maxLength?: number; not?: { pattern?: string } };

function schema(name: string): Schema {
  return JSON.parse(readFileSync(join(REPO_ROOT, "schemas", "stream", name), "utf8")) as Schema;
}

function prop(s: Schema, ...path: string[]): Schema {
  let node = s;
  for (const p of path) node = node.properties?.[p] as Schema;
  return node;
}

function judge(frame: Record<string, unknown>): string {
  const r = parseFrame(Buffer.from(JSON.stringify(frame)));
  return r.ok ? "ok" : `${r.issue.rule} ${r.issue.pointer}`;
}

describe("frame bounds follow schemas/stream", () => {
  const method = prop(schema("jsonrpc-request.schema.json"), "method");
  const message = prop(schema("jsonrpc-error-reply.schema.json"), "error", "message");

  it("reads the bounds (the check is not vacuous)", () => {
    expect(method.maxLength).toBeGreaterThan(0);
    expect(message.maxLength).toBeGreaterThan(0);
    expect(method.not?.pattern).toBe("^rpc\\.");
  });

  it("a method of maxLength characters is accepted, one more is refused", () => {
    const max = method.maxLength as number;
    expect(judge({ jsonrpc: "2.0", id: 1, method: "m".repeat(max) })).toBe("ok");
    expect(judge({ jsonrpc: "2.0", id: 1, method: "m".repeat(max + 1) })).toBe("stream.method /method");
  });

  it("a method matching the schema's reserved pattern is refused", () => {
    const prefix = (method.not?.pattern ?? "").replace(/^\^/, "").replace(/\\\./g, ".");
    expect(judge({ jsonrpc: "2.0", id: 1, method: `${prefix}x` })).toBe("stream.method /method");
  });

  it("an error.message of maxLength characters is accepted, one more is refused", () => {
    const max = message.maxLength as number;
    const reply = (text: string) => ({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: text } });
    expect(judge(reply("x".repeat(max)))).toBe("ok");
    expect(judge(reply("x".repeat(max + 1)))).toBe("stream.error-object /error/message");
  });

  it("a frame member or error member the schemas do not name is refused", () => {
    const members = new Set(
      [
        "jsonrpc-request.schema.json",
        "jsonrpc-notification.schema.json",
        "jsonrpc-success-reply.schema.json",
        "jsonrpc-error-reply.schema.json",
      ].flatMap((name) => Object.keys(schema(name).properties ?? {})),
    );
    for (const m of members) expect(["jsonrpc", "id", "method", "params", "result", "error"]).toContain(m);
    expect(judge({ jsonrpc: "2.0", id: 1, method: "m", extra: 1 })).toMatch(/^stream\./);
    const errorMembers = Object.keys(prop(schema("jsonrpc-error-reply.schema.json"), "error").properties ?? {});
    expect(errorMembers.sort()).toEqual(["code", "data", "message"]);
    expect(judge({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "m", extra: 1 } })).toBe(
      "stream.error-object /error",
    );
  });
});
