/**
 * Target: `generated/ts/spec.ts` and `generated/ts/spec/<stem>.ts`, the spec tables and derived plans as
 * typed TypeScript constants (one module per table, re-exported by spec.ts).
 * The runtime reads every table through this file; it never restates one. Every table is one
 * `<STEM>_TABLE` constant (as written); the other table constants are views of those.
 */
import type { Model } from "../../model/model.js";
import { computeOpenMapPaths } from "../../model/plans.js";
import { tableKey } from "../../model/tables.js";
import { finalNewline, slashBanner, type OutputFile } from "../../emit/output.js";

function constName(typeName: string): string {
  return typeName.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

/** `event-vocabulary` → `EVENT_VOCABULARY_TABLE`: the constant of every spec table. */
export function tableConstName(stem: string): string {
  return `${stem.replace(/-/g, "_").toUpperCase()}_TABLE`;
}

function literal(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** The module of one spec table, e.g. `generated/ts/spec/limits.ts` (imported as `./spec/limits.js`). */
export function tableModulePath(stem: string): string {
  return `generated/ts/spec/${stem}.ts`;
}

/**
 * The views (derived constants and types) kept next to their table, by table stem: a module that
 * needs one table's facts imports that table's module alone (the CLI's start-up cost, issue 30).
 */
function tableViews(model: Model): ReadonlyMap<string, readonly string[]> {
  return new Map<string, readonly string[]>([
    [
      "wire-version",
      [
        `/** The current wire version: every envelope's schema_version must equal it (spec/wire-version.json). */`,
        `export const WIRE_VERSION = ${JSON.stringify(model.wireVersion.current)} as const;`,
        "",
        `/** The default wire-version window of every reader: current, then the accepted older versions, newest first (spec/wire-window.md). */`,
        `export const WIRE_WINDOW = ${literal([model.wireVersion.current, ...model.wireVersion.accepted])} as const;`,
        "",
        `/** A version of the default window. */`,
        `export type WindowVersion = (typeof WIRE_WINDOW)[number];`,
        "",
        `/** The refusal of a document outside the reader's window: rule id and message template ({value}, {window}). */`,
        `export const OUTSIDE_WINDOW = ${literal(model.wireVersion.outside_window)} as const;`,
        "",
        `/** Wire versions retired by this project, with their tombstones. */`,
        `export const RETIRED_WIRE_VERSIONS = ${literal(model.wireVersion.retired)} as const;`,
        "",
        `/** The reference implementation this wire version is settled against. */`,
        `export const REFERENCE_IMPLEMENTATION = ${literal(model.wireVersion.reference)} as const;`,
      ],
    ],
    [
      "event-vocabulary",
      [
        `/** spec/tables/event-vocabulary.json: one row per LifecycleEventKind. */`,
        `export const EVENT_VOCABULARY = EVENT_VOCABULARY_TABLE.events;`,
      ],
    ],
    [
      "failure-retry-defaults",
      [
        `/** spec/tables/failure-retry-defaults.json: the default RetryClass of each FailureClass. */`,
        `export const FAILURE_RETRY_DEFAULTS = ${literal(Object.fromEntries(model.tables.failureRetryDefaults.defaults.map((r) => [r.failure_class, r.retry_class])))} as const;`,
      ],
    ],
    [
      "subprocess-failure-mapping",
      [
        `/** spec/tables/subprocess-failure-mapping.json: every failure variant and its FailureClass. */`,
        `export const FAILURE_VARIANTS = SUBPROCESS_FAILURE_MAPPING_TABLE.variants;`,
        `/** A failure variant id, e.g. \`non_zero_exit\`. */`,
        `export type FailureVariant = (typeof FAILURE_VARIANTS)[number]["variant"];`,
      ],
    ],
    [
      "stream-v2",
      [
        `/** spec/tables/stream-v2.json: stream callbacks (v2) framing rules, frames, ids, methods, cancel, error codes, shutdown, respawn (spec/stream-protocol.md). */`,
        `export const STREAM_V2 = STREAM_V2_TABLE;`,
        `/** A stream framing rule id, e.g. \`stream.frame-too-large\`. */`,
        `export type StreamRuleId = (typeof STREAM_V2)["framing_rules"][number]["id"];`,
        `/** A client-to-host method name, e.g. \`continuation/put\`. */`,
        `export type StreamReverseMethodName = (typeof STREAM_V2)["reverse_methods"][number]["method"];`,
        `/** A JSON-RPC error code name of the stream binding, e.g. \`not_available\`. */`,
        `export type StreamErrorName = (typeof STREAM_V2)["error_codes"][number]["name"];`,
      ],
    ],
    [
      "transport-modes",
      [`/** spec/tables/transport-modes.json */`, `export const TRANSPORT_MODES = TRANSPORT_MODES_TABLE.modes;`],
    ],
    [
      "subprocess-wire-framing",
      [
        `/** spec/tables/subprocess-wire-framing.json */`,
        `export const SUBPROCESS_WIRE_FRAMING = SUBPROCESS_WIRE_FRAMING_TABLE.streams;`,
      ],
    ],
    [
      "receipt-emitted-guard",
      [
        `/** spec/tables/receipt-emitted-guard.json */`,
        `export const RECEIPT_EMITTED_GUARD = RECEIPT_EMITTED_GUARD_TABLE;`,
      ],
    ],
    [
      "limits",
      [
        `/** spec/tables/limits.json, by name (units in the table: bytes, levels, ms). */`,
        `export const LIMITS = ${literal(Object.fromEntries(model.tables.limits.limits.map((l) => [l.name, l.value])))} as const;`,
      ],
    ],
    [
      "client-initiated-commands",
      [
        `/** spec/tables/client-initiated-commands.json */`,
        `export const CLIENT_INITIATED_COMMANDS = CLIENT_INITIATED_COMMANDS_TABLE;`,
      ],
    ],
    [
      "reference-differences",
      [
        `/** spec/tables/reference-differences.json: deliberate differences from the reference crate. */`,
        `export const REFERENCE_DIFFERENCES = REFERENCE_DIFFERENCES_TABLE.differences;`,
      ],
    ],
    [
      "cli-exit-codes",
      [
        `/** spec/tables/cli-exit-codes.json: exit code of the lifeloop-callback CLI by name. */`,
        `export const CLI_EXIT_CODES = ${literal(Object.fromEntries(model.tables.cliExitCodes.codes.map((c) => [c.name, c.code])))} as const;`,
      ],
    ],
    [
      "cli-commands",
      [
        `/** spec/tables/cli-commands.json: the CLI's commands, in help order. */`,
        `export const CLI_COMMANDS = CLI_COMMANDS_TABLE.commands;`,
        `/** A command of the CLI, e.g. \`hook\`. */`,
        `export type CliCommandName = (typeof CLI_COMMANDS)[number]["name"];`,
      ],
    ],
    [
      "document-rules",
      [
        `/** spec/tables/document-rules.json: rule ids of the parse (json.*) and schema (schema.*) layers. */`,
        `export const DOCUMENT_RULES = DOCUMENT_RULES_TABLE.rules;`,
        `/** The parse-layer rule ids (the json.* rows of spec/tables/document-rules.json) by lowerCamel name. */`,
        `export const PARSE_RULE_IDS = {`,
        ...model.tables.documentRules.rules
          .filter((row) => row.layer === "json")
          .flatMap((r) => [
            `  /** ${r.summary.replace(/\s+/g, " ")} */`,
            `  ${tableKey(r.id.slice("json.".length))}: ${JSON.stringify(r.id)},`,
          ]),
        `} as const;`,
        `/** A parse- or schema-layer rule id. */`,
        `export type DocumentRuleId = (typeof DOCUMENT_RULES)[number]["id"];`,
      ],
    ],
    [
      "harness-hook-mapping",
      [
        `/** spec/tables/harness-hook-mapping.json: lifecycle event → harness hook event, rendering facts, directives, errors (spec/harness-hooks.md). */`,
        `export const HARNESS_HOOK_MAPPING = HARNESS_HOOK_MAPPING_TABLE;`,
        `/** A harness the renderer targets (\`--adapter\`), e.g. \`claude\`. */`,
        `export type HookAdapter = (typeof HARNESS_HOOK_MAPPING)["adapters"][number]["adapter"];`,
        `/** A render error kind, e.g. \`unsupported_event\`. */`,
        `export type HookRenderErrorKind = (typeof HARNESS_HOOK_MAPPING)["errors"][number]["kind"];`,
        `/** A render warning code, e.g. \`directive_ignored\`. */`,
        `export type HookRenderWarningCode = (typeof HARNESS_HOOK_MAPPING)["warnings"][number]["code"];`,
      ],
    ],
    [
      "harness-hook-inputs",
      [
        `/** spec/tables/harness-hook-inputs.json: what \`lifeloop-callback hook\` does with each harness hook input (spec/hook-command.md). */`,
        `export const HARNESS_HOOK_INPUTS = HARNESS_HOOK_INPUTS_TABLE;`,
      ],
    ],
  ]);
}

/** One module per spec table (generated/ts/spec/<stem>.ts): the table as written plus its views. */
function tableModules(model: Model, views: ReadonlyMap<string, readonly string[]>): OutputFile[] {
  return model.specTables.map((t) => {
    const table = [slashBanner(`${t.file} as a constant, with its views (re-exported by ../spec.ts).`)];
    table.push(`/** ${t.file} as written (minus \`$schema\`); its type is ${String(t.meta.title)} in ../tables.ts. */`);
    table.push(`export const ${tableConstName(t.stem)} = ${literal(t.doc)} as const;`);
    const own = views.get(t.stem);
    if (own) table.push("", ...own);
    return { path: tableModulePath(t.stem), content: finalNewline(table.join("\n")) };
  });
}

/** generated/ts/spec.ts: re-exports every table module and the plans module. */
function indexModule(model: Model): OutputFile {
  const lines: string[] = [];
  lines.push(slashBanner("Spec tables (spec/tables/*.json), the wire version and derived plans as constants."));
  lines.push(`// Every spec table, with its views, from its own module (./spec/<stem>.ts), and the plans.`);
  for (const t of model.specTables) lines.push(`export * from "./spec/${t.stem}.js";`);
  lines.push(`export * from "./spec/plans.js";`);
  return { path: "generated/ts/spec.ts", content: finalNewline(lines.join("\n")) };
}

/** Plans section: `<ENUM>_VALUES` for every enum, in schema order. */
function enumValuesSection(model: Model): string[] {
  const lines: string[] = [];
  for (const e of model.enums) {
    lines.push(`/** Every ${e.name} value, in schema order (schemas/${e.file}). */`);
    lines.push(`export const ${constName(e.name)}_VALUES = ${literal(e.values)} as const;`);
    lines.push("");
  }
  return lines;
}

/** Plans section: the wire object type names, their type map and the whole-document roots. */
function wireTypesSection(model: Model): string[] {
  return [
    `/** Names of the wire object types (schemas/*.schema.json). */`,
    `export const WIRE_OBJECT_TYPES = ${literal(model.types.map((t) => t.name))} as const;`,
    `/** A wire object type name. */`,
    `export type WireObjectTypeName = (typeof WIRE_OBJECT_TYPES)[number];`,
    "",
    `/** Maps each wire object type name to its TypeScript type. */`,
    `export interface WireTypeMap {`,
    ...model.types.map((t) => `  ${t.name}: Wire.${t.name};`),
    `}`,
    "",
    `/** Types that travel as whole wire documents, with their CLI and fixture names. */`,
    `export const WIRE_DOCUMENTS = ${literal(model.roots)} as const;`,
    `/** The CLI name of a wire document type, e.g. \`callback-request\`. */`,
    `export type WireDocumentCliName = (typeof WIRE_DOCUMENTS)[number]["cliName"];`,
    "",
  ];
}

/** Plans section: the `RuleStep` interface (its `check` union from the rules in use). */
function ruleStepSection(model: Model): string[] {
  return [
    `/** One executable rule step (see codegen/model/model.ts RuleStep and spec/README.md, "Rules"). */`,
    `export interface RuleStep {`,
    `  readonly rule: string;`,
    `  readonly check: ${model.rules
      .map((r) => JSON.stringify(r.check))
      .filter((v, i, a) => a.indexOf(v) === i)
      .join(" | ")};`,
    `  /** Pointer pattern of the inspected object; \`*\` matches any array index. */`,
    `  readonly at: string;`,
    `  readonly field?: string;`,
    `  readonly fields?: readonly string[];`,
    `  readonly each?: boolean;`,
    `  readonly lengthField?: string;`,
    `  readonly when?: { readonly field: string; readonly op: "in" | "not_in"; readonly values: readonly string[] };`,
    `  readonly values?: readonly string[];`,
    `  readonly expected?: string;`,
    `  readonly message: string;`,
    `}`,
    "",
  ];
}

/** Plans section: RULES, RULE_PLANS and the integer and open-map pointer patterns per type. */
function rulePlansSection(model: Model): string[] {
  const perType = (values: (name: string) => unknown): string =>
    literal(Object.fromEntries(model.types.map((t) => [t.name, values(t.name)])));
  return [
    `/** The rules of spec/tables/rules.json: id and summary, in evaluation order. */`,
    `export const RULES = ${literal(model.rules.map((r) => ({ id: r.id, summary: r.summary, check: r.check, reference_messages: r.referenceMessages })))} as const;`,
    "",
    `/** Ordered rule steps per wire object type. */`,
    `export const RULE_PLANS: { readonly [K in WireObjectTypeName]: readonly RuleStep[] } = ${perType((name) => model.rulePlans.get(name) ?? [])};`,
    "",
    `/** Pointer patterns of integer fields per wire object type (open maps excluded). */`,
    `export const INTEGER_PATHS: { readonly [K in WireObjectTypeName]: readonly string[] } = ${perType((name) => model.integerPaths.get(name) ?? [])};`,
    "",
    `/** Pointer patterns of open maps (metadata, telemetry_summary) per wire object type. */`,
    `export const OPEN_MAP_PATHS: { readonly [K in WireObjectTypeName]: readonly string[] } = ${literal(Object.fromEntries(computeOpenMapPaths(model.types)))};`,
    "",
  ];
}

/** Plans section: HOOK_SCHEMAS, every schema under schemas/hooks/ with its role. */
function hookSchemasSection(model: Model): string[] {
  return [
    `/** Schemas under schemas/hooks/: each harness hook output and input (with its adapter and hook event; an input with the members it lists) and the render request. */`,
    `export const HOOK_SCHEMAS = ${literal(
      model.hookSchemas.map((h) => ({
        name: h.name,
        role: h.role,
        adapter: h.adapter ?? null,
        hook_event: h.hookEvent ?? null,
        ...(h.role === "input" ? { members: Object.keys((h.schema.properties ?? {}) as object) } : {}),
      })),
    )} as const;`,
  ];
}

/** generated/ts/spec/plans.ts: the facts derived from schemas and rules, one section after another. */
function plansModule(model: Model): OutputFile {
  const lines = [
    slashBanner(
      "Wire object types, enum values and the plans derived from schemas and rules (re-exported by ../spec.ts).",
    ),
    "",
    `import type * as Wire from "../types.js";`,
    "",
    ...enumValuesSection(model),
    ...wireTypesSection(model),
    ...ruleStepSection(model),
    ...rulePlansSection(model),
    ...hookSchemasSection(model),
  ];
  return { path: "generated/ts/spec/plans.ts", content: finalNewline(lines.join("\n")) };
}

/**
 * Generate generated/ts/spec.ts and one module per spec table (generated/ts/spec/<stem>.ts, the
 * table as written plus its views). spec.ts re-exports every table module, so it stays the one
 * import for everything; a start-up path imports only the table modules it needs.
 * Throws when a table is named `plans` or a view names a table that does not exist.
 */
export async function generateTsSpec(model: Model): Promise<OutputFile[]> {
  const views = tableViews(model);
  const stems = new Set(model.specTables.map((t) => t.stem));
  if (stems.has("plans"))
    throw new Error("ts/spec: a spec table named plans would collide with generated/ts/spec/plans.ts");
  for (const stem of views.keys())
    if (!stems.has(stem)) throw new Error(`ts/spec: a view belongs to ${stem}, which is not a spec table`);
  return [...tableModules(model, views), indexModule(model), plansModule(model)];
}
