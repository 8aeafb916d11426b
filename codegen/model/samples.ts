/**
 * Sample wire documents built from the {@link Model}, for test data: the shared vectors target
 * (codegen/targets/vectors/vectors.ts) and the conformance corpus (codegen/targets/vectors/corpus*.ts).
 *
 * Everything here is derived *by construction* from the schemas and the rule plans, never by running
 * a validator (codegen must not import runtime/): a base object holds exactly its required members
 * (required-nullable ones as null), then {@link satisfy} edits it until every rule step of its type
 * holds, never touching the members the caller pinned. A step that cannot be satisfied without
 * touching a pinned member is reported back as a conflict: that is how a caller learns, by
 * construction, that a pinned value breaks a rule (e.g. a LifecycleReceipt whose event is
 * receipt.emitted).
 *
 * Rule semantics mirrored here (spec/README.md, "Rules"): a member is present when its key exists and
 * its value is not null; a condition holds only for a string member.
 */
import type { Field, Model, Occurrence, RuleStep, Shape, WireType } from "./model.js";

/** A mutable JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A mutable JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** A rule step that {@link satisfy} could not make hold without changing a pinned member. */
export interface Conflict {
  readonly step: RuleStep;
  /** Pointer of the offending member relative to the satisfied object (e.g. `/event`). */
  readonly pointer: string;
}

/** Thrown when the model admits no sample (e.g. rules that contradict each other). */
export class SampleError extends Error {
  override readonly name = "SampleError";
}

/** The wire object type called `name`. */
export function typeNamed(model: Model, name: string): WireType {
  const type = model.types.find((t) => t.name === name);
  if (!type) throw new SampleError(`unknown wire type ${name}`);
  return type;
}

/** The values of the enum called `name`, in schema order. */
export function enumValuesOf(model: Model, name: string): readonly string[] {
  const found = model.enums.find((e) => e.name === name);
  if (!found) throw new SampleError(`unknown enum ${name}`);
  return found.values;
}

/** The field `name` of `type`. */
export function fieldNamed(type: WireType, name: string): Field {
  const field = type.fields.find((f) => f.name === name);
  if (!field) throw new SampleError(`${type.name} has no field ${name}`);
  return field;
}

/** UTF-8 byte length of a string. */
export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Lower-case kebab slug of any text, for file names and ids (e.g. `/request/event_id` -> `request-event-id`). */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** A short sample string for a field, e.g. `event-id-1` for `event_id`. */
export function sampleString(fieldName: string): string {
  return `${fieldName.replace(/_/g, "-")}-1`;
}

/** A schema-valid sample of `shape` (objects satisfy their rules; arrays hold one item; open maps are empty). */
export function sampleValue(model: Model, shape: Shape, fieldName: string): JsonValue {
  switch (shape.kind) {
    case "string":
      return sampleString(fieldName);
    case "integer":
      return 1;
    case "enum":
      return enumValuesOf(model, shape.enumName)[0] as string;
    case "object":
      return baseObject(model, shape.typeName);
    case "open_object":
      return {};
    case "array":
      return [sampleValue(model, shape.items, fieldName)];
  }
}

/** The smallest object of `typeName` that satisfies its schema and rules: required members only. */
export function baseObject(model: Model, typeName: string): JsonObject {
  const type = typeNamed(model, typeName);
  const obj: JsonObject = {};
  for (const field of type.fields) {
    if (field.presence === "required") obj[field.name] = sampleValue(model, field.shape, field.name);
    else if (field.presence === "required_nullable") obj[field.name] = null;
  }
  const conflicts = satisfy(model, typeName, obj, new Set());
  if (conflicts.length > 0)
    throw new SampleError(`the rules of ${typeName} admit no base object (${conflicts[0]?.step.rule})`);
  return obj;
}

/**
 * An object of `typeName` with every member filled in (optional scalars, one item per collection, a
 * small open map), then satisfied: a "typical" rich document.
 */
