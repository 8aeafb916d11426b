/**
 * Install as a user would (issue: install and first use). The package is packed with `npm pack`
 * (its prepack builds dist/), installed into a fresh temporary npm project together with the
 * newest TypeScript and tsx from the registry, and then the README's examples run there as written:
 * the TypeScript example (run, and its types checked with default compiler settings), every CLI
 * line with the exit code it states, the Go client from a fresh `go mod init`, and the Python
 * client from a fresh venv, both built against the SDKs the tarball ships (`sdk/go`, `sdk/python` of
 * the installed package; `pip install` writes nothing into it).
 * Also: installing from a clone that is not built fails with what to run and leaves no link.
 *
 * Needs the npm registry and PyPI (for flit_core), as CI has. Wall time: about a minute.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import * as Module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WIRE_VERSION, WIRE_WINDOW } from "../../generated/ts/spec.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { readmeExample, shellExampleLines } from "./readme-examples.js";
import { REFERENCE_CLI, REFERENCE_INSTALL_COMMAND } from "../support/reference-cli.js";

/**
 * The reference host (`lifeloop event invoke`, the version spec/wire-version.json names) delivers the
 * README's example envelope to `client` (a program and its arguments) and prints a delivered receipt.
 */
function referenceDelivers(client: string, args: readonly string[]): void {
  if (!existsSync(REFERENCE_CLI))
    throw new Error(
      `the reference CLI is missing at ${REFERENCE_CLI}: ${REFERENCE_INSTALL_COMMAND} (or bash tools/setup/prepare.sh)`,
    );
  const r = spawnSync(
    REFERENCE_CLI,
    ["event", "invoke", "--client-cmd", client, ...args.flatMap((a) => ["--client-arg", a]), "--timeout-ms", "30000"],
    {
      input: readFileSync(join(REPO_ROOT, "examples", "dispatch-envelope.json")),
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  expect(r.status, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({
    schema_version: WIRE_VERSION,
    status: "delivered",
    event: "frame.opening",
    event_id: "evt-1",
  });
}

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-packed-"));
const PROJECT = join(TMP, "project");
/** Where the tarball is installed globally (`npm install -g --prefix`), as a Go or Python author would. */
const PREFIX = join(TMP, "prefix");
/** The SDKs as the tarball ships them, in the project's install (beforeAll). */
const PACKED_SDK = join(PROJECT, "node_modules", "lifeloop-callback", "sdk");
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/**
 * Run a command to completion (killed at the deadline, always reaped); no shell unless `bash -c`.
 * The default deadline is a watchdog, not a bound: an `npm install` of the tarball compiles the
 * optional better-sqlite3 from source when its prebuilt binary cannot be fetched (about 70 s on a
 * quiet 2-core machine, over 240 s at load 10 and more).
 */
function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
  timeoutMs = 540_000,
  env: NodeJS.ProcessEnv = {},
): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: timeoutMs, env: { ...process.env, ...env } });
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  if (r.status !== 0)
    throw new Error(`${what} failed (exit ${r.status}, signal ${r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Every file and folder under `dir`, relative, sorted (to prove a step wrote nothing there). */
function tree(dir: string): string[] {
  // Tool caches (__pycache__, .pytest_cache, .mypy_cache, .ruff_cache) may appear while other suites
  // run the SDK's tools in parallel; what a build would leave (build/, *.egg-info, dist/) is not one.
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((p) => !p.split("/").some((part) => part === "__pycache__" || part.startsWith(".")))
    .sort();
}

const DEV_VERSIONS = (await import("../../package.json", { with: { type: "json" } })).default.devDependencies as Record<
  string,
  string
>;

let tarball = "";
/** The paths the tarball holds, as npm pack listed them. */
let packedFiles: string[] = [];
/** What `npm pack` wrote on stderr (its scripts' messages). */
let packStderr = "";

/**
 * A private copy of the clone's tracked files (with its node_modules linked): `npm pack` rebuilds
 * dist/ (prepack), which in the clone itself would pull dist/ away from the suites running beside
 * this one (they run the built CLI).
 */
function packableCopy(): string {
  const src = join(TMP, "src");
  const listed = run("git", ["ls-files", "-z"], REPO_ROOT);
  for (const file of ok(listed, "git ls-files")
    .split("\0")
    .filter((f) => f !== "")) {
    // A tracked file deleted in the working tree (an edit in progress) is simply not copied.
    if (existsSync(join(REPO_ROOT, file))) cpSync(join(REPO_ROOT, file), join(src, file), { preserveTimestamps: true });
  }
  symlinkSync(join(REPO_ROOT, "node_modules"), join(src, "node_modules"));
  return src;
}

beforeAll(() => {
  const packDir = join(TMP, "pack");
  mkdirSync(packDir);
  const src = packableCopy();
  // Byte-compiled Python, as the SDK's tests and any import leave it in a clone (ignored by git):
  // the package must not ship it.
  ok(
    run("python3", ["-m", "compileall", "-q", join(src, "sdk", "python", "lifeloop_callback")], src),
    "python3 -m compileall",
  );
  const manifest = readFileSync(join(src, "package.json"));
  const pack = run("npm", ["pack", "--pack-destination", packDir, "--json"], src);
  const packed = ok(pack, "npm pack");
  packStderr = pack.stderr;
  // prepack packs package.json without `prepare` and postpack puts the committed file back.
  if (!readFileSync(join(src, "package.json")).equals(manifest)) throw new Error("npm pack left package.json changed");
  const listing = (JSON.parse(packed) as { filename: string; files: { path: string }[] }[])[0];
  tarball = join(packDir, listing?.filename ?? "");
  packedFiles = (listing?.files ?? []).map((f) => f.path);
  mkdirSync(PROJECT);
  writeFileSync(
    join(PROJECT, "package.json"),
    `${JSON.stringify({ name: "packed-install-check", private: true, type: "module" }, null, 2)}\n`,
  );
  ok(
    run(
      "npm",
      ["install", "--no-audit", "--no-fund", tarball, `tsx@${DEV_VERSIONS.tsx}`, "typescript@latest"],
      PROJECT,
    ),
    "npm install of the tarball",
  );
}, 900_000);

describe("the packed package, installed into a fresh project", () => {
  it("ships dist/ and the examples, and its CLI prints its version", () => {
    expect(packedFiles).toContain("sdk/python/lifeloop_callback/stream.py");
    expect(packedFiles).toContain("sdk/python/lifeloop_callback/_gen_spec.py");
    expect(packedFiles).toContain("sdk/go/go.mod");
    expect(packedFiles).toContain("sdk/go/zz_wire_types.go");
    // The SDKs' tests need the repository (vectors, reference CLI): the tarball ships the sources only.
    expect(
      packedFiles.filter(
        (f) => f.startsWith("sdk/") && (f.includes("/tests/") || f.endsWith("_test.go") || f.includes("_cache")),
      ),
    ).toEqual([]);
    expect(packedFiles.filter((f) => f.includes("__pycache__") || f.endsWith(".pyc"))).toEqual([]);
    const pkg = join(PROJECT, "node_modules", "lifeloop-callback");
    expect(existsSync(join(pkg, "dist", "runtime", "index.js"))).toBe(true);
    expect(existsSync(join(pkg, "examples", "dispatch-envelope.json"))).toBe(true);
    const version = ok(run("npx", ["lifeloop-callback", "--version"], PROJECT), "--version");
    expect(version).toMatch(
      new RegExp(`^lifeloop-callback \\d+\\.\\d+\\.\\d+ \\(wire ${WIRE_VERSION.replace(/\./g, "\\.")}\\)\\n$`),
    );
    // The bin is the launcher (packaging/launcher.cjs): it answers --version itself and hands any
    // other command to the bundle, through npx as well.
    const get = run(
      "npx",
      ["lifeloop-callback", "continuation", "get", "--thread", "t", "--key", "k"],
      PROJECT,
      60_000,
      {
        LIFELOOP_CONTINUATION_ROOT: join(TMP, "npx-store"),
      },
    );
    // not_found: exit 3 and the reference's error object on stderr (the command really ran).
    expect([get.status, get.stdout, get.stderr]).toEqual([3, "", '{"error":"not_found"}\n']);
  });

  it("runs the README's TypeScript example as written", { timeout: 300_000 }, () => {
    const example = readmeExample(REPO_ROOT, "examples/typescript/host.ts");
    writeFileSync(join(PROJECT, "example.ts"), example.code);
    const out = ok(run("npx", ["tsx", "example.ts"], PROJECT, 60_000), "npx tsx example.ts");
    expect(out).toBe("delivered\ndelivered\n");
  });

  it("type-checks the example against the package's .d.ts with the newest TypeScript and default settings", {
    timeout: 300_000,
  }, () => {
    writeFileSync(join(PROJECT, "example.ts"), readmeExample(REPO_ROOT, "examples/typescript/host.ts").code);
    // No tsconfig: the compiler's defaults, library declarations checked (no --skipLibCheck);
    // --module nodenext only because the example uses top-level await, which needs an ES module target.
    const r = run(
      "npx",
      ["tsc", "--noEmit", "--module", "nodenext", "--target", "es2022", "example.ts"],
      PROJECT,
      120_000,
    );
    expect(`${r.stdout}${r.stderr}`).toBe("");
    expect(r.status).toBe(0);
  });

  it("runs every CLI line of the README with the exit code it states", { timeout: 600_000 }, () => {
    const { prelude, lines } = shellExampleLines(readmeExample(REPO_ROOT, "cli").code);
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const { command, expectedExit } of lines) {
      // As the README says: in a Node project the CLI is `npx --no-install lifeloop-callback`, that is, node_modules/.bin.
      const r = run("bash", ["-c", `${prelude}\n${command}`], PROJECT, 240_000, {
        PATH: `${join(PROJECT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
      });
      expect({ command, exit: r.status, stderr: r.status === expectedExit ? "" : r.stderr }).toEqual({
        command,
        exit: expectedExit,
        stderr: "",
      });
    }
  });
});

