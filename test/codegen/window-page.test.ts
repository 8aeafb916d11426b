/**
 * The window page (codegen/tools/window-page.ts, generated/docs/wire-window.md, written by `npm run docs`):
 * the diff gate's changes between each accepted version's snapshot and the current tree, limited to
 * the wire document schemas and the rules, each listed under the direction it admits. Run on real
 * trees: the repository, and a scratch copy of its spec/ and schemas/ with one change per direction.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WINDOW_PAGE, windowPage } from "../../codegen/tools/window-page.js";
import { REPO_ROOT } from "../support/cli-process.js";

const wire = JSON.parse(readFileSync(join(REPO_ROOT, "spec", "wire-version.json"), "utf8")) as {
  current: string;
  accepted: string[];
};

/** The text of the section that follows `heading` (up to the next heading of the same or a higher level). */
function section(page: string, heading: string): string {
  const start = page.indexOf(`${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const level = heading.match(/^#+/)?.[0] as string;
  const rest = page.slice(start + heading.length + 1);
  const end = rest.search(new RegExp(`^#{1,${level.length}} `, "m"));
  return end < 0 ? rest : rest.slice(0, end);
}

describe("the window page", () => {
  it("is the committed generated/docs/wire-window.md (npm run docs -- --check checks it too)", () => {
    const page = windowPage(REPO_ROOT);
    expect(page.path).toBe(WINDOW_PAGE);
    expect(readFileSync(join(REPO_ROOT, WINDOW_PAGE), "utf8")).toBe(page.content);
  });

  it("has a section per accepted version and leaves out the schemas the window does not version", () => {
    const page = windowPage(REPO_ROOT).content;
    for (const version of wire.accepted) {
      expect(page).toContain(`## \`${version}\``);
      expect(page).toContain(`### Admitted by \`${version}\`, refused by \`${wire.current}\``);
      expect(page).toContain(`### Admitted by \`${wire.current}\`, refused by \`${version}\``);
    }
    expect(page).not.toContain("schemas/hooks/");
    expect(page).not.toContain("schemas/stream/");
  });
});

describe("the window page on a scratch tree with a change in each direction", () => {
  const version = wire.accepted[0] as string;
  let root: string;
  let page: string;
  beforeAll(() => {
    // Only what the page reads: spec/ (wire-version.json, tables, the snapshots) and schemas/.
    root = mkdtempSync(join(tmpdir(), "lifeloop-window-page-"));
    for (const top of ["spec", "schemas"]) cpSync(join(REPO_ROOT, top), join(root, top), { recursive: true });
    // Current refuses what the older version admits: a shorter Warning.code.
    const warningFile = join(root, "schemas", "warning.schema.json");
    const warning = JSON.parse(readFileSync(warningFile, "utf8")) as {
      properties: { code: { maxLength: number } };
    };
    warning.properties.code.maxLength = Math.floor(warning.properties.code.maxLength / 2);
    writeFileSync(warningFile, `${JSON.stringify(warning, null, 2)}\n`);
    // Current admits what the older version refuses: a rule both versions have, dropped from current.
    const rulesFile = join(root, "spec", "tables", "rules.json");
    const rules = JSON.parse(readFileSync(rulesFile, "utf8")) as { rules: { id: string }[] };
    rules.rules = rules.rules.filter((r) => r.id !== "payload-body-exactly-one");
    writeFileSync(rulesFile, `${JSON.stringify(rules, null, 2)}\n`);
    page = windowPage(root).content;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("lists a narrowed shape as admitted by the older version, refused by current", () => {
    const older = section(page, `### Admitted by \`${version}\`, refused by \`${wire.current}\``);
    const newer = section(page, `### Admitted by \`${wire.current}\`, refused by \`${version}\``);
    expect(older).toContain("`schemas/warning.schema.json#/properties/code/maxLength`");
    expect(newer).not.toContain("schemas/warning.schema.json");
  });

  it("lists a dropped rule as admitted by current, refused by the older version", () => {
    const older = section(page, `### Admitted by \`${version}\`, refused by \`${wire.current}\``);
    const newer = section(page, `### Admitted by \`${wire.current}\`, refused by \`${version}\``);
    expect(newer).toMatch(/\| `rule-removed` \| `spec\/tables\/rules\.json#\/rules\/payload-body-exactly-one\//);
    expect(older).not.toContain("payload-body-exactly-one");
  });
});
