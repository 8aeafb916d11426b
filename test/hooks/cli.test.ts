/**
 * `lifeloop-callback render` as a real process (the built CLI, dist/runtime/cli/main.js; run
 * `npm run build` first): stdout carries the hook JSON only on exit 0; exit codes 1 (invalid request,
 * directive, adapter id, a block the event refuses), 2 (usage), 3 (unreadable / not JSON), 4 (unsupported: nothing printed).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI_EXIT_CODES } from "../../generated/ts/spec.js";
import { renderHookPayload } from "../../runtime/hooks/render.js";
import { DIRECTIVES, PAYLOAD_SETS, request } from "./cases.js";

const CLI = join(import.meta.dirname, "..", "..", "dist", "runtime", "cli", "main.js");
const TMP = mkdtempSync(join(tmpdir(), "lifeloop-render-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function run(
  args: readonly string[],
  input?: string | Buffer,
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, "render", ...args], {
    input: input ?? "",
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("lifeloop-callback render", () => {
  it("prints the rendered hook JSON (exit 0), warnings on stderr", () => {
    const req = request("claude", "frame.opening", { payloads: PAYLOAD_SETS.several, directive: DIRECTIVES.block });
    const expected = renderHookPayload(req, { adapter: "claude" });
    if (!expected.ok) throw new Error(expected.error.message);
    const r = run(["--adapter", "claude"], JSON.stringify(req));
    expect(r.code).toBe(CLI_EXIT_CODES.ok);
    expect(r.stdout).toBe(`${expected.rendered.text}\n`);
    expect(r.stderr).toContain("warning: payload_not_rendered: payload pl-4");
  });

  it("reads a FILE argument and `-`", () => {
    const file = join(TMP, "req.json");
    writeFileSync(file, JSON.stringify(request("codex", "frame.ended", { directive: DIRECTIVES.block })));
    const fromFile = run(["--adapter", "codex", file]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toBe('{"decision":"block","reason":"policy requires operator review"}\n');
    const fromStdin = run(["--adapter", "codex", "-"], JSON.stringify(request("codex", "frame.ended")));
    expect(fromStdin).toEqual({ code: 0, stdout: "{}\n", stderr: "" });
  });

  it("exit 4 for an unsupported event: nothing on stdout, the event and adapter named on stderr", () => {
    expect(run(["--adapter", "codex"], JSON.stringify(request("codex", "session.ended")))).toEqual({
      code: CLI_EXIT_CODES.unsupported,
      stdout: "",
      stderr: "render: unsupported: codex has no hook event for session.ended\n",
    });
    expect(run(["--adapter", "claude"], JSON.stringify(request("claude", "supervisor.tick")))).toEqual({
      code: 4,
      stdout: "",
      stderr: "render: unsupported: claude has no hook event for supervisor.tick\n",
    });
  });

  it("exit 1 for an invalid request, directive or adapter id; stdout stays empty", () => {
    const cases: [string, unknown, string][] = [
      ["claude", { ...request("claude", "frame.opening"), extra: true }, "invalid_request"],
      ["claude", request("claude", "frame.opening", { directive: DIRECTIVES.block_empty }), "invalid_directive"],
      ["codex", request("codex", "frame.ended", { directive: DIRECTIVES.block_blank }), "invalid_directive"],
      ["codex", request("codex", "frame.opening", { adapterId: "claude-code" }), "adapter_id_mismatch"],
      // A block at Claude Code PreCompact / SessionEnd: refused, as lifeloop-cli 0.9.0 refuses it.
      [
        "claude",
        request("claude", "context.pressure_observed", { directive: DIRECTIVES.block }),
        "unsupported_directive",
      ],
      ["claude", request("claude", "session.ended", { directive: DIRECTIVES.block }), "unsupported_directive"],
    ];
    for (const [adapter, body, kind] of cases) {
      const r = run(["--adapter", adapter], JSON.stringify(body));
      expect(r.code, kind).toBe(CLI_EXIT_CODES.validation);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`render: ${kind}:`);
    }
  });

  it("exit 2 for a bad command line", () => {
    for (const args of [
      [],
      ["--adapter"],
      ["--adapter", "gemini"],
      ["--adapter", "claude-code"],
      ["--adapter", "claude", "a", "b"],
      ["--adapter", "claude", "--bogus"],
    ]) {
      const r = run(args, "{}");
      expect(r.code, args.join(" ")).toBe(CLI_EXIT_CODES.usage);
      expect(r.stdout).toBe("");
    }
  });

  it("exit 3 for input that is unreadable or not one JSON document", () => {
    expect(run(["--adapter", "claude", join(TMP, "missing.json")]).code).toBe(CLI_EXIT_CODES.input);
    for (const input of [
      "",
      "not json",
      "{} {}",
      '{"a":1,"a":2}',
      Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
      Buffer.from([0x22, 0xff, 0x22]),
    ]) {
      const r = run(["--adapter", "claude"], input);
      expect(r.code, String(input)).toBe(CLI_EXIT_CODES.input);
      expect(r.stdout).toBe("");
    }
  });
});