describe("the packed package's subpath exports (lifeloop-callback/wire, /host, /client, /continuation, /hooks)", () => {
  /** One known export per subpath, as a consumer imports it. */
  const CONSUMER = [
    'import { WIRE_VERSION, parseWireDocument, type WireObjectTypeName } from "lifeloop-callback/wire";',
    'import { SubprocessInvoker, type InvocationResult } from "lifeloop-callback/host";',
    'import { serve, type ClientHandler } from "lifeloop-callback/client";',
    'import { ContinuationStore, type PutOptions } from "lifeloop-callback/continuation";',
    'import { renderHookPayload, type HookAdapter } from "lifeloop-callback/hooks";',
    'import { WIRE_VERSION as ROOT_WIRE_VERSION } from "lifeloop-callback";',
    'const kind: WireObjectTypeName = "DispatchEnvelope";',
    "const seen: { result?: InvocationResult; handler?: ClientHandler; put?: PutOptions; adapter?: HookAdapter } = {};",
    "const checks = [WIRE_VERSION === ROOT_WIRE_VERSION, typeof parseWireDocument, typeof SubprocessInvoker, typeof serve, typeof ContinuationStore, typeof renderHookPayload];",
    "console.log(JSON.stringify({ wire: WIRE_VERSION, kind, seen, checks }));",
  ];
  const EXPECTED = {
    wire: WIRE_VERSION,
    kind: "DispatchEnvelope",
    seen: {},
    checks: [true, "function", "function", "function", "function", "function"],
  };

  it("Node ESM imports each subpath from the installed tarball", { timeout: 120_000 }, () => {
    // The same lines without their type annotations: plain JavaScript for node.
    const js = CONSUMER.map((line) =>
      line
        .replace(/, type \w+/g, "")
        .replace(/: WireObjectTypeName/, "")
        .replace(/: \{[^=]*\} =/, " ="),
    );
    writeFileSync(join(PROJECT, "subpaths.mjs"), `${js.join("\n")}\n`);
    const out = ok(run(process.execPath, ["subpaths.mjs"], PROJECT, 60_000), "node subpaths.mjs");
    expect(JSON.parse(out)).toEqual(EXPECTED);
  });

  for (const [resolution, moduleKind] of [
    ["node16", "node16"],
    ["bundler", "preserve"],
  ] as const) {
    it(`TypeScript resolves each subpath's types with moduleResolution ${resolution}`, { timeout: 300_000 }, () => {
      writeFileSync(join(PROJECT, "subpaths.ts"), `${CONSUMER.join("\n")}\n`);
      // Library declarations checked (no --skipLibCheck), as in the README example's check above.
      const r = run(
        "npx",
        [
          "tsc",
          "--noEmit",
          "--strict",
          "--module",
          moduleKind,
          "--moduleResolution",
          resolution,
          "--target",
          "es2022",
          "subpaths.ts",
        ],
        PROJECT,
        120_000,
      );
      expect(`${r.stdout}${r.stderr}`).toBe("");
      expect(r.status).toBe(0);
    });
  }
});

