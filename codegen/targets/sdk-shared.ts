/**
 * Facts the Go and Python SDK targets (go.ts, python.ts) render alike, built from the {@link Model}
 * only, so both SDKs say and do the same thing:
 *
 * - {@link runnerVariants} / {@link runnerOutcomes}: what the client runner (Go `Serve`/`ServeIO`,
 *   Python `serve`/`serve_io`/`respond`) answers when it refuses a request or the handler fails: the
 *   failure variant of spec/tables/subprocess-failure-mapping.json whose name is the warning code,
 *   and the failure class written;
 * - {@link hookMapping}: spec/tables/harness-hook-mapping.json in a language-neutral shape (every
 *   adapter with its adapter ids, its hook events with their rendering facts, and the hook event of
 *   every LifecycleEventKind, null when unsupported).
 *
 * Errors: throws when the tables lack a variant the runner needs, or when the hook table names a
 * hook event no identifier can be made of.
 */
import { wrapWords } from "../emit/text.js";
import { UNSUPPORTED_HOOK_EVENT } from "../model/hooks.js";
import type { HookBlockEffect, Model } from "../model/model.js";

// ---------------------------------------------------------------------------
// Client runner

/** A failure variant the runner answers with: its name (the warning code) and failure class. */
export interface RunnerVariant {
  readonly variant: string;
  readonly failureClass: string;
}

/** The failure variants behind every refusal and failure of the client runner. */
export interface RunnerVariants {
  /** stdin cannot be read: the client's side of `write_request`. */
  readonly readRequest: RunnerVariant;
  /** Oversized, undecodable or invalid DispatchEnvelope (`invalid_request`). */
  readonly invalidRequest: RunnerVariant;
  /** An event the host never dispatches (spec/tables/receipt-emitted-guard.json `failure_variant`). */
  readonly guard: RunnerVariant;
  /** The handler failed (`handler_threw`). */
  readonly handlerThrew: RunnerVariant;
  /** The handler's response breaks the wire contract (`invalid_response`; written with the handler class). */
  readonly invalidResponse: RunnerVariant;
  /** Go's ServeIO context ended before the handler returned (`timeout`). */
  readonly timeout: RunnerVariant;
}

function variantRow(model: Model, variant: string, target: string): RunnerVariant {
  const row = model.tables.subprocessFailureMapping.variants.find((r) => r.variant === variant);
  if (!row) throw new Error(`${target} target: the client runner needs failure variant ${variant} in spec/tables/subprocess-failure-mapping.json`);
  return { variant: row.variant, failureClass: row.failure_class };
}

/** The runner's failure variants, each checked against the table (`target` names the caller in errors). */
export function runnerVariants(model: Model, target: string): RunnerVariants {
  const guard = variantRow(model, model.tables.receiptEmittedGuard.failure_variant, target);
  const invalidRequest = variantRow(model, "invalid_request", target);
  if (guard.failureClass !== invalidRequest.failureClass) {
    throw new Error(`${target} target: the runner refuses ${model.tables.receiptEmittedGuard.event} like an invalid request, but ${guard.variant} maps to ${guard.failureClass}`);
  }
  return {
    readRequest: variantRow(model, "write_request", target),
    invalidRequest,
    guard,
    handlerThrew: variantRow(model, "handler_threw", target),
    invalidResponse: variantRow(model, "invalid_response", target),
    timeout: variantRow(model, "timeout", target),
  };
}

/** One documented outcome of the runner: when it happens, the failure class and the warning code. */
export interface RunnerOutcome {
  /** Markdown/comment prose: the condition. */
  readonly when: string;
  readonly failureClass: string;
  /** Prose naming the warning code (backticked). */
  readonly code: string;
  /** True for refusals: the handler is never called. */
  readonly refusal: boolean;
}

/** Wording that differs between the SDKs; everything else in {@link runnerOutcomes} is shared. */
export interface RunnerWording {
  /** How a handler fails, e.g. "returns an error or panics". */
  readonly handlerFails: string;
  /** An extra response check only this SDK can hit (e.g. Python's non-CallbackResponse return), or "". */
  readonly invalidResponseExtra: string;
  /** The timeout outcome, or null when the SDK's runner has no deadline of its own. */
  readonly timeout: string | null;
}

/**
 * Every refusal and failure the client runner answers (always one `status: failed` CallbackResponse
 * with the class's default retry class and one Warning, exit status 0), in the order the runner checks.
 */
