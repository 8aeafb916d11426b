#!/usr/bin/env node
/**
 * `npm pack` / `npm publish` step (package.json `postpack`):
 * - put back the package.json that `prepack` (packaging/prepack.mjs) packed without `prepare`;
 * - say where the tarball was written, as an absolute path, and how to install it: npm prints only
 *   its file name, which is not where it is (the pack destination is .cache/pack, .npmrc). On
 *   stderr: `npm pack --json` keeps stdout to itself. Nothing when no tarball was written
 *   (`npm publish`, `npm pack --dry-run`).
 */
import { existsSync, renameSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const backup = join(root, ".cache", "pack", "package.json.orig");
if (existsSync(backup)) renameSync(backup, join(root, "package.json"));

const name = process.env.npm_package_name ?? "lifeloop-callback";
const version = process.env.npm_package_version ?? "";
const destination = resolve(process.env.INIT_CWD ?? process.cwd(), process.env.npm_config_pack_destination || ".");
const tarball = resolve(destination, `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`);
if (existsSync(tarball)) {
  console.error(
    `lifeloop-callback: npm pack wrote ${tarball}\n  install it in a project:   npm install ${tarball}\n  or put the CLI on PATH:    npm install -g ${tarball}`,
  );
}
