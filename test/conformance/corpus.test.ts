/**
 * Our conformance corpus (generated/conformance/<fixture_kind>/, codegen/targets/vectors/corpus.ts):
 * exactly what its target builds (`npm run generate -- --check` covers it too), well formed,
 * and covering every rule of every wire document type with valid and invalid cases.
 * (That every fixture passes is checked through the real CLI in test/cli/conformance.test.ts.)
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadModel } from "../../codegen/model/load.js";
import { DOCUMENT_RULES, RULE_PLANS, WIRE_DOCUMENTS } from "../../generated/ts/spec.js";
import { parseStrictJson } from "../../runtime/wire/json/parse.js";
import { buildCorpus, CORPUS_DIR } from "../../codegen/targets/vectors/corpus.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const model = loadModel(ROOT);

/** The *.json files in the corpus folders (repository-relative, sorted). */
function listCorpusFiles(): string[] {
  const out: string[] = [];
  for (const r of model.roots) {
    const dir = join(ROOT, CORPUS_DIR, r.fixtureKind);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort())
      if (name.endsWith(".json")) out.push(`${CORPUS_DIR}/${r.fixtureKind}/${name}`);
  }
  return out;
}

const files = listCorpusFiles();

interface Fixture {
  readonly path: string;
  readonly stem: string;
  readonly folder: string;
  readonly raw: Record<string, unknown>;
}

const fixtures: Fixture[] = files.map((path) => {
  const parts = path.split("/");
  const name = parts[parts.length - 1] as string;
  return {
    path,
    stem: name.slice(0, -".json".length),
    folder: parts[parts.length - 2] as string,
    raw: JSON.parse(readFileSync(join(ROOT, path), "utf8")) as Record<string, unknown>,
  };
});

/** Rules a fixture cannot carry: json.max-bytes needs a document over 16 MiB (covered by test/cli/validate.test.ts). */
// json.max-bytes, json.max-values and json.max-members need documents of megabytes or tens of
// thousands of values: the shared vectors derive their boundary cases from spec/tables/limits.json instead.
const NOT_IN_CORPUS = new Set(["json.max-bytes", "json.max-values", "json.max-members"]);

describe("conformance corpus (generated/conformance)", () => {
  it("is exactly what codegen/targets/vectors/corpus.ts produces", () => {
    const built = buildCorpus(model);
    const drift = { missing: [] as string[], changed: [] as string[], stale: [] as string[] };
    for (const f of built) {
      if (!existsSync(join(ROOT, f.path))) drift.missing.push(f.path);
      else if (readFileSync(join(ROOT, f.path), "utf8") !== f.content) drift.changed.push(f.path);
    }
    const paths = new Set(built.map((f) => f.path));
    drift.stale = files.filter((p) => !paths.has(p));
    expect(drift).toEqual({ missing: [], changed: [], stale: [] });
  });

  it("has well-formed fixtures: kind of the folder, expect in the name, a rule on every invalid one, one document", () => {
    const problems: string[] = [];
    for (const f of fixtures) {
      const r = f.raw;
      const allowed = new Set([
        "kind",
        "expect",
        "expect_rule",
        "expect_pointer",
        "description",
        "data",
        "data_base64",
      ]);
      for (const key of Object.keys(r)) if (!allowed.has(key)) problems.push(`${f.path}: unexpected member ${key}`);
      if (r.kind !== f.folder) problems.push(`${f.path}: kind ${String(r.kind)} in folder ${f.folder}`);
      if (!f.stem.startsWith(`${String(r.expect)}-`))
        problems.push(`${f.path}: expect ${String(r.expect)} does not match the file name`);
      if (r.expect === "invalid" && typeof r.expect_rule !== "string")
        problems.push(`${f.path}: invalid fixture without expect_rule`);
      if (r.expect === "valid" && (r.expect_rule !== undefined || r.expect_pointer !== undefined))
        problems.push(`${f.path}: valid fixture with an expected rule or pointer`);
      if (typeof r.description !== "string" || r.description.length === 0) problems.push(`${f.path}: no description`);
      if ("data" in r === "data_base64" in r) problems.push(`${f.path}: needs exactly one of data and data_base64`);
    }
    expect(problems).toEqual([]);
  });

  it("keeps lexeme-sensitive documents in data_base64: data documents survive a JSON round trip", () => {
    const problems: string[] = [];
    for (const f of fixtures) {
      if (!("data" in f.raw)) continue;
      const parsed = parseStrictJson(readFileSync(join(ROOT, f.path)), { maxBytes: 1 << 26, maxDepth: 200 });
      if (!parsed.ok) {
        problems.push(`${f.path}: ${parsed.issue.rule}`);
        continue;
      }
      const lexemes = parsed.nonIntegerNumberPointers.filter((p) => p.startsWith("/data"));
      if (lexemes.length > 0)
        problems.push(`${f.path}: non-integer number lexemes at ${lexemes.join(", ")} (use data_base64)`);
      const unsafe = JSON.stringify(f.raw.data, (_k, v: unknown) =>
        typeof v === "number" && !Number.isSafeInteger(v) ? "UNSAFE" : v,
      ).includes('"UNSAFE"');
      if (unsafe) problems.push(`${f.path}: a number beyond 2^53 - 1 (use data_base64)`);
    }
    expect(problems).toEqual([]);
  });

  it("covers every rule of every wire document type with a valid and an invalid fixture", () => {
    const missing: string[] = [];
    for (const d of WIRE_DOCUMENTS) {
      const here = fixtures.filter((f) => f.folder === d.fixtureKind);
      const ids = new Set([...RULE_PLANS[d.typeName].map((s) => s.rule), ...DOCUMENT_RULES.map((r) => r.id)]);
      for (const id of ids) {
        if (NOT_IN_CORPUS.has(id)) continue;
        const slug = id.replace(/\./g, "-");
        if (
          !here.some(
            (f) => f.raw.expect === "invalid" && f.raw.expect_rule === id && f.stem.startsWith(`invalid-${slug}-`),
          )
        )
          missing.push(`${d.fixtureKind}: no invalid fixture for ${id}`);
        if (!here.some((f) => f.raw.expect === "valid" && f.stem.startsWith(`valid-${slug}-`)))
          missing.push(`${d.fixtureKind}: no valid fixture for ${id}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("puts an unknown member at every nesting level and every enum value in place", () => {
    const missing: string[] = [];
    for (const d of WIRE_DOCUMENTS) {
      for (const o of model.occurrences.get(d.typeName) ?? []) {
        const pointer = `${o.pattern.replace(/\/\*(?=\/|$)/g, "/0")}/unknown_field`;
        if (
          !fixtures.some(
            (f) =>
              f.folder === d.fixtureKind &&
              f.raw.expect_rule === "schema.additional-properties" &&
              f.raw.expect_pointer === pointer,
          )
        )
          missing.push(`${d.fixtureKind}: no unknown member at ${pointer}`);
      }
    }
    const text = fixtures
      .filter((f) => f.raw.expect === "valid" && f.stem.startsWith("valid-schema-enum-"))
      .map((f) => JSON.stringify(f.raw.data));
    for (const e of model.enums) {
      for (const v of e.values)
        if (!text.some((t) => t.includes(JSON.stringify(v))))
          missing.push(`no valid fixture with the ${e.name} value ${v}`);
    }
    expect(missing).toEqual([]);
  });
});
