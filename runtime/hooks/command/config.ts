/**
 * `lifeloop-callback hook config`: the hooks block a harness reads (spec/hook-command.md,
 * "Configuration"): `{"hooks": {<HookEvent>: [{"matcher": ..., "hooks": [{"type": "command",
 * "command": ..., "timeout": <s>, "statusMessage"?: ...}]}]}}`, one entry per hook event the
 * command serves for the harness (spec/tables/harness-hook-inputs.json), for Claude Code's
 * `settings.json` and Codex's `hooks.json` (the same shape; Codex adds statusMessage).
 *
 * Both harnesses run `command` through a shell, so every word is single-quoted.
 */
import { HARNESS_HOOK_INPUTS } from "../../../generated/ts/spec/harness-hook-inputs.js";
import type { HookAdapter } from "../../../generated/ts/spec/harness-hook-mapping.js";
import { HOOK_HARNESS_TIMEOUT_TABLE } from "../../../generated/ts/spec/hook-harness-timeout.js";
import { LIMITS } from "../../../generated/ts/spec/limits.js";
import type { HookHarnessTimeoutTable } from "../../../generated/ts/tables.js";
import { hookInputAdapter } from "./tables.js";
import type { OnFailure } from "./run.js";

/** One term of the harness timeout (spec/tables/hook-harness-timeout.json). */
type HookHarnessTimeoutTerm = HookHarnessTimeoutTable["terms"][number];

/** What goes into every entry's command line. */
export interface HookConfigOptions {
  readonly adapter: HookAdapter;
  /** How to run lifeloop-callback, absolute words (e.g. [node, /abs/dist/cli/launcher.cjs], the package's bin). */
  readonly cli: readonly string[];
  readonly program: string;
  readonly args: readonly string[];
  readonly timeoutMs: number;
  readonly onFailure: OnFailure;
  readonly receiptsFile: string | null;
  /** `--ledger`: the durable receipt ledger every call records into (absent or null: none). */
  readonly ledgerFile?: string | null;
  readonly stateDir: string | null;
  /** `--wire-version`: the wire version every call speaks (absent or null: the flag is left out, current). */
  readonly wireVersion?: string | null;
}

/** The options the `hook` command's flags give: all of {@link HookConfigOptions} but `cli` (the command knows its own). */
export type HookCommandOptions = Omit<HookConfigOptions, "cli">;

/** One word for a POSIX shell: single-quoted unless it is made only of safe characters. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A term's duration in ms (spec/meta/hook-harness-timeout.schema.json, `duration`). */
function termMs(duration: HookHarnessTimeoutTerm["duration"], timeoutMs: number): number {
  switch (duration) {
    case "timeout_ms":
      return timeoutMs;
    case "settle_margin_ms":
      return LIMITS.settle_margin_ms;
    case "harness_timeout_slack_ms":
      return HARNESS_HOOK_INPUTS.harness_timeout_slack_ms;
  }
}

/**
 * The harness timeout of an entry, in whole seconds (rounded up): the sum of the terms of
 * spec/tables/hook-harness-timeout.json (the stdin wait, each delivery's deadline and settle
 * margin, the slack), each its count times its duration in ms.
 * @param deliveries - how many lifecycle events the hook event delivers
 * @param timeoutMs - the `--timeout-ms` of the entry's command
 */
export function harnessTimeoutSeconds(deliveries: number, timeoutMs: number): number {
  let ms = 0;
  for (const t of HOOK_HARNESS_TIMEOUT_TABLE.terms as readonly HookHarnessTimeoutTerm[])
    ms += (t.count === "once" ? 1 : deliveries) * termMs(t.duration, timeoutMs);
  return Math.ceil(ms / 1000);
}

/** The hooks block for `o.adapter`. */
export function hookConfig(o: HookConfigOptions): { readonly hooks: Record<string, unknown[]> } {
  const row = hookInputAdapter(o.adapter);
  const hooks: Record<string, unknown[]> = {};
  for (const h of row.hook_events) {
    const words = [
      ...o.cli,
      "hook",
      "--adapter",
      o.adapter,
      "--event",
      h.hook_event,
      "--program",
      o.program,
      ...o.args.flatMap((a) => ["--arg", a]),
      "--timeout-ms",
      String(o.timeoutMs),
      "--on-failure",
      o.onFailure,
    ];
    if (o.receiptsFile !== null) words.push("--receipts", o.receiptsFile);
    if (o.ledgerFile !== undefined && o.ledgerFile !== null) words.push("--ledger", o.ledgerFile);
    if (o.stateDir !== null) words.push("--state-dir", o.stateDir);
    if (o.wireVersion !== undefined && o.wireVersion !== null) words.push("--wire-version", o.wireVersion);
    const entry: Record<string, unknown> = { type: "command", command: words.map(shellWord).join(" ") };
    if (row.config_timeout) entry.timeout = harnessTimeoutSeconds(h.delivers.length, o.timeoutMs);
    if (h.status_message !== null) entry.statusMessage = h.status_message;
    hooks[h.hook_event] = [{ matcher: h.matcher, hooks: [entry] }];
  }
  return { hooks };
}
