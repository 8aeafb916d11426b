/**
 * Loads `spec/` and `schemas/` into the typed {@link Model}, validating every table against its
 * meta-schema in `spec/meta/` and cross-checking the facts that live in more than one document
 * (enum values vs. table rows, rule targets vs. schema fields, integer bounds vs. limits).
 *
 * Errors: throws {@link ModelError} naming the file, a JSON pointer and the broken expectation.
 * Nothing is generated from a model that fails to load.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import type {
  AcceptedVersion,
  EnumType,
  EventRow,
  Field,
  JsonSchema,
  Model,
  Presence,
  ResolvedCondition,
  Rule,
  RuleCheck,
  RuleTarget,
  Shape,
  Tables,
  WireType,
} from "./model.js";
import { ModelError } from "./errors.js";
import { ANNOTATION_KEYWORDS, checkSchemaHeader, readJsonFile, SCHEMA_ID_BASE } from "./files.js";
import { checkHookInputs, checkHookMapping, loadHookSchemas } from "./hooks.js";
import { checkStreamV2 } from "./stream.js";
import { computeIntegerPaths, computeOccurrences, computeRulePlans } from "./plans.js";
import { loadSdkSources } from "./sources.js";
import { loadSpecTables, TOOLING_TABLES } from "./tables.js";

export { ModelError } from "./errors.js";
export { ANNOTATION_KEYWORDS, SCHEMA_ID_BASE } from "./files.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface LoadedSchemas {
  readonly enums: EnumType[];
  readonly types: WireType[];
  readonly byFile: Map<string, string>;
}

/** Compile every wire schema (strict 2020-12) and classify it as an enum or an object type. */
function loadSchemas(root: string): LoadedSchemas {
  const files = readdirSync(join(root, "schemas"))
    .filter((name) => name.endsWith(".schema.json"))
    .sort();
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  const docs = new Map<string, JsonSchema>();
  for (const file of files) {
    const schema = readJsonFile(root, `schemas/${file}`) as JsonSchema;
    docs.set(file, schema);
    try {
      ajv.addSchema(schema);
    } catch (error) {
      throw new ModelError(`schemas/${file}`, "", `rejected by ajv: ${(error as Error).message}`);
    }
  }
  for (const [file, schema] of docs) {
    try {
      ajv.getSchema(String(schema.$id));
    } catch (error) {
      throw new ModelError(`schemas/${file}`, "", `does not compile in strict mode: ${(error as Error).message}`);
    }
  }
  const byFile = new Map<string, string>();
  const enums: EnumType[] = [];
  const objects: [string, JsonSchema][] = [];
  for (const [file, schema] of docs) {
    const rel = `schemas/${file}`;
    const kebab = file.slice(0, -".schema.json".length);
    const name = checkSchemaHeader(rel, schema, SCHEMA_ID_BASE);
    byFile.set(file, name);
    if (schema.type === "string" && Array.isArray(schema.enum)) {
      const values = schema.enum as unknown[];
      if (values.some((v) => typeof v !== "string")) throw new ModelError(rel, "/enum", "enum values must be strings");
      if (new Set(values).size !== values.length) throw new ModelError(rel, "/enum", "duplicate enum value");
      enums.push({
        name,
        file,
        kebab,
        id: String(schema.$id),
        description: String(schema.description),
        values: values as string[],
        schema,
      });
    } else if (schema.type === "object") {
      objects.push([file, schema]);
    } else {
      throw new ModelError(rel, "/type", "a wire schema is either a string enum or an object");
    }
  }
  const types = objects.map(([file, schema]) => buildType(file, schema, byFile));
  return { enums, types, byFile };
}

function refTarget(ref: unknown, rel: string, pointer: string, byFile: Map<string, string>): string {
  if (typeof ref !== "string" || !byFile.has(ref)) {
    throw new ModelError(rel, pointer, `$ref must name a schema file in schemas/ (got ${JSON.stringify(ref)})`);
  }
  return byFile.get(ref) as string;
}

