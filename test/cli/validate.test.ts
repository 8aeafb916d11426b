/**
 * `lifeloop-callback validate <type> [FILE|-]` as a real process (dist/runtime/cli/main.js):
 * exit 0 and `[]` for a valid document, exit 1 and the issues for an invalid one, exit 3 with the
 * json.* rule for input that is not one readable JSON document (including oversized and deeply
 * nested input, read without holding more than the byte limit), exit 2 for usage errors.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, ftruncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_DOCUMENTS, WIRE_VERSION, WIRE_WINDOW } from "../../generated/ts/spec.js";
import { atVersion, OLDER_VERSION } from "../support/window.js";
import { CLI, REPO_ROOT, runCli } from "../support/cli-process.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-validate-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** The minimal valid document of a fixture kind, from our corpus. */
function minimal(kind: string): Record<string, unknown> {
  return (
    JSON.parse(readFileSync(join(REPO_ROOT, "generated", "conformance", kind, "valid-minimal.json"), "utf8")) as {
      data: Record<string, unknown>;
    }
  ).data;
}

function file(name: string, content: string | Uint8Array): string {
  const path = join(TMP, name);
  writeFileSync(path, content);
  return path;
}

function issues(stdout: string): { rule: string; pointer: string; message: string }[] {
  const parsed = JSON.parse(stdout) as { rule: string; pointer: string; message: string }[];
  expect(Array.isArray(parsed)).toBe(true);
  for (const issue of parsed) {
    expect(Object.keys(issue).sort()).toEqual(["message", "pointer", "rule"]);
    expect(typeof issue.message).toBe("string");
  }
  return parsed;
}

const request = minimal("callback_request");
const requestText = JSON.stringify(request);