describe("the CLI on PATH without a registry (a Go or Python client author)", () => {
  it("npm pack says where it wrote the tarball", () => {
    expect(packStderr).toContain(`lifeloop-callback: npm pack wrote ${tarball}\n`);
  });

  it("npm install -g --prefix DIR of the tarball puts lifeloop-callback on PATH, run by name", {
    timeout: 660_000,
  }, () => {
    const prefix = PREFIX;
    // The package comes from the file, never from a registry lookup of its name; its own
    // dependencies (ajv, ...) come from the npm registry or cache, as for any install.
    const installed = run("npm", ["install", "-g", "--no-audit", "--no-fund", "--prefix", prefix, tarball], TMP);
    ok(installed, "npm install -g --prefix");
    // No lifecycle script of the package itself for npm to warn about (npm 11: "install-scripts ...
    // not yet covered by allowScripts"); the optional ledger binding, better-sqlite3, has its own.
    expect(installed.stderr).not.toMatch(/lifeloop-callback@\S+ \((preinstall|install|postinstall|prepare):/);
    const elsewhere = join(TMP, "go-project");
    mkdirSync(elsewhere, { recursive: true });
    const env = { PATH: `${join(prefix, "bin")}:${process.env.PATH ?? ""}` };
    const version = ok(run("lifeloop-callback", ["--version"], elsewhere, 60_000, env), "lifeloop-callback --version");
    expect(version).toMatch(
      new RegExp(`^lifeloop-callback \\d+\\.\\d+\\.\\d+ \\(wire ${WIRE_VERSION.replace(/\./g, "\\.")}\\)\\n$`),
    );
    const events = run("lifeloop-callback", ["events"], elsewhere, 60_000, env);
    expect(events.status).toBe(0);
    expect(JSON.parse(events.stdout)).toEqual(expect.any(Array));
    const help = run("lifeloop-callback", ["--help"], elsewhere, 60_000, env);
    expect([help.status, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toContain(`(wire ${WIRE_VERSION}; reads ${WIRE_WINDOW.join(", ")})`);
    // As a hook command: the line `hook config` writes for the harness, run through a shell with a
    // hook input as Claude Code runs it, delivers to the client and prints the hook output.
    const client = join(REPO_ROOT, "test", "fixtures", "client-lang-neutral", "shell", "echo.sh");
    const config = JSON.parse(
      ok(
        run(
          "lifeloop-callback",
          ["hook", "config", "--adapter", "claude", "--program", client, "--timeout-ms", "30000"],
          elsewhere,
          60_000,
          env,
        ),
        "hook config",
      ),
    ) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    const command = config.hooks.Stop?.[0]?.hooks[0]?.command ?? "";
    expect(command).toContain(join(prefix, "lib", "node_modules", "lifeloop-callback", "dist", "cli", "launcher.cjs"));
    // With the default compile cache location, as a harness runs it (no LIFELOOP_CALLBACK_COMPILE_CACHE).
    const xdgCache = join(TMP, "xdg-cache");
    const hookRun = () =>
      spawnSync("/bin/sh", ["-c", `${command} --state-dir '${join(TMP, "hook-state")}'`], {
        cwd: elsewhere,
        input: JSON.stringify({
          hook_event_name: "Stop",
          session_id: "packed-1",
          transcript_path: join(elsewhere, "t.jsonl"),
          cwd: elsewhere,
          stop_hook_active: false,
        }),
        env: { ...process.env, LIFELOOP_CALLBACK_COMPILE_CACHE: "", XDG_CACHE_HOME: xdgCache },
        encoding: "utf8",
        timeout: 60_000,
      });
    const cacheEntries = (): Map<string, number> => {
      const root = join(xdgCache, "lifeloop-callback", "compile-cache");
      const names = existsSync(root) ? (readdirSync(root, { recursive: true }) as string[]) : [];
      return new Map(names.filter((n) => n.endsWith(".v8")).map((n) => [n, statSync(join(root, n)).ino]));
    };
    for (const round of ["first", "second"]) {
      const hook = hookRun();
      expect([hook.status, hook.stderr], round).toEqual([0, ""]);
      expect(JSON.parse(hook.stdout), round).toEqual({}); // delivered: no systemMessage about a failure
    }
    // The installed launcher is the fast one: its per-event command compiled from V8's code cache
    // (packaging/compile-cache.cjs) on the second run. The first run wrote the entries and the second
    // read them: an entry V8 rejected would have been rewritten (a new inode). Only our own format
    // (Node 20) is inspected; Node 22.1+ uses module.enableCompileCache, in the same directory.
    const entries = cacheEntries();
    if (typeof (Module as { enableCompileCache?: unknown }).enableCompileCache !== "function") {
      expect([...entries.keys()].some((n) => n.includes("command-hook.cjs"))).toBe(true);
      expect(hookRun().status).toBe(0);
      expect(cacheEntries()).toEqual(entries);
    }
  });

  it("the package has no install script (npm warns about one; pnpm refuses it) and builds itself on prepare", async () => {
    const pkg = (await import("../../package.json", { with: { type: "json" } })).default as {
      scripts: Record<string, string>;
    };
    for (const script of ["preinstall", "install", "postinstall"]) expect(pkg.scripts[script], script).toBeUndefined();
    expect(pkg.scripts.prepare).toBe("node packaging/prepare.mjs");
    // The packed manifest has no prepare either: the tarball ships dist/.
    const packedPkg = JSON.parse(
      readFileSync(join(PROJECT, "node_modules", "lifeloop-callback", "package.json"), "utf8"),
    ) as { scripts: Record<string, string> };
    for (const script of ["preinstall", "install", "postinstall", "prepare"])
      expect(packedPkg.scripts[script], script).toBeUndefined();
  });
});

describe("installing from a clone", () => {
  it("fails with what to run, and leaves no link, when the clone is not built", () => {
    // A clone without dist/: its package.json and the install check are all that step reads.
    const clone = join(TMP, "unbuilt-clone");
    mkdirSync(join(clone, "packaging"), { recursive: true });
    cpSync(join(REPO_ROOT, "package.json"), join(clone, "package.json"));
    cpSync(join(REPO_ROOT, "packaging", "prepare.mjs"), join(clone, "packaging", "prepare.mjs"));
    const app = join(TMP, "app-from-clone");
    mkdirSync(app);
    writeFileSync(
      join(app, "package.json"),
      `${JSON.stringify({ name: "app-from-clone", private: true, type: "module" }, null, 2)}\n`,
    );
    const r = run("npm", ["install", "--no-audit", "--no-fund", clone], app, 120_000);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("is a clone that has not been built");
    expect(r.stderr).toContain(`(cd ${clone} && npm ci)`);
    const link = join(app, "node_modules", "lifeloop-callback");
    expect(
      existsSync(link) ||
        (() => {
          try {
            return lstatSync(link).isSymbolicLink();
          } catch {
            return false;
          }
        })(),
    ).toBe(false);
  });
});

describe("client SDKs from a fresh project", () => {
  it("builds the README's Go client from a fresh go mod init", { timeout: 600_000 }, () => {
    const dir = join(TMP, "go-client");
    mkdirSync(dir);
    writeFileSync(join(dir, "main.go"), readmeExample(REPO_ROOT, "examples/go/main.go").code);
    ok(run("go", ["mod", "init", "example.com/myclient"], dir), "go mod init");
    ok(
      run(
        "go",
        [
          "mod",
          "edit",
          "-require",
          "lifeloop-callback.dev/lifeloop@v0.0.0",
          "-replace",
          `lifeloop-callback.dev/lifeloop=${join(PACKED_SDK, "go")}`,
        ],
        dir,
      ),
      "go mod edit",
    );
    ok(run("go", ["build", "-o", "myclient", "."], dir), "go build");
    // The Go author's check, with the CLI installed globally from the tarball (the test above).
    const checked = run(
      "lifeloop-callback",
      ["conform", "--program", join(dir, "myclient"), "--timeout-ms", "20000"],
      dir,
      300_000,
      { PATH: `${join(PREFIX, "bin")}:${process.env.PATH ?? ""}` },
    );
    expect(checked.stdout).toMatch(/ 0 failed/);
    expect(checked.status).toBe(0);
    const answer = run(join(dir, "myclient"), [], dir, 30_000);
    expect(answer.status).toBe(0);
    expect(JSON.parse(answer.stdout)).toMatchObject({ schema_version: WIRE_VERSION, status: "failed" }); // empty stdin: refused, as the runner must
    referenceDelivers(join(dir, "myclient"), []);
  });

  it("pip-installs the Python SDK into a fresh venv, writing nothing into the clone, and runs the README client both ways", {
    timeout: 600_000,
  }, () => {
    const sdk = join(PACKED_SDK, "python");
    const before = tree(sdk);
    const venv = join(TMP, "venv");
    ok(run("python3", ["-m", "venv", venv], TMP), "python3 -m venv");
    ok(
      run(join(venv, "bin", "pip"), ["install", "--disable-pip-version-check", "--no-input", sdk], TMP),
      "pip install sdk/python (from the tarball)",
    );
    expect(tree(sdk)).toEqual(before);
    const client = join(TMP, "client.py");
    writeFileSync(
      client,
      readmeExample(REPO_ROOT, "examples/python/client.py").code.replace(
        "#!/usr/bin/env python3",
        `#!${join(venv, "bin", "python")}`,
      ),
    );
    chmodSync(client, 0o755);
    const envelope = JSON.stringify({
      schema_version: WIRE_VERSION,
      request: {
        schema_version: WIRE_VERSION,
        event: "session.starting",
        event_id: "e1",
        adapter_id: "a",
        adapter_version: "1",
        integration_mode: "manual_skill",
        invocation_id: "i1",
      },
    });
    for (const [cmd, args] of [
      [client, []],
      [join(venv, "bin", "python"), [client]],
    ] as const) {
      const r = spawnSync(cmd, args, { input: envelope, encoding: "utf8", timeout: 30_000 });
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        status: "delivered",
        metadata: { event: "session.starting", payloads: 0 },
      });
    }
    referenceDelivers(client, []);
  });
});
