/**
 * Markdown rendering helpers and the named table renderers shared by the reference docs
 * (`generated/docs/`) and the generated regions of the normative prose (`spec/*.md`).
 */
import { fullObject } from "../model/samples.js";
import type { Model, ReferenceDifference, Shape, WireType } from "../model/model.js";
import type { SpecTableSource } from "../model/tables.js";

/** Escape a cell for a Markdown table (pipes and newlines). */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return "—";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** A GitHub-flavoured Markdown table. */
export function mdTable(headers: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const head = `| ${headers.join(" | ")} |`;
  const rule = `|${headers.map(() => "---").join("|")}|`;
  const body = rows.map((row) => `| ${row.map(cell).join(" | ")} |`);
  return [head, rule, ...body].join("\n");
}

/** Human-readable type of a field shape, with links for named types. */
export function shapeText(shape: Shape, link: (name: string) => string): string {
  switch (shape.kind) {
    case "string":
      return `string (≤ ${shape.maxLength} code points)`;
    case "integer":
      return `integer ${shape.minimum}..${shape.maximum}`;
    case "enum":
      return link(shape.enumName);
    case "object":
      return link(shape.typeName);
    case "open_object":
      return "object (open map of any JSON)";
    case "array":
      return `array of ${shapeText(shape.items, link)} (≤ ${shape.maxItems})`;
  }
}

/** Every field of every type with its bound, for the limits page. */
export function fieldBoundsTable(model: Model): string {
  const rows: unknown[][] = [];
  for (const type of model.types) {
    for (const field of type.fields) {
      const shape = field.shape;
      if (shape.kind === "string")
        rows.push([`${type.name}.${field.name}`, "maxLength (code points)", shape.maxLength]);
      if (shape.kind === "integer")
        rows.push([`${type.name}.${field.name}`, "minimum..maximum", `${shape.minimum}..${shape.maximum}`]);
      if (shape.kind === "array") {
        rows.push([`${type.name}.${field.name}`, "maxItems", shape.maxItems]);
        if (shape.items.kind === "string")
          rows.push([`${type.name}.${field.name}[]`, "maxLength (code points)", shape.items.maxLength]);
      }
    }
  }
  return mdTable(["field", "bound", "value"], rows);
}

/** The deliberate differences from the reference, as a table. */
function differencesTable(rows: readonly ReferenceDifference[]): string {
  return mdTable(
    ["id", "where", "reference", "ours", "reason"],
    rows.map((d) => [`\`${d.id}\``, d.where, d.reference, d.ours, d.reason]),
  );
}

/** A cell of the generic renderer: lists joined by commas, objects as inline JSON. */
function genericCell(value: unknown): unknown {
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null)) return value.join(", ");
  if (typeof value === "object" && value !== null) return `\`${JSON.stringify(value)}\``;
  if (typeof value === "boolean") return value ? "yes" : "no";
  return value;
}

/**
 * The rendering of a table that has no hand-designed one: each member holding a list of objects
 * becomes a table (columns in meta-schema order, headers are the member names), the scalar members
 * one property/value table first.
 */
export function genericTable(table: SpecTableSource): string {
  const props = (table.meta.properties ?? {}) as Record<
    string,
    { readonly items?: { readonly properties?: Record<string, unknown> } }
  >;
  const scalars: unknown[][] = [];
  const lists: string[] = [];
  for (const [key, value] of Object.entries(table.doc)) {
    const columns = Object.keys(props[key]?.items?.properties ?? {});
    if (Array.isArray(value) && columns.length > 0) {
      const rows = value.map((row) => columns.map((c) => genericCell((row as Record<string, unknown>)[c])));
      lists.push(
        `${Object.keys(table.doc).length > 1 ? `\`${key}\`:\n\n` : ""}${mdTable(
          columns.map((c) => c.replace(/_/g, " ")),
          rows,
        )}`,
      );
    } else scalars.push([`\`${key}\``, genericCell(value)]);
  }
  return [...(scalars.length > 0 ? [mdTable(["property", "value"], scalars)] : []), ...lists].join("\n\n");
}

