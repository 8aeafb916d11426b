/**
 * Golden tests of the generator's table emitters, in the manner of OTel Weaver's expected_output/:
 * each case under test/codegen/fixtures/<case>/ is a small spec/ tree (tables and meta-schemas only),
 * loaded with the real loader, and what each emitter produces is compared file by file with
 * expected/<target>/. A missing, extra or different file fails with its name and a diff.
 * `UPDATE_GOLDEN=1 npx vitest run test/codegen/golden.test.ts` rewrites expected/ (review the diff).
 *
 * Emitters covered: ts-tables (the TypeScript table types, json-schema-to-typescript), the Go table
 * view (struct types derived from the meta-schema, with the value literals), and the generic
 * Markdown rendering of a table, for a case with a spec/ tree; and the SDK syntax helpers and
 * partials of each language (go/syntax.ts, python/syntax.ts), for a case with templates/<language>/
 * and a view.json: each template rendered as the SDK templates are (expected/<language>-syntax/).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { genericTable } from "../../codegen/emit/markdown.js";
import type { Model } from "../../codegen/model/model.js";
import { loadSpecTables } from "../../codegen/model/tables.js";
import { genericTableView } from "../../codegen/targets/go/tables.js";
import { GO_SYNTAX } from "../../codegen/targets/go/syntax.js";
import { PYTHON_SYNTAX } from "../../codegen/targets/python/syntax.js";
import { renderTemplate, type SdkSyntax } from "../../codegen/targets/sdk-render.js";
import { generateTsTables } from "../../codegen/targets/ts/tables.js";
import { REPO_ROOT } from "../support/cli-process.js";

const FIXTURES = join(REPO_ROOT, "test", "codegen", "fixtures");
const UPDATE = process.env.UPDATE_GOLDEN === "1";

/**
 * The value assignments of a generic table: the `{{#each assignments}}` block of
 * sdk/go/templates/spec_tables.go.hbs itself, so the golden output is what the SDK template writes.
 */
function goTableValuesTemplate(): string {
  const template = readFileSync(join(REPO_ROOT, "sdk", "go", "templates", "spec_tables.go.hbs"), "utf8");
  const start = template.indexOf("{{#each assignments}}");
  const end = template.indexOf("{{/each}}\n\treturn t", start);
  if (start < 0 || end < 0)
    throw new Error("sdk/go/templates/spec_tables.go.hbs: no {{#each assignments}} block before `return t`");
  return template.slice(start, end + "{{/each}}\n".length);
}

/** The syntax of each SDK language, by the folder name under templates/. */
const SYNTAX: Readonly<Record<string, SdkSyntax>> = { go: GO_SYNTAX, python: PYTHON_SYNTAX };

/** Every file below `dir`, relative to it, sorted. */
function files(dir: string, prefix = ""): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}

/** What each emitter produces for a case: target → (relative path → content). */
async function emit(caseDir: string): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  if (existsSync(join(caseDir, "spec"))) {
    const specTables = loadSpecTables(caseDir);
    // The table emitters read nothing of the model but its tables.
    const model = { specTables } as unknown as Model;
    out.set(
      "ts-tables",
      new Map((await generateTsTables(model)).map((f) => [f.path.slice(f.path.lastIndexOf("/") + 1), f.content])),
    );
    const goViews = specTables.map((t) => genericTableView(t.stem, t.doc, t.meta));
    out.set("go-tables", new Map(goViews.map((v) => [`${v.stem}.json`, `${JSON.stringify(v, null, 2)}\n`])));
    // The table values as Go literals: the assignments of spec_tables.go.hbs, with its helper calls.
    out.set(
      "go-table-values",
      new Map(goViews.map((v) => [`${v.stem}.go`, renderTemplate(GO_SYNTAX, goTableValuesTemplate(), v)])),
    );
    out.set("docs", new Map(specTables.map((t) => [`${t.stem}.md`, `${genericTable(t)}\n`])));
  }
  const templates = join(caseDir, "templates");
  if (existsSync(templates)) {
    const view: unknown = JSON.parse(readFileSync(join(caseDir, "view.json"), "utf8"));
    for (const language of readdirSync(templates).sort()) {
      const syntax = SYNTAX[language];
      if (syntax === undefined)
        throw new Error(`${templates}/${language}: no SDK language of that name (${Object.keys(SYNTAX).join(", ")})`);
      const rendered = files(join(templates, language)).map((path): [string, string] => [
        path.replace(/\.hbs$/, ""),
        renderTemplate(syntax, readFileSync(join(templates, language, path), "utf8"), view),
      ]);
      out.set(`${language}-syntax`, new Map(rendered));
    }
  }
  return out;
}

const cases = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe("codegen golden cases (test/codegen/fixtures/<case>/expected/<target>/)", () => {
  it("has at least one case", () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it("a syntax helper given the wrong kind of value fails naming the helper, not with bad source", () => {
    expect(() => renderTemplate(GO_SYNTAX, "{{goString n}}", { n: 1 })).toThrow(/goString: expected a string, got 1/);
    expect(() => renderTemplate(PYTHON_SYNTAX, "{{pyStrings s}}", { s: "a" })).toThrow(
      /pyStrings: expected a list of strings/,
    );
    expect(() => renderTemplate(PYTHON_SYNTAX, "{{pyFieldDefault k}}", { k: "zero" })).toThrow(
      /pyFieldDefault: unknown default "zero"/,
    );
    expect(() => renderTemplate(GO_SYNTAX, "{{goBraces}}", {})).toThrow(/goBraces is a block helper/);
  });

  it.each(cases)("%s: every emitter's output equals expected/, file by file", async (name) => {
    const caseDir = join(FIXTURES, name);
    const produced = await emit(caseDir);
    const problems: string[] = [];
    for (const [target, outputs] of produced) {
      const expectedDir = join(caseDir, "expected", target);
      if (UPDATE) {
        rmSync(expectedDir, { recursive: true, force: true });
        for (const [path, content] of outputs) {
          mkdirSync(dirname(join(expectedDir, path)), { recursive: true });
          writeFileSync(join(expectedDir, path), content);
        }
        continue;
      }
      const expected = files(expectedDir);
      for (const path of expected.filter((p) => !outputs.has(p)))
        problems.push(`${target}/${path}: expected but not produced`);
      for (const [path, content] of outputs) {
        if (!expected.includes(path)) {
          problems.push(`${target}/${path}: produced but not in expected/ (UPDATE_GOLDEN=1 adds it)`);
          continue;
        }
        const want = readFileSync(join(expectedDir, path), "utf8");
        if (want !== content)
          problems.push(createTwoFilesPatch(`expected/${target}/${path}`, `produced/${target}/${path}`, want, content));
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
