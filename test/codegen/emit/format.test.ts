/**
 * The formatting step of emit (codegen/emit/format.ts): with biome.jsonc's formatter on, generate's
 * TypeScript outputs come out as `biome format` prints them (so `generate --check` and the format
 * check agree on generated/), in one pass of the step; JSON and Python outputs are left as rendered;
 * with the formatter off, or no biome.jsonc (a fixture root), every output is returned unchanged.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { biomeFormatSettings, formatOutputs, stripJsonc } from "../../../codegen/emit/format.js";
import type { OutputFile } from "../../../codegen/emit/output.js";
import { REPO_ROOT } from "../../support/cli-process.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-emit-format-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** A root whose biome.jsonc is the repository's with the formatter switched as given. */
function rootWith(enabled: boolean): string {
  const root = mkdtempSync(join(TMP, "root-"));
  const config = readFileSync(join(REPO_ROOT, "biome.jsonc"), "utf8").replace(
    /("formatter": \{\s*"enabled": )(true|false)/,
    `$1${enabled}`,
  );
  writeFileSync(join(root, "biome.jsonc"), config);
  return root;
}

const UNFORMATTED = `export const TABLE = { 'a': [1,2,3], "b": { "long_name_one": "some text that is long", "long_name_two": "more text that is long", "three": 3 } }\n`;
const OUTPUTS: OutputFile[] = [
  { path: "generated/ts/table.ts", content: UNFORMATTED },
  { path: "generated/drift/table.json", content: '{"a":[1,2,3]}\n' },
  { path: "sdk/python/lifeloop_callback/_gen_x.py", content: "x = {'a':1}\n" },
];

describe("codegen/emit/format.ts", () => {
  it("reads biome.jsonc (comments and trailing commas) and its formatter switch", () => {
    expect(JSON.parse(stripJsonc('{\n  // a comment\n  "a": "//not a comment", /* block */ "b": [1, 2,],\n}'))).toEqual(
      { a: "//not a comment", b: [1, 2] },
    );
    expect(biomeFormatSettings(rootWith(false))).toBeNull();
    expect(biomeFormatSettings(TMP)).toBeNull();
    const on = biomeFormatSettings(rootWith(true)) as { formatter: Record<string, unknown> };
    expect(on.formatter).toMatchObject({ enabled: true, lineWidth: 120 });
    expect(on.formatter.includes).toBeUndefined();
  });

  it("returns every output unchanged while the formatter is off or there is no biome.jsonc", () => {
    expect(formatOutputs(rootWith(false), OUTPUTS)).toEqual(OUTPUTS);
    expect(formatOutputs(TMP, OUTPUTS)).toEqual(OUTPUTS);
  });

  it("formats the TypeScript outputs as `biome format` prints them, and only those", { timeout: 120_000 }, () => {
    const root = rootWith(true);
    const formatted = formatOutputs(root, OUTPUTS);
    expect(formatted.map((o) => o.path)).toEqual(OUTPUTS.map((o) => o.path));
    expect(formatted.slice(1)).toEqual(OUTPUTS.slice(1));
    const ts = formatted[0] as OutputFile;
    expect(ts.content).not.toBe(UNFORMATTED);
    // Property quotes stay as written (quoteProperties: preserve); long objects break at 120.
    expect(ts.content).toContain('"a": [1, 2, 3]');
    expect(ts.content.split("\n").every((line) => line.length <= 120)).toBe(true);
    // The format check over the written file agrees: biome format (check mode) finds nothing to change.
    mkdirSync(join(root, "generated", "ts"), { recursive: true });
    writeFileSync(join(root, ts.path), ts.content);
    const biome = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
    const check = spawnSync(process.execPath, [biome, "format", "--vcs-enabled=false", ts.path], {
      cwd: root,
      encoding: "utf8",
    });
    expect(`${check.stdout}${check.stderr}`).not.toContain("would have printed");
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    // ...and the same check flags the text as rendered, so it judges this file.
    writeFileSync(join(root, ts.path), UNFORMATTED);
    const unformatted = spawnSync(process.execPath, [biome, "format", "--vcs-enabled=false", ts.path], {
      cwd: root,
      encoding: "utf8",
    });
    expect(unformatted.status).toBe(1);
    expect(`${unformatted.stdout}${unformatted.stderr}`).toContain("would have printed");
    // A second pass of the step changes nothing.
    expect(formatOutputs(root, formatted)).toEqual(formatted);
  });
});