/**
 * Named renderers of the spec tables; `spec/*.md` regions refer to these names. A table without a
 * hand-designed renderer gets {@link genericTable} under its stem.
 */
export function tableRenderers(model: Model): ReadonlyMap<string, () => string> {
  const t = model.tables;
  const defaults = new Map(t.failureRetryDefaults.defaults.map((r) => [r.failure_class, r.retry_class]));
  const renderers = new Map<string, () => string>([
    [
      "wire-version",
      () =>
        mdTable(
          ["current wire version", "reference crate"],
          [
            [
              `\`${model.wireVersion.current}\``,
              `${model.wireVersion.reference.crate} ${model.wireVersion.reference.version}`,
            ],
          ],
        ),
    ],
    [
      "transport-modes",
      () =>
        mdTable(
          ["mode", "title", "status", "cross-language", "framing", "deadline", "implementation"],
          t.transportModes.modes.map((r) => [
            `\`${r.mode}\``,
            r.title,
            r.status,
            r.cross_language ? "yes" : "no",
            r.framing,
            r.deadline,
            r.implementation,
          ]),
        ),
    ],
    [
      "subprocess-wire-framing",
      () =>
        mdTable(
          ["stream", "direction", "content", "documents", "end", "limit"],
          t.subprocessWireFraming.streams.map((r) => [r.stream, r.direction, r.content, r.documents, r.end, r.limit]),
        ),
    ],
    [
      "subprocess-failure-mapping",
      () =>
        mdTable(
          ["variant", "failure class", "default retry", "transports", "origin", "when", "reason"],
          t.subprocessFailureMapping.variants.map((r) => [
            `\`${r.variant}\``,
            `\`${r.failure_class}\``,
            `\`${defaults.get(r.failure_class)}\``,
            r.transports.join(", "),
            r.origin,
            r.when,
            r.reason ?? "",
          ]),
        ),
    ],
    [
      "failure-retry-defaults",
      () =>
        mdTable(
          ["failure class", "default retry class", "meaning"],
          t.failureRetryDefaults.defaults.map((r) => [`\`${r.failure_class}\``, `\`${r.retry_class}\``, r.meaning]),
        ),
    ],
    [
      "event-vocabulary",
      () =>
        mdTable(
          ["event", "summary", "requires frame_context", "notification only", "dispatchable", "stream v2"],
          t.eventVocabulary.events.map((r) => [
            `\`${r.event}\``,
            r.summary,
            r.requires_frame_context ? "yes" : "no",
            r.notification_only ? "yes" : "no",
            r.dispatchable ? "yes" : "no",
            r.stream_v2,
          ]),
        ),
    ],
    [
      "receipt-emitted-guard",
      () =>
        mdTable(
          ["property", "value"],
          Object.entries(t.receiptEmittedGuard).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v]),
        ),
    ],
    [
      "limits",
      () =>
        mdTable(
          ["limit", "value", "unit", "applies to", "on exceed"],
          t.limits.limits.map((r) => [`\`${r.name}\``, r.value, r.unit, r.applies_to, r.on_exceed]),
        ),
    ],
    ["field-bounds", () => fieldBoundsTable(model)],
    [
      "stream-framing-rules",
      () =>
        mdTable(
          ["rule", "layer", "summary", "on violation"],
          t.streamV2.framing_rules.map((r) => [`\`${r.id}\``, r.layer, r.summary, r.on_violation]),
        ),
    ],
    [
      "stream-frames",
      () =>
        mdTable(
          ["frame", "members", "required", "reply", "schema"],
          t.streamV2.frames.map((f) => [
            f.kind,
            f.members.join(", "),
            f.required.join(", "),
            f.reply,
            `\`${f.schema}\``,
          ]),
        ),
    ],
    [
      "stream-methods",
      () => {
        const s = t.streamV2;
        const rows: unknown[][] = t.eventVocabulary.events.map((e) => [
          e.stream_v2 === "never_sent"
            ? `(\`${s.host_to_client.event_method_prefix}${e.event}\` never sent)`
            : `\`${s.host_to_client.event_method_prefix}${e.event}\``,
          "host → client",
          e.stream_v2,
          e.stream_v2 === "never_sent" ? "refused before anything is written" : s.host_to_client.params,
          e.stream_v2 === "request" ? s.host_to_client.result : "none",
        ]);
        rows.push([
          `\`${s.cancel.method}\``,
          "host → client",
          "notification (extension)",
          '{id, reason: "timeout"}',
          "none",
        ]);
        for (const m of s.reverse_methods) {
          rows.push([
            `\`${m.method}\``,
            "client → host",
            "request",
            `{${m.params.map((p) => (p.required ? p.name : `${p.name}?`)).join(", ")}}`,
            `{${m.result.join(", ")}}`,
          ]);
        }
        return mdTable(["method", "direction", "kind", "params", "result"], rows);
      },
    ],
    [
      "stream-error-codes",
      () =>
        mdTable(
          ["code", "name", "origin", "failure class", "canonical for the class", "meaning"],
          t.streamV2.error_codes.map((c) => [
            c.code,
            `\`${c.name}\``,
            c.origin,
            `\`${c.failure_class}\``,
            c.canonical ? "yes" : "no",
            c.meaning,
          ]),
        ),
    ],
    [
      "stream-shutdown",
      () =>
        mdTable(
          ["step", "action", "waits at most"],
          t.streamV2.shutdown.steps.map((st) => [
            st.step,
            st.action,
            st.wait_limit === null
              ? ""
              : `\`${st.wait_limit}\` (${t.limits.limits.find((l) => l.name === st.wait_limit)?.value} ms)`,
          ]),
        ),
    ],
    [
      "stream-limits",
      () =>
        mdTable(
          ["limit", "value", "unit", "applies to", "on exceed"],
          t.limits.limits
            .filter(
              (l) =>
                l.name.startsWith("stream_") ||
                l.name === "max_frame_bytes" ||
                l.name === "max_client_requests_in_flight" ||
                l.name === "client_handler_concurrency",
            )
            .map((r) => [`\`${r.name}\``, r.value, r.unit, r.applies_to, r.on_exceed]),
        ),
    ],
    [
      "client-initiated-commands",
      () => {
        const groups = t.clientInitiatedCommands.groups;
        const rows: unknown[][] = [];
        for (const g of groups) {
          for (const c of g.commands) {
            rows.push([
              `\`${[...g.cli, c.command].join(" ")}\``,
              g.origin === "extension" ? `${g.spec} (this toolkit's extension)` : g.spec,
              c.flags.map((f) => (f.required ? f.flag : `[${f.flag}]`)).join(" "),
              c.stdin,
              c.stdout,
              c.stderr,
            ]);
          }
        }
        return mdTable(["command", "spec", "flags", "stdin", "stdout", "stderr"], rows);
      },
    ],
    [
      "rules",
      () =>
        mdTable(
          ["rule id", "check", "applies to", "summary", "reference"],
          model.rules.map((r) => [
            `\`${r.id}\``,
            r.check,
            [...new Set(r.targets.map((x) => x.type))].join(", "),
            r.summary,
            r.reference,
          ]),
        ),
    ],
    [
      "cli-exit-codes",
      () =>
        mdTable(
          ["code", "name", "meaning"],
          t.cliExitCodes.codes.map((c) => [c.code, `\`${c.name}\``, c.meaning]),
        ),
    ],
    [
      "document-rules",
      () =>
        mdTable(
          ["rule id", "layer", "summary"],
          t.documentRules.rules.map((r) => [`\`${r.id}\``, r.layer, r.summary]),
        ),
    ],
    ...hookTableRenderers(model),
    [
      "reference-differences",
      () => differencesTable(t.referenceDifferences.differences.filter((d) => d.scope === "validation")),
    ],
    [
      "receipt-differences",
      () => differencesTable(t.referenceDifferences.differences.filter((d) => d.scope === "receipts")),
    ],
    [
      "wire-window-differences",
      () => differencesTable(t.referenceDifferences.differences.filter((d) => d.scope === "wire_version")),
    ],
    ...continuationTableRenderers(model),
  ]);
  for (const table of model.specTables)
    if (!renderers.has(table.stem)) renderers.set(table.stem, () => genericTable(table));
  return renderers;
}

