/**
 * The CLI reference page (generated/docs/reference/cli.md, written by `npm run docs`), rendered
 * from the command registry of ./main.ts (each command's usage text) and the exit-code table
 * (spec/tables/cli-exit-codes.json), so a new command or flag appears there without a second list.
 */
import { CLI_EXIT_CODES } from "../../generated/ts/spec/cli-exit-codes.js";
import { WIRE_VERSION } from "../../generated/ts/spec/wire-version.js";
import { commandUsages } from "./main.js";

/** Markdown of every command (usage, flags and exit codes as its `--help` prints them) and the exit-code table. */
export async function cliReferenceMarkdown(): Promise<string> {
  const sections = (await commandUsages()).map(([name, usage]) =>
    [`## \`${name}\``, "", "```text", usage, "```", ""].join("\n"),
  );
  const exitRows = Object.entries(CLI_EXIT_CODES).map(([name, code]) => `| ${code} | \`${name}\` |`);
  return [
    `# \`lifeloop-callback\` command line (wire ${WIRE_VERSION})`,
    "",
    "Every command as its `--help` prints it. Flags take `--flag value` or `--flag=value`; `--version`",
    "(or `-V`) prints the package and wire versions; FILE arguments accept `-` for standard input.",
    "",
    ...sections,
    "## Exit codes",
    "",
    "From `spec/tables/cli-exit-codes.json` (meanings: [the table](../tables.md#cli-exit-codes)); each",
    "command's usage says which of them it uses.",
    "",
    "| code | name |",
    "|---|---|",
    ...exitRows,
    "",
  ].join("\n");
}
