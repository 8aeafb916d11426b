/**
 * `lifeloop-callback hook install <the flags of hook config> [--settings FILE] [--dry-run]` and
 * `lifeloop-callback hook uninstall --adapter A [--settings FILE] [--dry-run]`: merge the hooks
 * block of `hook config` into a harness's settings file, or remove ours from it
 * (runtime/hooks/install.ts; spec/hook-command.md, "Installing the hooks").
 *
 * Output: one line on stdout saying what was done (or, with --dry-run, the unified diff and
 * nothing written). Exit 0 done (or nothing to do), 1 anything else, as every `hook` command.
 */
import { resolve } from "node:path";
import type { HookAdapter } from "../../../generated/ts/spec/harness-hook-mapping.js";
import { hookInputAdapter } from "../../hooks/command/tables.js";
import { HOOK_ADAPTERS, isHookAdapter } from "../../hooks/mapping.js";
import {
  mergeHooks,
  parseSettings,
  readSettingsFile,
  renderSettings,
  replaceFileAtomically,
  SettingsFileError,
  type HooksBlock,
} from "../../hooks/install.js";
import { EXIT, parseFlags, UsageError, type CliIo } from "../io.js";
import { executableProblem } from "../program-check.js";
import { unifiedDiff } from "../unified-diff.js";
import type { HookCommandOptions as Common } from "../../hooks/command/config.js";

/** What `hook` lends to install: its flags, their reader, and the block `hook config` prints. */
export interface HookSettingsDeps {
  readonly flags: { readonly values: readonly string[]; readonly repeatable: readonly string[] };
  readonly common: (values: ReadonlyMap<string, string>, lists: ReadonlyMap<string, readonly string[]>) => Common;
  readonly configBlock: (c: Common) => HooksBlock;
  /** The checks a real hook call makes (absolute program, a usable timeout); throws UsageError. */
  readonly check: (c: Common) => unknown;
}

/**
 * Run `hook install` or `hook uninstall` with `args` (after the subcommand); returns the exit code.
 * Throws UsageError for bad flags (the hook command reports it, exit 1).
 */
export async function runHookSettings(
  sub: "install" | "uninstall",
  args: readonly string[],
  io: CliIo,
  deps: HookSettingsDeps,
): Promise<number> {
  const installing = sub === "install";
  const { values, lists, switches, positionals } = parseFlags(
    args,
    installing
      ? {
          values: [...deps.flags.values, "--settings"],
          repeatable: [...deps.flags.repeatable],
          switches: ["--dry-run"],
        }
      : { values: ["--adapter", "--settings"], switches: ["--dry-run"] },
  );
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if (values.has("--event")) throw new UsageError(`hook ${sub} installs every event: drop --event`);
  let adapter: HookAdapter;
  let block: HooksBlock | null = null;
  let program: string | null = null;
  if (installing) {
    const c = deps.common(values, lists);
    // Never write a hook command every call of which would be refused (e.g. a relative --program).
    deps.check(c);
    adapter = c.adapter;
    program = c.program;
    block = deps.configBlock(c);
  } else {
    const a = values.get("--adapter");
    if (a === undefined) throw new UsageError("--adapter is required (it picks the default settings file)");
    if (!isHookAdapter(a)) throw new UsageError(`unknown adapter ${a} (expected one of ${HOOK_ADAPTERS.join(", ")})`);
    adapter = a;
  }
  const settingsFlag = values.get("--settings");
  if (settingsFlag === "") throw new UsageError("--settings is an empty path: name the settings file");
  const shown = settingsFlag ?? `./${hookInputAdapter(adapter).config_file}`;
  const file = resolve(shown);
  const what = `lifeloop-callback hook ${sub}`;
  try {
    const bytes = await readSettingsFile(file);
    if (bytes === null && !installing) {
      io.out(`${what}: ${shown} does not exist; nothing to remove\n`);
      return EXIT.ok;
    }
    const before = bytes === null ? null : parseSettings(shown, bytes);
    const merged = mergeHooks(before?.doc ?? {}, block);
    const oldText = bytes === null ? "" : Buffer.from(bytes).toString("utf8");
    const newText = renderSettings({ doc: merged.doc, indent: before?.indent ?? "  " });
    const counts = installing
      ? `${merged.added} entr${merged.added === 1 ? "y" : "ies"} for ${adapter}, ${merged.removed} of ours replaced`
      : `${merged.removed} of ours removed`;
    if (switches.has("--dry-run")) {
      const name = shown.replace(/^\.\//, "");
      io.out(unifiedDiff(oldText, newText, bytes === null ? "/dev/null" : `a/${name}`, `b/${name}`));
      io.err(
        `${what}: dry run: ${oldText === newText ? `${shown} is already up to date` : `${shown} would change (${counts})`}; nothing was written\n`,
      );
    } else if (oldText === newText) {
      io.out(`${what}: ${shown} is already up to date (${counts}); not rewritten\n`);
    } else {
      await replaceFileAtomically(file, newText);
      io.out(`${what}: ${bytes === null ? "created" : "updated"} ${shown} (${counts})\n`);
    }
  } catch (error) {
    if (!(error instanceof SettingsFileError)) throw error;
    io.err(`${what}: ${error.message}\n`);
    return EXIT.validation;
  }
  if (program !== null) {
    const problem = executableProblem(program);
    if (problem !== null)
      io.err(
        `${what}: warning: --program ${program}: ${problem} here; every hook call will fail until it is an executable file\n`,
      );
  }
  return EXIT.ok;
}
