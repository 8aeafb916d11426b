/**
 * The typed model that every generator consumes.
 *
 * `loadModel()` (load.ts) builds it once from `spec/` and `schemas/`; generators never read those
 * folders themselves. Names follow the spec: wire type names are the schema titles
 * (`CallbackRequest`, `DispatchEnvelope`, ...), table rows keep their JSON field names.
 */

/** A JSON Schema document as loaded from disk (plain JSON). */
export type JsonSchema = { readonly [key: string]: unknown };

/**
 * How a field behaves on the wire (spec/README.md, "Field presence").
 * - `required`: key present, value not null.
 * - `required_nullable`: key present, value may be null (written as null when none).
 * - `optional`: key may be absent or null on input; omitted on output when none.
 * - `optional_emit_null`: key may be absent or null on input; written as null on output when none.
 * - `collection`: array or open object; absent means empty; null rejected; omitted on output when empty.
 */
export type Presence = "required" | "required_nullable" | "optional" | "optional_emit_null" | "collection";

/** The value shape of a field (after stripping a nullable wrapper). */
export type Shape =
  | { readonly kind: "string"; readonly maxLength: number }
  | { readonly kind: "integer"; readonly minimum: number; readonly maximum: number }
  | { readonly kind: "enum"; readonly enumName: string }
  | { readonly kind: "object"; readonly typeName: string }
  | { readonly kind: "open_object" }
  | { readonly kind: "array"; readonly items: Shape; readonly maxItems: number };

/** One property of a wire object type. */
export interface Field {
  readonly name: string;
  readonly description: string;
  readonly presence: Presence;
  /** True when the schema admits JSON null for this field. */
  readonly nullable: boolean;
  readonly shape: Shape;
}

/** A closed wire object type (one schema file). */
export interface WireType {
  readonly name: string;
  /** File name under schemas/, e.g. `callback-request.schema.json`. */
  readonly file: string;
  /** Kebab-case stem of the file, e.g. `callback-request`. */
  readonly kebab: string;
  readonly id: string;
  readonly description: string;
  readonly fields: readonly Field[];
  readonly schema: JsonSchema;
}

/** A string enumeration (one schema file). */
export interface EnumType {
  readonly name: string;
  readonly file: string;
  readonly kebab: string;
  readonly id: string;
  readonly description: string;
  readonly values: readonly string[];
  readonly schema: JsonSchema;
}

/** A place where a wire type occurs inside a root type. `pattern` is a JSON pointer where `*` stands for any array index. */
export interface Occurrence {
  readonly pattern: string;
  readonly typeName: string;
}

/** The check vocabulary of spec/tables/rules.json. */
export type RuleCheck =
  | "equals_wire_version"
  | "non_empty_string"
  | "required_when"
  | "forbidden_when"
  | "forbidden_value"
  | "exactly_one_present"
  | "utf8_byte_length_equals"
  | "non_empty_array";

/** A rule condition with table references already resolved to literal values. */
export interface ResolvedCondition {
  readonly field: string;
  readonly op: "in" | "not_in";
  readonly values: readonly string[];
}

/** One rule target (a type and the field(s) it constrains). */
export interface RuleTarget {
  readonly type: string;
  readonly field?: string;
  readonly fields?: readonly string[];
  readonly each?: boolean;
  readonly lengthField?: string;
}

/** A rule from spec/tables/rules.json with table references resolved. */
export interface Rule {
  readonly id: string;
  readonly summary: string;
  readonly reference: string;
  /** Fragments of the reference crate's error text for this rule. */
  readonly referenceMessages: readonly string[];
  readonly check: RuleCheck;
  readonly targets: readonly RuleTarget[];
  readonly when?: ResolvedCondition;
  readonly values?: readonly string[];
  readonly message: string;
}

/**
 * One executable rule step for a root type: apply `rule` to every object matching `at`.
 * Steps are ordered: rules in table order, then targets in rule order, then occurrences in schema order.
 */
export interface RuleStep {
  readonly rule: string;
  readonly check: RuleCheck;
  /** Pointer pattern of the object the step inspects (`*` = any array index). */
  readonly at: string;
  readonly field?: string;
  readonly fields?: readonly string[];
  readonly each?: boolean;
  readonly lengthField?: string;
  readonly when?: ResolvedCondition;
  readonly values?: readonly string[];
  readonly expected?: string;
  readonly message: string;
}

