/**
 * The package's subpath entry points (package.json `exports`: `lifeloop-callback/wire`, `/host`,
 * `/client`, `/continuation`, `/hooks`; sources in runtime/entry/) split the root export between
 * them: every runtime name of the root is in exactly one subpath, and each subpath's binding is the
 * root's own. A name added to runtime/index.ts without a subpath fails here. (Type-only names are
 * checked by the compiler: runtime/entry/*.ts re-export them from runtime/index.ts by name. The
 * packed tarball's subpaths are imported under Node and TypeScript in packed-install.test.ts.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as client from "../../runtime/entry/client.js";
import * as continuation from "../../runtime/entry/continuation.js";
import * as hooks from "../../runtime/entry/hooks.js";
import * as host from "../../runtime/entry/host.js";
import * as wire from "../../runtime/entry/wire.js";
import * as root from "../../runtime/index.js";
import { REPO_ROOT } from "../support/cli-process.js";

/** The subpaths besides "." and "./examples/*", with the entry module each loads from dist/. */
const SUBPATHS = ["wire", "host", "client", "continuation", "hooks"] as const;

const modules = new Map<string, Record<string, unknown>>([
  ["wire", wire],
  ["host", host],
  ["client", client],
  ["continuation", continuation],
  ["hooks", hooks],
]);

describe("subpath exports", () => {
  it("package.json exports each subpath with types and default from dist/runtime/entry/", () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    expect(Object.keys(pkg.exports)).toEqual([".", ...SUBPATHS.map((s) => `./${s}`), "./examples/*"]);
    for (const name of SUBPATHS) {
      expect(pkg.exports[`./${name}`]).toEqual({
        types: `./dist/runtime/entry/${name}.d.ts`,
        default: `./dist/runtime/entry/${name}.js`,
      });
    }
  });

  it("every runtime export of the root is in exactly one subpath, as the same binding", () => {
    const owner = new Map<string, string[]>();
    for (const [name, mod] of modules) {
      for (const [key, value] of Object.entries(mod)) {
        expect(value, `${name}.${key}`).toBe((root as Record<string, unknown>)[key]);
        owner.set(key, [...(owner.get(key) ?? []), name]);
      }
    }
    const rootNames = Object.keys(root).sort();
    expect([...owner.keys()].sort()).toEqual(rootNames);
    expect([...owner].filter(([, subs]) => subs.length > 1)).toEqual([]);
  });
});
