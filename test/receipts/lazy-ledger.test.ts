/**
 * The receipt ledger stays out of the load path of commands that do not use it: without `--ledger`,
 * `invoke` and `hook` never import runtime/receipts/ledger.js (the only module that loads the
 * SQLite binding, better-sqlite3), so a machine without the optional binding pays nothing and
 * breaks nothing. Witness: the built CLI runs with a module resolve hook (node --import) that
 * records every module it loads (as test/cli/lazy-commands.test.ts does).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, runNode } from "../support/cli-process.js";
import { FIXTURE_CLIENTS } from "../support/fixture-clients.js";
import { hookInputFor } from "../hooks/command/support.js";
import { ledgerEnvelope, ledgerRequest } from "./ledger-support.js";

const dir = mkdtempSync(join(tmpdir(), "lifeloop-lazy-ledger-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hooks = join(dir, "hooks.mjs");
writeFileSync(
  hooks,
  "import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.LAZY_LOG, r.url + '\\n'); return r; }\n",
);
const register = join(dir, "register.mjs");
writeFileSync(
  register,
  `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
);

let n = 0;
function loadsLedger(args: readonly string[], input: string): { code: number | null; stderr: string; ledger: boolean } {
  const log = join(dir, `run-${++n}.log`);
  writeFileSync(log, "");
  const r = runNode(["--import", register, CLI, ...args], { input, env: { LAZY_LOG: log }, timeoutMs: 60_000 });
  return {
    code: r.code,
    stderr: r.stderr,
    ledger: readFileSync(log, "utf8")
      .split("\n")
      .some((u) => u.endsWith("/runtime/receipts/ledger.js")),
  };
}

describe("the ledger module is loaded only with --ledger", () => {
  const envelope = JSON.stringify(ledgerEnvelope(ledgerRequest({ eventId: "e1", key: "k1", runId: "run" })));
  const invoke = ["invoke", "--program", FIXTURE_CLIENTS.shell.program, "--timeout-ms", "10000"];
  const hook = [
    "hook",
    "--adapter",
    "codex",
    "--event",
    "UserPromptSubmit",
    "--program",
    FIXTURE_CLIENTS.shell.program,
    "--timeout-ms",
    "10000",
    "--state-dir",
    join(dir, "state"),
  ];
  const hookInput = JSON.stringify(hookInputFor("codex", "UserPromptSubmit"));

  it("invoke and hook without --ledger do not load it", () => {
    for (const [args, input] of [
      [invoke, envelope],
      [hook, hookInput],
    ] as const) {
      const r = loadsLedger(args, input);
      expect(r.code, r.stderr).toBe(0);
      expect(r.ledger, args[0]).toBe(false);
    }
  });

  it("with --ledger they do (the witness sees it)", () => {
    const r = loadsLedger([...invoke, "--ledger", join(dir, "l.sqlite")], envelope);
    expect(r.code, r.stderr).toBe(0);
    expect(r.ledger).toBe(true);
  });
});
