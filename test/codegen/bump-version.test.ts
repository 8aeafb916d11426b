/**
 * `npm run bump-version -- <new> --reason "..."` (codegen/tools/bump-version.ts) on a scratch copy of the
 * repository: wire-version.json, the tombstone, the fixture rewrite, and a consistent regeneration
 * (the corpus, generated/conformance/, follows through `npm run generate`).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { BumpError, bumpSources, versionMentions } from "../../codegen/tools/bump-version.js";
import { copyRepo, runTs } from "../support/cli-process.js";

/** The version after the current one (its last number plus one), so the test holds after every bump. */
const NEXT = WIRE_VERSION.replace(/(\d+)$/, (n) => String(Number(n) + 1));
let root: string;
let result: ReturnType<typeof runTs>;
/** The bump attempted while the snapshot of the current version was moved away. */
let refused: ReturnType<typeof runTs>;
/** spec/wire-version.json of the copy before any bump. */
let before: { accepted: string[]; window_size: number; retired: { version: string }[] };

/** Run the copy's own bump-version on the copy. */
function bump(args: readonly string[]): ReturnType<typeof runTs> {
  return runTs("codegen/tools/bump-version.ts", [...args, "--root", root], { cwd: root });
}

function read(rel: string): string {
  return readFileSync(join(root, rel), "utf8");
}