/** Derive a field's shape; `nullable` reports whether JSON null is admitted alongside it. */
function shapeOf(
  prop: Record<string, unknown>,
  rel: string,
  pointer: string,
  byFile: Map<string, string>,
): { shape: Shape; nullable: boolean } {
  if (Array.isArray(prop.anyOf)) {
    const branches = prop.anyOf as unknown[];
    const [first, second] = branches;
    if (
      branches.length !== 2 ||
      !isRecord(first) ||
      !isRecord(second) ||
      second.type !== "null" ||
      typeof first.$ref !== "string"
    ) {
      throw new ModelError(rel, `${pointer}/anyOf`, 'anyOf is only used as [{"$ref": ...}, {"type": "null"}]');
    }
    const inner = shapeOf(first, rel, `${pointer}/anyOf/0`, byFile);
    return { shape: inner.shape, nullable: true };
  }
  if (typeof prop.$ref === "string") {
    const target = refTarget(prop.$ref, rel, `${pointer}/$ref`, byFile);
    return { shape: { kind: "ref-pending", target } as unknown as Shape, nullable: false };
  }
  const rawType = prop.type;
  const typeList = Array.isArray(rawType) ? (rawType as unknown[]) : [rawType];
  const nullable = typeList.includes("null");
  const base = typeList.filter((t) => t !== "null");
  if (base.length !== 1) throw new ModelError(rel, `${pointer}/type`, "exactly one non-null type is allowed");
  switch (base[0]) {
    case "string":
      if (typeof prop.maxLength !== "number")
        throw new ModelError(rel, pointer, "every string needs an explicit maxLength");
      return { shape: { kind: "string", maxLength: prop.maxLength }, nullable };
    case "integer":
      if (typeof prop.minimum !== "number" || typeof prop.maximum !== "number") {
        throw new ModelError(rel, pointer, "every integer needs explicit minimum and maximum");
      }
      return { shape: { kind: "integer", minimum: prop.minimum, maximum: prop.maximum }, nullable };
    case "array": {
      if (typeof prop.maxItems !== "number")
        throw new ModelError(rel, pointer, "every array needs an explicit maxItems");
      if (!isRecord(prop.items)) throw new ModelError(rel, `${pointer}/items`, "arrays need an items schema");
      const items = shapeOf(prop.items, rel, `${pointer}/items`, byFile);
      if (items.nullable) throw new ModelError(rel, `${pointer}/items`, "array items are never nullable");
      return { shape: { kind: "array", items: items.shape, maxItems: prop.maxItems }, nullable };
    }
    case "object":
      if (prop.additionalProperties !== true || prop["x-open"] !== true) {
        throw new ModelError(
          rel,
          pointer,
          'an inline object is an open map: "additionalProperties": true and "x-open": true',
        );
      }
      return { shape: { kind: "open_object" }, nullable };
    default:
      throw new ModelError(rel, `${pointer}/type`, `unsupported type ${JSON.stringify(base[0])}`);
  }
}

function buildType(file: string, schema: JsonSchema, byFile: Map<string, string>): WireType {
  const rel = `schemas/${file}`;
  if (schema.additionalProperties !== false)
    throw new ModelError(rel, "/additionalProperties", "every wire object is closed (false)");
  if (!isRecord(schema.properties)) throw new ModelError(rel, "/properties", "object schemas list their properties");
  const required = new Set((schema.required as string[] | undefined) ?? []);
  for (const name of required) {
    if (!(name in schema.properties))
      throw new ModelError(rel, "/required", `required field ${name} is not a property`);
  }
  const fields: Field[] = [];
  for (const [name, raw] of Object.entries(schema.properties)) {
    const pointer = `/properties/${name}`;
    if (!isRecord(raw)) throw new ModelError(rel, pointer, "property schema must be an object");
    const { shape, nullable } = shapeOf(raw, rel, pointer, byFile);
    const isCollection = shape.kind === "array" || shape.kind === "open_object";
    let presence: Presence;
    if (required.has(name)) presence = nullable ? "required_nullable" : "required";
    else if (raw["x-emit-null"] === true) {
      if (!nullable) throw new ModelError(rel, pointer, "x-emit-null needs a nullable field");
      presence = "optional_emit_null";
    } else if (isCollection && !nullable) presence = "collection";
    else if (nullable) presence = "optional";
    else throw new ModelError(rel, pointer, "an optional scalar must admit null (absent and null both mean none)");
    const description = typeof raw.description === "string" ? raw.description : "";
    if (!description && (shape as { kind: string }).kind !== "ref-pending") {
      throw new ModelError(rel, `${pointer}/description`, "every property needs a description");
    }
    fields.push({ name, description, presence, nullable, shape });
  }
  return {
    name: String(schema.title),
    file,
    kebab: file.slice(0, -".schema.json".length),
    id: String(schema.$id),
    description: String(schema.description),
    fields,
    schema,
  };
}

