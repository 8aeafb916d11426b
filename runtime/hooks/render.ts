/**
 * renderHookPayload: neutral lifecycle inputs → the JSON a harness's command hook prints on stdout
 * (spec/harness-hooks.md). Settled against the reference renderer (lifeloop-cli 0.9.0, module
 * protocol) and checked against it case by case (test/hooks/differential.test.ts); the deliberate
 * differences are listed in spec/tables/reference-differences.json (scope `rendering`).
 *
 * Order of refusals (the first that applies wins): invalid_request, invalid_directive,
 * adapter_id_mismatch, unsupported_event, unsupported_directive, context_too_large,
 * output_schema_violation.
 */
import {
  HARNESS_HOOK_MAPPING,
  type HookAdapter,
  type HookRenderErrorKind,
  type HookRenderWarningCode,
} from "../../generated/ts/spec/harness-hook-mapping.js";
import type { HookRenderPayload, HookRenderRequest } from "../../generated/ts/types.js";
import type { ValidationIssue } from "../wire/issues.js";
import { parseStrictJson } from "../wire/json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from "../wire/validate.js";
import { codePointLength, renderContextEnvelope, sortedJson } from "./context.js";
import {
  hookAdapterRow,
  hookEventFor,
  isBlankReason,
  outputSchemaName,
  type HookAdapterRow,
  type HookEventRow,
} from "./mapping.js";
import { HOOK_REQUEST_INTEGER_PATHS, hookSchemaIssues, renderRequestIssues } from "./request.js";

/** Something the caller should know about a successful render; never changes what is refused. */
export interface HookRenderWarning {
  /** A code of spec/tables/harness-hook-mapping.json `warnings`. */
  readonly code: HookRenderWarningCode;
  readonly message: string;
  /** The payload concerned (payload_not_rendered). */
  readonly payloadId?: string;
}

/** A rendered hook output, ready for the hook's stdout. */
export interface RenderedHookPayload {
  readonly adapter: HookAdapter;
  /** The harness's event name, e.g. `SessionStart` (also hookSpecificOutput.hookEventName when present). */
  readonly hookEventName: string;
  /** The output as a JSON value; it matches the event's schema under schemas/hooks/. */
  readonly body: Readonly<Record<string, unknown>>;
  /** `body` as compact JSON with members in key order: print this (plus a newline) on stdout. */
  readonly text: string;
  readonly warnings: readonly HookRenderWarning[];
}

/** Why a render was refused. `unsupported_event` means "this harness has nothing to print": callers may skip. */
export interface HookRenderFailure {
  /** A kind of spec/tables/harness-hook-mapping.json `errors`; its `exit` names the CLI exit code. */
  readonly kind: HookRenderErrorKind;
  readonly message: string;
  /** For invalid_request (the first is primary) and output_schema_violation. */
  readonly issues?: readonly ValidationIssue[];
}

/** Outcome of one render. */
export type HookRenderResult =
  | { readonly ok: true; readonly rendered: RenderedHookPayload }
  | { readonly ok: false; readonly error: HookRenderFailure };

/** Thrown by {@link renderHookPayloadOrThrow}. */
export class HookRenderError extends Error {
  constructor(readonly failure: HookRenderFailure) {
    super(`${failure.kind}: ${failure.message}`);
    this.name = "HookRenderError";
  }
}

/** Which harness to render for. */
export interface HookRenderTarget {
  /** `claude` or `codex`: the harness whose hook prints the output. The request's adapter_id must name it. */
  readonly adapter: HookAdapter;
}

const fail = (kind: HookRenderErrorKind, message: string, issues?: readonly ValidationIssue[]): HookRenderResult => ({
  ok: false,
  error: { kind, message, ...(issues ? { issues } : {}) },
});

function fillTemplate(template: string, vars: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => String(vars[name] ?? whole));
}

/** Put the context into the slot; enforce the hard bound and make a harness limit visible. */
function addContext(
  body: Record<string, unknown>,
  payloads: readonly HookRenderPayload[],
  adapter: HookAdapterRow,
  event: HookEventRow,
  warnings: HookRenderWarning[],
): ReadonlySet<HookRenderPayload> | HookRenderResult {
  const context = renderContextEnvelope(payloads, event.context_placements);
  const max = HARNESS_HOOK_MAPPING.max_context_code_points;
  const length = codePointLength(context.text);
  if (length > max)
    return fail(
      "context_too_large",
      `the ${event.hook_event} additionalContext would be ${length} code points; the bound is ${max}`,
    );
  body.hookSpecificOutput = { additionalContext: context.text, hookEventName: event.hook_event };
  const limit = adapter.harness_context_limit;
  if (limit !== null && context.text.length > limit.length) {
    const message = fillTemplate(HARNESS_HOOK_MAPPING.system_message, {
      hook_event: event.hook_event,
      length: context.text.length,
      harness: adapter.harness,
      limit: limit.length,
    });
    body.systemMessage = message;
    warnings.push({ code: "context_over_harness_limit", message });
  }
  return context.rendered;
}

function payloadWarnings(
  payloads: readonly HookRenderPayload[],
  rendered: ReadonlySet<HookRenderPayload>,
  adapter: HookAdapter,
  event: HookEventRow,
): HookRenderWarning[] {
  return payloads
    .filter((p) => p.placement !== "receipt_only" && !rendered.has(p))
    .map((p) => {
      const reference = (event.reference_context_placements as readonly string[]).includes(p.placement)
        ? ` (reference difference ${event.reference_difference})`
        : "";
      return {
        code: "payload_not_rendered",
        payloadId: p.envelope.payload_id,
        message: `payload ${p.envelope.payload_id} (${p.placement}) has no place in the ${adapter} ${event.hook_event} output${reference}`,
      };
    });
}

