/**
 * The CLI's top-level help and its answer to an unknown command (runtime/cli/main.ts): a short
 * command list, one line each, that points to `<command> --help` for the flags; and, for a typo,
 * one error line, the closest command and where to look, never the whole usage text (the error
 * would scroll away).
 */

/** One line per command, in the order `--help` lists them; a command missing here is listed by name only. */
export const COMMAND_SUMMARIES: Readonly<Record<string, string>> = {
  validate: "judge one wire document (FILE or -) against the schemas and rules",
  invoke: "send one DispatchEnvelope to a client process, print its answer and receipt",
  session: "deliver a JSON Lines session (subprocess or stream transport), print a summary",
  conform: "check a client program against every conformance scenario",
  hook: "run as a Claude Code / Codex hook; hook config | install | uninstall",
  render: "render a HookRenderRequest as the hook output a harness reads",
  continuation: "the continuation store: put | get | drop | list | drop-thread",
  receipt: "make a receipt from an answer (emit), read a receipt ledger (list, get)",
  conformance: "run conformance fixtures in the reference's format (conformance run --root DIR)",
  diff: "breaking-change gate between two spec versions (or two JSON Schemas)",
  generate: "regenerate generated/ from spec/ and schemas/ (development checkout)",
  events: "print the event vocabulary",
  version: "print the package and wire versions (also --version, -v, -V)",
};

/** Where the full documentation of the commands is, named in the help and in the unknown-command error. */
export const CLI_REFERENCE = "generated/docs/reference/cli.md";

/**
 * The short help: one line per registered command (in {@link COMMAND_SUMMARIES} order, then any
 * other registered command), then where the flags and the exit codes are.
 * @param names - the registered command names (main.ts COMMANDS)
 * @param header - the first line (the tool and its wire version)
 * @param exitCodes - the exit-code line (from spec/tables/cli-exit-codes.json)
 */
export function shortHelp(names: readonly string[], header: string, exitCodes: string): string {
  const ordered = [...Object.keys(COMMAND_SUMMARIES).filter((n) => names.includes(n)), ...names.filter((n) => !(n in COMMAND_SUMMARIES))];
  const width = Math.max(...ordered.map((n) => n.length));
  return [
    header,
    "",
    "usage: lifeloop-callback <command> [flags]",
    "",
    "commands:",
    ...ordered.map((n) => `  ${n.padEnd(width)}  ${COMMAND_SUMMARIES[n] ?? ""}`.trimEnd()),
    "",
    "Run `lifeloop-callback <command> --help` for a command's flags, `lifeloop-callback help --all` for every usage,",
    `or read ${CLI_REFERENCE} (in the package and the repository).`,
    exitCodes,
  ].join("\n");
}

/**
 * The optimal-string-alignment distance between `a` and `b` (insertions, deletions, substitutions
 * and adjacent transpositions each cost 1): `valdiate` is 1 from `validate`.
 */
export function editDistance(a: string, b: string): number {
  const w = b.length + 1;
  const d = new Uint32Array((a.length + 1) * w);
  const at = (i: number, j: number): number => d[i * w + j] as number;
  for (let i = 0; i <= a.length; i++) d[i * w] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * w + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The registered command closest to `name`, or null when none is close: within a third of the
 * longer name's length (at least 1, at most 3), or a command that `name` is a prefix of (`conti`).
 * Ties go to the earlier command in `names`.
 */
export function closestCommand(name: string, names: readonly string[]): string | null {
  const lower = name.toLowerCase();
  let best: { name: string; distance: number } | null = null;
  for (const candidate of names) {
    const distance = lower.length >= 3 && candidate.startsWith(lower) ? 0.5 : editDistance(lower, candidate);
    const allowed = Math.min(3, Math.max(1, Math.floor(Math.max(lower.length, candidate.length) / 3)));
    if (distance <= allowed && (best === null || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name ?? null;
}

/** The message for an unknown command: one error line, the closest command if any, where to look. */
export function unknownCommandText(name: string, names: readonly string[]): string {
  const close = closestCommand(name, names);
  return [
    `lifeloop-callback: unknown command ${JSON.stringify(name)}${close === null ? "" : `; did you mean ${close}?`}`,
    `Run lifeloop-callback --help for the list of commands (${names.join(", ")}).`,
    "",
  ].join("\n");
}