/** Replace `ref-pending` placeholders with enum or object shapes once every schema is known. */
function resolveRefs(types: WireType[], enums: EnumType[]): WireType[] {
  const enumNames = new Set(enums.map((e) => e.name));
  const resolve = (shape: Shape): Shape => {
    const pending = shape as unknown as { kind: string; target?: string };
    if (pending.kind === "ref-pending") {
      const target = pending.target as string;
      return enumNames.has(target) ? { kind: "enum", enumName: target } : { kind: "object", typeName: target };
    }
    if (shape.kind === "array") return { ...shape, items: resolve(shape.items) };
    return shape;
  };
  return types.map((t) => ({
    ...t,
    fields: t.fields.map((f) => {
      const shape = resolve(f.shape);
      const description = f.description || describeRef(shape, types, enums);
      return { ...f, shape, description };
    }),
  }));
}

function describeRef(shape: Shape, types: WireType[], enums: EnumType[]): string {
  if (shape.kind === "enum") return enums.find((e) => e.name === shape.enumName)?.description ?? "";
  if (shape.kind === "object") return types.find((t) => t.name === shape.typeName)?.description ?? "";
  return "";
}

function expectSameList(
  file: string,
  pointer: string,
  actual: readonly string[],
  expected: readonly string[],
  what: string,
): void {
  if (actual.length !== expected.length || actual.some((v, i) => v !== expected[i])) {
    throw new ModelError(
      file,
      pointer,
      `${what} must list exactly ${JSON.stringify(expected)} in that order (found ${JSON.stringify(actual)})`,
    );
  }
}

function enumValues(enums: EnumType[], name: string): readonly string[] {
  const found = enums.find((e) => e.name === name);
  if (!found) throw new ModelError("schemas/", "", `missing enum schema ${name}`);
  return found.values;
}

function resolveValues(raw: unknown, events: readonly EventRow[], file: string, pointer: string): string[] {
  if (Array.isArray(raw)) return raw as string[];
  if (isRecord(raw) && raw.table === "event-vocabulary" && typeof raw.column === "string") {
    const column = raw.column as keyof EventRow;
    const values = events.filter((row) => row[column] === true).map((row) => row.event);
    if (values.length === 0) throw new ModelError(file, pointer, `table reference selects no rows (${raw.column})`);
    return values;
  }
  throw new ModelError(file, pointer, "values are a list of strings or a table reference");
}

function fieldOf(types: WireType[], typeName: string, fieldName: string, file: string, pointer: string): Field {
  const type = types.find((t) => t.name === typeName);
  if (!type) throw new ModelError(file, pointer, `unknown wire type ${typeName}`);
  const field = type.fields.find((f) => f.name === fieldName);
  if (!field) throw new ModelError(file, pointer, `${typeName} has no field ${fieldName}`);
  return field;
}

