/**
 * The generated accept checks (generated/ts/accept-checks.ts, codegen/targets/ts/accept-checks.ts)
 * let parseWireDocument answer "valid" without the generic walk, ajv and the rule plans. They must
 * never change a verdict: parseWireDocument (and its sliced form) gives exactly the result of the
 * path that never takes them (the exact scanner, then schema, integer lexemes and rules) on every
 * shared vector, on the differential suite's mutants of every valid conformance fixture and on
 * one-member edits (removed, replaced by values at and past each schema bound, an unknown member
 * added, a member duplicated) of every object inside the largest valid fixtures; and they accept
 * most valid documents (else they would only cost time).
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../../codegen/model/load.js";
import type { Model } from "../../codegen/model/model.js";
import { generateTsAcceptChecks } from "../../codegen/targets/ts/accept-checks.js";
import { ACCEPT_CHECKS } from "../../generated/ts/accept-checks.js";
import { INTEGER_PATHS, RULE_PLANS, WIRE_DOCUMENTS, type WireObjectTypeName } from "../../generated/ts/spec.js";
import { fastParse } from "../../runtime/wire/fast-parse.js";
import { parseStrictJsonStepwise } from "../../runtime/wire/json/sliced.js";
import {
  DEFAULT_DOCUMENT_LIMITS,
  type DocumentLimits,
  parseWireDocument,
  parseWireDocumentSliced,
  validateParsed,
  type WireResult,
} from "../../runtime/wire/validate.js";
import { envelope } from "../../tools/bench/documents.js";
import { mutants } from "../differential/mutations.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { memberEdits, ruleStepValues, sharedVectors, validFixtureDocuments } from "../support/wire-corpus.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The verdict without the fast path and the accept checks: the exact scanner, then schema, lexemes and rules. */
function reference(typeName: WireObjectTypeName, bytes: Uint8Array, limits: DocumentLimits): WireResult<unknown> {
  const parsed = parseStrictJsonStepwise(
    bytes,
    limits,
    { nonIntegerPaths: INTEGER_PATHS[typeName] },
    () => undefined,
    Number.MAX_SAFE_INTEGER,
  );
  if (!parsed.ok)
    return {
      ok: false,
      issues: [{ rule: parsed.issue.rule, pointer: parsed.issue.pointer, message: parsed.issue.message }],
    };
  const issues = validateParsed(typeName, parsed.value, parsed.nonIntegerNumberPointers);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: parsed.value };
}

/** Whether the accept check passes on `bytes` (through the fast path, as parseWireDocument runs it). */
function accepted(typeName: WireObjectTypeName, bytes: Uint8Array, limits: DocumentLimits): boolean {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return false;
  }
  const fast = fastParse(
    text,
    bytes.length,
    limits.maxDepth,
    limits.maxValues ?? Number.POSITIVE_INFINITY,
    limits.maxMembers ?? Number.POSITIVE_INFINITY,
    INTEGER_PATHS[typeName],
    ACCEPT_CHECKS[typeName],
  );
  return fast?.accepted === true;
}

/** Asserts parseWireDocument gives the reference verdict on `bytes`; returns whether the accept check passed. */
function agrees(
  typeName: WireObjectTypeName,
  bytes: Uint8Array,
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
): boolean {
  const expected = reference(typeName, bytes, limits);
  const shown = new TextDecoder().decode(bytes.slice(0, 300));
  expect(parseWireDocument(typeName, bytes, limits), `${typeName}: ${shown}`).toStrictEqual(expected);
  const passed = accepted(typeName, bytes, limits);
  if (passed) expect(expected.ok, `accept check passed on an invalid ${typeName}: ${shown}`).toBe(true);
  return passed;
}

/** Every value a rule step names, and values at and past the schema bounds of strings, integers and arrays. */
const boundValues: readonly unknown[] = [
  null,
  "",
  [],
  [""],
  [{}],
  {},
  0,
  1.5,
  -1,
  2 ** 53,
  2 ** 53 - 1,
  true,
  "x".repeat(512),
  "x".repeat(513),
  "😀".repeat(300),
  ...ruleStepValues(RULE_PLANS),
];

/** A member name that stands for a second copy of `key` (edits() writes it as `key` again). */
const DUPLICATE = "\u0000duplicate:";

/** Copies of `value` (as text) with one member of one object (anywhere inside) edited, an unknown member added or a member duplicated. */
function edits(value: unknown): string[] {
  const extra = (obj: Record<string, unknown>): unknown[] => [
    { ...obj, unknown_member: 1 },
    ...Object.keys(obj).map((key) => ({ ...obj, [`${DUPLICATE}${key}`]: obj[key] })),
  ];
  // JSON.parse keeps one of two equal names; the member count or the length finds the other.
  return memberEdits(value, boundValues, extra).map((v) =>
    JSON.stringify(v).replaceAll(JSON.stringify(DUPLICATE).slice(1, -1), ""),
  );
}

const vectors = sharedVectors();

