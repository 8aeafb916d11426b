/**
 * runtime/cli/main.ts loads a command's module only when that command runs (dynamic import), and the
 * hot commands load only what they use (issue 30): `--version` and `--help` load no command module
 * and no generated table beyond their own; `continuation get` loads neither the validators nor the
 * whole generated/ts/spec.js; `hook` and `invoke` do not load ajv's compiler, the diff engine or the
 * stream host. The package's `bin` is a CommonJS launcher (packaging/launcher.cjs) that answers
 * `--version` and the top-level help from what the CLI printed at build time, loading no other file,
 * and hands everything else to the bundle. This is the structural guarantee; the timing is benched
 * (npm run bench -- cli).
 * Witness: the built CLI runs with a module resolve hook (node --import) that records every ES
 * module it resolves, plus every CommonJS module in require.cache at exit (ajv and the per-type
 * validators, generated/ts/validators/<Type>.cjs, are CommonJS, loaded through createRequire).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CLI_COMMANDS } from "../../generated/ts/spec/cli-commands.js";
import { staticAnswerArgvs } from "../../runtime/cli/main.js";
import { CLI, REPO_ROOT, runCli, runNode } from "../support/cli-process.js";
import packageJson from "../../package.json" with { type: "json" };

const dir = mkdtempSync(join(tmpdir(), "lifeloop-lazy-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hooks = join(dir, "hooks.mjs");
writeFileSync(
  hooks,
  "import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.LAZY_LOG, r.url + '\\n'); return r; }\n",
);
const register = join(dir, "register.mjs");
writeFileSync(
  register,
  [
    `import { register, createRequire } from "node:module";`,
    `import { appendFileSync } from "node:fs";`,
    `import { pathToFileURL } from "node:url";`,
    `register(${JSON.stringify(pathToFileURL(hooks).href)});`,
    `const cache = createRequire(import.meta.url).cache;`,
    `process.on("exit", () => appendFileSync(process.env.LAZY_LOG, Object.keys(cache).map((f) => pathToFileURL(f).href + "\\n").join("")));`,
    "",
  ].join("\n"),
);

/** What one CLI run loaded: its exit code, stdout, every module URL (ES and CommonJS) and the command modules among them. */
function loaded(
  name: string,
  args: readonly string[],
  stdin?: string,
  entry: string = CLI,
): { code: number | null; stdout: string; urls: string[]; commands: string[] } {
  const log = join(dir, `${name}.log`);
  writeFileSync(log, "");
  const r = runNode(["--import", register, entry, ...args], {
    cwd: dir,
    env: { LAZY_LOG: log, LIFELOOP_CONTINUATION_ROOT: join(dir, "store") },
    timeoutMs: 60_000,
    ...(stdin === undefined ? {} : { input: stdin }),
  });
  const urls = [...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean))].sort();
  const names: readonly string[] = CLI_COMMANDS.map((c) => c.name);
  const commands = urls
    .flatMap((u) => /\/runtime\/cli\/commands\/([^/]+)\.js$/.exec(u)?.[1] ?? [])
    .filter((m) => names.includes(m));
  return { code: r.code, stdout: r.stdout, urls, commands };
}