function loadRules(raw: unknown, types: WireType[], enums: EnumType[], events: readonly EventRow[]): Rule[] {
  const file = "spec/tables/rules.json";
  const doc = raw as { rules: Record<string, unknown>[] };
  const ids = new Set<string>();
  return doc.rules.map((r, index) => {
    const base = `/rules/${index}`;
    const id = String(r.id);
    if (ids.has(id)) throw new ModelError(file, `${base}/id`, `duplicate rule id ${id}`);
    ids.add(id);
    const check = r.check as RuleCheck;
    const targets = (r.targets as Record<string, unknown>[]).map((t, ti): RuleTarget => {
      const tp = `${base}/targets/${ti}`;
      const type = String(t.type);
      const target: RuleTarget = {
        type,
        ...(typeof t.field === "string" ? { field: t.field } : {}),
        ...(Array.isArray(t.fields) ? { fields: t.fields as string[] } : {}),
        ...(t.each === true ? { each: true } : {}),
        ...(typeof t.length_field === "string" ? { lengthField: t.length_field } : {}),
      };
      const names = target.fields ?? (target.field ? [target.field] : []);
      if (names.length === 0) throw new ModelError(file, tp, "a target names a field or fields");
      for (const name of names) fieldOf(types, type, name, file, tp);
      if (target.lengthField) {
        const lengthField = fieldOf(types, type, target.lengthField, file, tp);
        if (lengthField.shape.kind !== "integer")
          throw new ModelError(file, tp, "length_field must be an integer field");
      }
      if (check === "exactly_one_present" && !target.fields)
        throw new ModelError(file, tp, "exactly_one_present needs fields");
      if (check === "fields_differ") {
        if (!target.fields) throw new ModelError(file, tp, "fields_differ needs fields");
        for (const name of target.fields) {
          if (fieldOf(types, type, name, file, tp).shape.kind !== "string")
            throw new ModelError(file, tp, "fields_differ compares string fields");
        }
      }
      if (check === "utf8_byte_length_equals" && !target.lengthField)
        throw new ModelError(file, tp, "utf8_byte_length_equals needs length_field");
      if (check === "non_empty_string") {
        const field = fieldOf(types, type, String(target.field), file, tp);
        const shape = field.shape.kind === "array" ? field.shape.items : field.shape;
        if (shape.kind !== "string") throw new ModelError(file, tp, "non_empty_string applies to string fields");
        if (Boolean(target.each) !== (field.shape.kind === "array"))
          throw new ModelError(file, tp, "`each` is set exactly for array fields");
      }
      return target;
    });
    let when: ResolvedCondition | undefined;
    if (isRecord(r.when)) {
      const op = "in" in r.when ? "in" : "not_in";
      const conditionField = String(r.when.field);
      const values = resolveValues(r.when[op], events, file, `${base}/when/${op}`);
      for (const target of targets) {
        const field = fieldOf(types, target.type, conditionField, file, `${base}/when/field`);
        if (field.shape.kind !== "enum")
          throw new ModelError(file, `${base}/when/field`, "conditions test enum fields");
        const allowed = enumValues(enums, field.shape.enumName);
        for (const v of values) {
          if (!allowed.includes(v))
            throw new ModelError(file, `${base}/when`, `${v} is not a ${field.shape.enumName} value`);
        }
      }
      when = { field: conditionField, op, values };
    }
    if ((check === "required_when" || check === "forbidden_when") && !when)
      throw new ModelError(file, base, `${check} needs when`);
    const values = r.values === undefined ? undefined : resolveValues(r.values, events, file, `${base}/values`);
    if (check === "forbidden_value" && !values) throw new ModelError(file, base, "forbidden_value needs values");
    return {
      id,
      summary: String(r.summary),
      reference: String(r.reference),
      referenceMessages: r.reference_messages as string[],
      check,
      targets,
      ...(when ? { when } : {}),
      ...(values ? { values } : {}),
      message: String(r.message),
    };
  });
}

