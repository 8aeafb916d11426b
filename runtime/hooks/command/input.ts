/**
 * Reading a harness's hook input (spec/hook-command.md, "Input"): one JSON document (strict parser,
 * at most limits.max_request_bytes bytes, read by the caller), whose `hook_event_name` equals the
 * command's `--event`, valid against the input schema of that (harness, hook event) in
 * schemas/hooks/ (`<adapter>-<event>-input`): listed members typed strictly, others accepted (their
 * names reach the client, ./requests.ts).
 */
import type { HookAdapter } from "../../../generated/ts/spec/harness-hook-mapping.js";
import { issueText } from "../../invoker/failure.js";
import { parseStrictJson } from "../../wire/json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS } from "../../wire/validate.js";
import { hookSchemaIssues } from "../request.js";
import { inputSchemaName } from "./tables.js";

/** A hook input as read: an object whose members the input schema typed. */
export type HookInput = Readonly<Record<string, unknown>>;

/** Why an input is refused: `event_mismatch` (hook_event_name is not --event) or `invalid_input`. */
export type HookInputError = { readonly kind: "invalid_input" | "event_mismatch"; readonly message: string };

/** The input, or why it is refused. Never throws. */
export function readHookInput(
  bytes: Uint8Array,
  adapter: HookAdapter,
  hookEvent: string,
): { readonly ok: true; readonly input: HookInput } | { readonly ok: false; readonly error: HookInputError } {
  const parsed = parseStrictJson(bytes, DEFAULT_DOCUMENT_LIMITS);
  if (!parsed.ok)
    return {
      ok: false,
      error: {
        kind: "invalid_input",
        message: `the hook input on stdin is not one JSON document: ${issueText(parsed.issue)}`,
      },
    };
  const value = parsed.value;
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { ok: false, error: { kind: "invalid_input", message: "the hook input on stdin is not a JSON object" } };
  const named = (value as Record<string, unknown>).hook_event_name;
  if (named !== hookEvent) {
    return {
      ok: false,
      error: {
        kind: "event_mismatch",
        message: `--event is ${hookEvent} but the input's hook_event_name is ${JSON.stringify(named ?? null)}: the hook is registered under the wrong event`,
      },
    };
  }
  const issues = hookSchemaIssues(inputSchemaName(adapter, hookEvent), value);
  const first = issues[0];
  if (first)
    return {
      ok: false,
      error: {
        kind: "invalid_input",
        message: `the ${adapter} ${hookEvent} input does not match its schema (${inputSchemaName(adapter, hookEvent)}): ${issueText(first)}`,
      },
    };
  return { ok: true, input: value as HookInput };
}
