/**
 * Soundness of `lifeloop-callback diff`: no false negatives. For every fixture whose change is about
 * acceptance sets, 10,000 generated documents (half from OLD, half from NEW, near the boundaries
 * where they differ; test/diff/documents.ts) are judged by the project's own validators under both
 * versions: ajv (the engine of generated/ts/validators.ts, same options) for lone schemas, and for
 * project trees ajv over every wire schema plus the cross-field rule plans that codegen computes
 * for that tree, run by the runtime's rule interpreter (runtime/wire/rules.ts evaluateRulePlan).
 *
 * - reported backward compatible ⇒ no document is valid under OLD and invalid under NEW;
 * - reported forward compatible ⇒ no document is valid under NEW and invalid under OLD.
 * fast-check drives the runs (fixed seed, reproducible; a failure names the document's seed).
 * Where the diff reports an error-level break in a direction, the generator must also find a
 * witness document for it: that shows the documents reach the boundary, so the property can fail.
 */
import { rmSync } from "node:fs";
import fc from "fast-check";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ANNOTATION_KEYWORDS, loadModel } from "../../codegen/model/load.js";
import { loadRuleRegistry } from "../../runtime/diff/change.js";
import { diffSchemas, diffTrees, type DiffReport } from "../../runtime/diff/gate.js";
import { readDirectoryTree } from "../../runtime/diff/tree.js";
import { evaluateRulePlan } from "../../runtime/wire/rules.js";
import { generateDocument, harvest, mulberry32, type Pool, type RefResolver } from "./documents.js";
import { listFixtures, materialize, schemaPair, type Fixture } from "./fixtures.js";

/** Documents per fixture (the budget). */
const RUNS = 10_000;
const WILD_RATES = [0, 0.01, 0.05, 0.2];
const registry = loadRuleRegistry();

/** One version under test: its validator and where its documents come from. */
interface Version {
  readonly valid: (typeIndex: number, doc: unknown) => boolean;
  readonly roots: readonly { readonly schema: unknown; readonly base: string }[];
  readonly resolve: RefResolver;
}

