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
/** spec/tables/client-initiated-commands.json (shape defined by its meta-schema). */
export type ClientInitiatedCommands = { readonly [key: string]: unknown };
/** One deliberate difference from the reference (spec/tables/reference-differences.json). */
export type ReferenceDifference = { readonly [key: string]: unknown };

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
