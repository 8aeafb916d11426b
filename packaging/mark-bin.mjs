#!/usr/bin/env node
/**
 * Build step (package.json `build`, after tsc): make every file of package.json's `bin` executable
 * (mode 0755). tsc writes dist/ files with mode 0644, so in a clone `npx lifeloop-callback` (a link
 * to dist/cli/launcher.cjs) and a direct run of that path would fail with EACCES; an install from
 * the registry or a tarball sets the mode itself, a clone's build does not.
 * Exit 1 with the path when a `bin` file is missing (the build did not write it).
 */
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const bins = typeof pkg.bin === "string" ? [pkg.bin] : Object.values(pkg.bin ?? {});
for (const bin of bins) {
  const path = join(root, bin);
  if (!existsSync(path)) {
    console.error(`lifeloop-callback: package.json bin ${bin} was not built (no ${path})`);
    process.exit(1);
  }
  chmodSync(path, 0o755);
}
