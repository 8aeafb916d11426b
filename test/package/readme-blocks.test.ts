/**
 * Every README code block a reader would copy is complete and runs in a test: a block in a
 * programming language (ts, js, go, python) must be marked `<!-- example: <lang> <name> -->`; a
 * block named after a file under examples/ must be that file, byte for byte (examples.test.ts runs
 * the files: conform, tsc, session); any other marked block must be run by a suite that reads it by
 * name with readmeExample().
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli-process.js";
import { readmeExamples } from "./readme-examples.js";

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const CODE_LANGS = new Set(["ts", "typescript", "js", "javascript", "mjs", "go", "python", "py"]);

/** The text of every test source, by path relative to the repository. */
const TEST_SOURCES = (readdirSync(join(REPO_ROOT, "test"), { recursive: true }) as string[])
  .filter((p) => p.endsWith(".ts") && !p.includes("node_modules"))
  .map(
    (p) => [relative(REPO_ROOT, join(REPO_ROOT, "test", p)), readFileSync(join(REPO_ROOT, "test", p), "utf8")] as const,
  );

describe("README code blocks", () => {
  it("every block in a programming language is marked as an example", () => {
    const unmarked: string[] = [];
    const lines = README.split("\n");
    lines.forEach((line, i) => {
      const fence = /^```(\S+)$/.exec(line);
      if (fence && CODE_LANGS.has(fence[1] as string) && !/^<!-- example: \S+ \S+ -->$/.test(lines[i - 1] ?? ""))
        unmarked.push(`line ${i + 1}: ${line}`);
    });
    expect(unmarked).toEqual([]);
  });

  it("a block named after a file under examples/ is that file, byte for byte", () => {
    const named = readmeExamples(REPO_ROOT).filter((e) => e.name.startsWith("examples/"));
    expect(named.map((e) => e.name)).toEqual(
      expect.arrayContaining([
        "examples/go/main.go",
        "examples/python/client.py",
        "examples/echo-client.mjs",
        "examples/typescript/host.ts",
        "examples/typescript/stream-host.ts",
      ]),
    );
    for (const e of named) expect(e.code, e.name).toBe(readFileSync(join(REPO_ROOT, e.name), "utf8"));
  });

  it("every other marked block is run by a suite that reads it by name", () => {
    for (const e of readmeExamples(REPO_ROOT).filter((x) => !x.name.startsWith("examples/"))) {
      const runners = TEST_SOURCES.filter(([, text]) =>
        text.includes(`readmeExample(REPO_ROOT, ${JSON.stringify(e.name)})`),
      ).map(([path]) => path);
      expect(runners, e.name).not.toEqual([]);
    }
  });
});
