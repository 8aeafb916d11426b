/**
 * The fixture corpus of `lifeloop-callback diff` (test/diff/fixtures/<name>/): each directory holds
 * `old/`, `new/` and `fixture.json` `{mode, expected, exit?, overlay?, delete?, draft?, note}`.
 * `schema` fixtures hold `old/schema.json` and `new/schema.json`; `tree` fixtures hold partial
 * project trees laid over `overlay` (a release snapshot of this repository), with `delete` naming
 * files the head tree lacks. `expected` is the exact set of rule ids the diff reports.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../support/cli-process.js";

/** Where the fixtures are. */
export const FIXTURES = join(REPO_ROOT, "test", "diff", "fixtures");

/** One fixture's declaration. */
export interface Fixture {
  readonly name: string;
  readonly dir: string;
  readonly mode: "schema" | "tree";
  readonly expected: readonly string[];
  readonly exit?: number;
  readonly overlay?: string;
  readonly delete?: readonly string[];
  readonly draft?: "2020-12" | "draft-07";
  readonly note?: string;
}

/** Every fixture, by name order. */
export function listFixtures(): Fixture[] {
  return readdirSync(FIXTURES)
    .sort()
    .map((name) => ({
      name,
      dir: join(FIXTURES, name),
      ...(JSON.parse(readFileSync(join(FIXTURES, name, "fixture.json"), "utf8")) as Omit<Fixture, "name" | "dir">),
    }));
}

/** Read a fixture's schema documents. */
export function schemaPair(fixture: Fixture): [unknown, unknown] {
  const read = (side: string): unknown =>
    JSON.parse(readFileSync(join(fixture.dir, side, "schema.json"), "utf8")) as unknown;
  return [read("old"), read("new")];
}

/**
 * Lay a tree fixture out as two real directories (overlay + old/, overlay + new/ − delete) under a
 * fresh temporary directory. The caller removes `root`.
 */
export function materialize(fixture: Fixture): { root: string; base: string; head: string } {
  const root = mkdtempSync(join(tmpdir(), `lifeloop-diff-${fixture.name}-`));
  const base = join(root, "base");
  const head = join(root, "head");
  for (const [dir, side] of [
    [base, "old"],
    [head, "new"],
  ] as const) {
    mkdirSync(dir, { recursive: true });
    if (fixture.overlay) cpSync(join(REPO_ROOT, fixture.overlay), dir, { recursive: true });
    // git keeps no empty directories: a side with nothing to lay over is absent from a clone.
    if (existsSync(join(fixture.dir, side))) cpSync(join(fixture.dir, side), dir, { recursive: true });
  }
  for (const rel of fixture.delete ?? []) rmSync(join(head, rel), { force: true });
  return { root, base, head };
}
