/**
 * The codegen and runtime modules form no import cycle (issue 9: `codegen/model` had load.ts ↔
 * hooks.ts; issue 26: `runtime/conform` had a 4-file circle). Every relative import of every `.ts`
 * file under codegen/ and runtime/ counts, `import type` and re-exports included, read with
 * TypeScript's own pre-processor (ts.preProcessFile), and the graph is searched depth first. A
 * cycle fails with the files on it, in import order.
 *
 * runtime/ also has a declared layer order of its rooms (RUNTIME_LAYERS): an import from one room
 * to another points down, never up and never sideways within a layer; a new room must be placed
 * in the order. codegen/ does not import runtime/, except its tools (codegen/tools/). The Python
 * SDK package has no import cycle either (read with Python's ast).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli-process.js";
import { pythonInterpreter } from "../support/python.js";

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

/**
 * The rooms of runtime/ from the bottom up (issue 26): a room imports only from rooms of lower
 * layers. `index` is runtime/index.ts (the package's root export).
 * - process: the OS side (child processes, process groups, files, event-loop slices);
 * - wire: documents (strict JSON, schemas, rules, serialization);
 * - diff (schema and table compatibility), rpc (JSON-RPC frames and the peer);
 * - invoker: the v1 host; then the v2 stream host and the receipts;
 * - the features over them; cli/ at the top, beside the root export.
 */
const RUNTIME_LAYERS: readonly (readonly string[])[] = [
  ["process"],
  ["wire"],
  ["diff", "rpc"],
  ["invoker"],
  ["stream", "receipts"],
  ["client", "continuation", "hooks", "conform"],
  ["cli", "index"],
  ["entry"],
];

/** The room of a runtime file: its folder under runtime/ (`index` for runtime/index.ts). */
function roomOf(runtimeDir: string, file: string): string {
  const parts = relative(runtimeDir, file).split(/[\\/]/);
  return parts.length === 1 ? (parts[0] as string).replace(/\.ts$/, "") : (parts[0] as string);
}

/** The imports of `graph` that break the layer order: `from -> to (room layer -> room layer)`. */
function layerBreaks(
  runtimeDir: string,
  graph: ReadonlyMap<string, readonly string[]>,
  layers: readonly (readonly string[])[],
): string[] {
  const layerOf = new Map(layers.flatMap((rooms, i) => rooms.map((room) => [room, i] as const)));
  const breaks: string[] = [];
  for (const [file, targets] of graph) {
    const from = roomOf(runtimeDir, file);
    for (const target of targets) {
      const to = roomOf(runtimeDir, target);
      if (from === to) continue;
      const a = layerOf.get(from) ?? -1;
      const b = layerOf.get(to) ?? Number.POSITIVE_INFINITY;
      if (b >= a)
        breaks.push(
          `${relative(runtimeDir, file)} -> ${relative(runtimeDir, target)} (${from} layer ${a} -> ${to} layer ${b})`,
        );
    }
  }
  return breaks.sort();
}

