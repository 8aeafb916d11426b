/**
 * `lifeloop-callback conformance run` as a real process: the reference crate's own fixtures
 * (located through `cargo metadata` on tools/reference/Cargo.toml), our corpus, and scratch
 * directories with failing, unknown-kind, malformed and pre-v0.3 fixtures.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, REFERENCE_IMPLEMENTATION, WIRE_DOCUMENTS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { CLI, REPO_ROOT, runCli } from "../support/cli-process.js";

interface Row {
  readonly path: string;
  readonly kind: string | null;
  readonly expect: string | null;
  readonly actual: string;
  readonly pass: boolean;
  readonly rule?: string;
  readonly pointer?: string;
  readonly reason?: string;
}

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-conformance-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function rows(stdout: string): Row[] {
  return stdout
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Row);
}

/** The pinned reference crate's folder (spec/wire-version.json's `reference` version, checked). */
function referenceCrate(): string {
  const meta = JSON.parse(
    execFileSync(
      "cargo",
      ["metadata", "--format-version", "1", "--manifest-path", join(REPO_ROOT, "tools", "reference", "Cargo.toml")],
      { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    ),
  ) as { packages: { name: string; version: string; manifest_path: string }[] };
  const pkg = meta.packages.find((p) => p.name === "lifeloop-cli");
  if (!pkg) throw new Error("lifeloop-cli is not a dependency of tools/reference/Cargo.toml");
  if (pkg.version !== REFERENCE_IMPLEMENTATION.version)
    throw new Error(
      `tools/reference/Cargo.toml pins lifeloop-cli ${pkg.version} but spec/wire-version.json names ${REFERENCE_IMPLEMENTATION.version}`,
    );
  return dirname(pkg.manifest_path);
}

/** tests/conformance of the reference crate that tools/reference/Cargo.toml pins. */
function referenceFixtures(): string {
  return join(referenceCrate(), "tests", "conformance");
}

/** The wire version the pinned reference crate speaks (its `SCHEMA_VERSION`). */
function referenceWireVersion(): string {
  const found = /pub const SCHEMA_VERSION: &str = "([^"]+)";/.exec(
    readFileSync(join(referenceCrate(), "src", "lib.rs"), "utf8"),
  );
  if (!found) throw new Error("SCHEMA_VERSION not found in the reference crate's src/lib.rs");
  return found[1] as string;
}

/** A fresh scratch directory holding the given fixture files. */
function fixtureDir(name: string, files: Record<string, unknown>): string {
  const dir = join(TMP, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files))
    writeFileSync(join(dir, file), typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return dir;
}

const minimalRequest = (
  JSON.parse(
    readFileSync(join(REPO_ROOT, "generated", "conformance", "callback_request", "valid-minimal.json"), "utf8"),
  ) as { data: Record<string, unknown> }
).data;

