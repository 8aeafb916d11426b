/**
 * The codegen modules form no import cycle (issue 9: `codegen/model` had load.ts ↔ hooks.ts). Every
 * relative import of every `.ts` file under codegen/ counts, `import type` and re-exports included,
 * read with TypeScript's own pre-processor (ts.preProcessFile), and the graph is searched depth first.
 * A cycle fails with the files on it, in import order.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli-process.js";

/** Every `.ts` file below `dir` (absolute paths, sorted). */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []))
    .sort();
}

/** file → the files under the same tree it imports (relative specifiers; `.js` written for `.ts`). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, false);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => resolve(dirname(file), name.replace(/\.js$/, ".ts")))
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle found by a depth-first search, each as the list of files on it (first file repeated last). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, "open" | "done">();
  const found: string[][] = [];
  const visit = (file: string, stack: string[]): void => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (state.get(next) === undefined) visit(next, stack);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (state.get(file) === undefined) visit(file, []);
  return found;
}

describe("codegen import graph", () => {
  const files = tsFiles(join(REPO_ROOT, "codegen"));
  const graph = importGraph(files);

  it("sees the imports (the check is not vacuous)", () => {
    const load = graph.get(join(REPO_ROOT, "codegen", "model", "load.ts")) ?? [];
    expect(load.map((f) => relative(REPO_ROOT, f))).toContain("codegen/model/hooks.ts");
  });

  it("codegen/ (and so codegen/model/) has no import cycle, type imports included", () => {
    const named = cycles(graph).map((c) => c.map((f) => relative(REPO_ROOT, f)).join(" -> "));
    expect(named).toEqual([]);
  });
});
