/**
 * Opening the receipt ledger on demand (for the `--ledger` of invoke, session, hook and receipt):
 * runtime/receipts/ledger.ts is imported only here, when a ledger is named, so nothing else loads
 * it (and only ReceiptLedger.open loads the SQLite binding).
 */
import type { ReceiptLedger, ReceiptLedgerOptions } from "./ledger.js";

/** Open the ledger for a command. @throws ReceiptLedgerError (the caller reports it: exit 3, hook 1) */
export async function openLedger(path: string, options: ReceiptLedgerOptions = {}): Promise<ReceiptLedger> {
  const { ReceiptLedger } = await import("./ledger.js");
  return ReceiptLedger.open(path, options);
}

/** True for a ReceiptLedgerError (checked by name, so that testing an error does not load the module). */
export function isLedgerError(
  error: unknown,
): error is Error & { readonly fault: string; readonly failure_class: string; readonly retry_class: string } {
  return error instanceof Error && error.name === "ReceiptLedgerError";
}