export function runnerOutcomes(model: Model, target: string, wording: RunnerWording): RunnerOutcome[] {
  const v = runnerVariants(model, target);
  const limit = (name: string): number => {
    const row = model.tables.limits.limits.find((l) => l.name === name);
    if (!row) throw new Error(`${target} target: spec/tables/limits.json lacks ${name}`);
    return row.value;
  };
  /** A rule id the prose names, checked against the rule tables so the docs cannot go stale. */
  const rule = (id: string): string => {
    if (!model.tables.documentRules.rules.some((r) => r.id === id) && !model.rules.some((r) => r.id === id)) {
      throw new Error(`${target} target: the runner documentation names rule ${id}, which no rule table defines`);
    }
    return `\`${id}\``;
  };
  const maxBytes = rule("json.max-bytes");
  const outcomes: RunnerOutcome[] = [
    { when: "stdin cannot be read", failureClass: v.readRequest.failureClass, code: `\`${v.readRequest.variant}\``, refusal: true },
    {
      when: `the request is longer than limits.max_request_bytes (${limit("max_request_bytes")} bytes)`,
      failureClass: v.invalidRequest.failureClass,
      code: maxBytes,
      refusal: true,
    },
    {
      when: "the DispatchEnvelope breaks the parse layer, its schema or a rule",
      failureClass: v.invalidRequest.failureClass,
      code: `the first issue's rule id (e.g. ${rule("json.syntax")}, ${rule("schema.required")}), \`${v.invalidRequest.variant}\` when there is none`,
      refusal: true,
    },
    {
      when: `the event is never dispatched to a client (\`${model.tables.receiptEmittedGuard.event}\`: notification-only)`,
      failureClass: v.guard.failureClass,
      code: `\`${v.guard.variant}\``,
      refusal: true,
    },
    { when: `the handler ${wording.handlerFails}`, failureClass: v.handlerThrew.failureClass, code: `\`${v.handlerThrew.variant}\``, refusal: false },
    {
      when: `the handler's response breaks the wire contract${wording.invalidResponseExtra}`,
      failureClass: v.handlerThrew.failureClass,
      code: `the rule id (e.g. ${rule("failed-requires-failure-class")}), \`${v.invalidResponse.variant}\` when there is none`,
      refusal: false,
    },
    {
      when: `the encoded response is longer than limits.max_response_bytes (${limit("max_response_bytes")} bytes)`,
      failureClass: v.handlerThrew.failureClass,
      code: maxBytes,
      refusal: false,
    },
  ];
  if (wording.timeout !== null) outcomes.push({ when: wording.timeout, failureClass: v.timeout.failureClass, code: `\`${v.timeout.variant}\``, refusal: false });
  return outcomes;
}

/** The outcomes as a markdown table (columns: when, handler called, failure class, warning code). */
export function runnerOutcomeTable(outcomes: readonly RunnerOutcome[]): string {
  return [
    "| when | handler called | failure class | warning code |",
    "|---|---|---|---|",
    ...outcomes.map((o) => `| ${o.when} | ${o.refusal ? "no" : "yes"} | \`${o.failureClass}\` | ${o.code} |`),
  ].join("\n");
}

/**
 * The outcomes as a bullet list for doc comments and docstrings: one sentence per outcome, wrapped
 * at `width` characters with continuation lines indented by two spaces. `literal` re-quotes each
 * backticked name (e.g. reST double backticks).
 */
