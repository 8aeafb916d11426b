#!/usr/bin/env node
/**
 * package.json `prepare` step: npm runs it after the clone's own `npm ci` / `npm install`, before
 * `npm pack`, and when another project installs this folder (`npm install /path/to/clone`, `npm
 * install -g /path/to/clone`: npm links the folder and prepares it).
 *
 * - When this folder has its devDependencies (TypeScript), build dist/ as `npm run build` does (tsc,
 *   the validator modules packaging/copy-validators.mjs, the CLI bundle and its launcher
 *   packaging/bundle-cli.mjs, packaging/mark-bin.mjs), so `npm ci` alone leaves a
 *   working `npx --no-install lifeloop-callback`.
 * - Otherwise, when dist/ is already built, there is nothing to do.
 * - Otherwise (a clone installed from elsewhere before its own `npm ci`): say what to run, remove
 *   the link npm made to this folder (only a symlink to this very folder) and fail the install,
 *   instead of leaving a link to a package without dist/.
 * There is no `install` script: npm warns about one and pnpm refuses it by default.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, realpathSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");

if (existsSync(tsc)) {
  for (const step of [
    [tsc, "-p", join(root, "tsconfig.json")],
    [join(root, "packaging", "copy-validators.mjs")],
    [join(root, "packaging", "bundle-cli.mjs")],
    [join(root, "packaging", "mark-bin.mjs")],
  ]) {
    const r = spawnSync(process.execPath, step, { stdio: "inherit" });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  process.exit(0);
}
// The library (tsc) and the CLI bundle with its launcher (the `bin`) are both built.
if (existsSync(join(root, "dist", "runtime", "index.js")) && existsSync(join(root, "dist", "cli", "launcher.cjs")))
  process.exit(0);

const initCwd = process.env.INIT_CWD ? resolve(process.env.INIT_CWD) : root;
const link = join(initCwd, "node_modules", "lifeloop-callback");
try {
  if (lstatSync(link).isSymbolicLink() && realpathSync(link) === realpathSync(root)) rmSync(link);
} catch {
  // No link to remove (a global install, or npm placed it elsewhere): the message still tells.
}
console.error(
  [
    `lifeloop-callback: ${root} is a clone that has not been built, so it cannot be installed from.`,
    `Either build it first:   (cd ${root} && npm ci)   and install again,`,
    `or install a packed tarball:   (cd ${root} && npm ci && npm pack)   then npm install ${join(root, ".cache", "pack")}/lifeloop-callback-<version>.tgz`,
  ].join("\n"),
);
process.exit(1);
