/**
 * The expected-failures baseline of `conform --expected-failures FILE` (spec/conformance-runner.md,
 * "Baseline"): scenario ids, one per line; `#` starts a comment; blank lines are ignored; a line
 * may also be `<transport> <id>` as copied from the text report (the transport column is dropped:
 * scenario ids are unique across transports). A listed
 * scenario may fail; a listed scenario that passes, or that does not exist, makes the run fail, so
 * the list cannot go stale.
 */

import { readRegularFile } from "../process/regular-file.js";
import { SCENARIO_TRANSPORTS } from "./types.js";

const TRANSPORT_COLUMN = new Set<string>(SCENARIO_TRANSPORTS);

/** The ids of a baseline text, in file order, without duplicates (linear: a Set, not a list scan). */
export function parseBaseline(text: string): string[] {
  const ids = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const hash = raw.indexOf("#");
    const words = (hash >= 0 ? raw.slice(0, hash) : raw).trim().split(/\s+/);
    // `subprocess event.session.starting`, a line copied from the text report, names the scenario.
    const id = words.length === 2 && TRANSPORT_COLUMN.has(words[0] as string) ? (words[1] as string) : words.join(" ");
    if (id !== "") ids.add(id);
  }
  return [...ids];
}

/**
 * The text of a baseline file, read without ever blocking or growing without bound: the file is
 * opened non-blocking (a FIFO without a writer opens at once instead of waiting), must be a regular
 * file (a FIFO, a device such as /dev/zero or a directory is refused) and at most `maxBytes` bytes
 * (limits.max_request_bytes; at most `maxBytes` + 1 bytes are ever read). Returns the UTF-8 text, or
 * `{ error }` with a message naming what is wrong (the caller exits 3, input).
 */
export function readBaselineFile(
  path: string,
  maxBytes: number,
): { readonly text: string } | { readonly error: string } {
  const read = readRegularFile(path, maxBytes);
  if (read.ok) return { text: read.bytes.toString("utf8") };
  switch (read.problem) {
    case "open":
      return { error: `cannot open the baseline ${path}: ${errnoCode(read.error)}` };
    case "read":
      return { error: `cannot read the baseline ${path}: ${errnoCode(read.error)}` };
    case "not_regular":
      return { error: `the baseline ${path} is not a regular file (${read.kind}); only a regular file is read` };
    case "too_large":
      return { error: `the baseline ${path} is larger than ${maxBytes} bytes (limits.max_request_bytes)` };
  }
}

function errnoCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/**
 * Baseline entries that no longer hold: listed scenarios that passed, and ids that name no
 * scenario of any transport (`known`). One file may serve both transports: an id of a transport
 * this run did not check (or could not measure) is neither.
 */
export function staleEntries(
  baseline: readonly string[],
  verdicts: ReadonlyMap<string, string>,
  known: ReadonlySet<string>,
): { readonly passing: string[]; readonly unknown: string[] } {
  const passing = baseline.filter((id) => verdicts.get(id) === "pass");
  const unknown = baseline.filter((id) => !known.has(id));
  return { passing, unknown };
}
