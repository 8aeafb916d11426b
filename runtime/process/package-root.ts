/**
 * Locate the root of the lifeloop-callback package (the directory holding its package.json), from
 * either the TypeScript sources or the compiled `dist/` tree.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of the package root; throws if this file is not inside the package. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name;
      if (name === "lifeloop-callback") return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the lifeloop-callback package root");
    dir = parent;
  }
}

/** The `version` of this package's package.json (e.g. `0.1.0`). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

/**
 * Absolute path of the CLI this package installs (package.json `bin`, `lifeloop-callback`): the
 * launcher packaging/bundle-cli.mjs writes (packaging/launcher.cjs), which answers `--version`
 * itself and hands everything else to the bundle; it starts faster than dist/runtime/cli/main.js.
 * @throws Error when package.json names no such bin.
 */
export function packageBin(): string {
  const bin = (
    JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { bin?: string | Record<string, string> }
  ).bin;
  const path = typeof bin === "string" ? bin : bin?.["lifeloop-callback"];
  if (path === undefined) throw new Error("package.json has no bin lifeloop-callback");
  return join(packageRoot(), path);
}
