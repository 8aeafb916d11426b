/**
 * JSON-RPC error codes ↔ FailureClass (spec/tables/stream-v2.json `error_codes`,
 * spec/stream-protocol.md §"Error codes ↔ FailureClass"). Read from the generated table only.
 */
import { STREAM_V2, type StreamErrorName } from "../../generated/ts/spec.js";
import type { FailureClass } from "../../generated/ts/types.js";

type ErrorRow = (typeof STREAM_V2)["error_codes"][number];

const BY_CODE: ReadonlyMap<number, ErrorRow> = new Map(STREAM_V2.error_codes.map((r) => [r.code, r]));
const BY_NAME: ReadonlyMap<string, ErrorRow> = new Map(STREAM_V2.error_codes.map((r) => [r.name, r]));
const CANONICAL: ReadonlyMap<string, ErrorRow> = new Map(
  STREAM_V2.error_codes.filter((r) => r.canonical).map((r) => [r.failure_class, r]),
);

/** The FailureClass of an error code, or null when the table does not list the code. */
export function failureClassForCode(code: number): FailureClass | null {
  return (BY_CODE.get(code)?.failure_class as FailureClass | undefined) ?? null;
}

/** The table's name of a code (e.g. `not_available`), or null. */
export function errorNameForCode(code: number): StreamErrorName | null {
  return BY_CODE.get(code)?.name ?? null;
}

/** The code of a named row (e.g. `method_not_found` → -32601). Throws for a name the table lacks (a host bug). */
export function errorCode(name: StreamErrorName): number {
  const row = BY_NAME.get(name);
  if (!row) throw new Error(`error code ${name} is not in spec/tables/stream-v2.json`);
  return row.code;
}

/** The canonical code written for a FailureClass (every class has exactly one; checked by generate). */
export function codeForFailureClass(failureClass: FailureClass): number {
  const row = CANONICAL.get(failureClass);
  if (!row) throw new Error(`FailureClass ${failureClass} has no canonical code in spec/tables/stream-v2.json`);
  return row.code;
}
