/**
 * `lifeloop-callback diff --schema OLD NEW` with `$ref`s to sibling files, run as the real binary
 * (dist/) on real files: each side loads the files its `$ref`s name from its own folder (by `$id`,
 * else by the file's folder), a ref that still does not resolve names the URI and the path tried,
 * nothing outside the named file's folder is read, and the printed gate status is the exit code's
 * decision. The sides are copies of the frozen release's schemas (spec/releases/lifeloop.v0.3).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../support/cli-process.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-diff-refs-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const RELEASE_SCHEMAS = join(REPO_ROOT, "spec/releases/lifeloop.v0.3/schemas");
const validateReport = new Ajv2020({ strict: true }).compile(
  JSON.parse(readFileSync(join(REPO_ROOT, "spec/cli/diff-report.schema.json"), "utf8")) as object,
);

interface Report {
  changes: { rule: string; level: string; location: string; breaks: string[]; detail: string }[];
  summary: { backward_compatible: boolean; forward_compatible: boolean; gated: boolean };
}

let serial = 0;
/** A fresh copy of the release's schemas folder; returns its path. */
function copySchemas(): string {
  const dir = join(TMP, `side-${serial++}`);
  cpSync(RELEASE_SCHEMAS, dir, { recursive: true });
  return dir;
}

function editJson(path: string, edit: (doc: Record<string, unknown>) => void): void {
  const doc = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  edit(doc);
  writeFileSync(path, JSON.stringify(doc, null, 2));
}

function diffJson(oldPath: string, newPath: string): { code: number; report: Report; stderr: string } {
  const r = runCli(["diff", "--schema", oldPath, newPath, "--format", "json"]);
  const report = JSON.parse(r.stdout) as Report;
  expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
  return { code: r.code ?? -1, report, stderr: r.stderr };
}

const REQUEST = "callback-request.schema.json";
const EVENT_KIND = "lifecycle-event-kind.schema.json";

