/**
 * The hook output schemas (schemas/hooks/), compiled here from the files with a fresh ajv (not the
 * generated validators the renderer uses): every output of every combination matches the schema of
 * its harness event, and the schemas refuse what the harnesses refuse.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { renderHookPayload } from "../../runtime/hooks/render.js";
import { ADAPTERS, DIRECTIVES, EVENTS, PAYLOAD_SETS, request } from "./cases.js";

const ROOT = join(import.meta.dirname, "..", "..");
const ajv = new Ajv2020({ strict: true, allErrors: true });
for (const keyword of ["x-open", "x-emit-null", "x-wire-document"]) ajv.addKeyword({ keyword });
for (const dir of ["schemas", "schemas/hooks"]) {
  for (const file of readdirSync(join(ROOT, dir)).filter((f) => f.endsWith(".schema.json"))) {
    ajv.addSchema(JSON.parse(readFileSync(join(ROOT, dir, file), "utf8")) as object);
  }
}

function validator(adapter: string, hookEvent: string) {
  const stem = `${adapter}-${hookEvent.replace(/([a-z])([A-Z])/g, "$1-$2").toLowerCase()}-output`;
  const validate = ajv.getSchema(`https://lifeloop-callback.dev/schemas/hooks/${stem}.schema.json`);
  if (!validate) throw new Error(`no schema ${stem}`);
  return validate;
}

describe("hook output schemas", () => {
  it("admit every output the renderer produces", () => {
    let checked = 0;
    for (const adapter of ADAPTERS) {
      for (const event of EVENTS) {
        for (const directive of Object.values(DIRECTIVES)) {
          for (const payloads of Object.values(PAYLOAD_SETS)) {
            const result = renderHookPayload(request(adapter, event, { directive, payloads }), { adapter });
            if (!result.ok) continue;
            const validate = validator(adapter, result.rendered.hookEventName);
            expect(
              validate(JSON.parse(result.rendered.text)),
              `${adapter} ${event}: ${JSON.stringify(validate.errors)}`,
            ).toBe(true);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(400);
  });

  it("refuse what the harnesses refuse", () => {
    const refused: [string, string, unknown][] = [
      ["codex", "Stop", { decision: "block" }],
      ["codex", "Stop", { decision: "block", reason: "" }],
      ["codex", "Stop", { decision: "block", reason: " \t\u3000" }],
      ["codex", "Stop", { reason: "no decision" }],
      ["codex", "Stop", { decision: "approve", reason: "x" }],
      ["codex", "UserPromptSubmit", { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "{}" } }],
      ["codex", "UserPromptSubmit", { hookSpecificOutput: { additionalContext: "{}" } }],
      ["codex", "PostCompact", { hookSpecificOutput: { hookEventName: "PostCompact", additionalContext: "x" } }],
      ["codex", "PreCompact", { decision: "block", reason: "x" }],
      ["codex", "SessionStart", { hookSpecificOutput: { hookEventName: "SessionStart", env: {} } }],
      ["claude", "SessionStart", { unknown: true }],
      ["claude", "SessionEnd", { hookSpecificOutput: { hookEventName: "SessionEnd" } }],
      ["claude", "UserPromptSubmit", { decision: "block", reason: "   " }],
      ["claude", "Stop", { continue: "no" }],
    ];
    for (const [adapter, hookEvent, body] of refused)
      expect(validator(adapter, hookEvent)(body), `${adapter} ${hookEvent} ${JSON.stringify(body)}`).toBe(false);
    const admitted: [string, string, unknown][] = [
      ["codex", "Stop", { decision: "block", reason: "\ufeff" }],
      ["codex", "Stop", { continue: false, stopReason: "done", systemMessage: "bye" }],
      ["claude", "Stop", { decision: "block", reason: "keep going" }],
      ["claude", "PreCompact", {}],
    ];
    for (const [adapter, hookEvent, body] of admitted)
      expect(validator(adapter, hookEvent)(body), `${adapter} ${hookEvent} ${JSON.stringify(body)}`).toBe(true);
  });
});
