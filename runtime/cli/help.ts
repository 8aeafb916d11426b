/**
 * The CLI's answer to an unknown command (runtime/cli/main.ts): one error line, the closest command
 * ("did you mean") and where to look, never the whole help (the error would scroll away). The
 * commands are the rows of spec/tables/cli-commands.json.
 */

/** Where the full documentation of the commands is, named in the unknown-command error. */
export const CLI_REFERENCE = "generated/docs/reference/cli.md";

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
    `Run lifeloop-callback --help for the commands (${names.join(", ")}), or read ${CLI_REFERENCE}.`,
    "",
  ].join("\n");
}