beforeAll(() => {
  root = copyRepo("lifeloop-bump-");
  // A hand-written fixture beside the shipped ones (the corpus is generated), without expect_pointer: left alone.
  mkdirSync(join(root, "examples", "conformance", "hand"), { recursive: true });
  writeFileSync(
    join(root, "examples", "conformance", "hand", "invalid-old-envelope.json"),
    JSON.stringify(
      {
        kind: "dispatch_envelope",
        expect: "invalid",
        expect_rule: "schema-version-current",
        description: "hand-written",
        data: { schema_version: "lifeloop.v0.2", request: { schema_version: WIRE_VERSION } },
      },
      null,
      2,
    ),
  );
  // The diff-gate case below compares with the frozen release of the current version; between a bump
  // and the freeze of its release (the last step of moving to a version) the copy freezes it itself.
  if (!existsSync(join(root, "spec", "releases", WIRE_VERSION))) {
    const snapshot = runTs("codegen/tools/snapshot-release.ts", ["--root", root], { cwd: root });
    if (snapshot.code !== 0) throw new Error(`snapshot-release failed: ${snapshot.stdout}${snapshot.stderr}`);
  }
  before = JSON.parse(read("spec/wire-version.json"));
  // Without the snapshot of the current version the bump must refuse (the old current becomes accepted).
  const snapshotDir = join(root, "spec", "releases", WIRE_VERSION);
  const aside = join(root, "snapshot-aside");
  renameSync(snapshotDir, aside);
  try {
    refused = bump([NEXT, "--reason", "refused", "--date", "2030-01-01"]);
  } finally {
    renameSync(aside, snapshotDir);
  }
  result = bump([NEXT, "--reason", "a test bump | with a pipe", "--date", "2030-01-02"]);
}, 180_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("bump-version", () => {
  it("succeeds and says what it did", () => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`bump-version: ${WIRE_VERSION} -> ${NEXT}`);
    expect(result.stdout).toContain(
      `left alone (its deliberately wrong version is ${WIRE_VERSION}; review it): examples/conformance/hand/invalid-old-envelope.json`,
    );
    // The review list never names a frozen release (spec/releases/ is never edited).
    const review = result.stdout.split("\n").find((l) => l.startsWith(`still mentions ${WIRE_VERSION}`)) ?? "";
    expect(review).not.toContain("spec/releases/");
  });

  it("leaves only prose to review: no test, example, source or generated file still names the old version unless it is kept on purpose", () => {
    const review = (
      result.stdout.split("\n").find((l) => l.startsWith(`still mentions ${WIRE_VERSION} (review by hand): `)) ?? ""
    )
      .replace(`still mentions ${WIRE_VERSION} (review by hand): `, "")
      .split(", ")
      .filter((p) => p !== "");
    // At most spec prose (spec/*.md) and the hand-written fixture above; nothing else.
    for (const path of review)
      expect(path).toMatch(/^(spec\/[^/]+\.md|examples\/conformance\/hand\/invalid-old-envelope\.json)$/);
    const mentions = versionMentions(root, WIRE_VERSION);
    expect(mentions.filter((m) => m.kept === undefined).map((m) => m.path)).toEqual(review);
    // Every kept file is printed with its reason.
    const lines = result.stdout.split("\n");
    for (const m of mentions.filter((x) => x.kept !== undefined)) {
      const head = `  kept on purpose (${m.kept}): `;
      const line = lines.find((l) => l.startsWith(head)) ?? "";
      expect(line.slice(head.length).split(", "), m.path).toContain(m.path);
    }
    expect(mentions.some((m) => m.path.startsWith("test/diff/") && m.kept !== undefined)).toBe(true);
  });

  it("rewrites the shipped examples, the JSON samples of the prose and the package description", () => {
    for (const rel of [
      "examples/dispatch-envelope.json",
      "examples/invalid-dispatch-envelope.json",
      "examples/hook-render-request.json",
      "examples/conformance/dispatch_envelope/valid-minimal.json",
    ]) {
      expect(read(rel), rel).toContain(`"schema_version": "${NEXT}"`);
      expect(read(rel), rel).not.toContain(WIRE_VERSION);
    }
    // JSON Lines too, and the diff gate's worked example (its output names the version in prose).
    expect(read("examples/session.jsonl")).toContain(`"schema_version":"${NEXT}"`);
    for (const rel of ["examples/session.jsonl", "spec/compat-gate.md"])
      expect(read(rel), rel).not.toContain(WIRE_VERSION);
    expect(JSON.parse(read("package.json")).description).toContain(`wire ${NEXT}`);
    expect(read("README.md")).toContain(`"schema_version":"${NEXT}"`);
    // The README describes the toolkit as it is: no mention of the retired version is left.
    expect(read("README.md")).not.toContain(WIRE_VERSION);
  });

  it("refuses (exit 3, before writing anything) when the old current has no release snapshot", () => {
    expect(refused.code, refused.stdout + refused.stderr).toBe(3);
    expect(refused.stderr).toContain(`spec/releases/${WIRE_VERSION}/`);
    expect(refused.stderr).toContain("npm run snapshot-release");
    // The successful bump below ran on the same copy: the refused one left no tombstone behind (its date was 2030-01-01).
    expect(read(`spec/tombstones/${WIRE_VERSION}.md`)).toContain("| Retired on | 2030-01-02 |");
  });

  it("moves spec/wire-version.json and records the retired version with its tombstone", () => {
    const wire = JSON.parse(read("spec/wire-version.json")) as {
      current: string;
      accepted: string[];
      window_size: number;
      retired: { version: string; superseded_by: string; tombstone: string }[];
    };
    expect(wire.current).toBe(NEXT);
    // The old current is read on (front of the window); the window keeps window_size - 1 older versions.
    expect(wire.window_size).toBe(before.window_size);
    expect(wire.accepted).toEqual([WIRE_VERSION, ...before.accepted].slice(0, before.window_size - 1));
    // A version dropped from the window stays retired.
    for (const dropped of before.accepted.filter((v) => !wire.accepted.includes(v)))
      expect(wire.retired.map((r) => r.version)).toContain(dropped);
    expect(wire.retired.at(-1)).toEqual({
      version: WIRE_VERSION,
      superseded_by: NEXT,
      tombstone: `spec/tombstones/${WIRE_VERSION}.md`,
    });
    expect(wire.retired.some((r) => r.version === "lifeloop.v0.2")).toBe(true);
  });

  it("writes the tombstone from our template", () => {
    const page = read(`spec/tombstones/${WIRE_VERSION}.md`);
    expect(page).toContain(`# Wire version \`${WIRE_VERSION}\` (retired)`);
    expect(page).toContain(`| Superseded by | \`${NEXT}\` |`);
    expect(page).toContain("| Retired on | 2030-01-02 |");
    expect(page).toContain("| Reason | a test bump \\| with a pipe |");
    expect(page).toContain("## Migration notes");
  });

  it("rewrites the version in the corpus but not the deliberately wrong ones", () => {
    const minimal = JSON.parse(read("generated/conformance/dispatch_envelope/valid-minimal.json")) as {
      data: { schema_version: string; request: { schema_version: string } };
    };
    expect(minimal.data.schema_version).toBe(NEXT);
    expect(minimal.data.request.schema_version).toBe(NEXT);
    const nestedWrong = JSON.parse(
      read("generated/conformance/dispatch_envelope/invalid-schema-version-current-request-schema-version-older.json"),
    ) as { data: { schema_version: string; request: { schema_version: string } } };
    expect(nestedWrong.data.request.schema_version).toBe("lifeloop.v0.2");
    expect(nestedWrong.data.schema_version).toBe(NEXT);
    const bytes = JSON.parse(read("generated/conformance/callback_request/invalid-json-bom-minimal.json")) as {
      data_base64: string;
    };
    expect(Buffer.from(bytes.data_base64, "base64").toString("utf8")).toContain(`"schema_version":"${NEXT}"`);
    expect(read("examples/conformance/hand/invalid-old-envelope.json")).toContain(WIRE_VERSION);
  });

  it("regenerates: generate --check passes (it covers the corpus, generated/conformance/)", () => {
    expect(read("generated/ts/spec/wire-version.ts")).toContain(`export const WIRE_VERSION = "${NEXT}" as const;`);
    // The pages generated from code (npm run docs) follow too.
    expect(read("generated/docs/reference/cli.md")).toContain(`(wire ${NEXT})`);
    const check = runTs("codegen/main.ts", ["--check", "--root", root], { cwd: root });
    expect(check.code, check.stdout.slice(0, 2000)).toBe(0);
  });

  it("the diff gate accepts a breaking change once the version is bumped (test/diff/fixtures/wire-version-not-bumped gates it without the bump)", () => {
    const file = join(root, "schemas/callback-request.schema.json");
    const schema = JSON.parse(read("schemas/callback-request.schema.json")) as { properties: Record<string, unknown> };
    schema.properties.trace_id = {
      description: "An optional field added to a closed object.",
      type: ["string", "null"],
      maxLength: 64,
    };
    writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
    const snapshot = join(root, "spec/releases", WIRE_VERSION);
    const gate = runTs("runtime/cli/main.ts", ["diff", "--base", snapshot, "--head", root, "--format", "json"], {
      cwd: root,
    });
    expect(gate.code, gate.stdout + gate.stderr).toBe(0);
    const report = JSON.parse(gate.stdout) as {
      changes: { rule: string; allowed?: { by: string } }[];
      summary: { forward_compatible: boolean; head_version: string };
    };
    expect(report.summary).toMatchObject({ forward_compatible: false, head_version: NEXT });
    expect(report.changes).toContainEqual(expect.objectContaining({ rule: "wire-version-bumped" }));
    expect(report.changes).toContainEqual(
      expect.objectContaining({
        rule: "schema-property-added-closed",
        allowed: expect.objectContaining({ by: "version-bump" }),
      }),
    );
  });

  it("refuses malformed, current and retired versions (exit 3) and incomplete command lines (exit 2)", () => {
    expect(bump(["v5", "--reason", "x"]).code).toBe(3);
    expect(bump([NEXT, "--reason", "x"]).code).toBe(3);
    expect(bump(["lifeloop.v0.2", "--reason", "x"]).code).toBe(3);
    expect(bump(["lifeloop.v0.5"]).code).toBe(2);
    expect(bump(["--reason", "x"]).code).toBe(2);
    expect(JSON.parse(read("spec/wire-version.json")).current).toBe(NEXT);
  });
});

