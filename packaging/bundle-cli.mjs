#!/usr/bin/env node
/**
 * Build step (package.json `build` and prepack, after tsc): bundle the CLI into dist/cli/, the
 * package's `bin`. Start-up is a user's latency (issue 30: `hook` runs on every harness event), and
 * what a start costs is the files Node's module loader reads and the code it compiles. Three parts:
 *
 * 1. dist/cli/main.js, an ES module bundle of dist/runtime/cli/main.js: the entry point and each
 *    command become one file each (`import()` of a command stays lazy: esbuild splits at it), with
 *    the code they share in dist/cli/chunks/. About 20% less CPU on the `hook` path than the 61 files
 *    tsc writes. Every command but the HOT ones runs from here.
 * 2. dist/cli/chunks/command-<name>.cjs for each HOT command: the same entry point bundled as one
 *    CommonJS file holding that command only (the other commands' modules are left out: importing
 *    one fails with a clear error). One file and no ES module loader: measured against (1) on a
 *    loaded 2-core machine (CPU time, 30 interleaved rounds), `hook` 136 -> 117 ms, `invoke`
 *    132 -> 115 ms, `continuation get` 85 -> 77 ms (a bare node start: 63 ms). Code shared between
 *    commands is repeated in each of these files (about 1 MB in all), so only the commands on a
 *    user's per-event path get one.
 * 3. dist/cli/launcher.cjs, the package's `bin` (packaging/launcher.cjs with its BUILD filled in):
 *    for each argument list of staticAnswerArgvs (runtime/cli/main.ts) it records what bundle (1)
 *    prints and its exit code, so the launcher answers `--version` and the top-level help without
 *    loading any of them; a HOT command goes to its file (2), anything else to (1).
 *
 * Packages stay external (ajv's runtime helper, the native fs-native-extensions), resolved from the
 * installed package as before; dist/runtime/ is still the library and what the test suites run. The
 * per-type validator modules (generated/ts/validators/<Type>.cjs, loaded on first use through a local
 * `require` that esbuild leaves alone) are copied beside the output files that hold their index.
 * esbuild comes with the devDependencies (through tsx). Exit 1 with esbuild's message on failure,
 * or with the argument list whose answer cannot be recorded (output on stderr, or no exit code).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "cli");
const entry = join(root, "dist", "runtime", "cli", "main.js");
/**
 * The commands with a CommonJS file of their own: the one-shot commands a harness or a client runs
 * per event (issue 30's bench: hook, continuation put|get|list, invoke, validate).
 */
const HOT = ["hook", "continuation", "invoke", "validate"];

/** Report a failed step and exit 1. */
function fail(message) {
  console.error(`lifeloop-callback: ${message}`);
  process.exit(1);
}

let esbuild;
try {
  esbuild = await import("esbuild");
} catch (error) {
  fail(`cannot bundle the CLI: esbuild is not installed (${error.message}).\nRun \`npm ci\` in ${root} first.`);
}
// A stale chunk of an earlier build must not ship.
rmSync(outdir, { recursive: true, force: true });
const common = { bundle: true, platform: "node", target: "node20", packages: "external", logLevel: "warning" };
const outputs = {};
try {
  // (1) The ES module bundle, split per command.
  const esm = await esbuild.build({
    ...common,
    entryPoints: { main: entry },
    outdir,
    splitting: true,
    format: "esm",
    chunkNames: "chunks/[name]-[hash]",
    metafile: true,
  });
  Object.assign(outputs, esm.metafile.outputs);
  // (2) One CommonJS file per HOT command.
  for (const name of HOT) {
    const cjs = await esbuild.build({
      ...common,
      entryPoints: { [`command-${name}`]: entry },
      outdir: join(outdir, "chunks"),
      outExtension: { ".js": ".cjs" },
      format: "cjs",
      metafile: true,
      // CommonJS has no import.meta: its url is this file's, as in the ES module it came from.
      define: { "import.meta.url": "__lifeloopModuleUrl" },
      banner: { js: 'const __lifeloopModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
      plugins: [onlyCommand(name)],
    });
    Object.assign(outputs, cjs.metafile.outputs);
  }
} catch (error) {
  fail(`bundling the CLI failed: ${error.message}`);
}

/**
 * An esbuild plugin that leaves every command module but `name` out of the bundle: main.js imports
 * them on demand (runtime/cli/main.ts LOADERS), and in its place is a module that throws when loaded.
 */
function onlyCommand(name) {
  return {
    name: "only-command",
    setup(build) {
      build.onResolve({ filter: /^\.\/commands\/[\w-]+\.js$/ }, (args) => {
        if (args.importer !== entry) return undefined;
        const command = args.path.slice("./commands/".length, -".js".length);
        return command === name ? undefined : { path: command, namespace: "left-out" };
      });
      build.onLoad({ filter: /.*/, namespace: "left-out" }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`this file holds the ${name} command only, not ${args.path}`)});`,
        loader: "js",
      }));
    },
  };
}

// The validator modules, beside each output that holds their index (dist/generated/ts/validators.js).
const index = relative(root, join(root, "dist", "generated", "ts", "validators.js"));
const holders = new Set(
  Object.entries(outputs)
    .filter(([, output]) => index in output.inputs)
    .map(([path]) => dirname(join(root, path))),
);
if (holders.size === 0) fail(`no bundle output holds ${index}`);
for (const dir of holders)
  cpSync(join(root, "dist", "generated", "ts", "validators"), join(dir, "validators"), { recursive: true });

// (3) The launcher: the answers of the static argument lists, as the bundle gives them.
const { staticAnswerArgvs } = await import(pathToFileURL(entry).href);
const { CLI_EXIT_CODES } = await import(
  pathToFileURL(join(root, "dist", "generated", "ts", "spec", "cli-exit-codes.js")).href
);
const answers = {};
for (const argv of staticAnswerArgvs()) {
  const r = spawnSync(process.execPath, [join(outdir, "main.js"), ...argv], { encoding: "utf8", timeout: 60_000 });
  if (r.status === null || r.stderr !== "")
    fail(
      `cannot record the launcher's answer to ${JSON.stringify(argv)} (exit ${r.status}, signal ${r.signal}): ${r.error?.message ?? r.stderr}`,
    );
  answers[JSON.stringify(argv)] = { stdout: r.stdout, code: r.status };
}
const commands = Object.fromEntries(HOT.map((name) => [name, `./chunks/command-${name}.cjs`]));
// The compile cache the launcher installs for them, and this build's id: a hash of every file the
// cache may hold an entry for, so entries of another build are never read (packaging/compile-cache.cjs).
cpSync(join(root, "packaging", "compile-cache.cjs"), join(outdir, "compile-cache.cjs"));
const buildHash = createHash("sha256");
for (const file of readdirSync(outdir, { recursive: true }).sort()) {
  const path = join(outdir, file);
  if (statSync(path).isFile()) buildHash.update(`${file}\0`).update(readFileSync(path)).update("\0");
}
const buildId = buildHash.digest("hex").slice(0, 16);
const template = readFileSync(join(root, "packaging", "launcher.cjs"), "utf8");
const marker = /\/\* @build \*\/ .*;$/m;
if (!marker.test(template)) fail("packaging/launcher.cjs has no `/* @build */ ...;` line to fill in");
writeFileSync(
  join(outdir, "launcher.cjs"),
  template.replace(
    marker,
    () => `/* @build */ ${JSON.stringify({ answers, commands, exit: CLI_EXIT_CODES, buildId })};`,
  ),
);
