/**
 * The examples on every generated type page (generated/docs/types/*.md) say the truth: the valid
 * document validates with no issue, and the invalid one is refused with exactly the rule id and
 * pointer the page states (validateValue, the host's own schema and rule layers).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WIRE_OBJECT_TYPES, type WireObjectTypeName } from "../../generated/ts/spec.js";
import { validateValue } from "../../runtime/wire/validate.js";
import { REPO_ROOT } from "../support/cli-process.js";

const PAGES = join(REPO_ROOT, "generated", "docs", "types");

describe("type page examples", () => {
  it("has a page with a valid and an invalid example for every wire object type", () => {
    const pages = readdirSync(PAGES)
      .filter((f) => f.endsWith(".md"))
      .map((f) => f.replace(/\.md$/, ""));
    expect(pages.sort()).toEqual([...WIRE_OBJECT_TYPES].sort());
  });

  for (const typeName of WIRE_OBJECT_TYPES) {
    it(`${typeName}: the valid example is valid, the invalid one fails as stated`, () => {
      const text = readFileSync(join(PAGES, `${typeName}.md`), "utf8");
      const section = text.slice(text.indexOf("## Examples"));
      const blocks = [...section.matchAll(/```json\n([\s\S]*?)\n```/g)].map(
        (m) => JSON.parse(m[1] as string) as unknown,
      );
      expect(blocks).toHaveLength(2);
      const stated = /Refused with rule `([^`]+)` at `([^`]*)`/.exec(section);
      expect(stated).not.toBeNull();
      expect(validateValue(typeName as WireObjectTypeName, blocks[0])).toEqual([]);
      const issues = validateValue(typeName as WireObjectTypeName, blocks[1]);
      expect(issues[0]).toMatchObject({ rule: stated?.[1], pointer: stated?.[2] });
    });
  }
});
