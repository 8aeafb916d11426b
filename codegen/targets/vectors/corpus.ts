/**
 * Target: the conformance corpus `generated/conformance/<fixture_kind>/{valid,invalid}-<slug>.json`,
 * built from the model (schemas/ + spec/), in the reference's fixture format plus our extensions:
 *
 *   { "kind", "expect": "valid"|"invalid", "expect_rule"?, "expect_pointer"?, "description",
 *     "data" | "data_base64" }
 *
 * - `expect_rule` (our primary rule id) is on every invalid fixture; `expect_pointer` wherever the
 *   pointer is known by construction.
 * - `data_base64` carries documents whose exact bytes matter (BOM, invalid UTF-8, duplicate keys,
 *   number lexemes such as `1.0`, `-0`, `1e2`, 2^53 written out, lone surrogates, trailing data, depth).
 * - Every invalid fixture holds exactly one violation; expectations come from construction
 *   (codegen/model/samples.ts), never from running a validator.
 * - File names: `<expect>-<rule slug>-<detail>` where the rule slug is the rule id with `.` as `-`
 *   (e.g. `invalid-schema-max-length-event-id-plus-1`, `valid-non-empty-identifier-event-id-one-char`),
 *   so coverage per rule is visible from the names (test/conformance/corpus.test.ts checks it).
 *
 * The fixtures are generated output (written and checked by `npm run generate [-- --check]`, like
 * every file under generated/), never read back: the vectors target (vectors.ts) takes the same cases
 * from {@link buildCorpusCases} in memory. The families: corpus-rules.ts, corpus-fields.ts and
 * corpus-json.ts; shared pieces in corpus-base.ts. (Was test/conformance/tools/make-corpus.ts.)
 */
import { finalNewline, markdownBanner, type OutputFile } from "../../emit/output.js";
import type { Model } from "../../model/model.js";
import {
  enumNameOf,
  fullObject,
  representativeOccurrences,
  type JsonObject,
  type JsonValue,
} from "../../model/samples.js";
import { type Fixture, RootCorpus } from "./corpus-base.js";
import { addBoundaryCases, addEnumCases, addPresenceCases, addUnknownFieldCases } from "./corpus-fields.js";
import { addDocumentCases } from "./corpus-json.js";
import { addRuleCases } from "./corpus-rules.js";

/** Folder of the conformance corpus, relative to the repository root (one sub-folder per fixture kind). */
export const CORPUS_DIR = "generated/conformance";

/** One corpus file: repository-relative path and exact content. */
export interface CorpusFile {
  readonly path: string;
  readonly content: string;
}

/** One corpus case: a {@link Fixture} of one wire document type, with its fixture kind and file path. */
export interface CorpusCase extends Fixture {
  /** The root's fixture kind (its folder and the fixture's `kind`), e.g. `callback_request`. */
  readonly fixtureKind: string;
  /** `generated/conformance/<fixture_kind>/<stem>.json` */
  readonly path: string;
}