export function fullObject(model: Model, typeName: string): JsonObject {
  const type = typeNamed(model, typeName);
  const obj: JsonObject = {};
  for (const field of type.fields) {
    const shape = field.shape;
    if (shape.kind === "open_object")
      obj[field.name] = { trace_id: "trace-1", attempt: 2, tags: ["a", "b"], nested: { ok: true, none: null } };
    else if (shape.kind === "object") obj[field.name] = fullObject(model, shape.typeName);
    else if (shape.kind === "array" && shape.items.kind === "object")
      obj[field.name] = [fullObject(model, shape.items.typeName)];
    else obj[field.name] = sampleValue(model, shape, field.name);
  }
  const conflicts = satisfy(model, typeName, obj, new Set());
  if (conflicts.length > 0)
    throw new SampleError(`the rules of ${typeName} admit no full object (${conflicts[0]?.step.rule})`);
  return obj;
}

/** True when `obj` has `field` with a non-null value. */
export function isPresent(obj: JsonObject, field: string): boolean {
  return Object.hasOwn(obj, field) && obj[field] !== null && obj[field] !== undefined;
}

function conditionHolds(when: NonNullable<RuleStep["when"]>, value: JsonValue | undefined): boolean {
  if (typeof value !== "string") return false;
  const member = when.values.includes(value);
  return when.op === "in" ? member : !member;
}

/** The rule steps that apply to an object of `typeName` itself (at its own root). */
export function ownSteps(model: Model, typeName: string): readonly RuleStep[] {
  return (model.rulePlans.get(typeName) ?? []).filter((s) => s.at === "");
}

/**
 * Edit `obj` (of `typeName`) until every rule step of the type holds, never changing a member named
 * in `pinned`. Returns the steps that still fail because of a pinned member (empty when `obj` now
 * satisfies every rule). Nested objects are not revisited (rules are per object).
 */
