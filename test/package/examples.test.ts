/**
 * The shipped examples (examples/) are real and pass: the clients in JavaScript, TypeScript, Go and
 * Python each pass `conform --transport both`; the TypeScript examples compile with the project's
 * own TypeScript through examples/typescript/tsconfig.json (module nodenext, target es2022: the
 * `tsc` route that failed with TS2307 and TS1378 without it) and run; examples/session.jsonl runs
 * through `session` over both transports. Run in this clone: `import "lifeloop-callback"` resolves
 * to this package itself (a package may import its own name through its `exports`), as it does in
 * an installed copy (node_modules/lifeloop-callback/examples/).
 *
 * Time: four conform runs of 92 scenarios, two at a time, about 40 s on a loaded 2-core machine.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { validateValue } from "../../runtime/wire/validate.js";
import { conform, failureDetails, type Report } from "../conform/support.js";
import { REPO_ROOT, runCli } from "../support/cli-process.js";

const EXAMPLES = join(REPO_ROOT, "examples");
// Inside the repository, so the compiled files resolve `lifeloop-callback` to this package.
mkdirSync(join(REPO_ROOT, ".cache"), { recursive: true });
const BUILD = mkdtempSync(join(REPO_ROOT, ".cache", "examples-build-"));
afterAll(() => rmSync(BUILD, { recursive: true, force: true }));
const PYTHON = spawnSync("/bin/sh", ["-c", "command -v python3"], { encoding: "utf8" }).stdout.trim();
const GO_CLIENT = join(BUILD, "go-client");

function ok(r: ReturnType<typeof spawnSync>, what: string): string {
  if (r.status !== 0)
    throw new Error(`${what} failed (exit ${r.status}, signal ${r.signal}):\n${String(r.stdout)}\n${String(r.stderr)}`);
  return String(r.stdout);
}

beforeAll(() => {
  // The project's own TypeScript (package.json devDependencies), the example's tsconfig.
  const tsc = spawnSync(
    process.execPath,
    [
      join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"),
      "-p",
      join(EXAMPLES, "typescript"),
      "--outDir",
      join(BUILD, "ts"),
    ],
    { encoding: "utf8", timeout: 180_000 },
  );
  ok(tsc, "tsc -p examples/typescript");
  ok(
    spawnSync("go", ["build", "-o", GO_CLIENT, "."], { cwd: join(EXAMPLES, "go"), encoding: "utf8", timeout: 300_000 }),
    "go build examples/go",
  );
}, 600_000);

describe("examples/: the TypeScript examples compile with the project's TypeScript and run", () => {
  it("host.ts (the README's TypeScript API example) sends one event and emits its receipt", () => {
    const r = spawnSync(process.execPath, [join(BUILD, "ts", "host.js")], { encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("delivered\ndelivered\n");
  });

  it("stream-host.ts (the README's stream example) runs a session through one client process", () => {
    const r = spawnSync(process.execPath, [join(BUILD, "ts", "stream-host.js")], { encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("session.starting delivered\nsession.started delivered\nspawns: 1\n");
  });
});

describe("examples/: every shipped client passes conform --transport both", () => {
  const clients: [string, string[], Record<string, string>][] = [
    ["JavaScript (examples/echo-client.mjs)", ["--program", join(EXAMPLES, "echo-client.mjs")], {}],
    [
      "TypeScript (examples/typescript/client.ts, compiled)",
      ["--program", process.execPath, "--arg", join(BUILD, "ts", "client.js")],
      {},
    ],
    ["Go (examples/go)", ["--program", GO_CLIENT], {}],
    [
      "Python (examples/python/client.py)",
      ["--program", PYTHON, "--arg", join(EXAMPLES, "python", "client.py")],
      { PYTHONPATH: join(REPO_ROOT, "sdk", "python") },
    ],
  ];
  // Two at a time: CI has 2 cores; each run's exchanges have the self-test deadline (support.ts).
  const reports = new Map<string, Promise<Report>>();
  const start = (i: number): Promise<Report> => {
    const [name, args, env] = clients[i] as (typeof clients)[number];
    const p = conform([...args, "--transport", "both"], 400_000, env);
    reports.set(name, p);
    return p;
  };
  beforeAll(async () => {
    const pairs = [
      [0, 2],
      [1, 3],
    ];
    for (const pair of pairs) await Promise.allSettled(pair.map(start));
  }, 900_000);

  for (const [name] of clients) {
    it(name, async () => {
      const r = await (reports.get(name) as Promise<Report>);
      expect(failureDetails(r)).toBe("");
      expect(r.summary).toMatchObject({ measured: true, fail: 0, exit_code: 0 });
      expect(r.summary.pass).toBeGreaterThanOrEqual(90); // both transports' scenarios, not one half
      expect(r.code).toBe(0);
    });
  }
});

describe("examples/session.jsonl", () => {
  const file = join(EXAMPLES, "session.jsonl");
  it("holds valid DispatchEnvelopes of the current wire version, one per line", () => {
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      const value = JSON.parse(line) as { schema_version: string };
      expect(value.schema_version).toBe(WIRE_VERSION);
      expect(validateValue("DispatchEnvelope", value)).toEqual([]);
    }
  });

  for (const transport of ["subprocess", "stream"] as const) {
    it(`runs through session --transport ${transport} with the example client`, () => {
      const r = runCli([
        "session",
        "--transport",
        transport,
        "--program",
        join(EXAMPLES, "echo-client.mjs"),
        "--timeout-ms",
        "20000",
        file,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const events = readFileSync(file, "utf8").trimEnd().split("\n").length;
      const summary = (
        JSON.parse(r.stdout.trimEnd().split("\n").pop() as string) as { summary: Record<string, unknown> }
      ).summary;
      expect(summary).toMatchObject({
        transport,
        events,
        delivered: events,
        answered_failed: 0,
        failed: 0,
        spawns: transport === "stream" ? 1 : events,
      });
    });
  }
});

describe("examples/: every JSON example is of the current wire version", () => {
  it("each wire version named in examples/*.json and *.jsonl is WIRE_VERSION (a bump must update them)", () => {
    for (const name of readdirSync(EXAMPLES).filter((f) => /\.jsonl?$/.test(f))) {
      const versions = new Set(readFileSync(join(EXAMPLES, name), "utf8").match(/lifeloop\.v\d+(?:\.\d+)*/g) ?? []);
      expect([...versions], name).toEqual([WIRE_VERSION]);
    }
  });
});