/** Inline JSON with a space after `:` and `,`. */
function inline(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** Containers with at most this many members and no non-empty container inside stay on one line. */
const INLINE_MEMBERS = 6;

function isFlat(value: JsonValue): boolean {
  const members = Array.isArray(value) ? value : Object.values(value as JsonObject);
  return (
    members.length <= INLINE_MEMBERS &&
    members.every(
      (m) => m === null || typeof m !== "object" || (Array.isArray(m) ? m.length === 0 : Object.keys(m).length === 0),
    )
  );
}

/**
 * Pretty JSON: small flat containers stay on one line. The layout depends on structure only (never on
 * string lengths), so rewriting a value (e.g. a version bump) never reflows a fixture.
 */
export function prettyJson(value: JsonValue, indent = ""): string {
  if (value === null || typeof value !== "object" || isFlat(value)) return inline(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => `${inner}${prettyJson(v, inner)}`).join(",\n")}\n${indent}]`;
  const entries = Object.entries(value);
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${prettyJson(v, inner)}`).join(",\n")}\n${indent}}`;
}

/** The fixture file of one case: members in a fixed order, each value laid out by {@link prettyJson}. */
export function renderFixture(kind: string, f: Fixture): string {
  const head: JsonObject = { kind, expect: f.expect };
  if (f.rule !== undefined) head.expect_rule = f.rule;
  if (f.pointer !== undefined) head.expect_pointer = f.pointer;
  head.description = f.description;
  if (f.bytes !== undefined) head.data_base64 = Buffer.from(f.bytes).toString("base64");
  else head.data = f.data as JsonValue;
  const lines = Object.entries(head).map(([k, v]) => `  ${JSON.stringify(k)}: ${prettyJson(v, "  ")}`);
  return `{\n${lines.join(",\n")}\n}\n`;
}

const built = new WeakMap<Model, readonly CorpusCase[]>();

/**
 * Every corpus case of every wire document type, sorted by path (built once per model: the corpus
 * and vectors targets share it). Throws when a family cannot build a case (a sentinel that does not
 * occur once, an edit that breaks another rule, a duplicate stem, an invalid case without a rule).
 */
export function buildCorpusCases(model: Model): readonly CorpusCase[] {
  const cached = built.get(model);
  if (cached) return cached;
  const reps = representativeOccurrences(model);
  const enumHomes = new Map<string, { rootType: string; pattern: string; field: string }>();
  for (const type of model.types) {
    const rep = reps.get(type.name);
    if (!rep) continue;
    for (const f of type.fields) {
      const e = enumNameOf(f.shape);
      if (e !== null && !enumHomes.has(e))
        enumHomes.set(e, { rootType: rep.rootType, pattern: rep.occurrence.pattern, field: f.name });
    }
  }
  const cases: CorpusCase[] = [];
  for (const root of model.roots) {
    const c = new RootCorpus(model, root.typeName);
    const owned = new Set([...reps].filter(([, r]) => r.rootType === root.typeName).map(([t]) => t));
    c.add({
      stem: "valid-minimal",
      expect: "valid",
      description: `a ${root.typeName} with only its required members`,
      data: c.base,
    });
    c.add({
      stem: "valid-typical",
      expect: "valid",
      description: `a ${root.typeName} with every member filled in`,
      data: fullObject(model, root.typeName),
    });
    addRuleCases(c);
    addUnknownFieldCases(c);
    addPresenceCases(c, owned);
    addEnumCases(c, enumHomes);
    addBoundaryCases(c);
    addDocumentCases(c);
    for (const f of c.fixtures) {
      if (f.expect === "invalid" && f.rule === undefined) throw new Error(`corpus: ${f.stem} has no rule`);
      cases.push({ ...f, fixtureKind: root.fixtureKind, path: `${CORPUS_DIR}/${root.fixtureKind}/${f.stem}.json` });
    }
  }
  const sorted = cases.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  built.set(model, sorted);
  return sorted;
}

/** Every corpus file (sorted by path), rendered. */
export function buildCorpus(model: Model): CorpusFile[] {
  return buildCorpusCases(model).map((c) => ({ path: c.path, content: renderFixture(c.fixtureKind, c) }));
}

/** The note that marks the corpus folder as generated (the fixtures are JSON in the reference's format, with no room for a banner). */
function corpusReadme(model: Model): string {
  return finalNewline(
    [
      markdownBanner(),
      "# generated/conformance/: the conformance corpus",
      "",
      "One fixture per case, in the reference's fixture format (`kind`, `expect`, `expect_rule`, `expect_pointer`,",
      "`description`, `data` or `data_base64`), one folder per wire document type:",
      "",
      ...model.roots.map((r) => `- \`${r.fixtureKind}/\` (${r.typeName})`),
      "",
      "Generated by `npm run generate` from spec/ and schemas/ (codegen/targets/vectors/corpus.ts); do not edit.",
      "Judge it with `lifeloop-callback conformance run --root generated/conformance`.",
    ].join("\n"),
  );
}

/** Generate generated/conformance/ (every corpus fixture and the folder's README.md). */
export async function generateCorpus(model: Model): Promise<OutputFile[]> {
  return [...buildCorpus(model), { path: `${CORPUS_DIR}/README.md`, content: corpusReadme(model) }];
}