/** Cross-check the tables against the enums and each other. */
function checkTables(tables: Tables, enums: EnumType[], types: WireType[]): void {
  expectSameList(
    "spec/tables/event-vocabulary.json",
    "/events",
    tables.eventVocabulary.events.map((r) => r.event),
    enumValues(enums, "LifecycleEventKind"),
    "the event vocabulary",
  );
  tables.eventVocabulary.events.forEach((row, i) => {
    if (row.dispatchable === row.notification_only) {
      throw new ModelError(
        "spec/tables/event-vocabulary.json",
        `/events/${i}`,
        "dispatchable is exactly !notification_only",
      );
    }
    if ((row.stream_v2 === "never_sent") !== !row.dispatchable) {
      throw new ModelError(
        "spec/tables/event-vocabulary.json",
        `/events/${i}/stream_v2`,
        "only non-dispatchable events are never_sent",
      );
    }
    if (row.requires_frame_context !== row.event.startsWith("frame.")) {
      throw new ModelError(
        "spec/tables/event-vocabulary.json",
        `/events/${i}/requires_frame_context`,
        "frame.* events, and only they, require frame_context",
      );
    }
  });
  const failureClasses = enumValues(enums, "FailureClass");
  const retryClasses = enumValues(enums, "RetryClass");
  expectSameList(
    "spec/tables/failure-retry-defaults.json",
    "/defaults",
    tables.failureRetryDefaults.defaults.map((r) => r.failure_class),
    failureClasses,
    "the retry defaults",
  );
  tables.failureRetryDefaults.defaults.forEach((row, i) => {
    if (!retryClasses.includes(row.retry_class)) {
      throw new ModelError(
        "spec/tables/failure-retry-defaults.json",
        `/defaults/${i}/retry_class`,
        `${row.retry_class} is not a RetryClass`,
      );
    }
  });
  const variants = new Set<string>();
  tables.subprocessFailureMapping.variants.forEach((row, i) => {
    const file = "spec/tables/subprocess-failure-mapping.json";
    if (variants.has(row.variant)) throw new ModelError(file, `/variants/${i}/variant`, "duplicate variant");
    variants.add(row.variant);
    if (!failureClasses.includes(row.failure_class))
      throw new ModelError(file, `/variants/${i}/failure_class`, `${row.failure_class} is not a FailureClass`);
    if (row.origin === "lifeloop-callback" && !row.reason)
      throw new ModelError(file, `/variants/${i}`, "variants added by this implementation give a reason");
  });
  const documentRuleIds = new Set<string>();
  tables.documentRules.rules.forEach((row, i) => {
    const file = "spec/tables/document-rules.json";
    if (!row.id.startsWith(`${row.layer}.`))
      throw new ModelError(file, `/rules/${i}/id`, `ids of the ${row.layer} layer start with "${row.layer}."`);
    if (documentRuleIds.has(row.id)) throw new ModelError(file, `/rules/${i}/id`, "duplicate rule id");
    documentRuleIds.add(row.id);
  });
  for (const [i, difference] of tables.referenceDifferences.differences.entries()) {
    if ((difference.scope === "validation") !== (difference.match !== undefined)) {
      throw new ModelError(
        "spec/tables/reference-differences.json",
        `/differences/${i}`,
        "validation differences, and only they, have match patterns",
      );
    }
    for (const [j, match] of (difference.match ?? []).entries()) {
      if (!documentRuleIds.has(match.rule)) {
        throw new ModelError(
          "spec/tables/reference-differences.json",
          `/differences/${i}/match/${j}/rule`,
          `unknown rule id ${match.rule}`,
        );
      }
    }
  }
  tables.clientInitiatedCommands.groups.forEach((group, gi) => {
    const file = "spec/tables/client-initiated-commands.json";
    // Frozen release snapshots (spec/releases/) may predate `members`; their meta-schema does not ask for it.
    if ((group as { readonly members?: unknown }).members === undefined) return;
    const names = group.members.map((m) => m.name);
    const need = (name: string, pointer: string): void => {
      if (!names.includes(name))
        throw new ModelError(file, pointer, `member ${name} has no type in /groups/${gi}/members`);
    };
    for (const [ci, c] of group.commands.entries())
      for (const [fi, f] of c.result_fields.entries()) need(f, `/groups/${gi}/commands/${ci}/result_fields/${fi}`);
    for (const [ei, e] of group.errors.entries())
      for (const [fi, f] of e.fields.entries()) need(f, `/groups/${gi}/errors/${ei}/fields/${fi}`);
    group.members.forEach((m, mi) => {
      if (names.indexOf(m.name) !== mi)
        throw new ModelError(file, `/groups/${gi}/members/${mi}/name`, "duplicate member");
      if ((m.type === "entries") !== (m.entry_members !== undefined))
        throw new ModelError(file, `/groups/${gi}/members/${mi}`, "entry_members is given exactly for type entries");
      for (const [ei, e] of (m.entry_members ?? []).entries())
        need(e, `/groups/${gi}/members/${mi}/entry_members/${ei}`);
    });
  });
  const guard = tables.receiptEmittedGuard;
  const guardRow = tables.eventVocabulary.events.find((r) => r.event === guard.event);
  if (!guardRow?.notification_only) {
    throw new ModelError(
      "spec/tables/receipt-emitted-guard.json",
      "/event",
      "the guarded event must be notification-only in the vocabulary",
    );
  }
  const guardVariant = tables.subprocessFailureMapping.variants.find((r) => r.variant === guard.failure_variant);
  if (!guardVariant)
    throw new ModelError("spec/tables/receipt-emitted-guard.json", "/failure_variant", "unknown failure variant");
  const limitNames = new Set<string>();
  for (const [i, limit] of tables.limits.limits.entries()) {
    if (limitNames.has(limit.name))
      throw new ModelError("spec/tables/limits.json", `/limits/${i}/name`, "duplicate limit");
    limitNames.add(limit.name);
  }
  for (const [i, row] of tables.subprocessWireFraming.streams.entries()) {
    if (row.limit !== null && !limitNames.has(row.limit)) {
      throw new ModelError(
        "spec/tables/subprocess-wire-framing.json",
        `/streams/${i}/limit`,
        `unknown limit ${row.limit}`,
      );
    }
  }
  const maxSafe = tables.limits.limits.find((l) => l.name === "max_safe_integer")?.value;
  if (maxSafe !== Number.MAX_SAFE_INTEGER)
    throw new ModelError("spec/tables/limits.json", "", "max_safe_integer must be 2^53 - 1");
  for (const type of types) {
    for (const field of type.fields) {
      const shape = field.shape.kind === "array" ? field.shape.items : field.shape;
      if (shape.kind === "integer" && (shape.maximum !== maxSafe || shape.minimum !== 0)) {
        throw new ModelError(
          `schemas/${type.file}`,
          `/properties/${field.name}`,
          `integers are bounded to [0, ${maxSafe}] (limits.max_safe_integer)`,
        );
      }
    }
  }
}

