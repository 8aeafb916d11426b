/**
 * The typed model that every generator consumes.
 *
 * `loadModel()` (load.ts) builds it once from `spec/` and `schemas/`; generators never read those
 * folders themselves. The model holds protocol facts; the raw files a target renders from are its
 * own inputs (inputs.ts; the SDK sources are still here as `sdkSources`, see sources.ts). Names follow the spec: wire type names are the schema titles
 * (`CallbackRequest`, `DispatchEnvelope`, ...), table rows keep their JSON field names.
 */

import type { SpecTables } from "../../generated/ts/tables.js";

/** A JSON Schema document as loaded from disk (plain JSON). */
export type JsonSchema = { readonly [key: string]: unknown };

/** One spec table as loaded. */
export interface SpecTableSource {
  /** File stem, e.g. `event-vocabulary`. */
  readonly stem: string;
  /** lowerCamel of the stem, e.g. `eventVocabulary`: the table's key in `Model.tables`. */
  readonly key: string;
  /** Repository-relative path of the table, e.g. `spec/tables/event-vocabulary.json`. */
  readonly file: string;
  /** Repository-relative path of its meta-schema. */
  readonly metaFile: string;
  /** The meta-schema (its `title` names the table's type in every language). */
  readonly meta: JsonSchema;
  /** The document as written, minus its `$schema` member. */
  readonly doc: Readonly<Record<string, unknown>>;
}

/** A text file: repository-relative path (with `/`) and content. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

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
export type RuleCheck = SpecTables["rules"]["rules"][number]["check"];

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

/**
 * The spec tables, as written (minus `$schema`), keyed by the lowerCamel of their file stem. Their
 * types are generated from the meta-schemas (generated/ts/tables.ts); the aliases below name the
 * rows generators use most.
 */
export type Tables = SpecTables;

/** Where a block directive lands at a hook event (spec/tables/harness-hook-mapping.json `block`). */
export type HookBlockEffect = HookEventRow["block"];
/** Rendering facts of one harness hook event (one output schema in schemas/hooks/). */
export type HookEventRow = HookAdapterRow["hook_events"][number];
/** One harness (adapter) of the mapping table. */
export type HookAdapterRow = HarnessHookMapping["adapters"][number];
/** spec/tables/harness-hook-mapping.json (spec/harness-hooks.md). */
export type HarnessHookMapping = SpecTables["harnessHookMapping"];

/** spec/tables/harness-hook-inputs.json as written (minus `$schema`): what `lifeloop-callback hook` does with a harness's input. */
export type HarnessHookInputs = SpecTables["harnessHookInputs"];
/** One hook event of spec/tables/harness-hook-inputs.json: its input schema, what it delivers and renders, its config entry. */
export type HookInputEventRow = HarnessHookInputs["adapters"][number]["hook_events"][number];

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
  readonly role: "output" | "input" | "request";
  /** For outputs and inputs: the adapter and hook event (from the mapping or the inputs table). */
  readonly adapter?: string;
  readonly hookEvent?: string;
  readonly schema: JsonSchema;
}

/** A parse-layer (json.*) or schema-layer (schema.*) rule id (spec/tables/document-rules.json). */
export type DocumentRuleRow = SpecTables["documentRules"]["rules"][number];
/** One row of spec/tables/event-vocabulary.json. */
export type EventRow = SpecTables["eventVocabulary"]["events"][number];
/** One row of spec/tables/failure-retry-defaults.json. */
export type FailureRetryRow = SpecTables["failureRetryDefaults"]["defaults"][number];
/** One failure variant of spec/tables/subprocess-failure-mapping.json. */
export type FailureVariantRow = SpecTables["subprocessFailureMapping"]["variants"][number];
/** One row of spec/tables/limits.json. */
export type LimitRow = SpecTables["limits"]["limits"][number];
/** spec/tables/receipt-emitted-guard.json. */
export type ReceiptEmittedGuard = SpecTables["receiptEmittedGuard"];
/** spec/tables/client-initiated-commands.json. */
export type ClientInitiatedCommands = SpecTables["clientInitiatedCommands"];
/** One CLI group a client invokes in the client-to-host direction. */
export type CommandGroup = ClientInitiatedCommands["groups"][number];
/** One command of a client-initiated command group. */
export type CommandRow = CommandGroup["commands"][number];
/** One flag of a client-initiated command. */
export type CommandFlag = CommandRow["flags"][number];
/** One deliberate difference from the reference (spec/tables/reference-differences.json). */
export type ReferenceDifference = SpecTables["referenceDifferences"]["differences"][number];
/** spec/wire-version.json */
export type WireVersion = SpecTables["wireVersion"];

/** Everything a generator may use. */
export interface Model {
  /** Absolute path of the repository root the model was loaded from. */
  readonly root: string;
  readonly wireVersion: WireVersion;
  readonly enums: readonly EnumType[];
  readonly types: readonly WireType[];
  /** Schemas under schemas/hooks/ (harness hook outputs and the render request), in file order. */
  readonly hookSchemas: readonly HookSchema[];
  /** Every spec table by key (see {@link Tables}). */
  readonly tables: Tables;
  /** Every protocol table with its file, meta-schema and key, sorted by stem (spec/wire-version.json included). */
  readonly specTables: readonly SpecTableSource[];
  /** The tooling tables (tables.ts TOOLING_TABLES), by stem: validated, emitted only by their own targets. */
  readonly toolTables: ReadonlyMap<string, SpecTableSource>;
  /** Every file of sdk/<language>/templates/ by repository-relative path (see sources.ts). */
  readonly sdkSources: ReadonlyMap<string, string>;
  readonly rules: readonly Rule[];
  /** Root types that the CLI and the bindings validate as whole documents, with their CLI names. */
  readonly roots: readonly { readonly typeName: string; readonly cliName: string; readonly fixtureKind: string }[];
  /** For every object type: where each object type occurs inside it (itself at ""). */
  readonly occurrences: ReadonlyMap<string, readonly Occurrence[]>;
  /** For every object type: pointer patterns of integer-valued fields (outside open objects). */
  readonly integerPaths: ReadonlyMap<string, readonly string[]>;
  /** For every object type: its ordered rule steps. */
  readonly rulePlans: ReadonlyMap<string, readonly RuleStep[]>;
  /**
   * The older versions a reader accepts (spec/wire-version.json `accepted`, newest first), each with the
   * model of its frozen snapshot spec/releases/<version>/ (loaded with the snapshot's own meta-schemas;
   * its rule plans expect its own version). Empty for a snapshot's model itself.
   */
  readonly window: readonly AcceptedVersion[];
}

/** One accepted (older, still read) wire version and the model of its release snapshot. */
export interface AcceptedVersion {
  readonly version: string;
  /** Repository-relative path of the snapshot, `spec/releases/<version>`. */
  readonly snapshot: string;
  /** The snapshot's model (its `window` is empty). */
  readonly model: Model;
}
