/**
 * `lifeloop-callback generate [--check]`: a thin spawn of `npm run generate [-- --check]`
 * (codegen/main.ts) in a development checkout of this repository. The generators and their packages
 * are development dependencies, and the runtime never imports codegen/ (the layers run spec/ →
 * codegen/ → generated/ → runtime/; an import back would close a codegen ↔ runtime cycle): it runs
 * `node --import tsx codegen/main.ts [--check]` in the checkout as a child process and passes its
 * output and exit code through (0 up to date / written, 1 drift with --check, 2 usage, 3 invalid
 * sources). Outside a development checkout it exits 2 and says why.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { EXIT, parseFlags, UsageError, type CliIo } from "../io.js";
import { packageRoot } from "../../process/package-root.js";

/** Usage text of the generate command. */
export const GENERATE_USAGE = `usage: lifeloop-callback generate [--check]
  Regenerates generated/ from spec/ and schemas/ (development checkout only).
  --check  write nothing; print a unified diff of drifted files; exit 1 on drift`;

/** Run the generate command; returns the exit code of codegen/main.ts (3 when it could not run or died of a signal). */
export async function runGenerateCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { switches, positionals } = parseFlags(args, { switches: ["--check"] });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const root = packageRoot();
  const entry = join(root, "codegen", "main.ts");
  if (!existsSync(entry)) {
    io.err("generate: codegen/ is not present; generate runs in a development checkout of lifeloop-callback\n");
    return EXIT.usage;
  }
  if (!existsSync(join(root, "node_modules", "tsx"))) {
    io.err("generate: the development dependencies are not installed; run `npm ci` first\n");
    return EXIT.usage;
  }
  const argv = ["--import", "tsx", entry, ...(switches.has("--check") ? ["--check"] : []), "--root", root];
  const child = spawn(process.execPath, argv, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.setEncoding("utf8").on("data", (text: string) => io.out(text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => io.err(text));
  return new Promise<number>((done) => {
    child.on("error", (error) => {
      io.err(`generate: cannot run codegen/main.ts: ${error.message}\n`);
      done(EXIT.input);
    });
    child.on("close", (code, signal) => {
      if (code !== null) return done(code);
      io.err(`generate: codegen/main.ts ended by ${signal}\n`);
      done(EXIT.input);
    });
  });
}
