/**
 * The examples of README.md that the packed-install suite runs as written. A block is marked by an
 * HTML comment on the line before its fence: `<!-- example: <lang> <name> -->`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** One marked fenced block: its language tag, its name (a file name or a label) and its text. */
export interface ReadmeExample {
  readonly lang: string;
  readonly name: string;
  readonly code: string;
}

/** Every marked block of the README at `root`, in document order. */
export function readmeExamples(root: string): ReadmeExample[] {
  const text = readFileSync(join(root, "README.md"), "utf8");
  const out: ReadmeExample[] = [];
  const marker = /<!-- example: (\S+) (\S+) -->\n```\S*\n([\s\S]*?)\n```/g;
  for (const m of text.matchAll(marker))
    out.push({ lang: m[1] as string, name: m[2] as string, code: `${m[3] as string}\n` });
  return out;
}

/** The one marked block named `name`; throws when the README has none (the marker was lost). */
export function readmeExample(root: string, name: string): ReadmeExample {
  const found = readmeExamples(root).find((e) => e.name === name);
  if (!found) throw new Error(`README.md has no block marked <!-- example: … ${name} -->`);
  return found;
}

/** One command line of a shell example with the exit code its comment states (`exit N`). */
export interface ShellExampleLine {
  readonly command: string;
  readonly expectedExit: number;
}

/**
 * Split a shell example into its assignments (lines `NAME=value`, kept as a prelude) and its
 * commands; every command's comment must state `exit N`.
 */
export function shellExampleLines(code: string): {
  readonly prelude: string;
  readonly lines: readonly ShellExampleLine[];
} {
  const prelude: string[] = [];
  const lines: ShellExampleLine[] = [];
  for (const raw of code.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (/^[A-Z_]+=\S+$/.test(line)) {
      prelude.push(line);
      continue;
    }
    const hash = line.indexOf("   #");
    const exit = /exit (\d+)/.exec(hash >= 0 ? line.slice(hash) : "");
    if (hash < 0 || !exit) throw new Error(`README shell example line states no exit code: ${line}`);
    lines.push({ command: line.slice(0, hash).trim(), expectedExit: Number(exit[1]) });
  }
  return { prelude: prelude.join("\n"), lines };
}

/**
 * A README command as a test runs it: `npx --no-install lifeloop-callback` (a project's local
 * install) and `npx lifeloop-callback` become `lifeloop-callback`, the installed name, which
 * {@link installCliShim} puts on PATH.
 */
export function withInstalledCli(code: string): string {
  return code.replace(/npx (?:--no-install )?lifeloop-callback(?= )/g, "lifeloop-callback");
}

/**
 * Write `dir/lifeloop-callback`, an executable that runs the built CLI `cli` (dist/), and return
 * `dir` to put first on PATH: the README's `lifeloop-callback ...` lines then run this clone's CLI,
 * as a user's global install would run theirs.
 */
export function installCliShim(dir: string, cli: string): string {
  mkdirSync(dir, { recursive: true });
  const shim = join(dir, "lifeloop-callback");
  writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} "$@"\n`, {
    mode: 0o755,
  });
  return dir;
}
