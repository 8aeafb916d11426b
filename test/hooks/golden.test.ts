/**
 * Golden outputs of the hook renderer: for each adapter, every (lifecycle event, directive,
 * payload set) combination's exact stdout text, warnings or refusal, committed under
 * test/hooks/golden/<adapter>.json. Any difference fails.
 *
 * To accept a deliberate change, regenerate and review the diff (test/hooks/golden/README.md):
 *   UPDATE_GOLDEN=1 npx vitest run test/hooks/golden.test.ts
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderHookPayload } from "../../runtime/hooks/render.js";
import { ADAPTERS, CORE_DIRECTIVES, DIRECTIVES, EVENTS, PAYLOAD_SETS, request } from "./cases.js";

const GOLDEN_DIR = join(import.meta.dirname, "golden");
const UPDATE = process.env.UPDATE_GOLDEN === "1";

function goldenFor(adapter: (typeof ADAPTERS)[number]): string {
  const cases: Record<string, unknown> = {};
  for (const event of EVENTS) {
    for (const d of CORE_DIRECTIVES) {
      for (const p of ["none", "several"] as const) {
        const result = renderHookPayload(
          request(adapter, event, { directive: DIRECTIVES[d], payloads: PAYLOAD_SETS[p] }),
          { adapter },
        );
        cases[`${event} directive=${d} payloads=${p}`] = result.ok
          ? {
              hook_event: result.rendered.hookEventName,
              stdout: result.rendered.text,
              warnings: result.rendered.warnings,
            }
          : { error: result.error.kind, message: result.error.message };
      }
    }
  }
  return `${JSON.stringify({ adapter, cases }, null, 2)}\n`;
}

describe("golden hook outputs", () => {
  for (const adapter of ADAPTERS) {
    it(`${adapter} matches test/hooks/golden/${adapter}.json`, () => {
      const path = join(GOLDEN_DIR, `${adapter}.json`);
      const actual = goldenFor(adapter);
      if (UPDATE) writeFileSync(path, actual);
      const expected = readFileSync(path, "utf8");
      expect(
        actual,
        `golden ${path} differs; if the change is deliberate run: UPDATE_GOLDEN=1 npx vitest run test/hooks/golden.test.ts`,
      ).toBe(expected);
    });
  }
});