describe("diff --schema follows $refs to sibling files", () => {
  it("two identical files whose $refs name siblings: compatible both ways, no changes, not gated, exit 0", () => {
    const [a, b] = [copySchemas(), copySchemas()];
    const text = runCli(["diff", "--schema", join(a, REQUEST), join(b, REQUEST)]);
    expect(text.stdout).not.toContain("schema-ref-unresolved");
    expect(text.stdout).toContain(
      "backward compatible (new receivers accept old senders): yes; forward compatible (old receivers accept new senders): yes",
    );
    expect(text.stdout).toMatch(/not gated\n$/);
    expect(text.code).toBe(0);
    const { code, report } = diffJson(join(a, REQUEST), join(b, REQUEST));
    expect(report.changes).toEqual([]);
    expect(report.summary).toMatchObject({ backward_compatible: true, forward_compatible: true, gated: false });
    expect(code).toBe(0);
  });

  it("a sibling whose enum lost a value breaks senders (backward), found through the $ref; the reverse breaks receivers", () => {
    const [a, b] = [copySchemas(), copySchemas()];
    let dropped = "";
    editJson(join(b, EVENT_KIND), (doc) => {
      dropped = (doc.enum as string[]).pop() as string;
    });
    const at = `${EVENT_KIND}#/enum/${JSON.stringify(dropped)}`;
    const removed = diffJson(join(a, REQUEST), join(b, REQUEST));
    expect(removed.report.changes.map((c) => [c.rule, c.level, c.location, c.breaks])).toEqual([
      ["schema-enum-value-removed", "error", at, ["senders"]],
    ]);
    expect(removed.report.summary).toMatchObject({ backward_compatible: false, forward_compatible: true, gated: true });
    expect(removed.code).toBe(1);
    const added = diffJson(join(b, REQUEST), join(a, REQUEST));
    expect(added.report.changes.map((c) => [c.rule, c.location, c.breaks])).toEqual([
      ["schema-enum-value-added", at, ["receivers"]],
    ]);
    expect(added.report.summary).toMatchObject({ backward_compatible: true, forward_compatible: false, gated: true });
    expect(added.code).toBe(1);
  });

  it("resolves against the file's folder when no document has the $id-resolved URI (sibling without $id; root without $id)", () => {
    const [a, b] = [copySchemas(), copySchemas()];
    for (const dir of [a, b]) editJson(join(dir, EVENT_KIND), (doc) => void delete doc.$id);
    let dropped = "";
    editJson(join(b, EVENT_KIND), (doc) => {
      dropped = (doc.enum as string[]).shift() as string;
    });
    const expected = [`schema-enum-value-removed ${EVENT_KIND}#/enum/${JSON.stringify(dropped)}`];
    const viaFolder = diffJson(join(a, REQUEST), join(b, REQUEST));
    expect(viaFolder.report.changes.map((c) => `${c.rule} ${c.location}`)).toEqual(expected);
    for (const dir of [a, b]) editJson(join(dir, REQUEST), (doc) => void delete doc.$id);
    const noIds = diffJson(join(a, REQUEST), join(b, REQUEST));
    expect(noIds.report.changes.map((c) => `${c.rule} ${c.location}`)).toEqual(expected);
  });

  it("a sibling that does not exist: the warning names the URI and the file it tried; the summary says GATED and the exit is 1", () => {
    const [a, b] = [copySchemas(), copySchemas()];
    rmSync(join(b, EVENT_KIND));
    const { code, report } = diffJson(join(a, REQUEST), join(b, REQUEST));
    const unresolved = report.changes.filter((c) => c.rule === "schema-ref-unresolved");
    expect(unresolved.length).toBeGreaterThan(0);
    for (const c of unresolved) {
      expect(c.level).toBe("warning");
      expect(c.detail).toContain(`tried https://lifeloop-callback.dev/schemas/${EVENT_KIND}`);
      expect(c.detail).toContain(`file ${join(b, EVENT_KIND)} (no such file)`);
    }
    expect(report.summary.gated).toBe(true);
    expect(code).toBe(1);
    const text = runCli(["diff", "--schema", join(a, REQUEST), join(b, REQUEST)]);
    expect(text.stdout).toMatch(/; GATED\n$/);
    expect(text.code).toBe(1);
  });

  it("reads nothing outside the named file's folder: a $ref to ../ stays unresolved and says why", () => {
    const [a, b] = [copySchemas(), copySchemas()];
    for (const dir of [a, b]) {
      editJson(join(dir, REQUEST), (doc) => {
        (doc.properties as Record<string, unknown>).event = { $ref: `../${EVENT_KIND}` };
      });
    }
    // The file the ref names exists (TMP/lifecycle-event-kind.schema.json), but is not this side's.
    writeFileSync(join(TMP, EVENT_KIND), JSON.stringify({ enum: ["x"] }));
    const { code, report } = diffJson(join(a, REQUEST), join(b, REQUEST));
    const details = report.changes.filter((c) => c.rule === "schema-ref-unresolved").map((c) => c.detail);
    expect(details).toEqual([
      expect.stringMatching(
        /^cannot resolve \.\.\/lifecycle-event-kind\.schema\.json: tried https:\/\/lifeloop-callback\.dev\/lifecycle-event-kind\.schema\.json, \.\.\/lifecycle-event-kind\.schema\.json is outside the folder of the named file$/,
      ),
    ]);
    expect(code).toBe(1);
  });

  it("a sibling that is not JSON is unreadable input (exit 3) naming the file", () => {
    const [a, b] = [copySchemas(), copySchemas()];
    writeFileSync(join(b, EVENT_KIND), "{ not json");
    const r = runCli(["diff", "--schema", join(a, REQUEST), join(b, REQUEST)]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`diff: ${join(b, EVENT_KIND)} is not valid JSON`);
  });
});
