/**
 * `lifeloop-callback diff`: every fixture of test/diff/fixtures/ is classified exactly (the set of
 * rule ids and the exit code), every rule of spec/tables/compat-rules.json has its fixture, the JSON
 * output matches spec/cli/diff-report.schema.json, and the command as a real process (dist/) handles
 * git revisions, every output format, the allowlist, usage errors (exit 2) and unreadable input
 * (exit 3). Also `npm run snapshot-release` on a scratch tree, and the project's own gate.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { runCli as runCliInProcess } from "../../runtime/cli/main.js";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { loadRuleRegistry } from "../../runtime/diff/change.js";
import { MAX_PATTERN_NAME_LENGTH, patternRunRefusal } from "../../runtime/diff/schema/objects.js";
import { REPO_ROOT, runCli, runTs } from "../support/cli-process.js";
import { listFixtures, materialize } from "./fixtures.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-diff-test-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const reportSchema = JSON.parse(readFileSync(join(REPO_ROOT, "spec/cli/diff-report.schema.json"), "utf8")) as object;
const validateReport = new Ajv2020({ strict: true }).compile(reportSchema);
const SNAPSHOT = join(REPO_ROOT, "spec/releases/lifeloop.v0.3");

interface Report {
  changes: {
    rule: string;
    level: string;
    location: string;
    breaks: string[];
    allowed?: { by: string; reason: string };
  }[];
  summary: {
    backward_compatible: boolean;
    forward_compatible: boolean;
    gated: boolean;
    base_version: string | null;
    head_version: string | null;
  };
}

/** Run the diff command in this process (same code as the binary, without a process per fixture). */
async function diffInProcess(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCliInProcess(["diff", ...args], {
    stdin: process.stdin,
    out: (t) => (stdout += t),
    err: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

function parseReport(stdout: string): Report {
  const report = JSON.parse(stdout) as Report;
  expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
  return report;
}

describe("the rule registry and its fixtures", () => {
  const registry = loadRuleRegistry();
  const fixtures = listFixtures();

  it("has one fixture directory per rule, and fixtures name only known rules", () => {
    const names = new Set(fixtures.map((f) => f.name));
    expect([...registry.keys()].filter((id) => !names.has(id))).toEqual([]);
    for (const f of fixtures) for (const id of f.expected) expect(registry.has(id), `${f.name}: ${id}`).toBe(true);
  });

  it("is symmetric: every rule that breaks one role has a mirror rule that breaks the other", () => {
    const swaps: [string, string][] = [
      ["-added", "-removed"],
      ["-increased", "-decreased"],
      ["-narrowed", "-widened"],
      ["-opened", "-closed"],
    ];
    const mirror = (id: string): string | undefined => {
      for (const [a, b] of swaps) {
        if (id.includes(a)) return id.replace(a, b);
        if (id.includes(b)) return id.replace(b, a);
      }
      return undefined;
    };
    const missing: string[] = [];
    for (const rule of registry.values()) {
      if (rule.breaks.length !== 1) continue; // both roles or none: its own mirror
      const other = registry.get(mirror(rule.id) ?? "");
      const opposite = rule.breaks[0] === "senders" ? "receivers" : "senders";
      if (other?.breaks.length !== 1 || other.breaks[0] !== opposite) missing.push(rule.id);
    }
    expect(missing).toEqual([]);
  });

  it("each rule's own fixture reports that rule", () => {
    for (const id of registry.keys()) expect(fixtures.find((f) => f.name === id)?.expected, id).toContain(id);
  });

  for (const fixture of fixtures) {
    it(`classifies ${fixture.name} exactly`, async () => {
      let result: Awaited<ReturnType<typeof diffInProcess>>;
      if (fixture.mode === "schema") {
        const draft = fixture.draft ? ["--draft", fixture.draft] : [];
        result = await diffInProcess([
          "--schema",
          join(fixture.dir, "old/schema.json"),
          join(fixture.dir, "new/schema.json"),
          ...draft,
          "--format",
          "json",
        ]);
      } else {
        const { root, base, head } = materialize(fixture);
        try {
          result = await diffInProcess(["--base", base, "--head", head, "--format", "json"]);
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }
      expect(result.stderr).toBe("");
      const report = parseReport(result.stdout);
      expect([...new Set(report.changes.map((c) => c.rule))].sort()).toEqual([...fixture.expected].sort());
      const exit = fixture.exit ?? (report.summary.backward_compatible && report.summary.forward_compatible ? 0 : 1);
      expect(result.code).toBe(exit);
      // The printed gate status and the exit code are one decision.
      expect(report.summary.gated, "summary.gated vs exit code").toBe(result.code === 1);
    });
  }
});

describe("diff as a process", () => {
  const oldSchema = join(REPO_ROOT, "test/diff/fixtures/schema-property-added-closed/old/schema.json");
  const newSchema = join(REPO_ROOT, "test/diff/fixtures/schema-property-added-closed/new/schema.json");

  it("passes the project's own gate against the frozen release", () => {
    const r = runCli(["diff", "--base", SNAPSHOT, "--head", REPO_ROOT], { cwd: REPO_ROOT });
    expect(r.stderr).toBe("");
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/not gated/);
  });

  it("prints what spec/compat-gate.md shows for an optional field added to CallbackRequest", () => {
    const page = readFileSync(join(REPO_ROOT, "spec", "compat-gate.md"), "utf8");
    // The page shows the release of the current version; the fixture is pinned at a fixed release,
    // so its version is read as ours (the change it reports is the same at every version).
    const release = `spec/releases/${WIRE_VERSION}`.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    const shown = new RegExp(
      `\\$ npx --no-install lifeloop-callback diff --base ${release} --head \\.\\n([\\s\\S]*?)\\n\\$ echo \\$\\?\\n(\\d+)\\n`,
    ).exec(page);
    if (shown === null) throw new Error("spec/compat-gate.md lacks the diff example block");
    const fixture = listFixtures().find((f) => f.name === "wire-version-not-bumped");
    if (fixture === undefined) throw new Error("no diff fixture wire-version-not-bumped");
    const { root, base, head } = materialize(fixture);
    try {
      const r = runCli(["diff", "--base", base, "--head", head]);
      const pinned = (JSON.parse(readFileSync(join(base, "spec", "wire-version.json"), "utf8")) as { current: string })
        .current;
      expect(r.stdout.trimEnd().split(pinned).join(WIRE_VERSION)).toBe(shown[1]);
      expect(String(r.code)).toBe(shown[2]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("--schema: an optional field added to a closed object breaks receivers, exit 1, JSON under the published schema", () => {
    const r = runCli(["diff", "--schema", oldSchema, newSchema, "--format", "json"]);
    expect(r.code).toBe(1);
    const report = parseReport(r.stdout);
    expect(report.changes).toEqual([
      expect.objectContaining({
        rule: "schema-property-added-closed",
        level: "error",
        category: "wire",
        location: "#/properties/b",
        breaks: ["receivers"],
      }),
    ]);
    expect(report.summary).toMatchObject({ backward_compatible: true, forward_compatible: false });
  });

  it("renders text, markdown, junit and github formats", () => {
    const out = (format: string): string =>
      runCli(["diff", "--schema", oldSchema, newSchema, "--format", format]).stdout;
    expect(out("text")).toMatch(/^error +schema-property-added-closed +#\/properties\/b +\(wire, breaks receivers\)/m);
    expect(out("markdown")).toContain(
      "| error | `schema-property-added-closed` | `#/properties/b` | wire | receivers |",
    );
    const junit = out("junit");
    expect(junit).toContain('<testsuite name="lifeloop-callback diff" tests="1" failures="1" errors="0">');
    expect(junit).toContain('<failure type="schema-property-added-closed"');
    expect(out("github")).toMatch(
      /^::error title=schema-property-added-closed::#\/properties\/b: property b is now accepted \(breaks receivers\)$/m,
    );
    const outputs = join(TMP, "github-output");
    writeFileSync(outputs, "");
    runCli(["diff", "--schema", oldSchema, newSchema, "--format", "github"], { env: { GITHUB_OUTPUT: outputs } });
    expect(readFileSync(outputs, "utf8")).toBe("error_count=1\nwarning_count=0\ninfo_count=0\n");
  });

  it("keeps every format well-formed for hostile property names and enum values (hostile review)", async () => {
    const dir = join(TMP, "hostile-names");
    mkdirSync(dir, { recursive: true });
    const name = "a\u0001b`|x\r\ny\ud800\u001b[1A\u009b2K";
    writeFileSync(
      join(dir, "old.json"),
      JSON.stringify({ type: "object", properties: { [name]: { type: "string" } }, additionalProperties: false }),
    );
    writeFileSync(
      join(dir, "new.json"),
      JSON.stringify({ type: "object", properties: {}, additionalProperties: false }),
    );
    const out = async (format: string): Promise<string> =>
      (await diffInProcess(["--schema", join(dir, "old.json"), join(dir, "new.json"), "--format", format])).stdout;
    // XML 1.0 Char: no C0 controls but tab, LF, CR; no lone surrogates, no U+FFFE/U+FFFF.
    const junit = await out("junit");
    expect(junit).toContain("schema-property-removed-closed");
    expect(junit).not.toMatch(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters that must not appear
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
    );
    // Markdown: one table row per change (no CR or LF inside a row), and the location's code span is not cut by its backtick.
    const row = (await out("markdown")).split("\n").find((l) => l.includes("schema-property-removed-closed")) as string;
    expect(row).not.toMatch(/\r/);
    expect(row).toContain("`` #/properties/a");
    // Text and GitHub annotations: one line per change plus the verdict, no terminal escape sequences.
    for (const format of ["text", "github"]) {
      const printed = await out(format);
      expect(printed.trimEnd().split("\n"), format).toHaveLength(2);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters that must not appear
      expect(printed, format).not.toMatch(/[\u001b\u009b\r]/);
    }
  });

  it("compares git revisions (git:REF and git:REF:PATH) without checking them out", () => {
    const repo = join(TMP, "repo");
    mkdirSync(join(repo, "project"), { recursive: true });
    cpSync(SNAPSHOT, join(repo, "project"), { recursive: true });
    const git = (...args: string[]): string =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
        cwd: repo,
      }).toString();
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "base");
    const file = join(repo, "project/spec/tables/limits.json");
    const doc = JSON.parse(readFileSync(file, "utf8")) as { limits: { value: number }[] };
    (doc.limits[0] as { value: number }).value = 1024;
    writeFileSync(file, JSON.stringify(doc, null, 2));
    git("commit", "-qam", "smaller limit");
    const r = runCli(["diff", "--base", "git:HEAD~1:project", "--head", "git:HEAD:project", "--format", "json"], {
      cwd: repo,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    expect(
      parseReport(r.stdout)
        .changes.map((c) => c.rule)
        .sort(),
    ).toEqual(["table-limit-decreased", "wire-version-not-bumped"]);
    const same = runCli(["diff", "--base", "git:HEAD:project", "--head", join(repo, "project")], { cwd: repo });
    expect(same.code).toBe(0);
    // --releases-only: a frozen release edited in the last commit, whatever else changed.
    const release = join(repo, "project/spec/releases/lifeloop.v0.3/schemas");
    mkdirSync(release, { recursive: true });
    writeFileSync(join(release, "warning.schema.json"), "{}\n");
    git("add", "-A");
    git("commit", "-qm", "freeze");
    writeFileSync(join(release, "warning.schema.json"), '{"edited": true}\n');
    (doc.limits[0] as { value: number }).value = 512;
    writeFileSync(file, JSON.stringify(doc, null, 2));
    git("commit", "-qam", "edit a release");
    const releases = runCli(
      ["diff", "--base", "git:HEAD^:project", "--head", "git:HEAD:project", "--releases-only", "--format", "json"],
      { cwd: repo },
    );
    expect(releases.code).toBe(1);
    expect(parseReport(releases.stdout).changes.map((c) => `${c.rule} ${c.location}`)).toEqual([
      "released-snapshot-modified spec/releases/lifeloop.v0.3/schemas/warning.schema.json",
    ]);
    const missing = runCli(["diff", "--base", "git:no-such-ref", "--head", join(repo, "project")], { cwd: repo });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^diff: git:no-such-ref: /);
  });

  it("applies an explicit allowlist for the version pair, and refuses one for another pair (exit 2)", () => {
    const head = join(TMP, "allow-head");
    cpSync(SNAPSHOT, head, { recursive: true });
    const file = join(head, "spec/tables/limits.json");
    const doc = JSON.parse(readFileSync(file, "utf8")) as { limits: { value: number }[] };
    (doc.limits[0] as { value: number }).value = 1024;
    writeFileSync(file, JSON.stringify(doc));
    const entry = {
      rule: "table-limit-decreased",
      location: "spec/tables/limits.json#/limits/max_request_bytes/value",
      reason: "tested",
    };
    const list = join(TMP, "allow.json");
    writeFileSync(list, JSON.stringify({ base: "lifeloop.v0.3", head: "lifeloop.v0.3", entries: [entry] }));
    const r = runCli(["diff", "--base", SNAPSHOT, "--head", head, "--allowlist", list, "--format", "json"]);
    expect(r.code).toBe(0);
    expect(parseReport(r.stdout).changes).toEqual([
      expect.objectContaining({ rule: "table-limit-decreased", allowed: { by: "allowlist", reason: "tested" } }),
    ]);
    writeFileSync(list, JSON.stringify({ base: "lifeloop.v0.2", head: "lifeloop.v0.3", entries: [entry] }));
    const other = runCli(["diff", "--base", SNAPSHOT, "--head", head, "--allowlist", list]);
    expect(other.code).toBe(2);
    writeFileSync(list, JSON.stringify({ base: "lifeloop.v0.3", head: "lifeloop.v0.3", entries: [{ rule: "x" }] }));
    expect(runCli(["diff", "--base", SNAPSHOT, "--head", head, "--allowlist", list]).code).toBe(3);
  });

  it("exits 2 on usage errors and 3 on unreadable input", () => {
    expect(runCli(["diff"]).code).toBe(2);
    expect(runCli(["diff", "--base", SNAPSHOT]).code).toBe(2);
    expect(runCli(["diff", "--schema", oldSchema]).code).toBe(2);
    expect(runCli(["diff", "--schema", oldSchema, newSchema, "--format", "yaml"]).code).toBe(2);
    expect(runCli(["diff", "--schema", oldSchema, newSchema, "--draft", "draft-04"]).code).toBe(2);
    const notJson = join(TMP, "not.json");
    writeFileSync(notJson, "{");
    const bad = runCli(["diff", "--schema", oldSchema, notJson]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain("is not valid JSON");
    expect(runCli(["diff", "--schema", oldSchema, join(TMP, "absent.json")]).code).toBe(3);
    const draft04 = join(TMP, "d4.json");
    writeFileSync(draft04, JSON.stringify({ $schema: "http://json-schema.org/draft-04/schema#" }));
    expect(runCli(["diff", "--schema", oldSchema, draft04]).code).toBe(3);
    expect(runCli(["diff", "--base", join(TMP, "nowhere"), "--head", SNAPSHOT]).code).toBe(3);
    const broken = join(TMP, "broken-tree");
    cpSync(SNAPSHOT, broken, { recursive: true });
    writeFileSync(join(broken, "spec/tables/limits.json"), "{ not json");
    const unreadable = runCli(["diff", "--base", SNAPSHOT, "--head", broken]);
    expect(unreadable.code).toBe(3);
    expect(unreadable.stderr).toMatch(/^diff: .*broken-tree: spec\/tables\/limits\.json is not valid JSON/);
  });

  it("reads --schema files bounded (a device that never ends) and says what failed in prose (hostile review)", () => {
    const endless = runCli(["diff", "--schema", "/dev/zero", oldSchema]);
    expect(endless.code).toBe(3);
    expect(endless.stderr).toContain("/dev/zero: larger than");
    const absent = runCli(["diff", "--schema", oldSchema, join(TMP, "absent.json")]);
    expect(absent.stderr).toMatch(/cannot read .*absent\.json: no such file or directory \(ENOENT\)/);
  });

  it("never blocks on a FIFO named as a --schema file (opened non-blocking: no writer reads as empty)", () => {
    const fifo = join(TMP, "schema.fifo");
    execFileSync("mkfifo", [fifo]);
    const started = performance.now();
    const result = runCli(["diff", "--schema", fifo, oldSchema], { timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(`${fifo} is not valid JSON`);
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it("refuses a schema nested 20,000 levels deep with exit 3 and a message, not a stack overflow", () => {
    const deep = (leaf: string): string => `${'{"properties":{"a":'.repeat(20_000)}${leaf}${"}}".repeat(20_000)}`;
    const [a, b] = [join(TMP, "deep-old.json"), join(TMP, "deep-new.json")];
    writeFileSync(a, deep('{"type":"string"}'));
    writeFileSync(b, deep('{"type":"integer"}'));
    const result = runCli(["diff", "--schema", a, b, "--format", "json"]);
    expect(result.stderr).toBe(`diff: ${a} nests deeper than 256 levels\n`);
    expect(result.code).toBe(3);
  });

  it("a chain of 1,000 $ref'd definitions is refused at 256 levels like the same nesting inline: exit 3, not a stack overflow (issue 25)", () => {
    const chain = (leaf: string): string => {
      const defs: Record<string, unknown> = { d1000: { type: leaf } };
      for (let i = 0; i < 1000; i++) defs[`d${i}`] = { properties: { a: { $ref: `#/$defs/d${i + 1}` } } };
      return JSON.stringify({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $ref: "#/$defs/d0",
        $defs: defs,
      });
    };
    const [a, b] = [join(TMP, "ref-chain-old.json"), join(TMP, "ref-chain-new.json")];
    writeFileSync(a, chain("string"));
    writeFileSync(b, chain("integer"));
    const result = runCli(["diff", "--schema", a, b, "--format", "json"]);
    expect(result.stderr).toMatch(
      /^diff: the schemas nest deeper than 256 levels through \$ref \(at \S*#\/\$defs\/d\d+\/properties\/a\)/,
    );
    expect(result.code).toBe(3);
  });

  it("does not run a patternProperties regex with nested quantifiers against a property name: a warning says why, and the diff is quick (issue 25)", () => {
    // ^(a+)+$ against 28 a's and a '!' backtracks 2^28 times: 8 s and more by the old engine run.
    const name = `${"a".repeat(28)}!`;
    const schema = (withName: boolean): string =>
      JSON.stringify({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        additionalProperties: false,
        patternProperties: { "^(a+)+$": { type: "string" } },
        ...(withName ? { properties: { [name]: { type: "string" } } } : {}),
      });
    const [a, b] = [join(TMP, "redos-old.json"), join(TMP, "redos-new.json")];
    writeFileSync(a, schema(true));
    writeFileSync(b, schema(false));
    const started = performance.now();
    const result = runCli(["diff", "--schema", a, b, "--format", "json"], { timeoutMs: 60_000 });
    // Generous for a loaded machine; the pattern run alone takes more than 8 s.
    expect(performance.now() - started).toBeLessThan(6_000);
    const changes = (JSON.parse(result.stdout) as { changes: { rule: string; location: string; detail: string }[] })
      .changes;
    expect(changes.find((c) => c.rule === "schema-pattern-properties-changed")?.detail).toMatch(
      /whether this pattern covers property a+! is not decided: .*nested quantifiers/,
    );
    // A pattern that backtracks within bounds is still run: ^b+$ does not cover the name, so it is closed out.
    writeFileSync(b, schema(false).replace("^(a+)+$", "^b+$"));
    const safe = JSON.parse(runCli(["diff", "--schema", a, b, "--format", "json"]).stdout) as {
      changes: { rule: string }[];
    };
    expect(safe.changes.map((c) => c.rule)).toContain("schema-property-removed-closed");
  });

  it("runs a pattern only when its backtracking is bounded (patternRunRefusal, spec/README.md)", () => {
    const name = "x-name";
    for (const pattern of ["^[a-z][a-z0-9_]*$", "^x-", "^(?:ab)*$", "^(a+)?b$", "^[(+*]+$", "^a{2,3}b*$"])
      expect(patternRunRefusal(pattern, name), pattern).toBeNull();
    for (const pattern of ["^(a+)+$", "(a|a)*", "^((ab)*c)+$", "(?:a*){2}", "^(\\w)\\1$", "(?<x>a)\\k<x>", "a*b*c*d*"])
      expect(patternRunRefusal(pattern, name), pattern).not.toBeNull();
    expect(patternRunRefusal("^x-", "x".repeat(MAX_PATTERN_NAME_LENGTH + 1))).toMatch(/longer than/);
  });

  it("reads a --schema file whose size is not known up front (procfs reports 0) by what it holds, not as too large (issue 25)", () => {
    const result = runCli(["diff", "--schema", "/proc/self/status", oldSchema]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("/proc/self/status is not valid JSON");
    expect(result.stderr).not.toContain("larger than");
  });

  it("names a git revision that does not exist (exit 3, a non-empty reason)", () => {
    const result = runCli(["diff", "--base", "git:no-such-ref-review-2", "--head", SNAPSHOT]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^diff: git:no-such-ref-review-2: \S/);
  });
});

describe("npm run snapshot-release", () => {
  it("freezes the current version, refuses to overwrite it, retakes it on request", () => {
    const root = join(TMP, "snap");
    for (const part of ["spec/wire-version.json", "spec/tables", "spec/meta", "schemas"])
      cpSync(join(REPO_ROOT, part), join(root, part), { recursive: true });
    const first = runTs("codegen/tools/snapshot-release.ts", ["--root", root]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`wrote spec/releases/${WIRE_VERSION}/ (`);
    expect(readFileSync(join(root, `spec/releases/${WIRE_VERSION}/schemas/callback-request.schema.json`), "utf8")).toBe(
      readFileSync(join(root, "schemas/callback-request.schema.json"), "utf8"),
    );
    const again = runTs("codegen/tools/snapshot-release.ts", ["--root", root]);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain("a release never changes");
    writeFileSync(join(root, "schemas/new-type.schema.json"), "{}");
    const retake = runTs("codegen/tools/snapshot-release.ts", ["--root", root, "--retake"]);
    expect(retake.code).toBe(0);
    expect(readFileSync(join(root, `spec/releases/${WIRE_VERSION}/schemas/new-type.schema.json`), "utf8")).toBe("{}");
  });
});
