/**
 * `lifeloop-callback events`: prints the event vocabulary (spec/tables/event-vocabulary.json) as JSON.
 */
import { EVENT_VOCABULARY } from "../../../generated/ts/spec/event-vocabulary.js";
import { EXIT, parseFlags, UsageError, type CliIo } from "../io.js";

/** Usage text of the events command. */
export const EVENTS_USAGE =
  "usage: lifeloop-callback events\n  Prints the event vocabulary (spec/tables/event-vocabulary.json) as JSON.";

/** Run `events` with its arguments; returns the exit code (0). @throws UsageError on any argument. */
export async function runEvents(args: readonly string[], io: CliIo): Promise<number> {
  const { positionals } = parseFlags(args, {});
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  io.out(`${JSON.stringify(EVENT_VOCABULARY, null, 2)}\n`);
  return EXIT.ok;
}