export function satisfy(model: Model, typeName: string, obj: JsonObject, pinned: ReadonlySet<string>): Conflict[] {
  const type = typeNamed(model, typeName);
  const steps = ownSteps(model, typeName);
  /** Members removed to honour a pinned member; never re-added. */
  const blocked = new Set<string>();
  const free = (name: string): boolean => !pinned.has(name);
  const addable = (name: string): boolean => free(name) && !blocked.has(name);
  const remove = (name: string): void => {
    if (fieldNamed(type, name).presence === "required_nullable") obj[name] = null;
    else delete obj[name];
    blocked.add(name);
  };
  const unsetCondition = (step: RuleStep): boolean => {
    const when = step.when as NonNullable<RuleStep["when"]>;
    const field = fieldNamed(type, when.field);
    if (!free(when.field) || field.shape.kind !== "enum") return false;
    const other = enumValuesOf(model, field.shape.enumName).find((v) => !conditionHolds(when, v));
    if (other === undefined) return false;
    obj[when.field] = other;
    return true;
  };
  for (let round = 0; round < 16; round++) {
    let changed = false;
    const conflicts: Conflict[] = [];
    const conflict = (step: RuleStep, member: string): void => {
      conflicts.push({ step, pointer: `/${member}` });
    };
    for (const step of steps) {
      const name = step.field ?? "";
      const value = obj[name];
      switch (step.check) {
        case "equals_wire_version":
          if (typeof value === "string" && value !== step.expected) {
            if (free(name)) {
              obj[name] = step.expected as string;
              changed = true;
            } else conflict(step, name);
          }
          break;
        case "non_empty_string":
          if (step.each && Array.isArray(value)) {
            value.forEach((item, i) => {
              if (item !== "") return;
              if (free(name)) {
                value[i] = sampleString(name);
                changed = true;
              } else conflicts.push({ step, pointer: `/${name}/${i}` });
            });
          } else if (value === "") {
            if (free(name)) {
              obj[name] = sampleString(name);
              changed = true;
            } else conflict(step, name);
          }
          break;
        case "required_when":
          if (step.when && conditionHolds(step.when, obj[step.when.field]) && !isPresent(obj, name)) {
            if (addable(name)) {
              obj[name] = sampleValue(model, fieldNamed(type, name).shape, name);
              changed = true;
            } else if (unsetCondition(step)) changed = true;
            else conflict(step, name);
          }
          break;
        case "forbidden_when":
          if (step.when && conditionHolds(step.when, obj[step.when.field]) && isPresent(obj, name)) {
            if (free(name)) {
              remove(name);
              changed = true;
            } else if (unsetCondition(step)) changed = true;
            else conflict(step, name);
          }
          break;
        case "forbidden_value":
          if (typeof value === "string" && (step.values ?? []).includes(value)) {
            const field = fieldNamed(type, name);
            const other =
              field.shape.kind === "enum"
                ? enumValuesOf(model, field.shape.enumName).find((v) => !(step.values ?? []).includes(v))
                : undefined;
            if (free(name) && other !== undefined) {
              obj[name] = other;
              changed = true;
            } else conflict(step, name);
          }
          break;
        case "exactly_one_present": {
          const fields = step.fields ?? [];
          const here = fields.filter((f) => isPresent(obj, f));
          if (here.length === 0) {
            const pick = fields.find(addable);
            if (pick !== undefined) {
              obj[pick] = sampleValue(model, fieldNamed(type, pick).shape, pick);
              changed = true;
            } else conflicts.push({ step, pointer: "" });
          } else if (here.length > 1) {
            const keep = here.find((f) => !free(f)) ?? (here[0] as string);
            const drop = here.filter((f) => f !== keep && free(f));
            for (const f of drop) remove(f);
            if (drop.length > 0) changed = true;
            if (here.length - drop.length > 1) conflict(step, here.filter((f) => !drop.includes(f))[1] as string);
          }
          break;
        }
        case "utf8_byte_length_equals": {
          const lengthField = step.lengthField ?? "";
          const declared = obj[lengthField];
          if (typeof value === "string" && typeof declared === "number" && utf8Length(value) !== declared) {
            if (free(lengthField)) {
              obj[lengthField] = utf8Length(value);
              changed = true;
            } else if (free(name)) {
              remove(name);
              changed = true;
            } else conflict(step, name);
          }
          break;
        }
        case "non_empty_array":
          if (Array.isArray(value) && value.length === 0) {
            const field = fieldNamed(type, name);
            if (free(name) && field.shape.kind === "array") {
              value.push(sampleValue(model, field.shape.items, name));
              changed = true;
            } else conflict(step, name);
          }
          break;
        case "fields_differ": {
          const fields = step.fields ?? [];
          for (let i = 1; i < fields.length; i++) {
            const later = fields[i] as string;
            const current = obj[later];
            if (typeof current !== "string" || !fields.slice(0, i).some((f) => obj[f] === current)) continue;
            const fresh = [sampleString(later), `${current}-other`].find((v) => !fields.some((f) => obj[f] === v));
            if (free(later) && fresh !== undefined) {
              obj[later] = fresh;
              changed = true;
            } else conflict(step, later);
          }
          break;
        }
      }
    }
    if (!changed) return conflicts;
  }
  throw new SampleError(`the rules of ${typeName} do not settle (a rule cycle in spec/tables/rules.json?)`);
}

/** Concrete pointer of a pattern: every `*` becomes index 0. */
export function concretePointer(pattern: string): string {
  return pattern.replace(/\/\*(?=\/|$)/g, "/0");
}

/**
 * Walk `root` (of `rootType`) along `pattern` (an occurrence pattern; `*` = index 0), creating base
 * objects and one-item arrays where members are missing. Returns the object found there and its type.
 */
