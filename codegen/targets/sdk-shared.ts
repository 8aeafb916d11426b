/**
 * Facts the Go and Python SDK targets (go.ts, python.ts) render alike, built from the {@link Model}
 * only, so both SDKs say and do the same thing:
 *
 * - {@link runnerVariants} / {@link runnerOutcomes}: what the client runner (Go `Serve`/`ServeIO`,
 *   Python `serve`/`serve_io`/`respond`) answers when it refuses a request or the handler fails, from
 *   spec/tables/runner-outcomes.json: the failure variant whose name is the warning code, and the
 *   failure class written;
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

/** One row of spec/tables/runner-outcomes.json. */
type RunnerOutcomeRow = Model["tables"]["runnerOutcomes"]["outcomes"][number];

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

/** The failure class of a variant of spec/tables/subprocess-failure-mapping.json. */
function classOf(model: Model, variant: string, target: string): string {
  const row = model.tables.subprocessFailureMapping.variants.find((r) => r.variant === variant);
  if (!row)
    throw new Error(
      `${target} target: spec/tables/runner-outcomes.json names failure variant ${variant}, which spec/tables/subprocess-failure-mapping.json lacks`,
    );
  return row.failure_class;
}

/** The outcome row `id` of spec/tables/runner-outcomes.json. */
function outcomeRow(model: Model, id: string, target: string): RunnerOutcomeRow {
  const row = model.tables.runnerOutcomes.outcomes.find((o) => o.outcome === id);
  if (!row)
    throw new Error(`${target} target: the client runner needs outcome ${id} in spec/tables/runner-outcomes.json`);
  return row;
}

/** The warning variant and written failure class of an outcome. */
function outcomeVariant(model: Model, id: string, target: string): RunnerVariant {
  const row = outcomeRow(model, id, target);
  return {
    variant: row.warning_variant ?? row.failure_variant,
    failureClass: classOf(model, row.failure_variant, target),
  };
}

