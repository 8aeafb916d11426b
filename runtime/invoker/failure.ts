/**
 * Failure classification (CALLBACK-001 §"Failure classes"): every failure is built from its row in
 * the generated FAILURE_VARIANTS table (spec/tables/subprocess-failure-mapping.json) and the class's
 * default retry from FAILURE_RETRY_DEFAULTS. There is no other copy of the mapping in code.
 */
import { statSync } from "node:fs";
import { FAILURE_RETRY_DEFAULTS } from "../../generated/ts/spec/failure-retry-defaults.js";
import { FAILURE_VARIANTS, type FailureVariant } from "../../generated/ts/spec/subprocess-failure-mapping.js";
import type { FailureClass, RetryClass } from "../../generated/ts/types.js";
import type { InvocationFailure } from "./types.js";

const ROWS: ReadonlyMap<string, (typeof FAILURE_VARIANTS)[number]> = new Map(
  FAILURE_VARIANTS.map((row) => [row.variant, row]),
);

/** The FailureClass of a variant, read from the table. Throws for a name the table lacks (a host bug). */
export function failureClassOf(variant: FailureVariant): FailureClass {
  const row = ROWS.get(variant);
  if (!row) throw new Error(`failure variant ${variant} is not in spec/tables/subprocess-failure-mapping.json`);
  return row.failure_class as FailureClass;
}

/** The default RetryClass of a FailureClass (spec/tables/failure-retry-defaults.json). */
export function defaultRetryClass(failureClass: FailureClass): RetryClass {
  return FAILURE_RETRY_DEFAULTS[failureClass];
}

/** Extra facts a failure may carry (see {@link InvocationFailure}). */
export type FailureFacts = {
  -readonly [K in "exit_code" | "signal" | "stderr_tail" | "issues"]?: InvocationFailure[K];
};

/**
 * Build the failure object of `variant`: class and default retry from the tables, the given detail,
 * and the facts that are present (`stderr_tail` only when non-empty).
 */
export function makeFailure(variant: FailureVariant, detail: string, facts: FailureFacts = {}): InvocationFailure {
  const failure_class = failureClassOf(variant);
  const failure: { -readonly [K in keyof InvocationFailure]: InvocationFailure[K] } = {
    variant,
    failure_class,
    retry_class: defaultRetryClass(failure_class),
    detail,
  };
  if (facts.exit_code !== undefined) failure.exit_code = facts.exit_code;
  if (facts.signal !== undefined) failure.signal = facts.signal;
  if (facts.stderr_tail !== undefined && facts.stderr_tail !== "") failure.stderr_tail = facts.stderr_tail;
  if (facts.issues !== undefined && facts.issues.length > 0) failure.issues = facts.issues;
  return failure;
}

/** One-line text of a validation issue: `rule at "pointer": message`. */
export function issueText(issue: {
  readonly rule: string;
  readonly pointer: string;
  readonly message: string;
}): string {
  return `${issue.rule} at "${issue.pointer}": ${issue.message}`;
}

/**
 * One-line text of a system error: its message, led by its code (`ENOENT: ...`) unless the message
 * already names it (Node's spawn errors do: `spawn /x ENOENT`).
 */
export function errorText(error: NodeJS.ErrnoException | Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code !== undefined && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/**
 * The detail of a `spawn` failure, the same in every invoker: `cannot start PROGRAM: ERROR` and
 * what to do about it ({@link spawnHint}).
 */
export function spawnFailureDetail(program: string, error: NodeJS.ErrnoException | null): string {
  return `cannot start ${program}: ${error !== null ? errorText(error) : "unknown error"}${spawnHint(error, program)}`;
}

/**
 * What to do about a spawn error, appended to the `spawn` failure's detail ("" when there is
 * nothing to add). EACCES is almost always a script without the executable bit; the failure class
 * stays the table's (spec/tables/subprocess-failure-mapping.json, variant `spawn`).
 */
export function spawnHint(error: NodeJS.ErrnoException | undefined | null, program: string): string {
  if (error?.code !== "EACCES") return "";
  let directory = false;
  try {
    directory = statSync(program).isDirectory();
  } catch {
    // Gone or unreadable: the generic advice below still applies.
  }
  return directory
    ? " (a directory, not a program)"
    : " (not executable: chmod +x, or pass the interpreter as --program with the script as --arg)";
}
