/**
 * `npm run matrix:stream`: run the stream (v2) lifecycle matrix (our StreamInvoker driving the Go
 * and Python SDK fixtures and the hand-written raw client through seed 002's scenarios) and print
 * the table. Exit 0 iff every cell passed, 1 otherwise.
 */
import { painterFor } from "../../../test/support/text-table.js";
import { renderStreamMatrix, streamMatrixPassed } from "./report.js";
import { runStreamMatrix } from "./run.js";

const result = await runStreamMatrix();
process.stdout.write(`${renderStreamMatrix(result, painterFor(process.stdout)).join("\n")}\n`);
process.exitCode = streamMatrixPassed(result) ? 0 : 1;
