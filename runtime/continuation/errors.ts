/**
 * Errors of the continuation store (CONTINUATION-001 §"Error Surfaces"): each carries the JSON
 * envelope the CLI prints on stderr, `{"error": code, ...fields}`, and the exit code the table gives
 * it. The free-text members (`detail`, `reason`) are ours; codes and structured members are the
 * reference's (spec/tables/client-initiated-commands.json `errors`, `extension_errors`).
 */
import { exitCodeOf, type ContinuationErrorCode } from "./table.js";
import type { OutputValue } from "./json.js";

/** The envelope of one error: `error` is the code, the other members are the table's `fields`. */
export type ContinuationErrorEnvelope = { readonly error: ContinuationErrorCode } & {
  readonly [field: string]: OutputValue;
};

/** An identifier field as the envelopes name it. */
export type IdentifierField = "thread" | "key" | "client_id";

/** A continuation command failed with a structured envelope (exit code from the table, 3 today). */
export class ContinuationError extends Error {
  /** The exit code of the CLI for this envelope. */
  readonly exitCode: number;
  constructor(readonly envelope: ContinuationErrorEnvelope) {
    const { error, ...rest } = envelope;
    super(
      `${error}${Object.keys(rest).length > 0 ? `: ${JSON.stringify(rest, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}` : ""}`,
    );
    this.name = "ContinuationError";
    this.exitCode = exitCodeOf(error);
  }
  /** The error code, e.g. `not_found`. */
  get code(): ContinuationErrorCode {
    return this.envelope.error;
  }
}

/** `{"error":"not_found"}`: no live entry (absent or expired). */
export function notFound(): ContinuationError {
  return new ContinuationError({ error: "not_found" });
}

/** `{"error":"invalid_identifier","field","detail"}`. */
export function invalidIdentifier(field: IdentifierField, detail: string): ContinuationError {
  return new ContinuationError({ error: "invalid_identifier", field, detail });
}

/** `{"error":"client_id_mismatch","required","actual"}`. */
export function clientIdMismatch(required: string, actual: string): ContinuationError {
  return new ContinuationError({ error: "client_id_mismatch", required, actual });
}

/** `{"error":"blob_too_large","max_bytes"}`. */
export function blobTooLarge(maxBytes: bigint): ContinuationError {
  return new ContinuationError({ error: "blob_too_large", max_bytes: maxBytes });
}

/** `{"error":"storage_failure","reason"}`: the reason names the operation and the file. */
export function storageFailure(reason: string): ContinuationError {
  return new ContinuationError({ error: "storage_failure", reason });
}

/** `{"error":"precondition_failed","actual_sha256"}` (ours: `put --expect-sha256`); null when there is no live entry. */
export function preconditionFailed(actualSha256: string | null): ContinuationError {
  return new ContinuationError({ error: "precondition_failed", actual_sha256: actualSha256 });
}

/** `<operation> <path>: <errno code>` for a storage_failure reason (the message when there is no code). */
export function describeIoError(operation: string, path: string, error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return `${operation} ${path}: ${e.code ?? (e.message || String(error))}`;
}
