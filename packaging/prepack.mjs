#!/usr/bin/env node
/**
 * `npm pack` / `npm publish` step (package.json `prepack`, which npm runs before `prepare`, which
 * builds dist/: packaging/prepare.mjs): check that the clone has its devDependencies, and create the
 * pack destination (.npmrc `pack-destination`, an ignored folder) so the tarball never lands
 * untracked in the repository root. `postpack` (packaging/postpack.mjs) says where it was written.
 * Exit 1 with what to run when the clone has no devDependencies installed yet.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
if (!existsSync(join(root, "node_modules", "typescript", "bin", "tsc"))) {
  console.error(`lifeloop-callback: cannot build the package: ${root} has no node_modules yet.\nRun \`npm ci\` in ${root} first, then \`npm pack\` again.`);
  process.exit(1);
}
mkdirSync(join(root, ".cache", "pack"), { recursive: true });