describe("lifeloop-callback validate", () => {
  it.each(WIRE_DOCUMENTS.map((d) => [d.cliName, d.fixtureKind]))(
    "accepts a valid %s from a file: exit 0, []",
    (cliName, kind) => {
      const r = runCli(["validate", cliName, file(`${kind}.json`, JSON.stringify(minimal(kind)))]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("[]\n");
    },
  );

  it("reads standard input for - and when no file is given", () => {
    for (const args of [
      ["validate", "callback-request", "-"],
      ["validate", "callback-request"],
    ]) {
      const r = runCli(args, { input: requestText });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("[]\n");
    }
  });

  it("reports schema and rule issues with exit 1 and a JSON array of {rule, pointer, message}", () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...request, event_id: "" }, "non-empty-identifier", "/event_id"],
      [{ ...request, unknown_field: 1 }, "schema.additional-properties", "/unknown_field"],
      [{ ...request, event: "session.Starting" }, "schema.enum", "/event"],
      [{ ...request, schema_version: "lifeloop.v0.2" }, "schema-version-current", "/schema_version"],
      [{ ...request, event: "frame.opening" }, "frame-event-requires-frame-context", "/frame_context"],
    ];
    for (const [doc, rule, pointer] of cases) {
      const r = runCli(["validate", "callback-request", "-"], { input: JSON.stringify(doc) });
      expect(r.code).toBe(1);
      const [first] = issues(r.stdout);
      expect(first).toMatchObject({ rule, pointer });
    }
  });

  it("prints exactly one issue without --all, as its usage says, also when several rules are broken", () => {
    // An empty warning code and failed without classes: three rule violations. (A version outside
    // the window would be its one issue: such a document is judged by no version's rules.)
    const doc = { schema_version: WIRE_VERSION, status: "failed", warnings: [{ code: "", message: "m" }] };
    const r = runCli(["validate", "callback-response", "-"], { input: JSON.stringify(doc) });
    expect(r.code).toBe(1);
    expect(issues(r.stdout)).toHaveLength(1);
    const all = runCli(["validate", "--all", "callback-response", "-"], { input: JSON.stringify(doc) });
    expect(all.code).toBe(1);
    expect(issues(all.stdout).length).toBeGreaterThan(1);
    expect(issues(all.stdout)[0]).toEqual(issues(r.stdout)[0]);
  });

  it("judges each document by its own version; --wire-version V by V alone (spec/wire-window.md)", () => {
    // An empty Warning.message: valid in lifeloop.v0.3, refused by the current version's rules.
    const doc = { schema_version: WIRE_VERSION, status: "observed", warnings: [{ code: "c", message: "" }] };
    const older = JSON.stringify(atVersion(doc, OLDER_VERSION));
    const current = JSON.stringify(doc);
    const run = (args: string[], input: string) => {
      const r = runCli(["validate", ...args, "callback-response", "-"], { input });
      return { code: r.code, issues: issues(r.stdout) };
    };
    expect(run([], older)).toEqual({ code: 0, issues: [] });
    expect(run(["--wire-version", OLDER_VERSION], older)).toEqual({ code: 0, issues: [] });
    expect(run([], current)).toMatchObject({
      code: 1,
      issues: [{ rule: "non-empty-identifier", pointer: "/warnings/0/message" }],
    });
    const closed = run(["--wire-version", WIRE_VERSION], older);
    expect(closed.code).toBe(1);
    expect(closed.issues).toEqual([
      {
        rule: "schema-version-current",
        pointer: "/schema_version",
        message: `schema_version mismatch: \`${OLDER_VERSION}\` is outside this reader's wire-version window (\`${WIRE_VERSION}\`)`,
      },
    ]);
    expect(run(["--all", "--wire-version", WIRE_VERSION], older).issues).toEqual(closed.issues);
    const outside = run([], JSON.stringify(atVersion(doc, "lifeloop.v0.2")));
    expect(outside.issues[0]?.message).toContain(WIRE_WINDOW.map((v) => `\`${v}\``).join(", "));
    const unknown = runCli(["validate", "--wire-version", "lifeloop.v9", "callback-response", "-"], { input: current });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("is not a version this build reads");
  });

  it("rejects input that is not one JSON document with exit 3 and its json.* rule", () => {
    const enc = new TextEncoder();
    const cases: [string, Uint8Array, string][] = [
      ["not JSON", enc.encode("hello"), "json.syntax"],
      ["empty", new Uint8Array(0), "json.syntax"],
      ["BOM", new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode(requestText)]), "json.bom"],
      [
        "invalid UTF-8",
        new Uint8Array([...enc.encode(requestText.slice(0, -2)), 0xff, ...enc.encode('"}')]),
        "json.utf8",
      ],
      ["trailing data", enc.encode(`${requestText}\n{}`), "json.trailing-data"],
      ["duplicate key", enc.encode(`{"event_id":"x",${requestText.slice(1)}`), "json.duplicate-key"],
      ["lone surrogate", enc.encode(requestText.replace('"event-id-1"', '"\\ud800"')), "json.lone-surrogate"],
    ];
    for (const [name, bytes, rule] of cases) {
      const viaFile = runCli(["validate", "callback-request", file(`bad-${name.replace(/ /g, "-")}.json`, bytes)]);
      const viaStdin = runCli(["validate", "callback-request"], { input: bytes });
      for (const r of [viaFile, viaStdin]) {
        expect(r.code, name).toBe(3);
        expect(issues(r.stdout)[0]?.rule, name).toBe(rule);
      }
    }
  });

  it("rejects deeply nested input with json.max-depth, without crashing", () => {
    const deep = `${requestText.slice(0, -1)},"metadata":{"deep":${"[".repeat(200_000)}${"]".repeat(200_000)}}}`;
    const r = runCli(["validate", "callback-request", "-"], { input: deep });
    expect(r.code).toBe(3);
    expect(issues(r.stdout)[0]?.rule).toBe("json.max-depth");
  });

  it("accepts a file of exactly limits.max_request_bytes and rejects one byte more with json.max-bytes", () => {
    const head = `${requestText.slice(0, -1)},"metadata":{"pad":"`;
    const tail = '"}}';
    const pad = LIMITS.max_request_bytes - head.length - tail.length;
    const exact = file("exact.json", `${head}${"a".repeat(pad)}${tail}`);
    const over = file("over.json", `${head}${"a".repeat(pad + 1)}${tail}`);
    const ok = runCli(["validate", "callback-request", exact]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe("[]\n");
    const tooBig = runCli(["validate", "callback-request", over]);
    expect(tooBig.code).toBe(3);
    expect(issues(tooBig.stdout)[0]?.rule).toBe("json.max-bytes");
  });

  it("stops reading an oversized file at the limit (an 8 GiB sparse file is refused)", () => {
    const path = join(TMP, "huge.json");
    const fd = openSync(path, "w");
    ftruncateSync(fd, 8 * 1024 * 1024 * 1024);
    closeSync(fd);
    const r = runCli(["validate", "callback-request", path]);
    rmSync(path);
    expect(r.code).toBe(3);
    expect(issues(r.stdout)[0]?.rule).toBe("json.max-bytes");
  });

  it("stops reading oversized standard input at the limit instead of consuming it all", async () => {
    const limit = LIMITS.max_request_bytes;
    const offered = 8 * limit;
    const child = spawn(process.execPath, [CLI, "validate", "callback-request", "-"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.resume();
    const closed = new Promise<number | null>((res) => child.on("close", (code) => res(code)));
    let exited = false;
    child.on("exit", () => (exited = true));
    child.stdin.on("error", () => undefined);
    const chunk = Buffer.alloc(1 << 20, 0x20);
    let written = 0;
    while (written < offered && !exited && !child.stdin.destroyed) {
      const ok = child.stdin.write(chunk);
      written += chunk.length;
      if (!ok)
        await new Promise<void>((res) => {
          // Whichever comes first; the other two listeners go (one of each per wait would pile up).
          const done = (): void => {
            child.stdin.off("drain", done);
            child.off("exit", done);
            child.stdin.off("error", done);
            res();
          };
          child.stdin.once("drain", done);
          child.once("exit", done);
          child.stdin.once("error", done);
        });
    }
    child.stdin.end();
    const code = await closed;
    expect(code).toBe(3);
    expect(issues(stdout)[0]?.rule).toBe("json.max-bytes");
    // It quit long before the 128 MiB on offer were consumed: at most the limit plus buffered chunks.
    expect(written).toBeLessThan(limit + 16 * (1 << 20));
  });

  it("keeps memory bounded by the input: 100,000 fractional numbers under a 1 MB key validate in a 256 MB heap", () => {
    // Non-integer numbers are only tracked where the schema wants an integer; tracking every one
    // (with its JSON pointer under a long key) used to exhaust the heap on inputs like this.
    // (130,000 numbers in all: within limits.max_values.)
    const key = "k".repeat(1_000_000);
    const numbers = new Array(100_000).fill("0.5").join(",");
    const path = file(
      "fractions.json",
      `{"schema_version":${JSON.stringify(request.schema_version)},"status":"delivered","metadata":{"${key}":[${numbers}],"z":[${new Array(30_000).fill("-0").join(",")}]}}`,
    );
    const r = runCli(["validate", "callback-response", path], {
      env: { NODE_OPTIONS: "--max-old-space-size=256" },
      timeoutMs: 60_000,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("[]\n");
  });

  it("reports unreadable files with exit 3", () => {
    const missing = runCli(["validate", "callback-request", join(TMP, "does-not-exist.json")]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain("ENOENT");
    const directory = runCli(["validate", "callback-request", TMP]);
    expect(directory.code).toBe(3);
    expect(directory.stderr).toContain("EISDIR");
  });

  it("exits 2 on usage errors", () => {
    for (const args of [
      ["validate"],
      ["validate", "callback_request"],
      ["validate", "no-such-type", "-"],
      ["validate", "callback-request", "a.json", "b.json"],
      ["validate", "--strict", "callback-request"],
    ]) {
      const r = runCli(args, { input: requestText });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("usage: lifeloop-callback validate");
    }
    const help = runCli(["validate", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: lifeloop-callback validate");
  });
});