describe("generated accept checks", () => {
  it("keep every verdict of every shared vector and accept most valid ones", async () => {
    let valid = 0;
    let passed = 0;
    for (const v of vectors) {
      const bytes = new Uint8Array(Buffer.from(v.document_base64, "base64"));
      if (agrees(v.type, bytes) && v.expect === "valid") passed++;
      if (v.expect === "valid") valid++;
      expect(await parseWireDocumentSliced(v.type, bytes), v.id).toStrictEqual(parseWireDocument(v.type, bytes));
    }
    expect(passed).toBeGreaterThan(valid * 0.8);
  });

  it("keep every verdict on mutants and one-member edits of every valid fixture", () => {
    const model = loadModel(REPO_ROOT);
    let total = 0;
    let passed = 0;
    WIRE_DOCUMENTS.forEach((d, i) => {
      const bases = validFixtureDocuments(d.fixtureKind) as never[];
      const docs: Uint8Array[] = mutants(model, d.typeName, d.fixtureKind, bases, 300, 0xacce97 + i).map(
        (m) => m.bytes,
      );
      const size = (v: unknown): number => JSON.stringify(v).length;
      const largest = bases
        .filter((b) => size(b) <= 4096)
        .sort((a, b) => size(b) - size(a))
        .slice(0, 2);
      for (const base of largest)
        docs.push(encoder.encode(JSON.stringify(base)), ...edits(base).map((t) => encoder.encode(t)));
      for (const bytes of docs) {
        if (agrees(d.typeName, bytes)) passed++;
        total++;
      }
    });
    expect(total).toBeGreaterThan(1000);
    expect(passed).toBeGreaterThan(100);
  });

  it("measure the shortest text of every value they accept (the length proof of the fast path)", () => {
    const context = { maxDepth: 64, elements: 0, chars: 0, exact: true, open: (): number => -1 };
    let measured = 0;
    for (const v of vectors) {
      let value: unknown;
      try {
        value = JSON.parse(Buffer.from(v.document_base64, "base64").toString("utf8"));
      } catch {
        continue;
      }
      const compact = JSON.stringify(value);
      Object.assign(context, { elements: 0, chars: 0, exact: true });
      // Open objects are measured by the fast path's walk; here they decline.
      if (ACCEPT_CHECKS[v.type](value, context) < 0 || compact.includes("\\")) continue;
      if (!context.exact) continue;
      // A member the check does not know (an invalid document) is not measured: never more than the text.
      if (v.expect === "valid") {
        expect(context.chars, v.id).toBe(compact.length);
        measured++;
      } else expect(context.chars, v.id).toBeLessThanOrEqual(compact.length);
    }
    expect(measured).toBeGreaterThan(10);
  });

  it("keep the verdict on compact documents whose numbers have other lexemes, shorter, as long or longer", () => {
    const base = new TextDecoder().decode(envelope(2048));
    const withMetadata = (metadata: string): string =>
      base.replace('"metadata":{"trace_id"', `"metadata":{"x":${metadata},"trace_id"`);
    const docs = [
      base,
      withMetadata('{"a":1200,"b":12e2,"c":100,"d":1e2}'),
      withMetadata('{"a":1e3}'),
      withMetadata('{"a":1e12,"b":1,"b":1   }'),
      withMetadata('{"a":12e2,"b":1,"b":1}'),
      withMetadata('{"a":[1e3,1e3,1e3,1e3,1e3,1e3],"b":1,"b":1}'),
      // integers above 2^53 whose shortest lexeme is shorter than String(x) (2 ** 66 as 7378697629483821e4)
      withMetadata('{"a":[7378697629483821e4,7378697629483821e4,7378697629483821e4],"b":1,"b":1}'),
      withMetadata('{"a":123456789e12,"b":1,"b":1   }'),
      withMetadata('{"a":1.5,"b":-0.25e1}'),
      base.replace('"sequence":42', '"sequence":1200'),
      base.replace('"sequence":42', '"sequence":12e2'),
      base.replace('"sequence":42', '"sequence":4.2e1'),
      base.replace('"sequence":42', '"sequence": 1e3'),
      base.replace('"byte_size":120', '"byte_size":12e1'),
      base.replace('"byte_size":120', '"byte_size":1.2e2'),
    ];
    expect(new Set(docs).size).toBe(docs.length);
    const passed = docs.map((doc) => agrees("DispatchEnvelope", encoder.encode(doc)));
    expect(passed.slice(0, 3)).toStrictEqual([true, true, true]);
  });

  it("keep the verdict at every depth and value limit around a valid document", () => {
    const v =
      vectors.find(
        (x) =>
          x.expect === "valid" &&
          x.type === "DispatchEnvelope" &&
          Buffer.from(x.document_base64, "base64").length > 600,
      ) ?? vectors.find((x) => x.expect === "valid");
    if (v === undefined) throw new Error("no valid vector");
    const bytes = new Uint8Array(Buffer.from(v.document_base64, "base64"));
    for (let maxDepth = 0; maxDepth <= 6; maxDepth++) agrees(v.type, bytes, { ...DEFAULT_DOCUMENT_LIMITS, maxDepth });
    const values = (JSON.stringify(JSON.parse(new TextDecoder().decode(bytes))).match(/[:,[]/g) ?? []).length;
    for (let maxValues = Math.max(1, values - 40); maxValues <= values + 5; maxValues++)
      agrees(v.type, bytes, { ...DEFAULT_DOCUMENT_LIMITS, maxValues });
  });

  it("fail generation when a schema uses a keyword they do not implement", async () => {
    const model = loadModel(REPO_ROOT);
    const [first, ...rest] = model.types;
    if (first === undefined) throw new Error("no wire types");
    const properties = first.schema.properties as Record<string, Record<string, unknown>>;
    const [name, property] = Object.entries(properties)[0] as [string, Record<string, unknown>];
    const changed = {
      ...first,
      schema: { ...first.schema, properties: { ...properties, [name]: { ...property, minLength: 1 } } },
    };
    await expect(generateTsAcceptChecks({ ...model, types: [changed, ...rest] } as Model)).rejects.toThrow(/minLength/);
  });
});