/** Tables loaded from spec/tables/*.json, as written (minus `$schema`). */
export interface Tables {
  readonly eventVocabulary: readonly EventRow[];
  readonly failureRetryDefaults: readonly FailureRetryRow[];
  readonly subprocessFailureMapping: readonly FailureVariantRow[];
  readonly transportModes: readonly TransportModeRow[];
  readonly subprocessWireFraming: readonly FramingRow[];
  readonly receiptEmittedGuard: ReceiptEmittedGuard;
  readonly limits: readonly LimitRow[];
  readonly clientInitiatedCommands: ClientInitiatedCommands;
  readonly referenceDifferences: readonly ReferenceDifference[];
  readonly documentRules: readonly DocumentRuleRow[];
  readonly cliExitCodes: readonly { readonly code: number; readonly name: string; readonly meaning: string }[];
  /** spec/tables/harness-hook-mapping.json (spec/harness-hooks.md). */
  readonly harnessHookMapping: HarnessHookMapping;
  /** spec/tables/stream-v2.json (spec/stream-protocol.md). */
  readonly streamV2: StreamV2;
}

/** One framing rule of the stream binding (spec/tables/stream-v2.json `framing_rules`). */
export interface StreamFramingRule {
  readonly id: string;
  readonly layer: "frame" | "json" | "envelope" | "correlation";
  readonly summary: string;
  readonly on_violation: string;
}
/** One member of a client-to-host method's params (mirrors a CLI flag, or the stdin blob as base64). */
export interface StreamMethodParam {
  readonly name: string;
  readonly flag: string | null;
  readonly required: boolean;
  readonly value: "identifier" | "unsigned_integer" | "base64";
}
/** One client-to-host method, derived from spec/tables/client-initiated-commands.json. */
export interface StreamReverseMethod {
  readonly method: string;
  readonly group: string;
  readonly command: string;
  readonly params: readonly StreamMethodParam[];
  readonly result: readonly string[];
}
/** One JSON-RPC error code and its FailureClass (`canonical`: the code written for that class). */
export interface StreamErrorCode {
  readonly code: number;
  readonly name: string;
  readonly origin: "jsonrpc" | "lifeloop-callback";
  readonly failure_class: string;
  readonly canonical: boolean;
  readonly meaning: string;
}
/** spec/tables/stream-v2.json as written (minus `$schema`); prose members kept as strings. */
export interface StreamV2 {
  readonly status: "implemented_extension";
  readonly launch: { readonly flag: string; readonly position: string; readonly shell: false; readonly process_group: "new"; readonly children_per_stream: 1 };
  readonly framing_rules: readonly StreamFramingRule[];
  readonly frames: readonly { readonly kind: "request" | "notification" | "success_reply" | "error_reply"; readonly schema: string; readonly members: readonly string[]; readonly required: readonly string[]; readonly reply: string }[];
  readonly ids: { readonly types: readonly ("string" | "integer")[]; readonly string_max_length: number; readonly integer_minimum: number; readonly integer_maximum: number; readonly comparison: string; readonly host_ids: string; readonly client_ids: string };
  readonly host_to_client: { readonly event_method_prefix: string; readonly params: "DispatchEnvelope"; readonly result: "CallbackResponse"; readonly params_decision: string; readonly request_or_notification: string; readonly outstanding: string };
  readonly cancel: { readonly method: string; readonly direction: "host_to_client"; readonly kind: "notification"; readonly params: { readonly id: string; readonly reason: "timeout" }; readonly extension: true; readonly semantics: string; readonly why: string };
  readonly client_to_host: { readonly [key: string]: string };
  readonly reverse_methods: readonly StreamReverseMethod[];
  readonly error_codes: readonly StreamErrorCode[];
  readonly shutdown: { readonly trigger: string; readonly steps: readonly { readonly step: string; readonly action: string; readonly wait_limit: string | null }[]; readonly after_violation: string; readonly client_exit: string };
  readonly respawn: { readonly when: string; readonly consecutive_timeouts: string; readonly storm_bound: string; readonly close: string };
}

/** Where a block directive lands at a hook event (spec/tables/harness-hook-mapping.json `block`). */
export type HookBlockEffect = "block_prompt" | "request_continuation" | "ignored";

