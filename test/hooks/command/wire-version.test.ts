/**
 * `lifeloop-callback hook --wire-version V` as a real process (the built CLI, dist/; spec/wire-window.md,
 * "Who speaks which version"): the requests the hook builds carry V (the envelope's and the
 * request's `schema_version`), the receipts carry V, an answer in another version is a client
 * failure (invalid_response, under --on-failure), and `hook config` writes the flag into every
 * command it prints. The clients are real processes: the scripted hook client (answers in the
 * request's version, logs what it received) and the shell misbehaviour client (answers in the
 * version it is given).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../../generated/ts/spec.js";
import { runCli } from "../../support/cli-process.js";
import { FIXTURE_CLIENTS_DIR } from "../../support/fixture-clients.js";
import { HOOK_CLIENT, hookInputFor, Scratch } from "./support.js";
import { FAKE_CLIENT_0_5, OLDER_VERSION } from "../../support/window.js";

const V03 = OLDER_VERSION;
const MISBEHAVE = join(FIXTURE_CLIENTS_DIR, "shell", "misbehave.sh");
// Generous: each client answers in milliseconds; the bound only keeps a broken run from hanging.
const TIMEOUT_MS = "10000";

const s = new Scratch();
afterAll(() => s.remove());

/** Run `hook --adapter codex --event Stop` with `client` (flags) and `extra` flags on the recorded Stop input. */
function hook(client: readonly string[], extra: readonly string[]): ReturnType<typeof runCli> {
  return runCli(
    [
      "hook",
      "--adapter",
      "codex",
      "--event",
      "Stop",
      ...client,
      "--timeout-ms",
      TIMEOUT_MS,
      "--state-dir",
      s.stateDir,
      "--receipts",
      s.receipts,
      ...extra,
    ],
    { input: JSON.stringify(hookInputFor("codex", "Stop")) },
  );
}

const hookClient = (): string[] => ["--program", HOOK_CLIENT, "--arg", "--log", "--arg", s.log];

describe("hook --wire-version", () => {
  it("delivers requests in lifeloop.v0.3 to the client and succeeds; the receipts are v0.3", () => {
    s.clearLog();
    const before = s.receiptLines().length;
    const r = hook(hookClient(), ["--wire-version", V03]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({});
    const delivered = s.delivered();
    expect(delivered.map((q) => q.event)).toEqual(["frame.ending", "frame.ended"]);
    for (const request of delivered) expect(request.schema_version).toBe(V03);
    const receipts = s.receiptLines().slice(before);
    expect(receipts.map((x) => [x.event, x.schema_version, x.status])).toEqual([
      ["frame.ending", V03, "delivered"],
      ["frame.ended", V03, "delivered"],
    ]);
  });

  it("without the flag the same client gets current-version requests", () => {
    s.clearLog();
    const r = hook(hookClient(), []);
    expect(r.code, r.stderr).toBe(0);
    expect(s.delivered().map((q) => q.schema_version)).toEqual([WIRE_VERSION, WIRE_VERSION]);
  });

  it("an answer in another version is the client's failure: invalid_response naming the version (--on-failure open)", () => {
    const r = hook(["--program", MISBEHAVE, "--arg", "ok", "--arg", WIRE_VERSION], ["--wire-version", V03]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { systemMessage?: string };
    expect(out.systemMessage).toContain("frame.ending delivery failed: invalid_response");
    expect(out.systemMessage).toContain(`\`${WIRE_VERSION}\``);
    expect(r.stderr).toContain("invalid_response");
  });

  it("renders the context payloads of a lifeloop.v0.3 answer (lifeloop-cli 0.5.0's fake client, UserPromptSubmit)", () => {
    if (!existsSync(FAKE_CLIENT_0_5))
      throw new Error(
        `lifeloop-cli 0.5.0's test client is missing at ${FAKE_CLIENT_0_5}; run bash tools/setup/prepare.sh`,
      );
    const r = runCli(
      [
        "hook",
        "--adapter",
        "claude",
        "--event",
        "UserPromptSubmit",
        "--program",
        FAKE_CLIENT_0_5,
        "--timeout-ms",
        TIMEOUT_MS,
        "--state-dir",
        s.stateDir,
        "--wire-version",
        V03,
      ],
      { input: JSON.stringify(hookInputFor("claude", "UserPromptSubmit")) },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout) as { hookSpecificOutput?: { additionalContext?: string } };
    // The fake client's one payload (v0.3 envelope) reaches the harness's context.
    expect(out.hookSpecificOutput?.additionalContext).toContain("hello from fake ccd");
  });

  it("a version this build does not speak: exit 1 (never 2) with the reason", () => {
    const r = hook(hookClient(), ["--wire-version", "lifeloop.v0.2"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain('--wire-version "lifeloop.v0.2" is not a version this build reads');
  });

  it("hook config writes --wire-version into every command", () => {
    const r = runCli([
      "hook",
      "config",
      "--adapter",
      "codex",
      "--program",
      HOOK_CLIENT,
      "--timeout-ms",
      TIMEOUT_MS,
      "--wire-version",
      V03,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const block = JSON.parse(r.stdout) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    const commands = Object.values(block.hooks).flatMap((entries) =>
      entries.flatMap((e) => e.hooks.map((h) => h.command)),
    );
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(command).toContain(` --wire-version ${V03}`);
  });
});
