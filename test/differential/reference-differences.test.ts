/**
 * The classifier of disagreements with the reference (test/support/reference-differences.ts): the
 * facts it computes from a document and an issue, and that an entry explains a disagreement only when
 * every property its pattern names matches.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadModel } from "../../codegen/model/load.js";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument } from "../../runtime/wire/validate.js";
import { closedWindow } from "../../runtime/wire/window.js";
import { parseStrictJson } from "../../runtime/wire/json/parse.js";
import {
  expectedAt,
  explainingDifference,
  insideOpenMap,
  issueFacts,
  valueTypeAt,
} from "../support/reference-differences.js";

/** The reference reads one version: we judge with the window closed to current (spec/wire-window.md). */
const CURRENT_ONLY = closedWindow(WIRE_VERSION);

const model = loadModel(resolve(dirname(fileURLToPath(import.meta.url)), "..", ".."));
const REQUEST = {
  schema_version: WIRE_VERSION,
  event: "session.starting",
  event_id: "e",
  adapter_id: "a",
  adapter_version: "1",
  integration_mode: "native_hook",
  invocation_id: "i",
};

/** Our primary issue on `text` (a CallbackRequest or DispatchEnvelope) and the difference that explains it. */
function classify(
  typeName: "CallbackRequest" | "DispatchEnvelope",
  text: string,
): { rule: string; pointer: string; explainedBy: string | null } {
  const bytes = new TextEncoder().encode(text);
  const result = parseWireDocument(typeName, bytes, DEFAULT_DOCUMENT_LIMITS, CURRENT_ONLY);
  if (result.ok) throw new Error("expected an issue");
  const issue = result.issues[0] as (typeof result.issues)[number];
  const parsed = parseStrictJson(bytes, { maxBytes: 1 << 24, maxDepth: 64 });
  return {
    rule: issue.rule,
    pointer: issue.pointer,
    explainedBy: explainingDifference(issueFacts(model, typeName, parsed.ok ? parsed : undefined, issue)),
  };
}

describe("reference-difference classifier", () => {
  it("computes value types, schema expectations and open-map membership", () => {
    const doc = { a: [1, { b: null }], "x/y": "s" };
    expect(valueTypeAt(doc, "/a")).toBe("array");
    expect(valueTypeAt(doc, "/a/1/b")).toBe("null");
    expect(valueTypeAt(doc, "/a/0")).toBe("number");
    expect(valueTypeAt(doc, "/x~1y")).toBe("string");
    expect(valueTypeAt(doc, "/a/2")).toBeUndefined();
    expect(valueTypeAt(doc, "/missing")).toBeUndefined();
    expect(expectedAt(model, "DispatchEnvelope", "/request/frame_context")).toBe("object");
    expect(expectedAt(model, "DispatchEnvelope", "/request/frame_context/frame_class")).toBe("enum");
    expect(expectedAt(model, "DispatchEnvelope", "/payloads/3/byte_size")).toBe("integer");
    expect(expectedAt(model, "DispatchEnvelope", "/payloads")).toBe("array");
    expect(expectedAt(model, "DispatchEnvelope", "/request/metadata")).toBe("object");
    expect(expectedAt(model, "DispatchEnvelope", "/request/metadata/k")).toBeUndefined();
    expect(expectedAt(model, "DispatchEnvelope", "/request/unknown_field")).toBeUndefined();
    expect(insideOpenMap("DispatchEnvelope", "/request/metadata")).toBe(false);
    expect(insideOpenMap("DispatchEnvelope", "/request/metadata/k")).toBe(true);
    expect(insideOpenMap("DispatchEnvelope", "/payloads/7/metadata/k/0")).toBe(true);
    expect(insideOpenMap("DispatchEnvelope", "/payloads/x/metadata/k")).toBe(false);
  });

  it("explains each listed kind of deliberate difference", () => {
    const r = (extra: Record<string, unknown>): string => JSON.stringify({ ...REQUEST, ...extra });
    expect(classify("CallbackRequest", r({ sequence: 9007199254740992 })).explainedBy).toBe("integer-range");
    expect(classify("CallbackRequest", r({ event_id: "e".repeat(513) })).explainedBy).toBe("string-length");
    expect(
      classify(
        "CallbackRequest",
        r({ payload_refs: Array.from({ length: 1025 }, () => ({ payload_id: "p", payload_kind: "k" })) }),
      ).explainedBy,
    ).toBe("array-length");
    expect(
      classify("CallbackRequest", `${r({}).slice(0, -1)},"metadata":{"d":${"[".repeat(70)}${"]".repeat(70)}}}`)
        .explainedBy,
    ).toBe("nesting-depth");
    expect(classify("CallbackRequest", `${r({}).slice(0, -1)},"metadata":{"k":1,"k":2}}`).explainedBy).toBe(
      "duplicate-keys-in-open-maps",
    );
    expect(
      classify("CallbackRequest", r({ event: "frame.opening", frame_context: ["f", null, "top_level"] })).explainedBy,
    ).toBe("sequence-form-objects");
    expect(classify("CallbackRequest", r({ integration_mode: { native_hook: null } })).explainedBy).toBe(
      "object-form-enum-values",
    );
  });

  it("explains nothing when a pattern's property does not match", () => {
    const r = (extra: Record<string, unknown>): string => JSON.stringify({ ...REQUEST, ...extra });
    // A duplicate struct member: the same rule, but not inside an open map.
    expect(classify("CallbackRequest", `{"event_id":"x",${r({}).slice(1)}`)).toMatchObject({
      rule: "json.duplicate-key",
      explainedBy: null,
    });
    // An array where a string is expected, an object where an object is expected, an array for an enum.
    expect(classify("CallbackRequest", r({ event_id: ["e"] }))).toMatchObject({
      rule: "schema.type",
      explainedBy: null,
    });
    expect(classify("CallbackRequest", r({ integration_mode: ["native_hook"] }))).toMatchObject({
      rule: "schema.type",
      explainedBy: null,
    });
    expect(classify("CallbackRequest", r({ event_id: { e: null } }))).toMatchObject({
      rule: "schema.type",
      explainedBy: null,
    });
    // Rules without an entry.
    expect(classify("CallbackRequest", r({ event_id: "" })).explainedBy).toBeNull();
    expect(classify("CallbackRequest", r({ unknown_field: 1 })).explainedBy).toBeNull();
    expect(classify("CallbackRequest", r({ sequence: -1 })).explainedBy).toBeNull();
  });
});