/** The runner's failure variants, looked up by outcome id in spec/tables/runner-outcomes.json (`target` names the caller in errors). */
export function runnerVariants(model: Model, target: string): RunnerVariants {
  const guard = outcomeVariant(model, "event_not_dispatched", target);
  const invalidRequest = outcomeVariant(model, "request_invalid", target);
  if (guard.variant !== model.tables.receiptEmittedGuard.failure_variant) {
    throw new Error(
      `${target} target: spec/tables/runner-outcomes.json event_not_dispatched names ${guard.variant}, the guard table ${model.tables.receiptEmittedGuard.failure_variant}`,
    );
  }
  if (guard.failureClass !== invalidRequest.failureClass) {
    throw new Error(
      `${target} target: the runner refuses ${model.tables.receiptEmittedGuard.event} like an invalid request, but ${guard.variant} maps to ${guard.failureClass}`,
    );
  }
  return {
    readRequest: outcomeVariant(model, "stdin_unreadable", target),
    invalidRequest,
    guard,
    handlerThrew: outcomeVariant(model, "handler_failed", target),
    invalidResponse: outcomeVariant(model, "response_invalid", target),
    timeout: outcomeVariant(model, "handler_timeout", target),
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

/** Wording that differs between the SDKs; everything else in {@link runnerOutcomes} comes from the table. */
export interface RunnerWording {
  /** The binding's name in the table's `bindings`. */
  readonly binding: "go" | "python";
  /** How a handler fails, e.g. "returns an error or panics" (the table's `{handler_fails}`). */
  readonly handlerFails: string;
  /** An extra response check only this SDK can hit (e.g. Python's non-CallbackResponse return), or "" (`{response_extra}`). */
  readonly invalidResponseExtra: string;
}

/**
 * Every refusal and failure the client runner of `wording.binding` answers (spec/tables/runner-outcomes.json:
 * one `status: failed` CallbackResponse with the class's default retry class and one Warning, exit
 * status 0), in the order the runner checks.
 */
export function runnerOutcomes(model: Model, target: string, wording: RunnerWording): RunnerOutcome[] {
  const limit = (name: string): number => {
    const row = model.tables.limits.limits.find((l) => l.name === name);
    if (!row)
      throw new Error(
        `${target} target: spec/tables/runner-outcomes.json names limit ${name}, which spec/tables/limits.json lacks`,
      );
    return row.value;
  };
  /** A rule id the prose names, checked against the rule tables so the docs cannot go stale. */
  const rule = (id: string): string => {
    if (!model.tables.documentRules.rules.some((r) => r.id === id) && !model.rules.some((r) => r.id === id)) {
      throw new Error(
        `${target} target: spec/tables/runner-outcomes.json names rule ${id}, which no rule table defines`,
      );
    }
    return `\`${id}\``;
  };
  return model.tables.runnerOutcomes.outcomes
    .filter((row) => (row.bindings as readonly string[]).includes(wording.binding))
    .map((row) => {
      const warningVariant = row.warning_variant ?? row.failure_variant;
      classOf(model, warningVariant, target);
      const when = row.when
        .replace("{limit}", row.limit === undefined ? "{limit}" : `limits.${row.limit} (${limit(row.limit)} bytes)`)
        .replace("{handler_fails}", wording.handlerFails)
        .replace("{response_extra}", wording.invalidResponseExtra);
      if (/\{[a-z_]+\}/.test(when))
        throw new Error(
          `${target} target: spec/tables/runner-outcomes.json ${row.outcome}: unknown placeholder in ${JSON.stringify(row.when)}`,
        );
      let code: string;
      if (row.warning_code === "variant") code = `\`${warningVariant}\``;
      else if (row.warning_code === "rule") {
        if (row.rule === undefined)
          throw new Error(
            `${target} target: spec/tables/runner-outcomes.json ${row.outcome}: warning_code rule needs rule`,
          );
        code = rule(row.rule);
      } else {
        const examples = (row.rule_examples ?? []).map(rule);
        code = `the ${row.handler_called ? "" : "first issue's "}rule id${examples.length > 0 ? ` (e.g. ${examples.join(", ")})` : ""}, \`${warningVariant}\` when there is none`;
      }
      return { when, failureClass: classOf(model, row.failure_variant, target), code, refusal: !row.handler_called };
    });
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
export function runnerOutcomeBullets(
  outcomes: readonly RunnerOutcome[],
  width: number,
  literal: (name: string) => string = (name) => `\`${name}\``,
): string[] {
  return outcomes.flatMap((o) => {
    const sentence = `When ${o.when}: failure class \`${o.failureClass}\`, warning code ${o.code}${o.refusal ? "; the handler is not called" : ""}.`;
    return wrapWords(`- ${sentence.replace(/`([^`]+)`/g, (_, name: string) => literal(name))}`, width, false).map(
      (line, i) => (i === 0 ? line : `  ${line}`),
    );
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
  /** True when a block directive is rendered into the output (`block` is `block_prompt` or `request_continuation`; `ignored` leaves the output as it is, `refused` fails the render). */
  readonly blockApplies: boolean;
}

/** One adapter (harness) of the table. */
export interface HookAdapterFacts {
  readonly adapter: string;
  readonly harness: string;
  /** Every adapter id naming the harness; the first is `adapter`. */
  readonly adapterIds: readonly string[];
  readonly contextLimit: {
    readonly length: number;
    readonly unit: string;
    readonly onExceed: string;
    readonly fact: string;
  } | null;
  readonly hookEvents: readonly HookEventFacts[];
  /** Every LifecycleEventKind in enum order with its hook event (null: unsupported). */
  readonly events: readonly { readonly event: string; readonly hookEvent: string | null }[];
}

/** spec/tables/harness-hook-mapping.json, language-neutral. */
export interface HookMappingFacts {
  readonly adapters: readonly HookAdapterFacts[];
  /** The block effects in table order, with what each renders and means. */
  readonly blockEffects: readonly {
    readonly block: HookBlockEffect;
    readonly renders: string;
    readonly meaning: string;
  }[];
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
        blockApplies: h.block !== blockNone && h.block !== "refused",
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
      contextLimit:
        limit === null ? null : { length: limit.length, unit: limit.unit, onExceed: limit.on_exceed, fact: limit.fact },
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
  if (pick === undefined)
    throw new Error(`spec/tables/harness-hook-mapping.json: ${adapter.adapter} supports no lifecycle event`);
  return {
    adapter,
    adapterId: adapter.adapterIds[adapter.adapterIds.length - 1] ?? adapter.adapter,
    event: pick.event,
    hookEvent: pick.hookEvent,
  };
}