/** Rendering facts of one harness hook event (one output schema in schemas/hooks/). */
export interface HookEventRow {
  /** The harness's own event name, e.g. `SessionStart`; also `hookSpecificOutput.hookEventName`. */
  readonly hook_event: string;
  /** Stem of the output schema under schemas/hooks/, e.g. `claude-session-start-output`. */
  readonly output_schema: string;
  /** `additional_context` (hookSpecificOutput.additionalContext) or null (no context slot, no hookSpecificOutput). */
  readonly context_slot: "additional_context" | null;
  /** PlacementClass values rendered into the slot (empty when there is no slot). */
  readonly context_placements: readonly string[];
  /** What the reference renderer places here; differs only where `reference_difference` says why. */
  readonly reference_context_placements: readonly string[];
  readonly block: HookBlockEffect;
  readonly reference_difference: string | null;
  readonly notes: string;
}

/** One harness (adapter) of the mapping table. */
export interface HookAdapterRow {
  /** Canonical adapter name, `claude` or `codex`; also the CLI's `--adapter` value. */
  readonly adapter: string;
  readonly harness: string;
  /** Adapter ids a request may name for this harness; the first equals `adapter`. */
  readonly adapter_ids: readonly string[];
  /** A documented context-length limit of the harness (UTF-16 code units), or null. */
  readonly harness_context_limit: { readonly length: number; readonly unit: "utf16_code_units"; readonly on_exceed: "warn"; readonly fact: string } | null;
  readonly hook_events: readonly HookEventRow[];
  /** One row per LifecycleEventKind in enum order; `hook_event` is a `hook_events` name or `unsupported`. */
  readonly events: readonly { readonly event: string; readonly hook_event: string }[];
}

/** spec/tables/harness-hook-mapping.json as written (minus `$schema`). */
export interface HarnessHookMapping {
  readonly reference: string;
  /** Hard bound on one rendered additionalContext, in code points (context_too_large above it). */
  readonly max_context_code_points: number;
  readonly adapters: readonly HookAdapterRow[];
  /** FrameAdmissionDirective variants, tagged by `kind`. */
  readonly directives: readonly { readonly kind: string; readonly members: readonly string[]; readonly summary: string }[];
  /** Inclusive code point ranges of Unicode White_Space (a block reason made only of these is blank). */
  readonly white_space: readonly (readonly [number, number])[];
  readonly block_effects: readonly { readonly block: HookBlockEffect; readonly renders: string; readonly meaning: string }[];
  /** Render error kinds and the CLI exit code name of each. */
  readonly errors: readonly { readonly kind: string; readonly exit: string; readonly summary: string }[];
  readonly warnings: readonly { readonly code: string; readonly summary: string }[];
  /** Template of the systemMessage added with context_over_harness_limit. */
  readonly system_message: string;
}

/**
 * A schema under schemas/hooks/: a harness hook output (`role: "output"`, named by a mapping-table
 * row) or the render request (`role: "request"`). Not a wire type: these never travel between host
 * and client.
 */
export interface HookSchema {
  /** Schema title, PascalCase of the file stem, e.g. `ClaudeSessionStartOutput`. */
  readonly name: string;
  /** File name under schemas/hooks/. */
  readonly file: string;
  readonly kebab: string;
  readonly id: string;
  readonly description: string;
  readonly role: "output" | "request";
  /** For outputs: the adapter and hook event (from the mapping table). */
  readonly adapter?: string;
  readonly hookEvent?: string;
  readonly schema: JsonSchema;
}

/** A parse-layer (json.*) or schema-layer (schema.*) rule id (spec/tables/document-rules.json). */
export interface DocumentRuleRow {
  readonly id: string;
  readonly layer: "json" | "schema";
  readonly summary: string;
  readonly reference_messages: readonly string[];
}

