/**
 * `lifeloop-callback hook install|uninstall` on real settings files, as real processes
 * (spec/hook-command.md, "Installing the hooks"; runtime/hooks/install.ts): other hooks and settings
 * are kept, a second identical run is byte-identical (and does not rewrite the file), a re-run
 * replaces our entries, uninstall gives the original document back, a malformed file is refused and
 * left alone, an unwritable target is a clear error that leaves the old file and no temp file.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOurHookCommand, shellWords } from "../../../runtime/hooks/install.js";
import { unifiedDiff } from "../../../runtime/cli/unified-diff.js";
import { installCliShim, readmeExample, withInstalledCli } from "../../package/readme-examples.js";
import { CLI, REPO_ROOT, runCli } from "../../support/cli-process.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-hook-install-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
let n = 0;
/** A fresh project directory. */
const project = (): string => {
  const dir = join(TMP, `p${n++}`);
  mkdirSync(dir);
  return dir;
};
const CLIENT = "/bin/true";
const flags = (adapter: "claude" | "codex", timeout = "5000"): string[] => [
  "--adapter",
  adapter,
  "--program",
  CLIENT,
  "--timeout-ms",
  timeout,
];

/** A Claude Code settings file with the user's own settings and hooks (one on an event we serve too). */
const CLAUDE_SETTINGS = `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm test)"
    ]
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send 'Claude is done'"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "$CLAUDE_PROJECT_DIR/.claude/check-bash.sh",
            "timeout": 10
          }
        ]
      }
    ],
    "UserPromptSubmit": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "echo lifeloop-callback hook is mentioned, not run >> /tmp/log"
          }
        ]
      }
    ]
  }
}
`;

/** Our entries in a settings document: [hook event, command] pairs. */
function ours(doc: { hooks?: Record<string, { hooks?: { command?: string }[] }[]> }): [string, string][] {
  return Object.entries(doc.hooks ?? {}).flatMap(([event, groups]) =>
    groups.flatMap((g) =>
      (g.hooks ?? [])
        .filter((h) => isOurHookCommand(h.command))
        .map((h) => [event, h.command as string] as [string, string]),
    ),
  );
}
const tempFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith(".tmp"));