/** Renderers of the continuation group of spec/tables/client-initiated-commands.json (spec/continuation-store.md). */
function continuationTableRenderers(model: Model): [string, () => string][] {
  const g = model.tables.clientInitiatedCommands.groups.find((x) => x.group === "continuation") as unknown as
    | ContinuationGroupFacts
    | undefined;
  if (!g) return [];
  const code = (v: string): string => `\`${v}\``;
  return [
    [
      "continuation-errors",
      () =>
        mdTable(
          ["error", "exit", "members besides error", "ours only"],
          [...g.errors.map((e) => [e, "no"] as const), ...g.extension_errors.map((e) => [e, "yes"] as const)].map(
            ([e, ours]) => [code(e.error), e.exit_code, e.fields.map(code).join(", ") || "none", ours],
          ),
        ),
    ],
    [
      "continuation-root",
      () =>
        mdTable(
          ["order", "variable", "store directory"],
          g.root_resolution.map((r, i) => [
            i + 1,
            code(r.environment),
            code(["$" + r.environment, ...r.append].join("/")),
          ]),
        ),
    ],
    [
      "continuation-limits",
      () =>
        mdTable(
          ["limit", "value"],
          Object.entries(g.limits).map(([k, v]) => [code(k), typeof v === "string" ? code(v) : v]),
        ),
    ],
    [
      "continuation-entry-format",
      () =>
        mdTable(
          ["property", "value"],
          Object.entries(g.entry_format).map(([k, v]) => [
            code(k),
            Array.isArray(v)
              ? v.map((x) => (typeof x === "string" ? code(x) : `${code(x.field)} (${x.type})`)).join(", ")
              : code(String(v)),
          ]),
        ),
    ],
    [
      "continuation-extension-flags",
      () =>
        mdTable(
          ["command", "flag", "value", "meaning"],
          g.extension_flags.map((f) => [f.command, code(f.flag), f.value, f.meaning]),
        ),
    ],
    [
      "continuation-differences",
      () => differencesTable(model.tables.referenceDifferences.differences.filter((d) => d.scope === "continuation")),
    ],
  ];
}

