/**
 * The shared vectors (generated/vectors/, codegen/targets/vectors/vectors.ts) through the TypeScript validator:
 * every vector's verdict, primary rule and pointer must be what the vector says, and every invalid
 * vector must hold exactly one violation (ajv with allErrors for the schema layer, the whole rule plan
 * for the rule layer), so its rule id is unambiguous for every binding.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ANNOTATION_KEYWORDS, loadModel } from "../../codegen/model/load.js";
import { INTEGER_PATHS, WIRE_DOCUMENTS, type WireObjectTypeName } from "../../generated/ts/spec.js";
import { pointerMatches } from "../../runtime/wire/pointer.js";
import { evaluateRules } from "../../runtime/wire/rules.js";
import { parseStrictJson } from "../../runtime/wire/json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument } from "../../runtime/wire/validate.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const VECTORS = join(ROOT, "generated", "vectors");

interface VectorFile {
  readonly $comment: string;
  readonly id: string;
  readonly type: WireObjectTypeName;
  readonly expect: "valid" | "invalid";
  readonly rule: string | null;
  readonly pointer: string | null;
  readonly description: string;
  readonly document_base64: string;
}

interface IndexFile {
  readonly wire_version: string;
  readonly vectors: readonly {
    id: string;
    path: string;
    type: string;
    expect: string;
    rule: string | null;
    pointer: string | null;
  }[];
}

const index = JSON.parse(readFileSync(join(VECTORS, "index.json"), "utf8")) as IndexFile;
const vectors: VectorFile[] = index.vectors.map(
  (v) => JSON.parse(readFileSync(join(VECTORS, v.path), "utf8")) as VectorFile,
);

/** ajv over the wire schemas with every error reported (tooling only; the runtime stops at the first). */
type SchemaError = { keyword: string; schemaPath: string; instancePath: string; params: Record<string, unknown> };

/**
 * The location a schema error is about: the member for required / additionalProperties, else the value.
 * Several keywords failing for one value (`type` and `enum` for a null enum) are one violation.
 */
function location(e: SchemaError): string {
  if (e.keyword === "required") return `${e.instancePath}/${String(e.params.missingProperty)}`;
  if (e.keyword === "additionalProperties") return `${e.instancePath}/${String(e.params.additionalProperty)}`;
  return e.instancePath;
}

function allErrorsValidators(): Map<string, (value: unknown) => SchemaError[]> {
  const model = loadModel(ROOT);
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  for (const e of model.enums) ajv.addSchema(e.schema);
  for (const t of model.types) ajv.addSchema(t.schema);
  const out = new Map<string, (value: unknown) => SchemaError[]>();
  for (const t of model.types) {
    const validate = ajv.getSchema(t.id);
    if (!validate) throw new Error(`no schema ${t.id}`);
    out.set(t.name, (value) => {
      if (validate(value)) return [];
      // Bookkeeping errors of `anyOf: [{$ref}, {type: null}]` are not violations of their own.
      return ((validate.errors ?? []) as SchemaError[]).filter(
        (e) => e.keyword !== "anyOf" && !(e.keyword === "type" && e.schemaPath.endsWith("/anyOf/1/type")),
      );
    });
  }
  return out;
}

