/**
 * The expected-failures baseline of `conform --expected-failures FILE` (spec/conformance-runner.md,
 * "Baseline"): scenario ids, one per line; `#` starts a comment; blank lines are ignored. A listed
 * scenario may fail; a listed scenario that passes, or that does not exist, makes the run fail, so
 * the list cannot go stale.
 */

/** The ids of a baseline text, in file order, without duplicates. */
export function parseBaseline(text: string): string[] {
  const ids: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const hash = raw.indexOf("#");
    const id = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (id !== "" && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * Baseline entries that no longer hold: listed scenarios that passed, and ids that name no
 * scenario of any transport (`known`). One file may serve both transports: an id of a transport
 * this run did not check (or could not measure) is neither.
 */
export function staleEntries(baseline: readonly string[], verdicts: ReadonlyMap<string, string>, known: ReadonlySet<string>): { readonly passing: string[]; readonly unknown: string[] } {
  const passing = baseline.filter((id) => verdicts.get(id) === "pass");
  const unknown = baseline.filter((id) => !known.has(id));
  return { passing, unknown };
}