export interface EventRow {
  readonly event: string;
  readonly summary: string;
  readonly requires_frame_context: boolean;
  readonly notification_only: boolean;
  readonly dispatchable: boolean;
  readonly stream_v2: "request" | "notification" | "never_sent";
}
export interface FailureRetryRow { readonly failure_class: string; readonly retry_class: string; readonly meaning: string }
export interface FailureVariantRow {
  readonly variant: string;
  readonly failure_class: string;
  readonly origin: "callback-001" | "lifeloop-callback";
  readonly reference_variant: string | null;
  readonly transports: readonly string[];
  readonly stage: string;
  readonly when: string;
  readonly reason?: string;
}
export interface TransportModeRow {
  readonly mode: string;
  readonly title: string;
  readonly status: "implemented" | "normative" | "proposed";
  readonly cross_language: boolean;
  readonly framing: string;
  readonly deadline: string;
  readonly implementation: string | null;
  /** Present when this project's status differs from the reference's: what the reference has and why. */
  readonly reference_status?: string;
}
export interface FramingRow {
  readonly stream: string;
  readonly direction: string;
  readonly content: string;
  readonly documents: number;
  readonly end: string;
  readonly limit: string | null;
}
export interface ReceiptEmittedGuard {
  readonly event: string;
  readonly rejected_before_spawn: true;
  readonly failure_variant: string;
  readonly produces_receipt: false;
  readonly stream_v2_sends_notification: false;
  readonly transports: readonly string[];
}
export interface LimitRow { readonly name: string; readonly value: number; readonly unit: string; readonly applies_to: string; readonly on_exceed: string }
/** One flag of a client-initiated command (spec/meta/client-initiated-commands.schema.json). */
export interface CommandFlag {
  readonly flag: string;
  readonly required: boolean;
  readonly value: "identifier" | "unsigned_integer";
}
/** One command of a client-initiated command group. */
export interface CommandRow {
  readonly command: string;
  readonly flags: readonly CommandFlag[];
  readonly stdin: "blob" | "none";
  readonly stdout: "json" | "blob";
  readonly stderr: "none" | "json_metadata" | "diagnostics";
  readonly result_fields: readonly string[];
}
/** One CLI group a client invokes in the client-to-host direction. */
export interface CommandGroup {
  readonly group: string;
  readonly spec: string;
  readonly purpose: string;
  readonly cli: readonly string[];
  readonly stream_v2_method_prefix: string;
  readonly identifier: { readonly pattern: string; readonly max_length: number; readonly applies_to: readonly string[] };
  readonly environment: readonly { readonly name: string; readonly meaning: string }[];
  readonly commands: readonly CommandRow[];
  readonly errors: readonly { readonly error: string; readonly exit_code: number; readonly fields: readonly string[] }[];
  readonly usage_error_exit_code: number;
}
/** spec/tables/client-initiated-commands.json (shape defined by its meta-schema). */
export interface ClientInitiatedCommands {
  readonly groups: readonly CommandGroup[];
}
/** A pattern that explains a validation disagreement with the reference (spec/meta/reference-differences.schema.json). */
export interface ReferenceDifferenceMatch {
  readonly rule: string;
  readonly value_type?: "object" | "array" | "string" | "number" | "boolean" | "null";
  readonly expected?: "object" | "enum" | "string" | "integer" | "array";
  readonly inside_open_map?: boolean;
}
/** One deliberate difference from the reference (spec/tables/reference-differences.json). */
export interface ReferenceDifference {
  readonly id: string;
  /** validation: judging wire documents (has `match`); rendering: harness hook output. */
  readonly scope: "validation" | "rendering";
  readonly match?: readonly ReferenceDifferenceMatch[];
  readonly where: string;
  readonly reference: string;
  readonly ours: string;
  readonly reason: string;
}

/** spec/wire-version.json */
export interface WireVersion {
  readonly current: string;
  readonly reference: { readonly crate: string; readonly version: string };
  readonly retired: readonly { readonly version: string; readonly superseded_by: string; readonly tombstone: string }[];
}

/** Everything a generator may use. */
export interface Model {
  /** Absolute path of the repository root the model was loaded from. */
  readonly root: string;
  readonly wireVersion: WireVersion;
  readonly enums: readonly EnumType[];
  readonly types: readonly WireType[];
  /** Schemas under schemas/hooks/ (harness hook outputs and the render request), in file order. */
  readonly hookSchemas: readonly HookSchema[];
  readonly tables: Tables;
  readonly rules: readonly Rule[];
  /** Root types that the CLI and the bindings validate as whole documents, with their CLI names. */
  readonly roots: readonly { readonly typeName: string; readonly cliName: string; readonly fixtureKind: string }[];
  /** For every object type: where each object type occurs inside it (itself at ""). */
  readonly occurrences: ReadonlyMap<string, readonly Occurrence[]>;
  /** For every object type: pointer patterns of integer-valued fields (outside open objects). */
  readonly integerPaths: ReadonlyMap<string, readonly string[]>;
  /** For every object type: its ordered rule steps. */
  readonly rulePlans: ReadonlyMap<string, readonly RuleStep[]>;
  /** Meta-schemas and raw table documents, keyed by table stem, for docs and drift output. */
  readonly rawTables: ReadonlyMap<string, unknown>;
}