function localResolver(doc: unknown, docBase: string): RefResolver {
  return (ref, base) => {
    const url = new URL(ref, base);
    if (`${url.origin}${url.pathname}` !== new URL(docBase).href.replace(/#.*$/, "") && !ref.startsWith("#"))
      return undefined;
    let value: unknown = doc;
    for (const token of decodeURIComponent(url.hash.slice(1)).split("/").slice(1)) {
      value = (value as Record<string, unknown> | undefined)?.[token.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    return value === undefined ? undefined : { schema: value, base };
  };
}

function schemaVersion(doc: unknown, draft: string): Version {
  const dialect =
    typeof (doc as { $schema?: string }).$schema === "string"
      ? (doc as { $schema: string }).$schema.includes("draft-07")
        ? "draft-07"
        : "2020-12"
      : draft;
  const ajv = dialect === "draft-07" ? new Ajv({ strict: false }) : new Ajv2020({ strict: false });
  const validate = ajv.compile(doc as object);
  const base = "file:///fixture.json";
  return { valid: (_i, d) => validate(d), roots: [{ schema: doc, base }], resolve: localResolver(doc, base) };
}

function treeVersion(dir: string): Version & { readonly pool: unknown[]; readonly wire: string } {
  const model = loadModel(dir);
  const ajv = new Ajv2020({ strict: true });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  const schemas = [
    ...model.enums.map((e) => e.schema),
    ...model.types.map((t) => t.schema),
    ...model.hookSchemas.map((h) => h.schema),
  ];
  for (const s of schemas) ajv.addSchema(s as object);
  const byId = new Map(schemas.map((s) => [String((s as { $id: string }).$id), s]));
  const roots = model.roots.map((r) => {
    const type = model.types.find((t) => t.name === r.typeName);
    if (type === undefined) throw new Error(`${dir}: root ${r.typeName} is not a wire type`);
    return type;
  });
  const validators = roots.map((t) => ajv.getSchema(t.id) as ValidateFunction);
  const plans = roots.map((t) => model.rulePlans.get(t.name) ?? []);
  return {
    valid: (i, d) => (validators[i] as ValidateFunction)(d) && evaluateRulePlan(plans[i] as never, d, 1).length === 0,
    roots: roots.map((t) => ({ schema: t.schema, base: t.id })),
    resolve: (ref, base) => {
      const url = new URL(ref, base);
      const schema = byId.get(url.href.replace(/#.*$/, ""));
      return schema === undefined ? undefined : { schema, base: url.href };
    },
    pool: schemas,
    wire: model.wireVersion.current,
  };
}

/** Run the property; returns how many witnesses of each direction the documents found. */
function checkSoundness(
  name: string,
  report: DiffReport,
  oldV: Version,
  newV: Version,
  pool: Pool,
  hints?: ReadonlyMap<string, readonly unknown[]>,
): { senders: number; receivers: number } {
  const found = { senders: 0, receivers: 0 };
  const types = oldV.roots.length;
  fc.assert(
    fc.property(fc.noShrink(fc.integer()), (seed) => {
      const random = mulberry32(seed);
      const fromNew = (seed & 1) === 1;
      const typeIndex = Math.floor(random() * types);
      const from = fromNew ? newV : oldV;
      const root = from.roots[typeIndex] as { schema: unknown; base: string };
      const doc = generateDocument(root.schema, root.base, {
        pool,
        random,
        wildRate: WILD_RATES[(seed >>> 1) & 3] as number,
        resolve: from.resolve,
        ...(hints ? { hints } : {}),
      });
      const vo = oldV.valid(typeIndex, doc);
      const vn = newV.valid(typeIndex, doc);
      if (vo && !vn) {
        found.senders++;
        if (report.summary.backward_compatible)
          throw new Error(
            `${name}: reported backward compatible, but valid under OLD and invalid under NEW: ${JSON.stringify(doc)}`,
          );
      }
      if (vn && !vo) {
        found.receivers++;
        if (report.summary.forward_compatible)
          throw new Error(
            `${name}: reported forward compatible, but valid under NEW and invalid under OLD: ${JSON.stringify(doc)}`,
          );
      }
    }),
    { numRuns: RUNS, seed: 1414, endOnFailure: true },
  );
  return found;
}

/** The directions an error-level change of the report breaks (the generator must find witnesses for them). */
function errorDirections(report: DiffReport, fixture: Fixture): Set<string> {
  const out = new Set<string>();
  // Next to a non-monotone combinator the unit verdicts are approximations (false positives allowed).
  if (report.changes.some((c) => c.rule === "schema-combinator-undecided")) return out;
  for (const c of report.changes) {
    if (c.level !== "error" || c.category !== "wire" || fixture.expected.length === 0) continue;
    for (const role of c.breaks) out.add(role);
  }
  return out;
}

const fixtures = listFixtures();
/** Tree fixtures whose change is an acceptance-set change (wire category). */
const WIRE_TREE = new Set([
  "rule-added",
  "rule-removed",
  "rule-narrowed",
  "rule-widened",
  "rule-changed",
  "wire-version-not-bumped",
  "ref-target-changed",
]);
/** Schema fixtures whose change ajv cannot observe (the keyword is not an assertion for ajv) or whose break is only possible, not certain. */
const NO_WITNESS_EXPECTED = new Set(["schema-keyword-changed", "doc-changed"]);

describe("soundness: no false negatives on generated documents", () => {
  for (const fixture of fixtures.filter((f) => f.mode === "schema")) {
    it(`schema fixture ${fixture.name}`, () => {
      const [oldDoc, newDoc] = schemaPair(fixture);
      const report = diffSchemas(oldDoc, newDoc, fixture.draft ?? "2020-12", registry);
      let versions: [Version, Version];
      try {
        versions = [
          schemaVersion(oldDoc, fixture.draft ?? "2020-12"),
          schemaVersion(newDoc, fixture.draft ?? "2020-12"),
        ];
      } catch {
        // ajv cannot compile a side (an unresolvable $ref): there is no oracle, and the diff must not call it compatible.
        expect(report.summary.backward_compatible || report.summary.forward_compatible).toBe(false);
        return;
      }
      const found = checkSoundness(fixture.name, report, versions[0], versions[1], harvest([oldDoc, newDoc]));
      if (!NO_WITNESS_EXPECTED.has(fixture.name)) {
        for (const role of errorDirections(report, fixture))
          expect(
            found[role as "senders" | "receivers"],
            `${fixture.name}: no witness that ${role} break`,
          ).toBeGreaterThan(0);
      }
    });
  }

  for (const fixture of fixtures.filter((f) => WIRE_TREE.has(f.name))) {
    it(`tree fixture ${fixture.name} (schemas and cross-field rules)`, () => {
      const { root, base, head } = materialize(fixture);
      try {
        const report = diffTrees(readDirectoryTree(base), readDirectoryTree(head), { registry });
        const oldV = treeVersion(base);
        const newV = treeVersion(head);
        const pool = harvest([...oldV.pool, ...newV.pool], [oldV.wire, newV.wire]);
        const found = checkSoundness(
          fixture.name,
          report,
          oldV,
          newV,
          pool,
          new Map([["schema_version", [oldV.wire, newV.wire]]]),
        );
        for (const role of errorDirections(report, fixture))
          expect(
            found[role as "senders" | "receivers"],
            `${fixture.name}: no witness that ${role} break`,
          ).toBeGreaterThan(0);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  }
});
