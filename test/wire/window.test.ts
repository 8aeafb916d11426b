/**
 * runtime/wire/window.ts at its edges (spec/wire-window.md): the outside-window message takes the
 * peer's value literally (never as a replacement pattern or a placeholder), and a window that names
 * no version this build reads is a WireWindowError (a caller's mistake), never a TypeError or a
 * lookup on Object.prototype.
 */
import { describe, expect, it } from "vitest";
import { WIRE_VERSION, WIRE_WINDOW } from "../../generated/ts/spec.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument, validateValue } from "../../runtime/wire/validate.js";
import { closedWindow, outsideWindowIssue, WireWindowError, wireWindow } from "../../runtime/wire/window.js";

const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe("the wire-version window at its edges", () => {
  it("writes a peer's version into the outside-window message literally", () => {
    for (const value of ["$&{window}", "$`{value}$'", "{window}", "$$"]) {
      const issue = outsideWindowIssue(value, closedWindow(WIRE_VERSION));
      expect(issue.message).toBe(
        `schema_version mismatch: \`${value}\` is outside this reader's wire-version window (\`${WIRE_VERSION}\`)`,
      );
      const judged = parseWireDocument("CallbackResponse", encode({ schema_version: value, status: "observed" }));
      expect(judged.ok ? [] : judged.issues[0]?.message).toContain(`\`${value}\` is outside`);
    }
  });

  it("refuses a window naming no version this build reads, whatever the document", () => {
    const doc = { schema_version: "__proto__", status: "delivered" };
    for (const window of [["__proto__"], ["constructor"], ["toString"], [], ["lifeloop.v9.9"]]) {
      expect(() => parseWireDocument("CallbackResponse", encode(doc), DEFAULT_DOCUMENT_LIMITS, window)).toThrow(
        WireWindowError,
      );
      expect(() => validateValue("CallbackResponse", doc, window)).toThrow(WireWindowError);
    }
    expect(() => wireWindow([])).toThrow(WireWindowError);
    // A window given as a plain array of readable versions is fine (checked, not required to be built).
    expect(validateValue("CallbackResponse", { ...doc, schema_version: WIRE_VERSION }, [...WIRE_WINDOW])).toEqual([]);
  });
});
