/**
 * codegen/ and runtime/ do not import each other (issue 26): the generator is a function of spec/
 * and schemas/, and the runtime reads only its output (generated/). Only codegen/tools/ (release
 * and reference-page tools: bump-version, snapshot-release, reference-docs) may import runtime/;
 * runtime/ never imports codegen/ (`lifeloop-callback generate` spawns codegen/main.ts instead).
 * Every relative import specifier counts, `import type` and re-exports included (ts.preProcessFile).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli-process.js";

/** Every `.ts` file below `dir` (absolute paths, sorted). */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []))
    .sort();
}

/** `from -> to` (repository-relative) for every relative import of `files` that lands under `toDir`. */
function importsInto(files: readonly string[], toDir: string): string[] {
  const target = join(REPO_ROOT, toDir) + sep;
  const out: string[] = [];
  for (const file of files) {
    for (const i of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
      if (!i.fileName.startsWith(".")) continue;
      const to = resolve(dirname(file), i.fileName);
      if (to.startsWith(target)) out.push(`${relative(REPO_ROOT, file)} -> ${relative(REPO_ROOT, to)}`);
    }
  }
  return out;
}

describe("codegen <-> runtime layering", () => {
  const codegen = tsFiles(join(REPO_ROOT, "codegen"));
  const tools = join(REPO_ROOT, "codegen", "tools") + sep;

  it("sees the imports (codegen/tools/reference-docs.ts imports runtime/, so the check is not vacuous)", () => {
    expect(
      importsInto(
        codegen.filter((f) => f.startsWith(tools)),
        "runtime",
      ).length,
    ).toBeGreaterThan(0);
  });

  it("codegen/ outside tools/ imports nothing from runtime/", () => {
    expect(
      importsInto(
        codegen.filter((f) => !f.startsWith(tools)),
        "runtime",
      ),
    ).toEqual([]);
  });

  it("runtime/ imports nothing from codegen/", () => {
    expect(importsInto(tsFiles(join(REPO_ROOT, "runtime")), "codegen")).toEqual([]);
  });
});
