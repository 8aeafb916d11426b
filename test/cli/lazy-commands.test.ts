/**
 * runtime/cli/main.ts loads a command's module only when that command runs (dynamic import), so a
 * hot command (`continuation get`, `hook`) does not pay for every other command's dependencies at
 * start-up; `--help` still lists every command. Witness: the built CLI runs with a module resolve
 * hook (node --import) that records every module it loads.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, runNode } from "../support/cli-process.js";

const dir = mkdtempSync(join(tmpdir(), "lifeloop-lazy-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hooks = join(dir, "hooks.mjs");
writeFileSync(hooks, "import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.LAZY_LOG, r.url + '\\n'); return r; }\n");
const register = join(dir, "register.mjs");
writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);

/** The command modules (runtime/cli/commands/<name>.js) a CLI run loaded, by file name. */
function commandModulesLoaded(name: string, args: readonly string[]): { code: number | null; stdout: string; modules: string[] } {
  const log = join(dir, `${name}.log`);
  writeFileSync(log, "");
  const r = runNode(["--import", register, CLI, ...args], { cwd: dir, env: { LAZY_LOG: log, LIFELOOP_CONTINUATION_ROOT: join(dir, "store") }, timeoutMs: 60_000 });
  const modules = [...new Set(readFileSync(log, "utf8").split("\n").flatMap((u) => /\/runtime\/cli\/commands\/([^/]+)\.js$/.exec(u)?.[1] ?? []))].sort();
  return { code: r.code, stdout: r.stdout, modules };
}

describe("cli: command modules are loaded on demand", () => {
  // help --all loads every command module; the commands are those whose usage it prints.
  const help = commandModulesLoaded("help", ["help", "--all"]);
  const commands = help.modules.filter((m) => help.stdout.includes(`usage: lifeloop-callback ${m}`));
  const commandsIn = (modules: readonly string[]): string[] => modules.filter((m) => commands.includes(m));

  it("--help loads and lists every command module", () => {
    expect(help.code).toBe(0);
    expect(commands).toEqual(expect.arrayContaining(["continuation", "diff", "hook", "invoke", "session", "validate"]));
  });

  it("continuation get loads no other command's module", () => {
    const r = commandModulesLoaded("get", ["continuation", "get", "--thread", "t", "--key", "k"]);
    expect(r.code).toBe(3); // not_found: the command really ran
    expect(commandsIn(r.modules)).toEqual(["continuation"]);
  });

  it("validate --help loads no other command's module", () => {
    const r = commandModulesLoaded("validate", ["validate", "--help"]);
    expect(r.code).toBe(0);
    expect(commandsIn(r.modules)).toEqual(["validate"]);
  });
});
