/**
 * `$ref`: following plain references ({@link deref}), a `$ref` with assertion siblings compared
 * as a conjunct, `$dynamicRef`/`$recursiveRef` (not modelled), and the transitive reach of a
 * schema's references ({@link sameReach}).
 *
 * @module
 */
import { canonical, isObject, jsonEqual, token } from "../json.js";
import { ANNOTATIONS, type Comparison, type Emit, normalize, type Obj } from "./context.js";
import { rebase, type SchemaNode, type SchemaSide } from "./side.js";

/** Follow `$ref`s that carry no assertions besides, so that a type and its inlined copy compare equal. */
export function deref(c: Comparison, node: SchemaNode, side: SchemaSide, negated: boolean): SchemaNode | null {
  let current = node;
  for (let hops = 0; hops < 32; hops++) {
    if (!isObject(current.schema)) return current;
    const schema = normalize(current.schema, current.doc.dialect);
    if (typeof schema.$ref !== "string") return current;
    const siblings = Object.keys(schema).filter((k) => k !== "$ref" && !ANNOTATIONS.has(k) && !k.startsWith("x-"));
    if (siblings.length > 0) return current;
    const base = side.baseOf(current);
    const target = side.resolve(schema.$ref, base);
    if (!target) {
      c.emit("schema-ref-unresolved", c.loc(current, "/$ref"), side.unresolved(schema.$ref, base), negated);
      return null;
    }
    current = target;
  }
  c.emit("schema-ref-unresolved", c.loc(current), "more than 32 chained $ref hops", negated);
  return null;
}

/** Compares `$ref`s that sit beside other keywords, and `$dynamicRef`/`$recursiveRef`. */
export function compareRefSiblings(
  c: Comparison,
  oNode: SchemaNode,
  nNode: SchemaNode,
  o: Obj,
  n: Obj,
  negated: boolean,
  emit: Emit,
): void {
  // $ref with assertion siblings (2020-12): an in-place applicator, compared as a conjunct.
  if (typeof o.$ref === "string" || typeof n.$ref === "string") {
    if (typeof o.$ref === "string" && typeof n.$ref === "string") {
      const ob = c.oldSide.baseOf(oNode);
      const nb = c.newSide.baseOf(nNode);
      const ot = c.oldSide.resolve(o.$ref, ob);
      const nt = c.newSide.resolve(n.$ref, nb);
      if (!ot) emit("schema-ref-unresolved", "/$ref", `${c.oldSide.unresolved(o.$ref, ob)} (old)`);
      else if (!nt) emit("schema-ref-unresolved", "/$ref", c.newSide.unresolved(n.$ref, nb));
      else c.compare(ot, nt, negated);
    } else if (typeof n.$ref === "string") {
      emit("schema-constraint-narrowed", "/$ref", `a $ref (${n.$ref}) was added next to other keywords`);
    } else {
      emit("schema-constraint-widened", "/$ref", `a $ref (${String(o.$ref)}) was removed`);
    }
  }

  // $dynamicRef / $recursiveRef: the target depends on the dynamic scope, which is not modelled;
  // unless nothing on either side changed, what it accepts may have changed.
  for (const kw of ["$dynamicRef", "$recursiveRef"]) {
    if ((kw in o || kw in n) && !(jsonEqual(o[kw], n[kw]) && c.sidesEqual())) {
      emit(
        "schema-keyword-changed",
        `/${token(kw)}`,
        `${kw}: its target depends on the dynamic scope, which this gate does not compare`,
      );
    }
  }
}

/**
 * True when two schemas are equal JSON and so is every schema their `$ref`s reach (transitively):
 * then keywords that depend on what the applicators evaluate (`unevaluated*`) mean the same on both sides.
 */
export function sameReach(c: Comparison, oNode: SchemaNode, nNode: SchemaNode, o: Obj, n: Obj): boolean {
  return jsonEqual(o, n) && jsonEqual(refClosure(oNode, c.oldSide), refClosure(nNode, c.newSide));
}

/** Most schemas {@link refClosure} visits before it gives up (a huge reach counts as changed). */
const MAX_REACH = 10_000;

/**
 * Every schema reachable from `node` through `$ref`s, as `ref → canonical JSON` texts in discovery
 * order (`unresolved` for a dangling one). Cycles end at schemas already visited.
 */
function refClosure(node: SchemaNode, side: SchemaSide): string[] {
  const out: string[] = [];
  const visited = new Set<string>();
  const queue: SchemaNode[] = [node];
  while (queue.length > 0) {
    const current = queue.shift() as SchemaNode;
    const walk = (value: unknown, base: string, top: boolean): void => {
      if (Array.isArray(value)) {
        for (const v of value) walk(v, base, false);
      } else if (isObject(value)) {
        if (!top && typeof value.$id === "string") base = rebase(value.$id, base);
        if (typeof value.$ref === "string") {
          const target = side.resolve(value.$ref, base);
          const key = target ? `${target.doc.uri}#${target.pointer}` : `unresolved ${value.$ref}`;
          out.push(`${value.$ref} → ${target ? canonical(target.schema) : "unresolved"}`);
          if (target && !visited.has(key)) {
            visited.add(key);
            queue.push(target);
          }
        }
        for (const v of Object.values(value)) walk(v, base, false);
      }
    };
    walk(current.schema, side.baseOf(current), true);
    if (visited.size > MAX_REACH) return [...out, "too many schemas"];
  }
  return out;
}