/**
 * Render the hook output for `request` (schemas/hooks/hook-render-request.schema.json; an unknown
 * value is validated first) on the harness `target.adapter`.
 *
 * Returns the output (`body`, its stdout `text`, `warnings`) or a failure whose `kind` is one of
 * invalid_request, invalid_directive, adapter_id_mismatch, unsupported_event, unsupported_directive
 * (a block directive at an event whose block is `refused`), context_too_large,
 * output_schema_violation. Never throws for bad input. The output is validated against the event's
 * schema before it is returned.
 *
 * `nonIntegerNumberPointers`: for values that came out of the strict parser (see parseStrictJson).
 */
export function renderHookPayload(
  request: unknown,
  target: HookRenderTarget,
  nonIntegerNumberPointers: readonly string[] = [],
): HookRenderResult {
  try {
    return renderChecked(request, target, nonIntegerNumberPointers);
  } catch (error) {
    // A request that throws while it is read (a getter, a Proxy trap) is not a renderable request.
    return fail("invalid_request", `reading the request threw: ${thrownText(error)}`, [
      { rule: "schema.type", pointer: "", message: "the request cannot be read (a getter or Proxy trap threw)" },
    ]);
  }
}

/** A bounded description of a thrown value; never throws. */
function thrownText(error: unknown): string {
  try {
    return (error instanceof Error ? `${String(error.name)}: ${String(error.message)}` : String(error)).slice(0, 512);
  } catch {
    return "a value that cannot be shown";
  }
}

function renderChecked(
  request: unknown,
  target: HookRenderTarget,
  nonIntegerNumberPointers: readonly string[],
): HookRenderResult {
  const issues = renderRequestIssues(request, nonIntegerNumberPointers);
  const first = issues[0];
  if (first) return fail("invalid_request", `${first.rule} at "${first.pointer}": ${first.message}`, issues);
  const req = request as HookRenderRequest;
  const directive = req.directive ?? null;
  if (directive?.kind === "block" && isBlankReason(directive.reason ?? ""))
    return fail("invalid_directive", "a block directive needs a reason with a character outside Unicode White_Space");
  const adapter = hookAdapterRow(target.adapter);
  if (!(adapter.adapter_ids as readonly string[]).includes(req.adapter_id)) {
    return fail(
      "adapter_id_mismatch",
      `adapter id ${JSON.stringify(req.adapter_id)} does not name ${target.adapter} (expected one of ${adapter.adapter_ids.join(", ")})`,
    );
  }
  const event = hookEventFor(target.adapter, req.event);
  if (!event) return fail("unsupported_event", `${target.adapter} has no hook event for ${req.event}`);
  if (directive?.kind === "block" && event.block === "refused") {
    return fail(
      "unsupported_directive",
      `the ${target.adapter} ${event.hook_event} hook cannot act on a block directive (${req.event}); nothing was rendered`,
    );
  }

  const payloads = req.payloads ?? [];
  const body: Record<string, unknown> = {};
  const warnings: HookRenderWarning[] = [];
  let rendered: ReadonlySet<HookRenderPayload> = new Set();
  if (event.context_slot !== null) {
    const added = addContext(body, payloads, adapter, event, warnings);
    if ("ok" in added) return added;
    rendered = added;
  }
  warnings.push(...payloadWarnings(payloads, rendered, target.adapter, event));
  if (directive?.kind === "block") {
    if (event.block === "ignored")
      warnings.push({
        code: "directive_ignored",
        message: `the ${target.adapter} ${event.hook_event} output cannot carry a block directive; it was not rendered`,
      });
    else Object.assign(body, { decision: "block", reason: directive.reason });
  }

  const violations = hookSchemaIssues(outputSchemaName(target.adapter, event.hook_event), body);
  if (violations.length > 0)
    return fail(
      "output_schema_violation",
      `renderer bug: the ${event.hook_event} output breaks its schema`,
      violations,
    );
  return {
    ok: true,
    rendered: { adapter: target.adapter, hookEventName: event.hook_event, body, text: sortedJson(body), warnings },
  };
}

/** {@link renderHookPayload} for the bytes of a request (strict JSON first: json.* issues are invalid_request). */
export function renderHookPayloadFromBytes(
  bytes: Uint8Array,
  target: HookRenderTarget,
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
): HookRenderResult {
  const parsed = parseStrictJson(bytes, limits, { nonIntegerPaths: HOOK_REQUEST_INTEGER_PATHS });
  if (!parsed.ok)
    return fail("invalid_request", `${parsed.issue.rule} at "${parsed.issue.pointer}": ${parsed.issue.message}`, [
      parsed.issue,
    ]);
  return renderHookPayload(parsed.value, target, parsed.nonIntegerNumberPointers);
}

/** Like {@link renderHookPayload} but throws {@link HookRenderError} on any refusal. */
export function renderHookPayloadOrThrow(request: unknown, target: HookRenderTarget): RenderedHookPayload {
  const result = renderHookPayload(request, target);
  if (!result.ok) throw new HookRenderError(result.error);
  return result.rendered;
}
