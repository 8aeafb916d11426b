/**
 * `--ledger PATH` for the commands that take it (invoke, session, hook, receipt); the ledger itself
 * is opened on demand by runtime/receipts/open-ledger.ts, so no other command loads it.
 */
import type { ReceiptLedger } from "../receipts/ledger.js";
import { isLedgerError, openLedger } from "../receipts/open-ledger.js";
import { EXIT, UsageError, type CliIo } from "./io.js";

/** The `--ledger` value, or null when the flag is absent. @throws UsageError for an empty path */
export function ledgerFlag(values: ReadonlyMap<string, string>): string | null {
  const path = values.get("--ledger");
  if (path === "")
    throw new UsageError(
      "--ledger is an empty path: name the ledger file (e.g. receipts.sqlite; it is created, its directory must exist)",
    );
  return path ?? null;
}

/**
 * Open the `--ledger` of a command that exits 3 when it cannot be used, before it starts anything:
 * `{ ledger }` (null when `path` is null), or `{ exit }` once `<command>: <reason>; <consequence>`
 * is on stderr. `wireVersion`: the version the command's receipts carry (its `--wire-version`;
 * default current): a ledger last written under another version is refused. Other errors propagate.
 */
export async function openCommandLedger(
  path: string | null,
  io: CliIo,
  command: string,
  consequence: string,
  wireVersion?: string,
): Promise<{ readonly ledger: ReceiptLedger | null } | { readonly exit: number }> {
  if (path === null) return { ledger: null };
  try {
    return { ledger: await openLedger(path, wireVersion === undefined ? {} : { wireVersion }) };
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    io.err(`${command}: ${error.message}; ${consequence}\n`);
    return { exit: EXIT.input };
  }
}