/** The members of the continuation group the renderers read (spec/meta/client-initiated-commands.schema.json). */
interface ContinuationGroupFacts {
  readonly errors: readonly {
    readonly error: string;
    readonly exit_code: number;
    readonly fields: readonly string[];
  }[];
  readonly extension_errors: readonly {
    readonly error: string;
    readonly exit_code: number;
    readonly fields: readonly string[];
  }[];
  readonly root_resolution: readonly { readonly environment: string; readonly append: readonly string[] }[];
  readonly limits: Readonly<Record<string, number | string>>;
  readonly entry_format: Readonly<
    Record<string, string | number | readonly (string | { readonly field: string; readonly type: string })[]>
  >;
  readonly extension_flags: readonly {
    readonly command: string;
    readonly flag: string;
    readonly value: string;
    readonly meaning: string;
  }[];
}

/** Renderers of spec/tables/harness-hook-mapping.json (spec/harness-hooks.md). */
function hookTableRenderers(model: Model): [string, () => string][] {
  const m = model.tables.harnessHookMapping;
  const code = (v: string): string => `\`${v}\``;
  return [
    [
      "harness-hook-mapping",
      () =>
        mdTable(
          ["lifecycle event", ...m.adapters.map((a) => `${a.adapter} (${a.harness})`)],
          (m.adapters[0]?.events ?? []).map((row, i) => [
            code(row.event),
            ...m.adapters.map((a) =>
              a.events[i]?.hook_event === "unsupported" ? "unsupported" : code(a.events[i]?.hook_event ?? ""),
            ),
          ]),
        ),
    ],
    [
      "harness-hook-events",
      () =>
        mdTable(
          [
            "adapter",
            "hook event",
            "output schema",
            "context slot",
            "placements in the slot",
            "block directive",
            "notes",
          ],
          m.adapters.flatMap((a) =>
            a.hook_events.map((h) => [
              a.adapter,
              code(h.hook_event),
              code(`schemas/hooks/${h.output_schema}.schema.json`),
              h.context_slot ? "hookSpecificOutput.additionalContext" : "none",
              h.context_placements.map(code).join(", "),
              h.block,
              h.notes,
            ]),
          ),
        ),
    ],
    [
      "harness-hook-adapters",
      () =>
        mdTable(
          ["adapter", "harness", "adapter ids", "harness context limit"],
          m.adapters.map((a) => [
            a.adapter,
            a.harness,
            a.adapter_ids.map(code).join(", "),
            a.harness_context_limit
              ? `${a.harness_context_limit.length} ${a.harness_context_limit.unit} (${a.harness_context_limit.on_exceed})`
              : "none known",
          ]),
        ),
    ],
    [
      "harness-hook-directives",
      () =>
        mdTable(
          ["kind", "members", "summary"],
          m.directives.map((d) => [code(d.kind), d.members.join(", "), d.summary]),
        ),
    ],
    [
      "harness-hook-block-effects",
      () =>
        mdTable(
          ["block", "renders", "meaning"],
          m.block_effects.map((b) => [code(b.block), b.renders, b.meaning]),
        ),
    ],
    [
      "harness-hook-errors",
      () =>
        mdTable(
          ["error kind", "CLI exit", "summary"],
          m.errors.map((e) => [code(e.kind), code(e.exit), e.summary]),
        ),
    ],
    [
      "harness-hook-warnings",
      () =>
        mdTable(
          ["warning code", "summary"],
          m.warnings.map((w) => [code(w.code), w.summary]),
        ),
    ],
    [
      "harness-hook-differences",
      () => differencesTable(model.tables.referenceDifferences.differences.filter((d) => d.scope === "rendering")),
    ],
    ...hookCommandTableRenderers(model),
  ];
}

