/**
 * The cross-version vectors (generated/vectors/window/, from the release snapshots and the window of
 * spec/wire-version.json) through the TypeScript readers: each document judged with the case's reader
 * window (null: the default window) by parseWireDocument, from bytes, and by validateValue, from the
 * value; the verdict, the primary issue's rule and pointer, and the exact outside-window message must
 * be the vector's. The Go and Python SDK tests run the same files.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { WireObjectTypeName } from "../../generated/ts/spec.js";
import { WIRE_WINDOW } from "../../generated/ts/spec.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument, validateValue } from "../../runtime/wire/validate.js";
import { DEFAULT_WIRE_WINDOW, wireWindow } from "../../runtime/wire/window.js";
import { REPO_ROOT } from "../support/fixture-clients.js";

const DIR = join(REPO_ROOT, "generated", "vectors", "window");

interface WindowVector {
  readonly id: string;
  readonly type: WireObjectTypeName;
  readonly window: readonly string[] | null;
  readonly expect: "valid" | "invalid";
  readonly rule: string | null;
  readonly pointer: string | null;
  readonly message: string | null;
  readonly document_base64: string;
}

const index = JSON.parse(readFileSync(join(DIR, "index.json"), "utf8")) as {
  readonly default_window: readonly string[];
  readonly vectors: readonly { readonly path: string }[];
};
const vectors = index.vectors.map((v) => JSON.parse(readFileSync(join(DIR, v.path), "utf8")) as WindowVector);

describe("the wire-version window vectors (TypeScript readers)", () => {
  it("are generated for this build's window, with both verdicts for each version", () => {
    expect(index.default_window).toEqual([...WIRE_WINDOW]);
    for (const version of WIRE_WINDOW) {
      const mine = vectors.filter((v) => Buffer.from(v.document_base64, "base64").toString("utf8").includes(version));
      expect(mine.some((v) => v.expect === "valid")).toBe(true);
      expect(mine.some((v) => v.expect === "invalid")).toBe(true);
    }
  });

  it.each(vectors.map((v) => [v.id, v] as const))("%s", (_id, vector) => {
    const window = vector.window === null ? DEFAULT_WIRE_WINDOW : wireWindow(vector.window);
    const bytes = new Uint8Array(Buffer.from(vector.document_base64, "base64"));
    const fromBytes = parseWireDocument(vector.type, bytes, DEFAULT_DOCUMENT_LIMITS, window);
    const fromValue = validateValue(vector.type, JSON.parse(Buffer.from(bytes).toString("utf8")), window);
    for (const issues of [fromBytes.ok ? [] : fromBytes.issues, fromValue]) {
      if (vector.expect === "valid") {
        expect(issues).toEqual([]);
        continue;
      }
      expect(issues[0]).toMatchObject({ rule: vector.rule, pointer: vector.pointer });
      if (vector.message !== null) expect(issues[0]?.message).toBe(vector.message);
    }
  });
});