/** Options of {@link loadModel}. */
export interface LoadOptions {
  /** Load the accepted versions' snapshots into `Model.window` (default true; false for a snapshot itself). */
  readonly window?: boolean;
}

/** Where the frozen snapshot of `version` lives, repository-relative. */
export function snapshotDir(version: string): string {
  return `spec/releases/${version}`;
}

/**
 * Load the snapshot of every accepted version (spec/wire-version.json `accepted`). Errors: ModelError
 * naming spec/wire-version.json for a window that breaks its own rules (current accepted, more than
 * window_size - 1 accepted, a version that is not retired, an unknown outside-window rule) or for a
 * missing snapshot; a snapshot that today's codegen cannot load fails with the snapshot file's name.
 */
function loadWindow(root: string, wireVersion: Model["wireVersion"], ruleIds: ReadonlySet<string>): AcceptedVersion[] {
  const file = "spec/wire-version.json";
  if (!ruleIds.has(wireVersion.outside_window.rule))
    throw new ModelError(file, "/outside_window/rule", `unknown rule id ${wireVersion.outside_window.rule}`);
  if (wireVersion.accepted.length > wireVersion.window_size - 1)
    throw new ModelError(
      file,
      "/accepted",
      `${wireVersion.accepted.length} accepted versions do not fit a window of ${wireVersion.window_size} (current included)`,
    );
  return wireVersion.accepted.map((version, i) => {
    const pointer = `/accepted/${i}`;
    if (version === wireVersion.current)
      throw new ModelError(file, pointer, "the current version is not an accepted older one");
    if (!wireVersion.retired.some((r) => r.version === version))
      throw new ModelError(file, pointer, `${version} is not retired: only an older, retired version can be accepted`);
    const snapshot = snapshotDir(version);
    if (!existsSync(join(root, snapshot, "spec", "wire-version.json")))
      throw new ModelError(
        file,
        pointer,
        `accepted version ${version} has no release snapshot at ${snapshot}/ (take it with npm run snapshot-release before the bump)`,
      );
    let model: Model;
    try {
      model = loadModel(join(root, snapshot), { window: false });
    } catch (error) {
      if (error instanceof ModelError) throw new ModelError(`${snapshot}/${error.file}`, error.pointer, error.detail);
      throw error;
    }
    if (model.wireVersion.current !== version)
      throw new ModelError(
        `${snapshot}/spec/wire-version.json`,
        "/current",
        `must be ${version}, the version it freezes`,
      );
    return { version, snapshot, model };
  });
}

