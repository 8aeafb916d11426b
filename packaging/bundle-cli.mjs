#!/usr/bin/env node
/**
 * Build step (package.json `build` and prepack, after tsc): bundle the CLI into dist/cli/, the
 * package's `bin`. Start-up is a user's latency (issue 30: `hook` runs on every harness event), and
 * Node 20's ES module loader pays per file (resolve, stat, read, compile): the entry point and each
 * command become one file each (`import()` of a command stays lazy: esbuild splits at it), with the
 * code they share in dist/cli/chunks/. Measured on the `hook` path (npm run bench -- cli): about
 * 20% less CPU than the 61 files tsc writes. Packages stay external (ajv's runtime helper, the
 * native fs-native-extensions), resolved from the installed package as before; dist/runtime/ is
 * still the library and what the test suites run. The per-type validator modules
 * (generated/ts/validators/<Type>.cjs, loaded on first use through a local `require` that esbuild
 * leaves alone) are copied beside the output file that holds their index, as in dist/generated/ts/.
 * Then the package's `bin`, dist/cli/launcher.cjs (packaging/launcher.cjs with its BUILD filled in):
 * for each argument list of staticAnswerArgvs (runtime/cli/main.ts) it records what the bundle just
 * written prints and its exit code, so the launcher answers `--version` and the top-level help
 * without starting the ES module graph; every other argument list goes to the bundle.
 * esbuild comes with the devDependencies (through tsx). Exit 1 with esbuild's message on failure,
 * or with the argument list whose answer cannot be recorded (output on stderr, or no exit code).
 */
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "cli");
let esbuild;
try {
  esbuild = await import("esbuild");
} catch (error) {
  console.error(
    `lifeloop-callback: cannot bundle the CLI: esbuild is not installed (${error.message}).\nRun \`npm ci\` in ${root} first.`,
  );
  process.exit(1);
}
// A stale chunk of an earlier build must not ship.
rmSync(outdir, { recursive: true, force: true });
let metafile;
try {
  ({ metafile } = await esbuild.build({
    entryPoints: { main: join(root, "dist", "runtime", "cli", "main.js") },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "warning",
    metafile: true,
  }));
} catch (error) {
  console.error(`lifeloop-callback: bundling the CLI failed: ${error.message}`);
  process.exit(1);
}

// The validator modules, beside the output that holds their index (dist/generated/ts/validators.js).
const index = relative(root, join(root, "dist", "generated", "ts", "validators.js"));
const holders = Object.entries(metafile.outputs).filter(([, output]) => index in output.inputs);
if (holders.length !== 1) {
  console.error(`lifeloop-callback: expected one bundle output holding ${index}, found ${holders.length}`);
  process.exit(1);
}
cpSync(join(root, "dist", "generated", "ts", "validators"), join(dirname(join(root, holders[0][0])), "validators"), {
  recursive: true,
});

// The launcher: the answers of the static argument lists, as the bundle gives them.
const { staticAnswerArgvs } = await import(pathToFileURL(join(root, "dist", "runtime", "cli", "main.js")).href);
const { CLI_EXIT_CODES } = await import(
  pathToFileURL(join(root, "dist", "generated", "ts", "spec", "cli-exit-codes.js")).href
);
const answers = {};
for (const argv of staticAnswerArgvs()) {
  const r = spawnSync(process.execPath, [join(outdir, "main.js"), ...argv], { encoding: "utf8", timeout: 60_000 });
  if (r.status === null || r.stderr !== "") {
    console.error(
      `lifeloop-callback: cannot record the launcher's answer to ${JSON.stringify(argv)} (exit ${r.status}, signal ${r.signal}): ${r.error?.message ?? r.stderr}`,
    );
    process.exit(1);
  }
  answers[JSON.stringify(argv)] = { stdout: r.stdout, code: r.status };
}
const template = readFileSync(join(root, "packaging", "launcher.cjs"), "utf8");
const marker = /\/\* @build \*\/ .*;$/m;
if (!marker.test(template)) {
  console.error("lifeloop-callback: packaging/launcher.cjs has no `/* @build */ ...;` line to fill in");
  process.exit(1);
}
writeFileSync(
  join(outdir, "launcher.cjs"),
  template.replace(marker, () => `/* @build */ ${JSON.stringify({ answers, exit: CLI_EXIT_CODES })};`),
);