describe("hook install", () => {
  it("merges into .claude/settings.json with other hooks present; twice is byte-identical; uninstall gives the original back", () => {
    const dir = project();
    mkdirSync(join(dir, ".claude"));
    const file = join(dir, ".claude", "settings.json");
    writeFileSync(file, CLAUDE_SETTINGS);
    const first = runCli(["hook", "install", ...flags("claude")], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(
      "lifeloop-callback hook install: updated ./.claude/settings.json (5 entries for claude, 0 of ours replaced)\n",
    );
    const once = readFileSync(file);
    const doc = JSON.parse(once.toString()) as Record<string, unknown> & {
      hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]>;
    };
    // Ours: one per served event, exactly the hook config block's entries.
    const config = JSON.parse(runCli(["hook", "config", ...flags("claude")]).stdout) as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    expect(ours(doc)).toEqual(
      Object.entries(config.hooks)
        .map(([e, g]) => [e, g[0]?.hooks[0]?.command])
        .sort(
          (a, b) => Object.keys(doc.hooks).indexOf(a[0] as string) - Object.keys(doc.hooks).indexOf(b[0] as string),
        ),
    );
    // The user's settings and hooks are all there, in their order, with their values.
    const original = JSON.parse(CLAUDE_SETTINGS) as typeof doc;
    expect(doc.model).toBe("opus");
    expect(doc.permissions).toEqual(original.permissions);
    expect(Object.keys(doc.hooks).slice(0, 3)).toEqual(["Stop", "PreToolUse", "UserPromptSubmit"]);
    expect(doc.hooks.Stop?.[0]).toEqual(original.hooks.Stop?.[0]);
    expect(doc.hooks.PreToolUse).toEqual(original.hooks.PreToolUse);
    // Same matcher "*": our UserPromptSubmit entry joins the user's group, after the user's entry.
    expect(doc.hooks.UserPromptSubmit).toHaveLength(1);
    expect(doc.hooks.UserPromptSubmit?.[0]?.hooks.map((h) => isOurHookCommand(h.command))).toEqual([false, true]);

    const mtime = statSync(file).mtimeMs;
    const second = runCli(["hook", "install", ...flags("claude")], { cwd: dir });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("already up to date");
    expect(readFileSync(file).equals(once)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(mtime); // not rewritten at all

    const removed = runCli(["hook", "uninstall", "--adapter", "claude"], { cwd: dir });
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("5 of ours removed");
    expect(readFileSync(file, "utf8")).toBe(CLAUDE_SETTINGS);
    expect(tempFiles(join(dir, ".claude"))).toEqual([]);
  });

  it("a re-run with other flags replaces our entries instead of adding more", () => {
    const dir = project();
    expect(runCli(["hook", "install", ...flags("codex")], { cwd: dir }).code).toBe(0);
    const r = runCli(["hook", "install", ...flags("codex", "9000"), "--on-failure", "closed"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("5 of ours replaced");
    const doc = JSON.parse(readFileSync(join(dir, ".codex", "hooks.json"), "utf8")) as Parameters<typeof ours>[0];
    const entries = ours(doc);
    expect(entries).toHaveLength(5);
    for (const [, command] of entries)
      expect(shellWords(command)).toEqual(expect.arrayContaining(["--timeout-ms", "9000", "--on-failure", "closed"]));
  });

  it("creates ./.codex/hooks.json and its directory when missing; uninstall of a missing file creates nothing", () => {
    const dir = project();
    const gone = runCli(["hook", "uninstall", "--adapter", "codex"], { cwd: dir });
    expect(gone.code).toBe(0);
    expect(existsSync(join(dir, ".codex"))).toBe(false);
    const r = runCli(["hook", "install", ...flags("codex")], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("created ./.codex/hooks.json");
    const doc = JSON.parse(readFileSync(join(dir, ".codex", "hooks.json"), "utf8")) as {
      hooks: Record<string, { hooks: { statusMessage?: string }[] }[]>;
    };
    expect(Object.keys(doc)).toEqual(["hooks"]);
    expect(doc.hooks.Stop?.[0]?.hooks[0]?.statusMessage).toEqual(expect.any(String));
    // Uninstalling everything leaves an empty document, not empty lists.
    expect(runCli(["hook", "uninstall", "--adapter", "codex"], { cwd: dir }).code).toBe(0);
    expect(readFileSync(join(dir, ".codex", "hooks.json"), "utf8")).toBe("{}\n");
  });

  it("--dry-run prints the unified diff and writes nothing", () => {
    const dir = project();
    const file = join(dir, "settings.json");
    writeFileSync(file, CLAUDE_SETTINGS);
    const r = runCli(["hook", "install", ...flags("claude"), "--settings", file, "--dry-run"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(CLAUDE_SETTINGS);
    expect(r.stdout.startsWith(`--- a/${file}\n+++ b/${file}\n@@ `)).toBe(true);
    expect(r.stdout.split("\n").filter((l) => l.startsWith("-") && !l.startsWith("---"))).toEqual([]); // only additions
    expect(r.stdout).toContain('+            "command": "');
    expect(r.stderr).toContain("nothing was written");
    const absent = join(dir, "absent.json");
    const none = runCli(["hook", "install", ...flags("claude"), "--settings", absent, "--dry-run"]);
    expect(none.code).toBe(0);
    expect(none.stdout.startsWith("--- /dev/null\n")).toBe(true);
    expect(existsSync(absent)).toBe(false);
  });

  it("refuses a malformed file and leaves it as it was", () => {
    const cases: [string, string, string][] = [
      ["syntax", '{"hooks": {', "not one JSON document"],
      ["duplicate key", '{"hooks": {}, "hooks": {}}', "json.duplicate-key"],
      ["comment", '// my settings\n{"hooks": {}}', "not one JSON document"],
      ["array root", "[]", "must hold one JSON object"],
      ["hooks not an object", '{"hooks": []}', "#/hooks: must be an object"],
      ["event not a list", '{"hooks": {"Stop": {"hooks": []}}}', "#/hooks/Stop: must be a list"],
      ["group hooks not a list", '{"hooks": {"Stop": [{"hooks": "echo"}]}}', "#/hooks/Stop/0/hooks: must be a list"],
    ];
    const dir = project();
    for (const [what, text, message] of cases) {
      const file = join(dir, "settings.json");
      writeFileSync(file, text);
      const r = runCli(["hook", "install", ...flags("claude"), "--settings", file]);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toContain(message);
      expect(r.stderr.split("\n").length, what).toBeLessThanOrEqual(3);
      expect(readFileSync(file, "utf8"), what).toBe(text);
      const u = runCli(["hook", "uninstall", "--adapter", "claude", "--settings", file]);
      expect(u.code, what).toBe(1);
      expect(readFileSync(file, "utf8"), what).toBe(text);
    }
    expect(tempFiles(dir)).toEqual([]);
  });

  it("refuses what every hook call would refuse (a relative --program, a zero timeout) and writes nothing (newcomer walk-through)", () => {
    const dir = project();
    const file = join(dir, "settings.json");
    writeFileSync(file, CLAUDE_SETTINGS);
    for (const [what, args, message] of [
      [
        "relative program",
        ["--adapter", "claude", "--program", "./my-client", "--timeout-ms", "5000"],
        "--program must be an absolute path",
      ],
      ["zero timeout", ["--adapter", "claude", "--program", CLIENT, "--timeout-ms", "0"], "--timeout-ms"],
    ] as const) {
      const r = runCli(["hook", "install", ...args, "--settings", file]);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toContain(message);
      expect(readFileSync(file, "utf8"), what).toBe(CLAUDE_SETTINGS);
    }
    expect(tempFiles(dir)).toEqual([]);
  });

  it("an unwritable target is a clear error: a parent that is a regular file, a directory in the way", () => {
    const dir = project();
    writeFileSync(join(dir, "not-a-dir"), "x");
    const under = runCli([
      "hook",
      "install",
      ...flags("claude"),
      "--settings",
      join(dir, "not-a-dir", "settings.json"),
    ]);
    expect(under.code).toBe(1);
    expect(under.stderr).toMatch(/not-a-dir\/settings\.json: cannot read it: not a directory \(ENOTDIR\)\n/);
    mkdirSync(join(dir, "settings.json"));
    const isDir = runCli(["hook", "install", ...flags("claude"), "--settings", join(dir, "settings.json")]);
    expect(isDir.code).toBe(1);
    expect(isDir.stderr).toContain("is not a regular file");
  });

  it("a failed write (file-size limit) leaves the old file and no temp file", () => {
    const dir = project();
    const file = join(dir, "settings.json");
    writeFileSync(file, CLAUDE_SETTINGS);
    // The merged file is larger than the limit, the old one smaller: only the write of the temp file fails.
    const r = spawnSync(
      "prlimit",
      [
        `--fsize=${CLAUDE_SETTINGS.length + 100}`,
        process.execPath,
        CLI,
        "hook",
        "install",
        ...flags("claude"),
        "--settings",
        file,
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain("cannot write the temp file");
    expect(r.stderr).toContain("EFBIG");
    expect(r.stderr).toContain("the file is left as it was");
    expect(readFileSync(file, "utf8")).toBe(CLAUDE_SETTINGS);
    expect(tempFiles(dir)).toEqual([]);
  });

  it("follows a symlinked settings file (the link stays) and keeps the file's mode", () => {
    const dir = project();
    const real = join(dir, "dotfiles-settings.json");
    writeFileSync(real, "{}\n", { mode: 0o600 });
    const link = join(dir, "settings.json");
    symlinkSync(real, link);
    expect(runCli(["hook", "install", ...flags("claude"), "--settings", link]).code).toBe(0);
    expect(statSync(link, { throwIfNoEntry: true }).isFile()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["dotfiles-settings.json", "settings.json"]);
    expect(ours(JSON.parse(readFileSync(real, "utf8")) as Parameters<typeof ours>[0])).toHaveLength(5);
    expect(statSync(real).mode & 0o777).toBe(0o600);
  });
});

describe("the README's hook install block", () => {
  it("runs as written: the dry run writes nothing, install merges both harnesses' files, uninstall removes ours", () => {
    const dir = project();
    const bin = installCliShim(join(dir, ".bin"), CLI);
    const code = withInstalledCli(readmeExample(REPO_ROOT, "hook-install").code);
    const r = spawnSync("bash", ["-e", "-c", code], {
      cwd: dir,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("+++ b/.claude/settings.json");
    const claude = JSON.parse(readFileSync(join(dir, ".claude", "settings.json"), "utf8")) as Parameters<
      typeof ours
    >[0];
    const codex = JSON.parse(readFileSync(join(dir, ".codex", "hooks.json"), "utf8")) as Parameters<typeof ours>[0];
    expect(ours(claude)).toEqual([]);
    expect(ours(codex)).toHaveLength(5);
  });
});

describe("what counts as ours", () => {
  it("an entry whose command runs lifeloop-callback hook, however the CLI is installed", () => {
    for (const command of [
      "/usr/bin/node /opt/lifeloop-callback/dist/runtime/cli/main.js hook --adapter claude --event Stop --program /x --timeout-ms 5000",
      "/usr/bin/node /usr/lib/node_modules/lifeloop-callback/dist/cli/main.js hook --adapter claude --event Stop --program /x --timeout-ms 5000",
      "/usr/bin/node /usr/lib/node_modules/lifeloop-callback/dist/cli/launcher.cjs hook --adapter claude --event Stop --program /x --timeout-ms 5000",
      "'/usr/bin/node' '/home/me/my clone/dist/runtime/cli/main.js' hook --adapter codex --event Stop",
      "lifeloop-callback hook --adapter claude --event Stop --program /x --timeout-ms 1",
      "npx --no-install lifeloop-callback hook --adapter claude --event SessionStart",
      "cd /repo && /home/me/.local/bin/lifeloop-callback hook --adapter codex --event Stop",
      "env LIFELOOP_X=1 lifeloop-callback hook --adapter codex --event Stop",
      "node --enable-source-maps ./node_modules/lifeloop-callback/dist/runtime/cli/main.js hook --adapter claude",
    ])
      expect(isOurHookCommand(command), command).toBe(true);
    for (const command of [
      "echo lifeloop-callback hook is mentioned, not run",
      "grep -q lifeloop-callback hook.log",
      "lifeloop-callback hook config --adapter claude --program /x --timeout-ms 1",
      "lifeloop-callback validate dispatch-envelope -",
      "/usr/bin/node /opt/other/main.js hook",
      "notify-send done",
    ])
      expect(isOurHookCommand(command), command).toBe(false);
    expect(isOurHookCommand(undefined)).toBe(false);
  });

  it("the dry-run diff is a valid unified diff (the diff package's patch applies it)", async () => {
    const { applyPatch } = await import("diff");
    const a = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n";
    const b = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n";
    expect(applyPatch(a, unifiedDiff(a, b, "a/x", "b/x"))).toBe(b);
    expect(applyPatch("", unifiedDiff("", b, "/dev/null", "b/x"))).toBe(b);
    expect(applyPatch(b, unifiedDiff(b, "", "a/x", "b/x"))).toBe("");
    expect(unifiedDiff(a, a, "a/x", "b/x")).toBe("");
  });
});
