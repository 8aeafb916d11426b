/**
 * Options that `invoke`, `session` and `hook` share about the client they run:
 *
 * - the default receipt `client_id`: the program's file name, or, when the program is a script
 *   interpreter (spec/tables/script-interpreters.json), the file name of its script, so that
 *   `--program python3 --arg client.py` is `client.py`, not `python3`;
 * - `--fail-on-status STATUS[,STATUS]...`: an answer whose `status` is listed exits 1 (the
 *   default, as the reference, is exit 0 for every valid answer; spec/tables/cli-exit-codes.json).
 */
import { basename } from "node:path";
import { RECEIPT_STATUS_VALUES } from "../../generated/ts/spec/plans.js";
import { SCRIPT_INTERPRETERS_TABLE } from "../../generated/ts/spec/script-interpreters.js";
import type { ReceiptStatus } from "../../generated/ts/types.js";
import { UsageError } from "./io.js";

const INTERPRETERS: ReadonlySet<string> = new Set(SCRIPT_INTERPRETERS_TABLE.interpreters.map((i) => i.name));

/** True when `program`'s file name is a listed interpreter, bare or with a version suffix (`python3.12`). */
export function isScriptInterpreter(program: string): boolean {
  const name = basename(program);
  return INTERPRETERS.has(name) || INTERPRETERS.has(name.replace(/[0-9.]+$/, ""));
}

/**
 * The default `client_id` of a client run as `program args...` (spec/tables/script-interpreters.json
 * `rule`): the program's file name, unless the program is an interpreter and one of its arguments
 * does not start with `-`; then that argument's file name.
 */
export function defaultClientId(program: string, args: readonly string[]): string {
  if (isScriptInterpreter(program)) {
    const script = args.find((a) => a !== "" && !a.startsWith("-"));
    if (script !== undefined && basename(script) !== "") return basename(script);
  }
  return basename(program);
}

/** The flag's name and its usage line, for the commands' usage texts. */
export const FAIL_ON_STATUS_USAGE = `  --fail-on-status S[,S]  exit 1 when an answer's status is listed, e.g. failed (any of
                          ${RECEIPT_STATUS_VALUES.join(", ")}); default: a valid answer exits 0`;

/**
 * The statuses of `--fail-on-status` (comma-separated ReceiptStatus values), empty when the flag
 * is absent. Throws {@link UsageError} for an empty list or a value that is not a status.
 */
export function failOnStatuses(value: string | undefined): ReadonlySet<ReceiptStatus> {
  if (value === undefined) return new Set();
  const statuses = value.split(",").map((s) => s.trim());
  for (const s of statuses) {
    if (!(RECEIPT_STATUS_VALUES as readonly string[]).includes(s)) {
      throw new UsageError(
        `--fail-on-status takes CallbackResponse statuses separated by commas (${RECEIPT_STATUS_VALUES.join(", ")}); got ${JSON.stringify(s)}`,
      );
    }
  }
  return new Set(statuses as ReceiptStatus[]);
}