/** Load and check the whole model rooted at `root` (the repository root, or a release snapshot). */
export function loadModel(root: string, options: LoadOptions = {}): Model {
  const allTables = loadSpecTables(root);
  const specTables = allTables.filter((t) => !TOOLING_TABLES.has(t.stem));
  const toolTables = new Map(allTables.filter((t) => TOOLING_TABLES.has(t.stem)).map((t) => [t.stem, t]));
  const loaded = loadSchemas(root);
  const types = resolveRefs(loaded.types, loaded.enums);
  // Every document matched its meta-schema, whose generated type is the member's type.
  const tables = Object.fromEntries(specTables.map((t) => [t.key, t.doc])) as unknown as Tables;
  checkTables(tables, loaded.enums, types);
  // A frozen release snapshot (spec/releases/*) that predates stream mode has no stream-v2 table.
  if ((tables as Partial<Tables>).streamV2 !== undefined) checkStreamV2(root, tables, loaded.enums);
  const hookSchemas = loadHookSchemas(root, tables.harnessHookMapping, loaded.enums, types, tables.harnessHookInputs);
  checkHookMapping(
    tables.harnessHookMapping,
    loaded.enums,
    hookSchemas,
    tables.cliExitCodes.codes.map((c) => c.name),
    tables.referenceDifferences.differences,
  );
  checkHookInputs(tables.harnessHookInputs, tables.harnessHookMapping, hookSchemas);
  const rules = loadRules(tables.rules, types, loaded.enums, tables.eventVocabulary.events);
  const wireVersion = tables.wireVersion;
  // A tree whose wire-version.json predates the window (its own meta-schema has no `accepted`, as in
  // test/diff/fixtures/ and old snapshots) reads one version.
  const window =
    options.window === false || (wireVersion as Partial<typeof wireVersion>).accepted === undefined
      ? []
      : loadWindow(root, wireVersion, new Set(rules.map((r) => r.id)));
  const roots = types
    .filter((t) => t.schema["x-wire-document"] === true)
    .map((t) => ({ typeName: t.name, cliName: t.kebab, fixtureKind: t.kebab.replace(/-/g, "_") }));
  const occurrences = computeOccurrences(types);
  return {
    root,
    wireVersion,
    enums: loaded.enums,
    types,
    hookSchemas,
    tables,
    specTables,
    toolTables,
    sdkSources: loadSdkSources(root),
    rules,
    roots,
    occurrences,
    integerPaths: computeIntegerPaths(types),
    rulePlans: computeRulePlans(types, rules, occurrences, wireVersion.current),
    window,
  };
}