/** Renderers of spec/tables/harness-hook-inputs.json (spec/hook-command.md). */
function hookCommandTableRenderers(model: Model): [string, () => string][] {
  const t = model.tables.harnessHookInputs;
  const code = (v: string): string => `\`${v}\``;
  return [
    [
      "hook-command-events",
      () =>
        mdTable(
          ["adapter", "hook event", "input schema", "delivers (in order)", "renders", "matcher", "evidence"],
          t.adapters.flatMap((a) =>
            a.hook_events.map((h) => [
              a.adapter,
              code(h.hook_event),
              code(`schemas/hooks/${h.input_schema}.schema.json`),
              h.delivers.map(code).join(", "),
              code(h.renders),
              code(h.matcher),
              h.evidence,
            ]),
          ),
        ),
    ],
    [
      "hook-command-adapters",
      () =>
        mdTable(
          ["adapter", "adapter_version", "configuration file", "unknown input members", "why"],
          t.adapters.map((a) => [
            a.adapter,
            code(a.adapter_version),
            code(a.config_file),
            a.unknown_input_fields,
            a.unknown_input_fields_fact,
          ]),
        ),
    ],
    [
      "hook-command-fields",
      () =>
        mdTable(
          ["input member", "CallbackRequest member", "events", "bounded", "note"],
          t.fields.map((f) => [
            code(f.input),
            code(f.target),
            f.applies,
            f.bounded ? `${t.metadata_text_max_bytes} bytes` : "",
            f.note,
          ]),
        ),
    ],
    [
      "hook-command-differences",
      () => differencesTable(model.tables.referenceDifferences.differences.filter((d) => d.scope === "hook_command")),
    ],
    ["hook-harness-timeout", () => harnessTimeoutText(model)],
  ];
}

