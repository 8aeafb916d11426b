#!/usr/bin/env node
/**
 * `npm pack` step (package.json `postpack`): npm prints only the tarball's file name, which is not
 * where it is (the pack destination is .cache/pack, .npmrc). Say where it was written, as an
 * absolute path, and how to install it (on stderr: `npm pack --json` keeps stdout to itself).
 * Prints nothing when no tarball was written (`npm publish`, `npm pack --dry-run`).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";

const name = process.env.npm_package_name ?? "lifeloop-callback";
const version = process.env.npm_package_version ?? "";
const destination = resolve(process.env.INIT_CWD ?? process.cwd(), process.env.npm_config_pack_destination || ".");
const tarball = resolve(destination, `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`);
if (existsSync(tarball)) {
  console.error(`lifeloop-callback: npm pack wrote ${tarball}\n  install it in a project:   npm install ${tarball}\n  or put the CLI on PATH:    npm install -g ${tarball}`);
}
