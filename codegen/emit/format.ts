/**
 * The formatting step of emit: the TypeScript and JavaScript outputs go through Biome's formatter
 * with the repository's own settings, so `generate --check` and `npm run format:check` agree on
 * generated/.
 *
 * The settings are the "formatter" and "javascript" sections of `<root>/biome.jsonc`, and so is the
 * switch: when `formatter.enabled` is not true (or the file is missing, as in a fixture root) the
 * outputs are returned as rendered. One `biome format --write` process formats every output at once,
 * over a scratch folder that holds the outputs at their repository paths and a biome.json with only
 * those sections (so the repository's file scope and VCS settings play no part).
 *
 * Python and Go outputs are not formatted here: ruff and gofmt are not there when `generate --check`
 * runs early in CI from a clean clone, so those outputs are formatter-clean by their templates
 * (gofmt) or outside the format check (ruff.toml says which).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { OutputFile } from "./output.js";

/** Outputs Biome formats: TypeScript and JavaScript sources (JSON outputs stay as stableJson writes them). */
const FORMATTED = /\.(ts|mts|cts|js|mjs|cjs)$/;

/**
 * `text` with `//` and `/* *\/` comments and trailing commas removed, outside strings: enough to
 * read biome.jsonc with JSON.parse.
 */
export function stripJsonc(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else {
      out += c;
    }
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

/** The formatter settings of `<root>/biome.jsonc`, or null when the file is missing or the formatter is off. */
export function biomeFormatSettings(root: string): Record<string, unknown> | null {
  const path = join(root, "biome.jsonc");
  if (!existsSync(path)) return null;
  const config = JSON.parse(stripJsonc(readFileSync(path, "utf8"))) as Record<string, unknown>;
  const formatter = config.formatter as Record<string, unknown> | undefined;
  if (formatter?.enabled !== true) return null;
  // `includes` names repository paths; the scratch folder formats everything it holds.
  const settings = Object.fromEntries(Object.entries(formatter).filter(([key]) => key !== "includes"));
  return {
    vcs: { enabled: false },
    files: { includes: ["**"], maxSize: 16 * 1024 * 1024 },
    formatter: settings,
    javascript: config.javascript ?? {},
    linter: { enabled: false },
    assist: { enabled: false },
  };
}

/**
 * Format the TypeScript and JavaScript outputs with Biome when `<root>/biome.jsonc` turns the
 * formatter on; other outputs, and every output when it is off, are returned unchanged. Order is kept.
 * Throws with Biome's output when Biome fails (a syntax error in a rendered file, for example).
 */
export function formatOutputs(root: string, outputs: readonly OutputFile[]): OutputFile[] {
  const settings = biomeFormatSettings(root);
  const selected = outputs.filter((o) => FORMATTED.test(o.path));
  if (settings === null || selected.length === 0) return [...outputs];
  const scratch = mkdtempSync(join(tmpdir(), "lifeloop-format-"));
  try {
    writeFileSync(join(scratch, "biome.json"), JSON.stringify(settings));
    for (const o of selected) {
      mkdirSync(dirname(join(scratch, o.path)), { recursive: true });
      writeFileSync(join(scratch, o.path), o.content);
    }
    const biome = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
    // Two passes: Biome 2.6 is not idempotent on every rendered shape (a parenthesised `a && b`
    // inside a longer chain is laid out on one line by the first pass and broken by the second), and
    // `npm run format:check` judges the committed files, which are the second pass's input.
    for (let pass = 0; pass < 2; pass++) {
      const run = spawnSync(process.execPath, [biome, "format", "--write", "--no-errors-on-unmatched", "."], {
        cwd: scratch,
        encoding: "utf8",
        timeout: 120_000,
      });
      if (run.status !== 0)
        throw new Error(
          `biome format of the generated sources failed (exit ${run.status}, signal ${run.signal}):\n${run.stdout}${run.stderr}`,
        );
    }
    const formatted = new Map(selected.map((o) => [o.path, readFileSync(join(scratch, o.path), "utf8")]));
    return outputs.map((o) => {
      const content = formatted.get(o.path);
      return content === undefined ? o : { path: o.path, content };
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
