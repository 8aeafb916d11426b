/**
 * `lifeloop-callback generate [--check]`: the same as `npm run generate [-- --check]` (see
 * codegen/main.ts). Needs a development checkout of this repository (the generators and their
 * packages are development dependencies); they are loaded with tsx in this process.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EXIT, parseFlags, UsageError, type CliIo } from "../io.js";
import { packageRoot } from "../../process/package-root.js";

/** Usage text of the generate command. */
export const GENERATE_USAGE = `usage: lifeloop-callback generate [--check]
  Regenerates generated/ from spec/ and schemas/ (development checkout only).
  --check  write nothing; print a unified diff of drifted files; exit 1 on drift`;

interface CodegenModule {
  runGenerate(options: { root: string; check: boolean }, io: { out: (t: string) => void; err: (t: string) => void }): Promise<number>;
}

/** Run the generate command; returns the exit code. */
export async function runGenerateCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { switches, positionals } = parseFlags(args, { switches: ["--check"] });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const root = packageRoot();
  const entry = join(root, "codegen", "main.ts");
  if (!existsSync(entry)) {
    io.err("generate: codegen/ is not present; generate runs in a development checkout of lifeloop-callback\n");
    return EXIT.usage;
  }
  let tsImport: (specifier: string, parent: string) => Promise<unknown>;
  try {
    ({ tsImport } = (await import("tsx/esm/api")) as { tsImport: typeof tsImport });
  } catch {
    io.err("generate: the development dependencies are not installed; run `npm ci` first\n");
    return EXIT.usage;
  }
  const codegen = (await tsImport(pathToFileURL(entry).href, import.meta.url)) as CodegenModule;
  return codegen.runGenerate({ root, check: switches.has("--check") }, { out: io.out, err: io.err });
}
