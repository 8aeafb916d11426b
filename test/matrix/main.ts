/**
 * `npm run matrix`: run the cross-language matrix (our TypeScript host and the reference CLI,
 * driving the Go, Python, Node and shell fixture clients) and print the table.
 * Exit 0 iff every cell passed, 1 otherwise.
 */
import { painterFor } from "../support/text-table.js";
import { allPassed, renderMatrix } from "./report.js";
import { runMatrix } from "./run.js";

const result = await runMatrix();
process.stdout.write(`${renderMatrix(result, painterFor(process.stdout)).join("\n")}\n`);
process.exitCode = allPassed(result) ? 0 : 1;