describe("bump-version: the window of accepted versions", () => {
  /** A scratch root holding only spec/wire-version.json (and, optionally, the current version's snapshot). */
  function scratch(windowSize: number, accepted: string[], snapshot: boolean): string {
    const dir = mkdtempSync(join(tmpdir(), "lifeloop-bump-window-"));
    mkdirSync(join(dir, "spec", "tombstones"), { recursive: true });
    if (snapshot) {
      mkdirSync(join(dir, "spec", "releases", "lifeloop.v1.2", "spec"), { recursive: true });
      writeFileSync(join(dir, "spec", "releases", "lifeloop.v1.2", "spec", "wire-version.json"), "{}\n");
    }
    const wire = {
      current: "lifeloop.v1.2",
      accepted,
      window_size: windowSize,
      outside_window: { rule: "schema-version-current", message: "{value} {window}" },
      reference: { crate: "lifeloop-cli", version: "0.0.0" },
      retired: ["lifeloop.v1.0", "lifeloop.v1.1"].map((v, i) => ({
        version: v,
        superseded_by: ["lifeloop.v1.1", "lifeloop.v1.2"][i],
        tombstone: `spec/tombstones/${v}.md`,
      })),
    };
    writeFileSync(join(dir, "spec", "wire-version.json"), `${JSON.stringify(wire, null, 2)}\n`);
    return dir;
  }
  const options = (dir: string) => ({ root: dir, version: "lifeloop.v1.3", reason: "test", date: "2030-01-02" });
  const wireOf = (dir: string) =>
    JSON.parse(readFileSync(join(dir, "spec", "wire-version.json"), "utf8")) as {
      current: string;
      accepted: string[];
      retired: { version: string }[];
    };

  it("puts the old current first and drops the oldest beyond window_size - 1 (they stay retired)", () => {
    for (const [size, expected] of [
      [3, ["lifeloop.v1.2", "lifeloop.v1.1"]],
      [2, ["lifeloop.v1.2"]],
      [4, ["lifeloop.v1.2", "lifeloop.v1.1", "lifeloop.v1.0"]],
    ] as const) {
      const dir = scratch(size, ["lifeloop.v1.1", "lifeloop.v1.0"].slice(0, size - 1), true);
      try {
        bumpSources(options(dir));
        const wire = wireOf(dir);
        expect(wire.current).toBe("lifeloop.v1.3");
        expect(wire.accepted, `window_size ${size}`).toEqual(expected);
        expect(wire.retired.map((r) => r.version)).toEqual(["lifeloop.v1.0", "lifeloop.v1.1", "lifeloop.v1.2"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it("needs no snapshot when the window holds only current (window_size 1), and refuses without one otherwise", () => {
    const single = scratch(1, [], false);
    const pair = scratch(2, ["lifeloop.v1.1"], false);
    try {
      bumpSources(options(single));
      expect(wireOf(single).accepted).toEqual([]);
      expect(() => bumpSources(options(pair))).toThrow(BumpError);
      expect(() => bumpSources(options(pair))).toThrow(/npm run snapshot-release/);
      expect(wireOf(pair).current).toBe("lifeloop.v1.2");
      expect(existsSync(join(pair, "spec", "tombstones", "lifeloop.v1.2.md"))).toBe(false);
    } finally {
      rmSync(single, { recursive: true, force: true });
      rmSync(pair, { recursive: true, force: true });
    }
  });
});
