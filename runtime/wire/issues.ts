/**
 * The one shape every validation problem takes, in every layer and every binding
 * (spec/README.md, "Validation issues").
 */

/**
 * One validation problem.
 * - `rule`: stable rule id: `json.*` (parse layer), `schema.*` (schema layer) or a rule id of
 *   spec/tables/rules.json (e.g. `non-empty-identifier`).
 * - `pointer`: RFC 6901 JSON pointer to the offending value ("" = the document root); for a missing
 *   member, the pointer of the member that should be there.
 * - `message`: human-readable explanation (not stable; do not parse it).
 */
export interface ValidationIssue {
  readonly rule: string;
  readonly pointer: string;
  readonly message: string;
}

/** Thrown by the `*OrThrow` helpers; carries every issue (the first is the primary one). */
export class WireValidationError extends Error {
  constructor(
    readonly typeName: string,
    readonly issues: readonly ValidationIssue[],
  ) {
    const first = issues[0];
    super(
      `${typeName} is invalid: ${first ? `${first.rule} at "${first.pointer}": ${first.message}` : "unknown problem"}`,
    );
    this.name = "WireValidationError";
  }
}
