#!/usr/bin/env node
/**
 * package.json `install` step. When this package is installed into another project from a clone
 * that was never built (`npm install /path/to/clone`), npm links the clone as it is and the link
 * would point at a package without dist/. Instead: say what to run, remove that link (only if it is
 * a symlink to this very folder) and fail the install. A packed tarball ships dist/, so this passes;
 * the clone's own `npm ci` (INIT_CWD is the clone itself) is never checked.
 */
import { existsSync, lstatSync, realpathSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const initCwd = process.env.INIT_CWD ? resolve(process.env.INIT_CWD) : root;
const isOwnInstall = initCwd === root || realpathSync(initCwd) === realpathSync(root);
// The library (tsc) and the CLI bundle (the `bin`, packaging/bundle-cli.mjs) are both built.
if (!isOwnInstall && !(existsSync(join(root, "dist", "runtime", "index.js")) && existsSync(join(root, "dist", "cli", "main.js")))) {
  const link = join(initCwd, "node_modules", "lifeloop-callback");
  try {
    if (lstatSync(link).isSymbolicLink() && realpathSync(link) === realpathSync(root)) rmSync(link);
  } catch {
    // No link to remove (a global install, or npm placed it elsewhere): the message still tells.
  }
  console.error(
    [
      `lifeloop-callback: ${root} is a clone that has not been built, so it cannot be installed from.`,
      `Either build it first:   (cd ${root} && npm ci && npm run build)   and install again,`,
      `or install a packed tarball:   (cd ${root} && npm ci && npm pack)   then npm install ${join(root, ".cache", "pack")}/lifeloop-callback-<version>.tgz`,
    ].join("\n"),
  );
  process.exit(1);
}
