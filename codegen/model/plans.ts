/**
 * Derived views of the model: where each object type occurs inside every other type, which
 * pointers hold integers, and the ordered rule steps each binding executes.
 *
 * Pointer patterns are RFC 6901 pointers in which the token `*` stands for any array index
 * (field names never equal `*`).
 */
import type { Occurrence, Rule, RuleStep, Shape, WireType } from "./model.js";

/**
 * Visit every field reachable from `type`, depth-first in field order, with the pointer pattern of
 * its value (`*` for array items; the item shape is what `visit` sees for arrays). Nested object
 * types are entered after their field is visited. Recursive schemas are refused.
 */
export function walkFields(
  type: WireType,
  byName: ReadonlyMap<string, WireType>,
  visit: (shape: Shape, pointer: string) => void,
  prefix = "",
  depth = 0,
): void {
  if (depth > 16) throw new Error(`type nesting too deep at ${prefix} (recursive schemas are not supported)`);
  for (const field of type.fields) {
    let shape: Shape = field.shape;
    let pointer = `${prefix}/${field.name}`;
    if (shape.kind === "array") {
      shape = shape.items;
      pointer = `${pointer}/*`;
    }
    visit(shape, pointer);
    if (shape.kind === "object") {
      const child = byName.get(shape.typeName);
      if (!child) throw new Error(`unknown type ${shape.typeName}`);
      walkFields(child, byName, visit, pointer, depth + 1);
    }
  }
}

/** For every object type, the pointer patterns where a value of a given shape kind occurs in it. */
function pathsOfKind(types: readonly WireType[], kind: Shape["kind"]): Map<string, string[]> {
  const byName = new Map(types.map((t) => [t.name, t]));
  return new Map(
    types.map((type) => {
      const out: string[] = [];
      walkFields(type, byName, (shape, pointer) => {
        if (shape.kind === kind) out.push(pointer);
      });
      return [type.name, out];
    }),
  );
}

/** For every object type, every (pointer pattern, type) where an object type occurs in it, depth-first in field order. */
export function computeOccurrences(types: readonly WireType[]): Map<string, Occurrence[]> {
  const byName = new Map(types.map((t) => [t.name, t]));
  return new Map(
    types.map((type) => {
      const out: Occurrence[] = [{ pattern: "", typeName: type.name }];
      walkFields(type, byName, (shape, pointer) => {
        if (shape.kind === "object") out.push({ pattern: pointer, typeName: shape.typeName });
      });
      return [type.name, out];
    }),
  );
}

/** For every object type, the pointer patterns of its integer fields (open maps excluded). */
export function computeIntegerPaths(types: readonly WireType[]): Map<string, string[]> {
  return pathsOfKind(types, "integer");
}

/** For every object type, the pointer patterns of its open maps (metadata, telemetry_summary). */
export function computeOpenMapPaths(types: readonly WireType[]): Map<string, string[]> {
  return pathsOfKind(types, "open_object");
}

/**
 * For every object type, its rule steps: rules in table order, each rule's targets in order, each
 * target at every occurrence of its type (depth-first, field order).
 */
export function computeRulePlans(
  types: readonly WireType[],
  rules: readonly Rule[],
  occurrences: Map<string, Occurrence[]>,
  wireVersion: string,
): Map<string, RuleStep[]> {
  const result = new Map<string, RuleStep[]>();
  for (const type of types) {
    const steps: RuleStep[] = [];
    const occ = occurrences.get(type.name) ?? [];
    for (const rule of rules) {
      for (const target of rule.targets) {
        for (const o of occ) {
          if (o.typeName !== target.type) continue;
          steps.push({
            rule: rule.id,
            check: rule.check,
            at: o.pattern,
            ...(target.field !== undefined ? { field: target.field } : {}),
            ...(target.fields !== undefined ? { fields: target.fields } : {}),
            ...(target.each ? { each: true } : {}),
            ...(target.lengthField !== undefined ? { lengthField: target.lengthField } : {}),
            ...(rule.when ? { when: rule.when } : {}),
            ...(rule.values ? { values: rule.values } : {}),
            ...(rule.check === "equals_wire_version" ? { expected: wireVersion } : {}),
            message: rule.message,
          });
        }
      }
    }
    result.set(type.name, steps);
  }
  return result;
}