describe("runtime import graph", () => {
  const runtimeDir = join(REPO_ROOT, "runtime");
  const files = tsFiles(runtimeDir);
  const graph = importGraph(files);

  it("sees the imports (the check is not vacuous)", () => {
    const child = graph.get(join(runtimeDir, "invoker", "child-run.ts")) ?? [];
    expect(child.map((f) => relative(REPO_ROOT, f))).toContain("runtime/process/child.ts");
  });

  it("runtime/ has no import cycle, type imports included", () => {
    const named = cycles(graph).map((c) => c.map((f) => relative(REPO_ROOT, f)).join(" -> "));
    expect(named).toEqual([]);
  });

  it("every runtime room is placed in the layer order", () => {
    const rooms = [...new Set(files.map((f) => roomOf(runtimeDir, f)))].sort();
    expect(rooms).toEqual(RUNTIME_LAYERS.flat().sort());
  });

  it("the README's map lists every runtime room, bottom up in the layer order", () => {
    // The Layout block of README.md: `runtime/` followed by one indented line per room.
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const start = readme.indexOf("\nruntime/ ");
    const listed = [...readme.slice(start, readme.indexOf("```", start)).matchAll(/\n {2}([a-z]+)(?:\/|\.ts) /g)].map(
      (m) => m[1] as string,
    );
    const rooms = [...new Set(files.map((f) => roomOf(runtimeDir, f)))];
    expect([...listed].sort()).toEqual([...rooms].sort());
    const layerOf = new Map(RUNTIME_LAYERS.flatMap((layer, i) => layer.map((room) => [room, i] as const)));
    const order = listed.map((room) => layerOf.get(room) ?? -1);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("no import points up a layer or sideways within one", () => {
    expect(layerBreaks(runtimeDir, graph, RUNTIME_LAYERS)).toEqual([]);
  });

  it("the layer check fails on an import that points up (the check is not vacuous)", () => {
    const wire = join(runtimeDir, "wire", "validate.ts");
    const cli = join(runtimeDir, "cli", "main.ts");
    const bent = new Map(graph);
    bent.set(wire, [...(graph.get(wire) ?? []), cli]);
    expect(layerBreaks(runtimeDir, bent, RUNTIME_LAYERS)).toContain(
      "wire/validate.ts -> cli/main.ts (wire layer 1 -> cli layer 6)",
    );
  });
});

describe("codegen does not import runtime", () => {
  // codegen/tools/ (bump-version, snapshot-release, reference-docs) may import runtime/; the
  // generator itself may not (codegen/model/samples.ts states the rule). The tools move into
  // codegen/tools/ in issue 26 step (d): until that folder exists the rule has nowhere to hold.
  const toolsDir = join(REPO_ROOT, "codegen", "tools");
  it.skipIf(!existsSync(toolsDir))(
    "no file under codegen/ outside codegen/tools/ imports runtime/ (skipped until codegen/tools/ exists)",
    () => {
      const runtimeDir = join(REPO_ROOT, "runtime");
      const files = tsFiles(join(REPO_ROOT, "codegen")).filter((f) => !f.startsWith(`${toolsDir}/`));
      const offenders = files.flatMap((file) =>
        ts
          .preProcessFile(readFileSync(file, "utf8"), true, false)
          .importedFiles.map((i) => i.fileName)
          .filter((name) => name.startsWith(".") && resolve(dirname(file), name).startsWith(`${runtimeDir}/`))
          .map((name) => `${relative(REPO_ROOT, file)} -> ${name}`),
      );
      expect(offenders).toEqual([]);
    },
  );
});

/**
 * The modules of the Python SDK package (sdk/python/lifeloop_callback) and the package modules each
 * imports, read with Python's own `ast` (function-local imports included: the old runner ↔ stream
 * cycle hid behind one), relative and absolute (`lifeloop_callback.x`) forms alike.
 */
function pythonImportGraph(packageDir: string): Map<string, string[]> {
  const script = String.raw`
import ast, json, pathlib, sys
pkg = pathlib.Path(sys.argv[1])
mods = {p.stem for p in pkg.glob("*.py")}
graph = {}
for path in sorted(pkg.glob("*.py")):
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1 or base.startswith("lifeloop_callback"):
                base = base.split(".", 1)[1] if base.startswith("lifeloop_callback.") else ("" if base == "lifeloop_callback" else base)
                if base:
                    found.add(base.split(".")[0])
                else:
                    found.update(a.name for a in node.names if a.name in mods)
                    found.add("__init__")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("lifeloop_callback."):
                    found.add(a.name.split(".")[1])
    graph[path.stem] = sorted(m for m in found if m in mods and m != path.stem)
print(json.dumps(graph))
`;
  const ran = spawnSync(pythonInterpreter(), ["-c", script, packageDir], { encoding: "utf8", timeout: 120_000 });
  if (ran.status !== 0) throw new Error(`python could not read the SDK's imports: ${ran.stderr}`);
  const parsed = JSON.parse(ran.stdout) as Record<string, string[]>;
  // `from . import x` names the package itself too; a module importing its own package's
  // __init__ is how Python packages re-export, and __init__ is the package's top: drop those edges.
  return new Map(Object.entries(parsed).map(([m, targets]) => [m, targets.filter((t) => t !== "__init__")]));
}

describe("Python SDK import graph (sdk/python/lifeloop_callback)", () => {
  // sdk/go is one Go package: the Go toolchain itself refuses import cycles between packages, so
  // only the Python package needs this check.
  const graph = pythonImportGraph(join(REPO_ROOT, "sdk/python/lifeloop_callback"));

  it("sees the imports (the check is not vacuous)", () => {
    expect(graph.get("runner")).toContain("answer");
    expect(graph.get("stream")).toContain("stream_session");
  });

  it("has no import cycle, function-local imports included", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("the cycle check finds one when an import points back (runner ↔ stream, as before issue 26)", () => {
    const bent = new Map(graph);
    bent.set("stream", [...(graph.get("stream") ?? []), "runner"]);
    expect(cycles(bent).length).toBeGreaterThan(0);
  });
});