export function objectAt(
  model: Model,
  rootType: string,
  root: JsonObject,
  pattern: string,
): { readonly obj: JsonObject; readonly typeName: string } {
  const tokens = pattern === "" ? [] : pattern.slice(1).split("/");
  let obj = root;
  let type = typeNamed(model, rootType);
  for (let i = 0; i < tokens.length; i++) {
    const field = fieldNamed(type, tokens[i] as string);
    let shape = field.shape;
    if (shape.kind === "array") {
      if (tokens[i + 1] !== "*") throw new SampleError(`pattern ${pattern}: an array member is followed by *`);
      i++;
      let items = obj[field.name];
      if (!Array.isArray(items)) {
        items = [];
        obj[field.name] = items;
      }
      shape = shape.items;
      if (shape.kind !== "object") throw new SampleError(`pattern ${pattern}: ${field.name} does not hold objects`);
      if (items.length === 0) items.push(baseObject(model, shape.typeName));
      obj = items[0] as JsonObject;
      type = typeNamed(model, shape.typeName);
    } else if (shape.kind === "object") {
      const next = obj[field.name];
      if (next === null || typeof next !== "object" || Array.isArray(next))
        obj[field.name] = baseObject(model, shape.typeName);
      obj = obj[field.name] as JsonObject;
      type = typeNamed(model, shape.typeName);
    } else {
      throw new SampleError(`pattern ${pattern}: ${field.name} is not an object`);
    }
  }
  return { obj, typeName: type.name };
}

/** Outcome of {@link editDocument}: the document and what it is expected to be, by construction. */
export interface EditedDocument {
  readonly doc: JsonObject;
  /** Rule conflicts the edit could not avoid (pointers are absolute). Empty when only the edit itself matters. */
  readonly conflicts: readonly Conflict[];
}

/**
 * Copy `base` (a document of `rootType`), then apply `edit` to the object at `pattern` with the members
 * listed in `pinned` held fixed, and satisfy that object's rules again. Conflict pointers are made
 * absolute (prefixed with the concrete pointer of `pattern`).
 */
export function editDocument(
  model: Model,
  rootType: string,
  base: JsonObject,
  pattern: string,
  pinned: readonly string[],
  edit: (obj: JsonObject) => void,
): EditedDocument {
  const doc = structuredClone(base);
  const { obj, typeName } = objectAt(model, rootType, doc, pattern);
  edit(obj);
  const prefix = concretePointer(pattern);
  const conflicts = satisfy(model, typeName, obj, new Set(pinned)).map((c) => ({
    step: c.step,
    pointer: `${prefix}${c.pointer}`,
  }));
  return { doc, conflicts };
}

/**
 * For every object type: the occurrence used to exercise its fields in one document. A type that is a
 * wire document is exercised as itself; any other type at its shallowest occurrence inside a wire
 * document (ties: the first document in model order).
 */
export function representativeOccurrences(
  model: Model,
): ReadonlyMap<string, { readonly rootType: string; readonly occurrence: Occurrence }> {
  const result = new Map<string, { rootType: string; occurrence: Occurrence; depth: number }>();
  for (const root of model.roots) {
    for (const occurrence of model.occurrences.get(root.typeName) ?? []) {
      const depth = occurrence.pattern === "" ? 0 : occurrence.pattern.split("/").length - 1;
      const best = result.get(occurrence.typeName);
      if (!best || depth < best.depth) result.set(occurrence.typeName, { rootType: root.typeName, occurrence, depth });
    }
  }
  return result;
}

/** The enum name of an enum-valued field (or its array items), or null. */
export function enumNameOf(shape: Shape): string | null {
  if (shape.kind === "enum") return shape.enumName;
  if (shape.kind === "array" && shape.items.kind === "enum") return shape.items.enumName;
  return null;
}

/**
 * A string of exactly `codePoints` Unicode code points that ends with one astral character
 * (U+1F600, two UTF-16 code units, four UTF-8 bytes), so that counting UTF-16 units or bytes instead of
 * code points gives a different answer.
 */
export function stringOfCodePoints(codePoints: number): string {
  if (codePoints <= 0) return "";
  return `${"a".repeat(codePoints - 1)}\u{1F600}`;
}
