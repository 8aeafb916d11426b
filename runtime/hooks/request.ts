/**
 * Judging a render request (schemas/hooks/hook-render-request.schema.json) and a rendered output
 * against its harness schema, with the same issue shape as wire validation ({rule, pointer,
 * message}; spec/wire-contract.md): parse layer (`json.*`), schema layer (`schema.*`, including
 * integer lexemes inside envelopes), then the FrameContext rules of spec/tables/rules.json and each
 * PayloadEnvelope's rules of its own wire version (the window's, spec/wire-window.md), with pointers
 * into the request.
 */
import { INTEGER_PATHS, type HOOK_SCHEMAS, type WireObjectTypeName } from "../../generated/ts/spec/plans.js";
import type { HookRenderRequest } from "../../generated/ts/types.js";
import type { ValidationIssue } from "../wire/issues.js";
import { evaluateRules } from "../wire/rules.js";
import { integerLexemeIssues, schemaIssues } from "../wire/schema.js";
import { validateValue } from "../wire/validate.js";

/** Name of a schema under schemas/hooks/, e.g. `CodexStopOutput` (its generated validator is `validate<Name>`). */
export type HookSchemaName = (typeof HOOK_SCHEMAS)[number]["name"];

/**
 * Schema-layer issues of `value` against a hook schema. The hook schemas are compiled into the same
 * generated validators module as the wire types, and schemaIssues looks validators up by name.
 */
export function hookSchemaIssues(name: HookSchemaName, value: unknown): ValidationIssue[] {
  return schemaIssues(name as WireObjectTypeName, value);
}

function prefixed(prefix: string, issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues.map((i) => ({ ...i, pointer: `${prefix}${i.pointer}` }));
}

const ENVELOPE_POINTER = /^\/payloads\/(\d+)\/envelope(\/.*)$/;

/** Where a render request holds integers: the integer fields of each payload's envelope. */
export const HOOK_REQUEST_INTEGER_PATHS: readonly string[] = INTEGER_PATHS.PayloadEnvelope.map(
  (p) => `/payloads/*/envelope${p}`,
);

/**
 * Every issue of an in-memory render request (the first is the primary one); [] when valid.
 * `nonIntegerNumberPointers` are the strict parser's pointers of numbers written with a fraction,
 * exponent or as -0 (empty for values that did not come from bytes).
 */
export function renderRequestIssues(
  value: unknown,
  nonIntegerNumberPointers: readonly string[] = [],
): ValidationIssue[] {
  const schema = hookSchemaIssues("HookRenderRequest", value);
  if (schema.length > 0) return schema;
  for (const pointer of nonIntegerNumberPointers) {
    const m = ENVELOPE_POINTER.exec(pointer);
    if (!m) continue;
    const lexeme = integerLexemeIssues("PayloadEnvelope", [m[2] as string]);
    if (lexeme.length > 0) return prefixed(`/payloads/${m[1]}/envelope`, lexeme);
  }
  const request = value as HookRenderRequest;
  if (request.frame) {
    const frame = evaluateRules("FrameContext", request.frame);
    if (frame.length > 0) return prefixed("/frame", frame);
  }
  for (const [i, p] of (request.payloads ?? []).entries()) {
    // Each envelope by the rules of its own version among the window's (spec/wire-window.md): a host
    // speaking an older version renders that version's answers.
    const envelope = validateValue("PayloadEnvelope", p.envelope);
    if (envelope.length > 0) return prefixed(`/payloads/${i}/envelope`, envelope);
  }
  return [];
}
