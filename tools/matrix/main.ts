/**
 * `npm run matrix`: run the cross-language matrix (our TypeScript host and the reference CLI,
 * driving the Go, Python, Node and shell fixture clients) and print the table.
 * Its prerequisites are checked first: when one is missing (before `bash tools/setup/prepare.sh`,
 * typically the reference CLI), each is named once with the command that provides it, and nothing
 * runs (exit 1), instead of one identical failure per cell.
 * Exit 0 iff every cell passed, 1 otherwise.
 */
import { painterFor } from "../../test/support/text-table.js";
import { allPassed, renderMatrix } from "./report.js";
import { matrixPrerequisites, runMatrix } from "./run.js";

const prerequisites = matrixPrerequisites();
if (prerequisites.blocked.size > 0) {
  process.stderr.write(
    [
      "npm run matrix: missing prerequisites, nothing was run:",
      ...[...prerequisites.blocked].map(([what, why]) => `  - ${what}: ${why}`),
      "All of them at once: bash tools/setup/prepare.sh (or npm test, whose pretest runs it).",
      "",
    ].join("\n"),
  );
  process.exit(1);
}
const result = await runMatrix({ prerequisites });
process.stdout.write(`${renderMatrix(result, painterFor(process.stdout)).join("\n")}\n`);
process.exitCode = allPassed(result) ? 0 : 1;