describe("shared vectors (generated/vectors)", () => {
  it("index.json lists exactly the vector files, with matching headers", () => {
    const onDisk: string[] = [];
    for (const dir of readdirSync(VECTORS, { withFileTypes: true })) {
      // stream/ and window/ hold the stream and the cross-version vectors, each with its own index and format.
      if (!dir.isDirectory() || dir.name === "stream" || dir.name === "window") continue;
      for (const name of readdirSync(join(VECTORS, dir.name))) onDisk.push(`${dir.name}/${name}`);
    }
    expect(index.vectors.map((v) => v.path).sort()).toEqual(onDisk.sort());
    index.vectors.forEach((entry, i) => {
      const v = vectors[i] as VectorFile;
      expect(Object.keys(v).sort()).toEqual([
        "$comment",
        "description",
        "document_base64",
        "expect",
        "id",
        "pointer",
        "rule",
        "type",
      ]);
      expect({
        id: v.id,
        type: v.type,
        expect: v.expect,
        rule: v.rule,
        pointer: v.pointer,
        path: `${v.id}.json`,
      }).toEqual({
        id: entry.id,
        type: entry.type,
        expect: entry.expect,
        rule: entry.rule,
        pointer: entry.pointer,
        path: entry.path,
      });
      expect(v.expect === "valid" ? v.rule === null && v.pointer === null : typeof v.rule === "string").toBe(true);
      expect(v.id.split("/")[1]?.startsWith(`${v.expect}-`)).toBe(true);
      expect(WIRE_DOCUMENTS.some((d) => d.typeName === v.type && v.id.startsWith(`${d.cliName}/`))).toBe(true);
    });
  });

  it("has valid and invalid vectors for every wire document type", () => {
    for (const d of WIRE_DOCUMENTS) {
      expect(vectors.filter((v) => v.type === d.typeName && v.expect === "valid").length).toBeGreaterThan(10);
      expect(vectors.filter((v) => v.type === d.typeName && v.expect === "invalid").length).toBeGreaterThan(10);
    }
  });

  it("the TypeScript validator gives every vector its verdict, rule and pointer", () => {
    const wrong: string[] = [];
    for (const v of vectors) {
      const result = parseWireDocument(v.type, new Uint8Array(Buffer.from(v.document_base64, "base64")));
      const actual = result.ok
        ? { expect: "valid", rule: null, pointer: null }
        : { expect: "invalid", rule: result.issues[0]?.rule ?? null, pointer: result.issues[0]?.pointer ?? null };
      const wanted = { expect: v.expect, rule: v.rule, pointer: v.pointer ?? actual.pointer };
      if (JSON.stringify(actual) !== JSON.stringify(wanted))
        wrong.push(`${v.id}: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(actual)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("every invalid vector holds exactly one violation", () => {
    const validators = allErrorsValidators();
    const wrong: string[] = [];
    for (const v of vectors) {
      if (v.expect !== "invalid" || (v.rule as string).startsWith("json.")) continue;
      const parsed = parseStrictJson(new Uint8Array(Buffer.from(v.document_base64, "base64")), DEFAULT_DOCUMENT_LIMITS);
      if (!parsed.ok) {
        wrong.push(`${v.id}: does not parse (${parsed.issue.rule})`);
        continue;
      }
      const schemaErrors = (validators.get(v.type) as (value: unknown) => SchemaError[])(parsed.value);
      // A number lexeme such as 1.0 is invisible to ajv (JSON.parse made it 1) and is a violation of its own.
      const lexemes = parsed.nonIntegerNumberPointers.filter((p) =>
        INTEGER_PATHS[v.type].some((pattern) => pointerMatches(p, pattern)),
      );
      const rules = evaluateRules(v.type, parsed.value);
      const locations = new Set([...schemaErrors.map(location), ...lexemes]);
      const count = locations.size + rules.length;
      if (count !== 1) {
        wrong.push(
          `${v.id}: ${count} violations (schema: ${schemaErrors.map((e) => `${e.keyword}@${e.instancePath}`).join(", ") || "-"}; lexemes: ${parsed.nonIntegerNumberPointers.join(", ") || "-"}; rules: ${rules.map((r) => `${r.rule}@${r.pointer}`).join(", ") || "-"})`,
        );
      }
    }
    expect(wrong).toEqual([]);
  });

  it("every valid vector is free of violations in every layer", () => {
    const validators = allErrorsValidators();
    const wrong: string[] = [];
    for (const v of vectors) {
      if (v.expect !== "valid") continue;
      const parsed = parseStrictJson(new Uint8Array(Buffer.from(v.document_base64, "base64")), DEFAULT_DOCUMENT_LIMITS);
      if (!parsed.ok) {
        wrong.push(`${v.id}: does not parse`);
        continue;
      }
      const count =
        (validators.get(v.type) as (value: unknown) => unknown[])(parsed.value).length +
        evaluateRules(v.type, parsed.value).length;
      if (count !== 0) wrong.push(`${v.id}: ${count} violations`);
    }
    expect(wrong).toEqual([]);
  });
});
