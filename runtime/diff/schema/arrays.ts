/**
 * Array keywords: the positions (`prefixItems` + `items`/`unevaluatedItems`) and `contains`.
 *
 * @module
 */
import { jsonEqual } from "../json.js";
import { acceptsAll, type Comparison, type Member, type Obj } from "./context.js";
import { compareMember, type MemberRules, rest } from "./objects.js";
import { sameReach } from "./refs.js";
import type { SchemaNode } from "./side.js";

/** The keyword that governs array positions after `prefixItems`: `items`, else (no dynamic applicators) `unevaluatedItems`. */
function itemsKw(s: Obj): string {
  return "items" in s ? "items" : "unevaluatedItems";
}

/** Compares the array positions and `contains` of two schema objects. */
export function compareArrays(
  c: Comparison,
  oNode: SchemaNode,
  nNode: SchemaNode,
  o: Obj,
  n: Obj,
  negated: boolean,
): void {
  const at = c.loc(nNode);
  if (
    "prefixItems" in o ||
    "prefixItems" in n ||
    "items" in o ||
    "items" in n ||
    "unevaluatedItems" in o ||
    "unevaluatedItems" in n
  ) {
    if (!jsonEqual(o.unevaluatedItems, n.unevaluatedItems)) {
      c.emit("schema-combinator-undecided", `${at}/unevaluatedItems`, "unevaluatedItems changed", negated);
    } else if (
      "unevaluatedItems" in o &&
      ["allOf", "anyOf", "oneOf", "if", "$ref", "not"].some((k) => k in o || k in n) &&
      !sameReach(c, oNode, nNode, o, n)
    ) {
      // Which positions count as evaluated depends on the applicators, which changed.
      c.emit(
        "schema-combinator-undecided",
        `${at}/unevaluatedItems`,
        "unevaluatedItems next to applicators that changed",
        negated,
      );
    }
    const olen = Array.isArray(o.prefixItems) ? o.prefixItems.length : 0;
    const nlen = Array.isArray(n.prefixItems) ? n.prefixItems.length : 0;
    const position = (node: SchemaNode, s: Obj, i: number, len: number): Member =>
      i < len
        ? acceptsAll((s.prefixItems as unknown[])[i])
          ? { kind: "anything" }
          : (s.prefixItems as unknown[])[i] === false
            ? { kind: "never" }
            : { kind: "schema", node: c.child(node, "prefixItems", i) }
        : rest(c, node, s, itemsKw(s));
    const rules: MemberRules = {
      added: "schema-tuple-item-added",
      removed: "schema-tuple-item-removed",
      addedOpen: "schema-constraint-narrowed",
      removedOpen: "schema-constraint-widened",
    };
    for (let i = 0; i < Math.max(olen, nlen); i++) {
      compareMember(
        c,
        position(oNode, o, i, olen),
        position(nNode, n, i, nlen),
        `${at}/prefixItems/${i}`,
        negated,
        rules,
        `array position ${i}`,
      );
    }
    compareMember(
      c,
      rest(c, oNode, o, itemsKw(o)),
      rest(c, nNode, n, itemsKw(n)),
      `${at}/${itemsKw(n)}`,
      negated,
      rules,
      "array items after the tuple",
    );
  }
  if ("contains" in o || "contains" in n) {
    if (!("contains" in o)) c.emit("schema-constraint-narrowed", `${at}/contains`, "contains introduced", negated);
    else if (!("contains" in n)) c.emit("schema-constraint-widened", `${at}/contains`, "contains dropped", negated);
    else c.compare(c.child(oNode, "contains"), c.child(nNode, "contains"), negated);
  }
}
