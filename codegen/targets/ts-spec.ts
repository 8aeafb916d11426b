/**
 * Target: `generated/ts/spec.ts`, the spec tables and derived plans as typed TypeScript constants.
 * The runtime reads every table through this file; it never restates one. Every table is one
 * `<STEM>_TABLE` constant (as written); the other table constants are views of those.
 */
import type { Model } from "../model/model.js";
import { computeOpenMapPaths } from "../model/plans.js";
import { tableKey } from "../model/tables.js";
import { finalNewline, slashBanner, type OutputFile } from "../emit/output.js";

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

/** Generate generated/ts/spec.ts. */
export async function generateTsSpec(model: Model): Promise<OutputFile[]> {
  const lines: string[] = [];
  lines.push(slashBanner("Spec tables (spec/tables/*.json), the wire version and derived plans as constants."));
  lines.push("");
  lines.push(`import type * as Wire from "./types.js";`);
  lines.push("");
  lines.push(`/** The current wire version: every envelope's schema_version must equal it (spec/wire-version.json). */`);
  lines.push(`export const WIRE_VERSION = ${JSON.stringify(model.wireVersion.current)} as const;`);
  lines.push("");
  lines.push(`/** Wire versions retired by this project, with their tombstones. */`);
  lines.push(`export const RETIRED_WIRE_VERSIONS = ${literal(model.wireVersion.retired)} as const;`);
  lines.push("");
  lines.push(`/** The reference implementation this wire version is settled against. */`);
  lines.push(`export const REFERENCE_IMPLEMENTATION = ${literal(model.wireVersion.reference)} as const;`);
  lines.push("");
  for (const t of model.specTables) {
    lines.push(`/** ${t.file} as written (minus \`$schema\`); its type is ${String(t.meta.title)} in ./tables.ts. */`);
    lines.push(`export const ${tableConstName(t.stem)} = ${literal(t.doc)} as const;`);
    lines.push("");
  }
  for (const e of model.enums) {
    lines.push(`/** Every ${e.name} value, in schema order (schemas/${e.file}). */`);
    lines.push(`export const ${constName(e.name)}_VALUES = ${literal(e.values)} as const;`);
    lines.push("");
  }
  lines.push(`/** Names of the wire object types (schemas/*.schema.json). */`);
  lines.push(`export const WIRE_OBJECT_TYPES = ${literal(model.types.map((t) => t.name))} as const;`);
  lines.push(`/** A wire object type name. */`);
  lines.push(`export type WireObjectTypeName = (typeof WIRE_OBJECT_TYPES)[number];`);
  lines.push("");
  lines.push(`/** Maps each wire object type name to its TypeScript type. */`);
  lines.push(`export interface WireTypeMap {`);
  for (const t of model.types) lines.push(`  ${t.name}: Wire.${t.name};`);
  lines.push(`}`);
  lines.push("");
  lines.push(`/** Types that travel as whole wire documents, with their CLI and fixture names. */`);
  lines.push(`export const WIRE_DOCUMENTS = ${literal(model.roots)} as const;`);
  lines.push(`/** The CLI name of a wire document type, e.g. \`callback-request\`. */`);
  lines.push(`export type WireDocumentCliName = (typeof WIRE_DOCUMENTS)[number]["cliName"];`);
  lines.push("");
  lines.push(`/** spec/tables/event-vocabulary.json: one row per LifecycleEventKind. */`);
  lines.push(`export const EVENT_VOCABULARY = EVENT_VOCABULARY_TABLE.events;`);
  lines.push("");
  lines.push(`/** spec/tables/failure-retry-defaults.json: the default RetryClass of each FailureClass. */`);
  lines.push(`export const FAILURE_RETRY_DEFAULTS = ${literal(Object.fromEntries(model.tables.failureRetryDefaults.defaults.map((r) => [r.failure_class, r.retry_class])))} as const;`);
  lines.push("");
  lines.push(`/** spec/tables/subprocess-failure-mapping.json: every failure variant and its FailureClass. */`);
  lines.push(`export const FAILURE_VARIANTS = SUBPROCESS_FAILURE_MAPPING_TABLE.variants;`);
  lines.push(`/** A failure variant id, e.g. \`non_zero_exit\`. */`);
  lines.push(`export type FailureVariant = (typeof FAILURE_VARIANTS)[number]["variant"];`);
  lines.push("");
  lines.push(`/** spec/tables/stream-v2.json: stream callbacks (v2) framing rules, frames, ids, methods, cancel, error codes, shutdown, respawn (spec/stream-protocol.md). */`);
  lines.push(`export const STREAM_V2 = STREAM_V2_TABLE;`);
  lines.push(`/** A stream framing rule id, e.g. \`stream.frame-too-large\`. */`);
  lines.push(`export type StreamRuleId = (typeof STREAM_V2)["framing_rules"][number]["id"];`);
  lines.push(`/** A client-to-host method name, e.g. \`continuation/put\`. */`);
  lines.push(`export type StreamReverseMethodName = (typeof STREAM_V2)["reverse_methods"][number]["method"];`);
  lines.push(`/** A JSON-RPC error code name of the stream binding, e.g. \`not_available\`. */`);
  lines.push(`export type StreamErrorName = (typeof STREAM_V2)["error_codes"][number]["name"];`);
  lines.push("");
  lines.push(`/** spec/tables/transport-modes.json */`);
  lines.push(`export const TRANSPORT_MODES = TRANSPORT_MODES_TABLE.modes;`);
  lines.push("");
  lines.push(`/** spec/tables/subprocess-wire-framing.json */`);
  lines.push(`export const SUBPROCESS_WIRE_FRAMING = SUBPROCESS_WIRE_FRAMING_TABLE.streams;`);
  lines.push("");
  lines.push(`/** spec/tables/receipt-emitted-guard.json */`);
  lines.push(`export const RECEIPT_EMITTED_GUARD = RECEIPT_EMITTED_GUARD_TABLE;`);
  lines.push("");
  lines.push(`/** spec/tables/limits.json, by name (units in the table: bytes, levels, ms). */`);
  lines.push(`export const LIMITS = ${literal(Object.fromEntries(model.tables.limits.limits.map((l) => [l.name, l.value])))} as const;`);
  lines.push("");
  lines.push(`/** spec/tables/client-initiated-commands.json */`);
  lines.push(`export const CLIENT_INITIATED_COMMANDS = CLIENT_INITIATED_COMMANDS_TABLE;`);
  lines.push("");
  lines.push(`/** spec/tables/reference-differences.json: deliberate differences from the reference crate. */`);
  lines.push(`export const REFERENCE_DIFFERENCES = REFERENCE_DIFFERENCES_TABLE.differences;`);
  lines.push("");
  lines.push(`/** spec/tables/cli-exit-codes.json: exit code of the lifeloop-callback CLI by name. */`);
  lines.push(`export const CLI_EXIT_CODES = ${literal(Object.fromEntries(model.tables.cliExitCodes.codes.map((c) => [c.name, c.code])))} as const;`);
  lines.push("");
  lines.push(`/** spec/tables/document-rules.json: rule ids of the parse (json.*) and schema (schema.*) layers. */`);
  lines.push(`export const DOCUMENT_RULES = DOCUMENT_RULES_TABLE.rules;`);
  lines.push(`/** The parse-layer rule ids (the json.* rows of spec/tables/document-rules.json) by lowerCamel name. */`);
  lines.push(`export const PARSE_RULE_IDS = {`);
  for (const r of model.tables.documentRules.rules.filter((row) => row.layer === "json")) {
    lines.push(`  /** ${r.summary.replace(/\s+/g, " ")} */`);
    lines.push(`  ${tableKey(r.id.slice("json.".length))}: ${JSON.stringify(r.id)},`);
  }
  lines.push(`} as const;`);
  lines.push(`/** A parse- or schema-layer rule id. */`);
  lines.push(`export type DocumentRuleId = (typeof DOCUMENT_RULES)[number]["id"];`);
  lines.push("");
  lines.push(`/** One executable rule step (see codegen/model/model.ts RuleStep and spec/README.md, "Rules"). */`);
  lines.push(`export interface RuleStep {`);
  lines.push(`  readonly rule: string;`);
  lines.push(`  readonly check: ${model.rules.map((r) => JSON.stringify(r.check)).filter((v, i, a) => a.indexOf(v) === i).join(" | ")};`);
  lines.push(`  /** Pointer pattern of the inspected object; \`*\` matches any array index. */`);
  lines.push(`  readonly at: string;`);
  lines.push(`  readonly field?: string;`);
  lines.push(`  readonly fields?: readonly string[];`);
  lines.push(`  readonly each?: boolean;`);
  lines.push(`  readonly lengthField?: string;`);
  lines.push(`  readonly when?: { readonly field: string; readonly op: "in" | "not_in"; readonly values: readonly string[] };`);
  lines.push(`  readonly values?: readonly string[];`);
  lines.push(`  readonly expected?: string;`);
  lines.push(`  readonly message: string;`);
  lines.push(`}`);
  lines.push("");
  lines.push(`/** The rules of spec/tables/rules.json: id and summary, in evaluation order. */`);
  lines.push(`export const RULES = ${literal(model.rules.map((r) => ({ id: r.id, summary: r.summary, check: r.check, reference_messages: r.referenceMessages })))} as const;`);
  lines.push("");
  lines.push(`/** Ordered rule steps per wire object type. */`);
  lines.push(`export const RULE_PLANS: { readonly [K in WireObjectTypeName]: readonly RuleStep[] } = ${literal(Object.fromEntries(model.types.map((t) => [t.name, model.rulePlans.get(t.name) ?? []])))};`);
  lines.push("");
  lines.push(`/** Pointer patterns of integer fields per wire object type (open maps excluded). */`);
  lines.push(`export const INTEGER_PATHS: { readonly [K in WireObjectTypeName]: readonly string[] } = ${literal(Object.fromEntries(model.types.map((t) => [t.name, model.integerPaths.get(t.name) ?? []])))};`);
  lines.push("");
  lines.push(`/** Pointer patterns of open maps (metadata, telemetry_summary) per wire object type. */`);
  lines.push(`export const OPEN_MAP_PATHS: { readonly [K in WireObjectTypeName]: readonly string[] } = ${literal(Object.fromEntries(computeOpenMapPaths(model.types)))};`);
  lines.push("");
  lines.push(`/** spec/tables/harness-hook-mapping.json: lifecycle event → harness hook event, rendering facts, directives, errors (spec/harness-hooks.md). */`);
  lines.push(`export const HARNESS_HOOK_MAPPING = HARNESS_HOOK_MAPPING_TABLE;`);
  lines.push(`/** A harness the renderer targets (\`--adapter\`), e.g. \`claude\`. */`);
  lines.push(`export type HookAdapter = (typeof HARNESS_HOOK_MAPPING)["adapters"][number]["adapter"];`);
  lines.push(`/** A render error kind, e.g. \`unsupported_event\`. */`);
  lines.push(`export type HookRenderErrorKind = (typeof HARNESS_HOOK_MAPPING)["errors"][number]["kind"];`);
  lines.push(`/** A render warning code, e.g. \`directive_ignored\`. */`);
  lines.push(`export type HookRenderWarningCode = (typeof HARNESS_HOOK_MAPPING)["warnings"][number]["code"];`);
  lines.push(`/** spec/tables/harness-hook-inputs.json: what \`lifeloop-callback hook\` does with each harness hook input (spec/hook-command.md). */`);
  lines.push(`export const HARNESS_HOOK_INPUTS = HARNESS_HOOK_INPUTS_TABLE;`);
  lines.push("");
  lines.push(`/** Schemas under schemas/hooks/: each harness hook output and input (with its adapter and hook event; an input with the members it lists) and the render request. */`);
  lines.push(
    `export const HOOK_SCHEMAS = ${literal(
      model.hookSchemas.map((h) => ({ name: h.name, role: h.role, adapter: h.adapter ?? null, hook_event: h.hookEvent ?? null, ...(h.role === "input" ? { members: Object.keys((h.schema.properties ?? {}) as object) } : {}) })),
    )} as const;`,
  );
  return [{ path: "generated/ts/spec.ts", content: finalNewline(lines.join("\n")) }];
}
