/**
 * The generated rule probes (generated/ts/rule-probes.ts, codegen/targets/ts/rule-probes.ts) say
 * "some step reports" exactly when the plan interpreter of runtime/wire/rules.ts finds an issue:
 * on every shared vector, on the differential suite's mutants of every valid conformance fixture
 * and on every one-member edit (removed, null, "", [], each value a rule step names) of every
 * object inside the three largest valid fixtures (up to 4 KB) of each type.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadModel } from "../../codegen/model/load.js";
import { RULE_PROBES } from "../../generated/ts/rule-probes.js";
import { RULE_PLANS, WIRE_DOCUMENTS, type WireObjectTypeName } from "../../generated/ts/spec.js";
import { evaluateRulePlan } from "../../runtime/wire/rules.js";
import { mutants } from "../differential/mutations.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { fixtureDocument, memberEdits, ruleStepValues } from "../support/wire-corpus.js";

function agrees(typeName: WireObjectTypeName, value: unknown): boolean {
  const found = evaluateRulePlan(RULE_PLANS[typeName], value).length > 0;
  expect(RULE_PROBES[typeName](value), `${typeName}: ${JSON.stringify(value).slice(0, 300)}`).toBe(found);
  return found;
}

/** Every value a rule step names (when values, forbidden values, the expected version). */
const stepValues = ruleStepValues(RULE_PLANS);

/** Copies of `value` with one member of one object (anywhere inside) edited. */
function edits(value: unknown): unknown[] {
  return memberEdits(value, [null, "", [], [""], 0, ...stepValues]);
}

const VECTORS = join(REPO_ROOT, "generated", "vectors");
const index = JSON.parse(readFileSync(join(VECTORS, "index.json"), "utf8")) as { vectors: { path: string }[] };

describe("generated rule probes", () => {
  it("agree with the plan interpreter on every shared vector", () => {
    let found = 0;
    for (const entry of index.vectors) {
      const v = JSON.parse(readFileSync(join(VECTORS, entry.path), "utf8")) as {
        type: WireObjectTypeName;
        document_base64: string;
      };
      let value: unknown;
      try {
        value = JSON.parse(Buffer.from(v.document_base64, "base64").toString("utf8"));
      } catch {
        continue;
      }
      if (agrees(v.type, value)) found++;
    }
    expect(found).toBeGreaterThan(10);
  });

  it("agree with the plan interpreter on mutants and one-member edits of every valid fixture", () => {
    const model = loadModel(REPO_ROOT);
    let total = 0;
    let found = 0;
    WIRE_DOCUMENTS.forEach((d, i) => {
      const dir = join(REPO_ROOT, "generated", "conformance", d.fixtureKind);
      const bases = readdirSync(dir)
        .filter((f) => f.startsWith("valid-") && f.endsWith(".json"))
        .map((f) => fixtureDocument(join(dir, f)) as never);
      const values: unknown[] = [];
      for (const m of mutants(model, d.typeName, d.fixtureKind, bases, 300, 0x9b0be + i)) {
        try {
          values.push(JSON.parse(Buffer.from(m.bytes).toString("utf8")));
        } catch {
          // not JSON: nothing for the rules to see
        }
      }
      // One-member edits of the three largest fixtures up to 4 KB (most optional members; a larger
      // one is large by a long array or string, whose edits cost quadratic time and add nothing).
      const size = (v: unknown): number => JSON.stringify(v).length;
      const largest = bases
        .filter((b) => size(b) <= 4096)
        .sort((a, b) => size(b) - size(a))
        .slice(0, 3);
      for (const base of largest) values.push(base, ...edits(base));
      for (const value of values) {
        if (agrees(d.typeName, value)) found++;
        total++;
      }
    });
    expect(total).toBeGreaterThan(1000);
    expect(found).toBeGreaterThan(100);
  });
});