export function runnerOutcomeBullets(outcomes: readonly RunnerOutcome[], width: number, literal: (name: string) => string = (name) => `\`${name}\``): string[] {
  return outcomes.flatMap((o) => {
    const sentence = `When ${o.when}: failure class \`${o.failureClass}\`, warning code ${o.code}${o.refusal ? "; the handler is not called" : ""}.`;
    return wrapWords(`- ${sentence.replace(/`([^`]+)`/g, (_, name: string) => literal(name))}`, width, false).map((line, i) => (i === 0 ? line : `  ${line}`));
  });
}

// ---------------------------------------------------------------------------
// Harness hook mapping

/** One hook event of an adapter, with its rendering facts. */
export interface HookEventFacts {
  /** The harness's event name, e.g. `SessionStart`. */
  readonly hookEvent: string;
  readonly outputSchema: string;
  /** `additional_context` or null (no context slot). */
  readonly contextSlot: string | null;
  readonly contextPlacements: readonly string[];
  readonly block: HookBlockEffect;
  /** True when a block directive changes the output (`block` is not `ignored`). */
  readonly blockApplies: boolean;
}

/** One adapter (harness) of the table. */
export interface HookAdapterFacts {
  readonly adapter: string;
  readonly harness: string;
  /** Every adapter id naming the harness; the first is `adapter`. */
  readonly adapterIds: readonly string[];
  readonly contextLimit: { readonly length: number; readonly unit: string; readonly onExceed: string; readonly fact: string } | null;
  readonly hookEvents: readonly HookEventFacts[];
  /** Every LifecycleEventKind in enum order with its hook event (null: unsupported). */
  readonly events: readonly { readonly event: string; readonly hookEvent: string | null }[];
}

/** spec/tables/harness-hook-mapping.json, language-neutral. */
export interface HookMappingFacts {
  readonly adapters: readonly HookAdapterFacts[];
  /** The block effects in table order, with what each renders and means. */
  readonly blockEffects: readonly { readonly block: HookBlockEffect; readonly renders: string; readonly meaning: string }[];
  /** The distinct non-null context slots, in first-seen order. */
  readonly contextSlots: readonly string[];
}

/** Split a harness event name into words: `UserPromptSubmit` → `User Prompt Submit` parts. */
export function camelWords(name: string): string[] {
  const words = name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [];
  if (words.join("") !== name.replace(/[^A-Za-z0-9]/g, "") || words.length === 0) {
    throw new Error(`cannot make an identifier of hook event ${JSON.stringify(name)}`);
  }
  return words;
}

/** The harness hook mapping table in a language-neutral shape (see {@link HookMappingFacts}). */
export function hookMapping(model: Model): HookMappingFacts {
  const mapping = model.tables.harnessHookMapping;
  const kinds = model.enums.find((e) => e.name === "LifecycleEventKind")?.values ?? [];
  const blockNone: HookBlockEffect = "ignored";
  const contextSlots: string[] = [];
  const adapters = mapping.adapters.map((a): HookAdapterFacts => {
    const hookEvents = a.hook_events.map((h): HookEventFacts => {
      if (h.context_slot !== null && !contextSlots.includes(h.context_slot)) contextSlots.push(h.context_slot);
      return {
        hookEvent: h.hook_event,
        outputSchema: h.output_schema,
        contextSlot: h.context_slot,
        contextPlacements: h.context_placements,
        block: h.block,
        blockApplies: h.block !== blockNone,
      };
    });
    const events = kinds.map((event) => {
      const row = a.events.find((e) => e.event === event);
      if (!row) throw new Error(`spec/tables/harness-hook-mapping.json: adapter ${a.adapter} lacks event ${event}`);
      return { event, hookEvent: row.hook_event === UNSUPPORTED_HOOK_EVENT ? null : row.hook_event };
    });
    const limit = a.harness_context_limit;
    return {
      adapter: a.adapter,
      harness: a.harness,
      adapterIds: a.adapter_ids,
      contextLimit: limit === null ? null : { length: limit.length, unit: limit.unit, onExceed: limit.on_exceed, fact: limit.fact },
      hookEvents,
      events,
    };
  });
  return { adapters, blockEffects: mapping.block_effects, contextSlots };
}

/** A lookup the SDK READMEs show: an adapter id alias, a lifecycle event and the hook event it maps to. */
export interface HookExample {
  readonly adapter: HookAdapterFacts;
  readonly adapterId: string;
  readonly event: string;
  readonly hookEvent: HookEventFacts;
}

/**
 * The README example, chosen from the table: the first adapter's last adapter id (an alias when it
 * has one) and its first lifecycle event whose hook event takes a block directive (else the first
 * supported event).
 */
export function hookExample(facts: HookMappingFacts): HookExample {
  const adapter = facts.adapters[0];
  if (adapter === undefined) throw new Error("spec/tables/harness-hook-mapping.json lists no adapters");
  const supported = adapter.events.flatMap((e) => {
    const hookEvent = adapter.hookEvents.find((h) => h.hookEvent === e.hookEvent);
    return hookEvent ? [{ event: e.event, hookEvent }] : [];
  });
  const pick = supported.find((s) => s.hookEvent.blockApplies) ?? supported[0];
  if (pick === undefined) throw new Error(`spec/tables/harness-hook-mapping.json: ${adapter.adapter} supports no lifecycle event`);
  return { adapter, adapterId: adapter.adapterIds[adapter.adapterIds.length - 1] ?? adapter.adapter, event: pick.event, hookEvent: pick.hookEvent };
}