/** Modules a hot command must not load, by what they are. */
const HEAVY: ReadonlyArray<readonly [what: string, pattern: RegExp]> = [
  ["ajv's compiler", /\/node_modules\/ajv\/dist\/(ajv|2020|core|compile\/)/],
  ["the diff engine", /\/runtime\/(diff|compat)\//],
  ["the stream host", /\/runtime\/stream\//],
  ["codegen", /\/codegen\//],
  ["the whole generated spec", /\/generated\/ts\/spec\.js$/],
];

/** The types whose validator module (generated/ts/validators/<Type>.cjs, or its copy in dist/) was loaded. */
function validatorsIn(urls: readonly string[]): string[] {
  return urls.flatMap((u) => /\/validators\/([A-Za-z]+)\.cjs$/.exec(u)?.[1] ?? []).sort();
}

function heavyIn(urls: readonly string[], allowed: readonly string[] = []): string[] {
  return HEAVY.filter(([what, pattern]) => !allowed.includes(what) && urls.some((u) => pattern.test(u))).map(
    ([what]) => what,
  );
}

describe("cli: command modules are loaded on demand", () => {
  it("--help lists every command of spec/tables/cli-commands.json and loads no command module nor any heavy module", () => {
    const r = loaded("help", ["--help"]);
    expect(r.code).toBe(0);
    for (const c of CLI_COMMANDS) expect(r.stdout).toContain(`  ${c.name} `);
    expect(r.commands).toEqual([]);
    expect(heavyIn(r.urls)).toEqual([]);
    expect(r.urls.filter((u) => u.includes("/generated/ts/validators"))).toEqual([]);
  });

  it("--version loads only the version command, and no heavy module", () => {
    const r = loaded("version", ["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^lifeloop-callback \S+ \(wire /);
    expect(r.commands).toEqual(["version"]);
    expect(heavyIn(r.urls)).toEqual([]);
    expect(
      r.urls.filter(
        (u) =>
          u.includes("/generated/ts/") &&
          !u.endsWith("/spec/wire-version.js") &&
          !/\/spec\/cli-(commands|exit-codes)\.js$/.test(u),
      ),
    ).toEqual([]);
  });

  it("continuation get loads no other command's module, no validator and no heavy module", () => {
    const r = loaded("get", ["continuation", "get", "--thread", "t", "--key", "k"]);
    expect(r.code).toBe(3); // not_found: the command really ran
    expect(r.commands).toEqual(["continuation"]);
    expect(heavyIn(r.urls)).toEqual([]);
    expect(r.urls.filter((u) => u.includes("/generated/ts/validators") || u.includes("/runtime/wire/"))).toEqual([]);
  });

  it("hook (a real delivery to a shell client) and invoke load neither ajv's compiler, the diff engine, the stream host nor the whole spec", () => {
    const client = join(REPO_ROOT, "test", "fixtures", "client-lang-neutral", "shell", "echo.sh");
    const input = JSON.stringify({
      hook_event_name: "PreCompact",
      session_id: "s1",
      transcript_path: join(dir, "t.jsonl"),
      cwd: dir,
      trigger: "manual",
      custom_instructions: "",
    });
    const hook = loaded(
      "hook",
      [
        "hook",
        "--adapter",
        "claude",
        "--event",
        "PreCompact",
        "--program",
        client,
        "--timeout-ms",
        "30000",
        "--state-dir",
        join(dir, "state"),
      ],
      input,
    );
    expect(hook.code).toBe(0);
    expect(JSON.parse(hook.stdout)).toEqual({}); // delivered: no systemMessage about a failure
    expect(hook.commands).toEqual(["hook"]);
    expect(heavyIn(hook.urls)).toEqual([]);
    // Validators are loaded per type, on first use: this event's input and output, the envelope,
    // the render request; none of another event's or another harness's.
    const validators = validatorsIn(hook.urls);
    expect(validators).toContain("ClaudePreCompactInput");
    expect(validators.filter((t) => /^Codex|^Claude(?!PreCompact)/.test(t))).toEqual([]);
    expect(validators.length).toBeLessThanOrEqual(6);
    const invoke = loaded("invoke", ["invoke", "--help"]);
    expect(invoke.code).toBe(0);
    expect(invoke.commands).toEqual(["invoke"]);
    expect(heavyIn(invoke.urls)).toEqual([]);
    expect(validatorsIn(invoke.urls)).toEqual([]); // nothing judged, nothing loaded
  });

  it("validate --help loads no other command's module; a plain validate (one issue) loads no heavy module, --all loads ajv's compiler", () => {
    const r = loaded("validate", ["validate", "--help"]);
    expect(r.code).toBe(0);
    expect(r.commands).toEqual(["validate"]);
    const request = JSON.stringify(
      (JSON.parse(readFileSync(join(REPO_ROOT, "examples", "dispatch-envelope.json"), "utf8")) as { request: unknown })
        .request,
    );
    const bin = join(REPO_ROOT, packageJson.bin["lifeloop-callback"]);
    for (const entry of [CLI, bin]) {
      const plain = loaded("validate-plain", ["validate", "callback-request", "-"], request, entry);
      expect([plain.code, plain.stdout], entry).toEqual([0, "[]\n"]);
      // validate judges any wire type by name, so it has the whole spec module.
      expect(heavyIn(plain.urls, ["the whole generated spec"]), entry).toEqual([]);
      const all = loaded("validate-all", ["validate", "--all", "callback-request", "-"], request, entry);
      expect([all.code, all.stdout], entry).toEqual([0, "[]\n"]);
      expect(heavyIn(all.urls), entry).toContain("ajv's compiler");
    }
  });

  it("the package's bin is the launcher (packaging/launcher.cjs): every static argument list, answered as the CLI answers it, loads no other file", () => {
    const bin = join(REPO_ROOT, packageJson.bin["lifeloop-callback"]);
    expect(bin).toBe(join(REPO_ROOT, "dist", "cli", "launcher.cjs"));
    const argvs = staticAnswerArgvs();
    expect(argvs).toContainEqual(["--version"]);
    expect(argvs).toContainEqual(["--help"]);
    for (const argv of argvs) {
      const r = loaded(`static-${argvs.indexOf(argv)}`, argv, undefined, bin);
      const cli = runCli(argv, { cwd: dir });
      expect([r.code, r.stdout], JSON.stringify(argv)).toEqual([cli.code, cli.stdout]);
      expect(cli.stderr).toBe("");
      expect(
        r.urls.filter((u) => !u.startsWith("node:")),
        JSON.stringify(argv),
      ).toEqual([pathToFileURL(bin).href]);
    }
  });

  it("the launcher hands a per-event command to its own CommonJS file and anything else to the ES module bundle (packaging/bundle-cli.mjs), from dist/cli alone", () => {
    const bin = join(REPO_ROOT, packageJson.bin["lifeloop-callback"]);
    const client = join(REPO_ROOT, "test", "fixtures", "client-lang-neutral", "shell", "echo.sh");
    const input = JSON.stringify({
      hook_event_name: "Stop",
      session_id: "s2",
      transcript_path: join(dir, "t.jsonl"),
      cwd: dir,
      stop_hook_active: false,
    });
    const runs = [
      loaded("bin-version-usage", ["version", "--help"], undefined, bin),
      loaded("bin-get", ["continuation", "get", "--thread", "t", "--key", "k"], undefined, bin),
      loaded(
        "bin-hook",
        [
          "hook",
          "--adapter",
          "claude",
          "--event",
          "Stop",
          "--program",
          client,
          "--timeout-ms",
          "30000",
          "--state-dir",
          join(dir, "state"),
        ],
        input,
        bin,
      ),
    ];
    expect(runs.map((r) => r.code)).toEqual([0, 3, 0]);
    expect(runs[0]?.stdout).toMatch(/^usage: lifeloop-callback version/);
    const cli = pathToFileURL(join(REPO_ROOT, "dist", "cli")).href;
    /** The files of ours a run loaded, relative to dist/cli, but the validator modules. */
    const ours = (urls: readonly string[]): string[] =>
      urls
        .filter((u) => u.startsWith(pathToFileURL(REPO_ROOT).href) && !u.includes("/node_modules/"))
        .map((u) => (u.startsWith(`${cli}/`) ? u.slice(cli.length + 1) : u))
        .filter((u) => !/^chunks\/validators\//.test(u));
    const [usage, get, hook] = runs.map((r) => ours(r.urls));
    // version: the ES module bundle, its entry and chunks.
    expect(usage).toContain("main.js");
    expect(usage?.filter((u) => !/^(launcher\.cjs|main\.js|chunks\/[\w-]+\.js)$/.test(u))).toEqual([]);
    // continuation and hook: the launcher, its compile cache and the command's one file, nothing of
    // the ES module bundle.
    expect(get).toEqual(["chunks/command-continuation.cjs", "compile-cache.cjs", "launcher.cjs"]);
    expect(hook).toEqual(["chunks/command-hook.cjs", "compile-cache.cjs", "launcher.cjs"]);
    expect(validatorsIn(runs[2]?.urls ?? [])).toContain("ClaudeStopInput");
  });

  it("each command's own CommonJS file holds no heavy module (esbuild names each bundled module in a `// dist/...` line)", () => {
    const chunks = join(REPO_ROOT, "dist", "cli", "chunks");
    const files = readdirSync(chunks).filter((f) => /^command-[\w-]+\.cjs$/.test(f));
    expect(files).toContain("command-hook.cjs");
    for (const file of files) {
      const text = readFileSync(join(chunks, file), "utf8");
      const modules = [...text.matchAll(/^\/\/ (dist\/\S+)$/gm)].map((m) => `/${m[1]}`);
      expect(modules.length, file).toBeGreaterThan(10);
      // validate judges any wire type by name (and --all walks a tree), so it has the whole spec module.
      expect(heavyIn(modules, file === "command-validate.cjs" ? ["the whole generated spec"] : []), file).toEqual([]);
    }
  });

  it("a command's own CommonJS file holds that command only: another command's module fails to load, reported as a broken installation", () => {
    const file = join(REPO_ROOT, "dist", "cli", "chunks", "command-continuation.cjs");
    const r = runNode(
      [
        "-e",
        `require(${JSON.stringify(file)}).runCli(["events"], { out() {}, err: (t) => process.stderr.write(t) }).then((c) => process.exit(c))`,
      ],
      { cwd: dir, timeoutMs: 60_000 },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot load the command");
    expect(r.stderr).toContain("holds the continuation command only");
  });
});