describe("lifeloop-callback conformance run", () => {
  it("passes every wire-type fixture of the reference crate and skips the other kinds", () => {
    // Between a bump of our wire version and the re-pin of the crate the fixtures carry the
    // reference's version: judged as ours then (the flag rewrites that member and nothing else).
    const theirs = referenceWireVersion();
    const r = runCli([
      "conformance",
      "run",
      "--root",
      referenceFixtures(),
      ...(theirs === WIRE_VERSION ? [] : ["--substitute-version", theirs]),
    ]);
    const all = rows(r.stdout);
    expect(r.code, r.stderr).toBe(0);
    const judged = all.filter((x) => x.actual !== "skipped");
    const wireKinds = new Set<string>(WIRE_DOCUMENTS.map((d) => d.fixtureKind));
    // 0.9.0 ships 68 fixtures, 38 of them of the five wire kinds (the others: manifests, failure mapping, ...).
    expect(judged.length).toBeGreaterThanOrEqual(38);
    expect(judged.every((x) => x.pass && wireKinds.has(x.kind as string))).toBe(true);
    expect(all.filter((x) => x.actual === "skipped").every((x) => !wireKinds.has(x.kind as string))).toBe(true);
    expect(judged.some((x) => x.expect === "invalid")).toBe(true);
  });

  it("passes every fixture of our corpus", () => {
    const r = runCli(["conformance", "run", "--root", join(REPO_ROOT, "generated", "conformance")]);
    const all = rows(r.stdout);
    expect(all.filter((x) => !x.pass).map((x) => `${x.path}: ${x.reason}`)).toEqual([]);
    expect(r.code).toBe(0);
    expect(all.length).toBeGreaterThan(500);
    expect(all.some((x) => x.actual === "skipped")).toBe(false);
  });

  it("fails (exit 1) on a fixture whose verdict, rule or pointer is wrong, and reports why", () => {
    const dir = fixtureDir("failing", {
      "a-verdict.json": {
        kind: "callback_request",
        expect: "valid",
        description: "wrong verdict",
        data: { ...minimalRequest, event_id: "" },
      },
      "b-rule.json": {
        kind: "callback_request",
        expect: "invalid",
        expect_rule: "schema.enum",
        description: "wrong rule",
        data: { ...minimalRequest, event_id: "" },
      },
      "c-pointer.json": {
        kind: "callback_request",
        expect: "invalid",
        expect_rule: "non-empty-identifier",
        expect_pointer: "/adapter_id",
        description: "wrong pointer",
        data: { ...minimalRequest, event_id: "" },
      },
      "d-ok.json": {
        kind: "callback_request",
        expect: "invalid",
        expect_rule: "non-empty-identifier",
        expect_pointer: "/event_id",
        description: "right",
        data: { ...minimalRequest, event_id: "" },
      },
    });
    const r = runCli(["conformance", "run", "--root", dir]);
    expect(r.code).toBe(1);
    const [verdict, rule, pointer, ok] = rows(r.stdout);
    expect(verdict).toMatchObject({ pass: false, actual: "invalid", rule: "non-empty-identifier" });
    expect(rule?.reason).toContain("wrong reason");
    expect(pointer?.reason).toContain("wrong place");
    expect(ok).toMatchObject({ pass: true, rule: "non-empty-identifier", pointer: "/event_id" });
  });

  it("reports an unknown kind as skipped (and passes)", () => {
    const dir = fixtureDir("unknown-kind", {
      "x.json": { kind: "adapter_manifest", expect: "valid", description: "not a wire document", data: {} },
    });
    const r = runCli(["conformance", "run", "--root", dir]);
    expect(r.code).toBe(0);
    expect(rows(r.stdout)).toEqual([
      expect.objectContaining({ kind: "adapter_manifest", actual: "skipped", pass: true }),
    ]);
  });

  it("judges data_base64 fixtures on their exact bytes", () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(minimalRequest))]).toString(
      "base64",
    );
    const lexeme = Buffer.from(`${JSON.stringify(minimalRequest).slice(0, -1)},"sequence":1.0}`).toString("base64");
    const dir = fixtureDir("base64", {
      "bom.json": {
        kind: "callback_request",
        expect: "invalid",
        expect_rule: "json.bom",
        expect_pointer: "",
        description: "BOM",
        data_base64: bom,
      },
      "lexeme.json": {
        kind: "callback_request",
        expect: "invalid",
        expect_rule: "schema.type",
        expect_pointer: "/sequence",
        description: "1.0",
        data_base64: lexeme,
      },
    });
    const r = runCli(["conformance", "run", "--root", dir]);
    expect(rows(r.stdout).map((x) => x.pass)).toEqual([true, true]);
    expect(r.code).toBe(0);
  });

  it("refuses a fixture past the document limit without reading it whole (a sparse 1.9 GB file under a 1.2 GB address-space limit)", () => {
    const dir = join(TMP, "huge");
    mkdirSync(dir, { recursive: true });
    // Sparse: no disk space used. Reading it whole (as before) needs 1.9 GB of memory, which the
    // address-space limit refuses; the bounded read takes the 16 MiB limit plus one byte.
    execFileSync("truncate", ["-s", "1900000000", join(dir, "huge.json")]);
    const r = spawnSync(
      "prlimit",
      ["--as=1200000000", "--", process.execPath, CLI, "conformance", "run", "--root", dir],
      { encoding: "utf8", timeout: 120_000, killSignal: "SIGKILL" },
    );
    expect(r.signal).toBeNull();
    expect(r.status).toBe(3);
    expect(rows(r.stdout)).toEqual([
      expect.objectContaining({
        actual: "unreadable",
        pass: false,
        reason: `json.max-bytes: the file is larger than the limit of ${LIMITS.max_request_bytes} bytes`,
      }),
    ]);
  });

  it("exits 3 on a malformed fixture", () => {
    for (const [name, content] of [
      ["not-json", "{ not json"],
      ["no-data", { kind: "callback_request", expect: "valid", description: "no document" }],
      [
        "both",
        {
          kind: "callback_request",
          expect: "valid",
          description: "two documents",
          data: minimalRequest,
          data_base64: "e30=",
        },
      ],
      [
        "bad-base64",
        { kind: "callback_request", expect: "valid", description: "bad base64", data_base64: "not base64!" },
      ],
      ["bad-expect", { kind: "callback_request", expect: "maybe", description: "bad expect", data: minimalRequest }],
    ] as const) {
      const r = runCli(["conformance", "run", "--root", fixtureDir(`malformed-${name}`, { "f.json": content })]);
      expect(r.code, name).toBe(3);
      expect(rows(r.stdout)[0]).toMatchObject({ actual: "unreadable", pass: false });
    }
    expect(runCli(["conformance", "run", "--root", join(TMP, "no-such-dir")]).code).toBe(3);
  });

  it("substitutes an older wire version only when asked (--substitute-version)", () => {
    const old = { ...minimalRequest, schema_version: "lifeloop.v0.2" };
    const dir = fixtureDir("old-version", {
      "data.json": { kind: "callback_request", expect: "valid", description: "written for lifeloop.v0.2", data: old },
      "bytes.json": {
        kind: "callback_request",
        expect: "valid",
        description: "written for lifeloop.v0.2, as bytes",
        data_base64: Buffer.from(JSON.stringify(old, null, 1)).toString("base64"),
      },
    });
    const without = runCli(["conformance", "run", "--root", dir]);
    expect(without.code).toBe(1);
    expect(rows(without.stdout).map((x) => x.rule)).toEqual(["schema-version-current", "schema-version-current"]);
    const withFlag = runCli(["conformance", "run", "--root", dir, "--substitute-version", "lifeloop.v0.2"]);
    expect(withFlag.code).toBe(0);
    expect(rows(withFlag.stdout).every((x) => x.pass && x.actual === "valid")).toBe(true);
  });

  it("exits 2 on usage errors", () => {
    for (const args of [
      ["conformance"],
      ["conformance", "run"],
      ["conformance", "walk", "--root", TMP],
      ["conformance", "run", "--root", TMP, "extra"],
    ]) {
      expect(runCli(args).code, args.join(" ")).toBe(2);
    }
  });
});
