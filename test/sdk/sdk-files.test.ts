/**
 * The SDK folders (sdk/go, sdk/python) hold hand-written and generated files side by side; the name
 * says which (codegen/emit/check.ts SDK_GENERATED). This suite checks that rule on the tree and that
 * the drift check enforces it: a generated file carries a banner naming its template, a hand-written
 * one none; generate refuses an output over a hand-written file; a generated file no template
 * produces any more is stale.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findDrift, HandWrittenFileError, isSdkGenerated } from "../../codegen/emit/check.js";
import { BANNER } from "../../codegen/emit/output.js";
import { REPO_ROOT } from "../support/cli-process.js";

/** Every file of `dir` (repository-relative), recursively, without tool caches. */
function files(dir: string): string[] {
  return (readdirSync(join(REPO_ROOT, dir), { recursive: true }) as string[])
    .filter((p) => !p.split("/").some((part) => part === "__pycache__" || part.startsWith(".")))
    .map((p) => `${dir}/${p}`)
    .filter((p) => statSync(join(REPO_ROOT, p)).isFile())
    .sort();
}

const scratch = mkdtempSync(join(tmpdir(), "lifeloop-sdk-files-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Write `content` at `rel` under the scratch root. */
function put(rel: string, content: string): void {
  mkdirSync(dirname(join(scratch, rel)), { recursive: true });
  writeFileSync(join(scratch, rel), content);
}

describe("sdk/: generated and hand-written files", () => {
  it("names every generated file so, with a banner naming its template; no hand-written file has one", () => {
    const all = [...files("sdk/go"), ...files("sdk/python")];
    const generated = all.filter(isSdkGenerated);
    expect(generated).toContain("sdk/go/zz_wire_types.go");
    expect(generated).toContain("sdk/python/lifeloop_callback/_gen_spec.py");
    for (const path of generated) {
      const text = readFileSync(join(REPO_ROOT, path), "utf8");
      expect(text, path).toContain(BANNER);
      expect(text, path).toMatch(/sdk\/(go|python)\/templates\/[\w.]+\.hbs/);
    }
    const handWritten = all.filter((p) => !isSdkGenerated(p) && /\.(go|py)$/.test(p));
    expect(handWritten).toContain("sdk/go/json_parse.go");
    expect(handWritten).toContain("sdk/python/lifeloop_callback/stream.py");
    for (const path of handWritten) expect(readFileSync(join(REPO_ROOT, path), "utf8"), path).not.toContain(BANNER);
  });

  it("refuses an output without a generated name, or over a file without the banner", () => {
    expect(() => findDrift(scratch, [{ path: "sdk/go/runner.go", content: "package lifeloop\n" }])).toThrow(
      HandWrittenFileError,
    );
    expect(() => findDrift(scratch, [{ path: "sdk/python/lifeloop_callback/stream.py", content: "\n" }])).toThrow(
      HandWrittenFileError,
    );
    put("sdk/go/zz_clash.go", "package lifeloop\n");
    expect(() =>
      findDrift(scratch, [{ path: "sdk/go/zz_clash.go", content: `// ${BANNER}\npackage lifeloop\n` }]),
    ).toThrow(/no generated banner/);
  });

  it("reports a generated file no template produces as stale, and leaves hand-written files alone", () => {
    const root = mkdtempSync(join(scratch, "tree-"));
    const write = (rel: string, content: string): void => {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), content);
    };
    write("sdk/go/zz_removed.go", `// ${BANNER}\npackage lifeloop\n`);
    write("sdk/python/lifeloop_callback/_gen_removed.py", `# ${BANNER}\n`);
    write("sdk/go/hand.go", "package lifeloop\n");
    write("sdk/python/lifeloop_callback/hand.py", "\n");
    write("sdk/python/tests/test_x.py", "\n");
    const drift = findDrift(root, []);
    expect(drift.map((d) => `${d.kind} ${d.path}`).sort()).toEqual([
      "stale sdk/go/zz_removed.go",
      "stale sdk/python/lifeloop_callback/_gen_removed.py",
    ]);
  });
});
