/**
 * `npm run generate [-- --check] [-- --root DIR]`: regenerate everything in generated/ (and the
 * generated regions of spec/*.md) from spec/ and schemas/.
 *
 * --check  regenerate in memory, write nothing, print a unified diff of every drifted file and exit 1
 *          when anything differs (changed, missing or stale).
 * --root   repository root to read and write (default: the repository this file lives in).
 *
 * Exit codes: 0 up to date / written, 1 drift found (--check) or an output would overwrite a
 * hand-written file of sdk/ (nothing written), 2 usage error, 3 the sources are invalid (the message
 * names the file and JSON pointer).
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { findDrift, HandWrittenFileError, writeOutputs } from "./emit/check.js";
import { formatOutputs } from "./emit/format.js";
import type { OutputFile } from "./emit/output.js";
import { diskInputs } from "./model/inputs.js";
import { loadModel, ModelError } from "./model/load.js";
import { TARGETS } from "./targets/index.js";

/** Where generate's text goes (stdout for results, stderr for diagnostics). */
export interface GenerateIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** Options of one generate run. */
export interface GenerateOptions {
  readonly root: string;
  readonly check: boolean;
}

/**
 * Run every target against the model at `root` and format the TypeScript outputs (emit/format.ts);
 * returns the outputs sorted by path (throws ModelError on invalid sources).
 */
export async function generateAll(root: string): Promise<OutputFile[]> {
  const model = loadModel(root);
  const inputs = diskInputs(root);
  const outputs: OutputFile[] = [];
  for (const target of TARGETS) outputs.push(...(await target.generate(model, inputs)));
  const seen = new Set<string>();
  for (const o of outputs) {
    if (seen.has(o.path)) throw new Error(`two targets produce ${o.path}`);
    seen.add(o.path);
  }
  // The emit step: TypeScript outputs through Biome when biome.jsonc turns the formatter on.
  return formatOutputs(
    root,
    outputs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  );
}

/** Generate or check; returns the process exit code. */
export async function runGenerate(options: GenerateOptions, io: GenerateIo): Promise<number> {
  try {
    return await generateOrCheck(options, io);
  } catch (error) {
    if (!(error instanceof HandWrittenFileError)) throw error;
    io.err(`generate: refused: ${error.message}\n`);
    return 1;
  }
}

/** {@link runGenerate} without the refusal of outputs over hand-written files. */
async function generateOrCheck(options: GenerateOptions, io: GenerateIo): Promise<number> {
  let outputs: OutputFile[];
  try {
    outputs = await generateAll(options.root);
  } catch (error) {
    if (error instanceof ModelError) {
      io.err(`generate: invalid source: ${error.message}\n`);
      return 3;
    }
    throw error;
  }
  if (options.check) {
    const drift = findDrift(options.root, outputs);
    if (drift.length === 0) {
      io.out(`generate --check: ${outputs.length} files up to date\n`);
      return 0;
    }
    for (const d of drift) {
      if (d.kind === "stale") io.out(`stale (no target produces it): ${d.path}\n`);
      else io.out(d.diff);
    }
    io.err(
      `generate --check: ${drift.length} file(s) drifted: ${drift.map((d) => `${d.path} (${d.kind})`).join(", ")}\nRun \`npm run generate\` and commit the result.\n`,
    );
    return 1;
  }
  const touched = writeOutputs(options.root, outputs);
  io.out(
    touched.length === 0
      ? `generate: ${outputs.length} files already up to date\n`
      : `${touched.join("\n")}\ngenerate: ${touched.length} file(s) updated\n`,
  );
  return 0;
}

/** Parse argv (after the script name). Returns null on a usage error. */
export function parseGenerateArgs(argv: readonly string[], defaultRoot: string): GenerateOptions | null {
  let check = false;
  let root = defaultRoot;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--check") check = true;
    else if (arg === "--root" && i + 1 < argv.length) root = resolve(argv[++i] as string);
    else return null;
  }
  return { root, check };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const options = parseGenerateArgs(process.argv.slice(2), repoRoot);
  if (!options) {
    process.stderr.write("usage: npm run generate [-- --check] [-- --root DIR]\n");
    process.exitCode = 2;
  } else {
    process.exitCode = await runGenerate(options, {
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
    });
  }
}