/** spec/tables/hook-harness-timeout.json as its terms and the sum they make (spec/hook-command.md, "Configuration"). */
function harnessTimeoutText(model: Model): string {
  type Term = Model["tables"]["hookHarnessTimeout"]["terms"][number];
  const settle = model.tables.limits.limits.find((l) => l.name === "settle_margin_ms")?.value;
  const durations: Record<Term["duration"], string> = {
    timeout_ms: "`--timeout-ms`",
    settle_margin_ms: `\`limits.settle_margin_ms\` (${settle} ms)`,
    harness_timeout_slack_ms: `\`harness_timeout_slack_ms\` (${model.tables.harnessHookInputs.harness_timeout_slack_ms} ms)`,
  };
  const counts: Record<Term["count"], string> = { once: "1", per_delivered_event: "delivers" };
  const terms = model.tables.hookHarnessTimeout.terms;
  const table = mdTable(
    ["term", "count", "duration", "why"],
    terms.map((t) => [`\`${t.term}\``, counts[t.count], durations[t.duration], t.why]),
  );
  const sum = terms.map((t) => `${counts[t.count]} × ${durations[t.duration]}`).join(" + ");
  return `${table}\n\nThe harness timeout \`S\` = ⌈(${sum}) / 1000⌉ seconds, where delivers is the number of lifecycle events the hook event delivers (its \`delivers\` in \`spec/tables/harness-hook-inputs.json\`).`;
}

/** The Markdown page of one wire type. */
export function typePage(model: Model, type: WireType): string {
  const link = (name: string): string =>
    model.enums.some((e) => e.name === name) ? `[${name}](../enums.md#${name.toLowerCase()})` : `[${name}](${name}.md)`;
  const fields = mdTable(
    ["field", "type", "presence", "description"],
    type.fields.map((f) => [
      `\`${f.name}\``,
      shapeText(f.shape, link) + (f.nullable ? " or null" : ""),
      f.presence,
      f.description,
    ]),
  );
  const rules = model.rules.filter((r) => r.targets.some((x) => x.type === type.name));
  const ruleRows = rules.flatMap((r) =>
    r.targets
      .filter((x) => x.type === type.name)
      .map((x) => [`\`${r.id}\``, x.fields ? x.fields.join(", ") : `${x.field}${x.each ? "[]" : ""}`, r.summary]),
  );
  const usedIn = model.types.filter(
    (other) =>
      other.name !== type.name && (model.occurrences.get(other.name) ?? []).some((o) => o.typeName === type.name),
  );
  const parts = [
    `# ${type.name}`,
    "",
    type.description,
    "",
    `Schema: [\`schemas/${type.file}\`](../../../schemas/${type.file}) (\`${type.id}\`)${type.schema["x-wire-document"] === true ? ` · validate with \`lifeloop-callback validate ${type.kebab}\`` : ""}`,
    "",
    "## Fields",
    "",
    fields,
    "",
    "Presence: `required` (present, not null) · `required_nullable` (present, may be null) · `optional` (absent or null; omitted when none) · `optional_emit_null` (absent or null; written as null when none) · `collection` (absent means empty; null rejected; omitted when empty).",
    "",
  ];
  if (ruleRows.length > 0) parts.push("## Rules", "", mdTable(["rule id", "field", "summary"], ruleRows), "");
  parts.push(...examplesSection(model, type));
  if (usedIn.length > 0) parts.push("## Used in", "", usedIn.map((u) => `- [${u.name}](${u.name}.md)`).join("\n"), "");
  return parts.join("\n");
}

/** The member added to make a type page's invalid example: every object is closed, so it is refused. */
export const EXAMPLE_UNKNOWN_MEMBER = "unexpected_member";

/**
 * The "Examples" section of a type page: a valid document of the type from the sample model (every
 * member filled in, rules satisfied) and an invalid one (the same plus an unknown member) with the
 * rule id and pointer it is refused with. test/codegen/docs-examples.test.ts validates both.
 */
function examplesSection(model: Model, type: WireType): string[] {
  const valid = fullObject(model, type.name);
  const invalid = { ...valid, [EXAMPLE_UNKNOWN_MEMBER]: true };
  const json = (value: unknown): string => ["```json", JSON.stringify(value, null, 2), "```"].join("\n");
  return [
    "## Examples",
    "",
    `A valid \`${type.name}\` (from the sample model, every member filled in):`,
    "",
    json(valid),
    "",
    `An invalid one: the same with a member the schema does not declare. Refused with rule \`schema.additional-properties\` at \`/${EXAMPLE_UNKNOWN_MEMBER}\`.`,
    "",
    json(invalid),
    "",
  ];
}
