/**
 * Combinators: `allOf` (conjunction), `anyOf`/`oneOf` (disjunction; a changed `oneOf` is
 * undecided), `not` (flips the direction), `if`/`then`/`else` (a changed `if` is undecided) and
 * `dependentSchemas`.
 *
 * @module
 */
import { isObject, token } from "../json.js";
import type { Comparison, Obj } from "./context.js";
import type { SchemaNode } from "./side.js";

/** True when a fresh comparison of the oneOf branches finds any change other than documentation. */
function branchesDiffer(c: Comparison, oNode: SchemaNode, nNode: SchemaNode, olen: number, nlen: number): boolean {
  if (olen !== nlen) return true;
  const probe = c.probe();
  for (let i = 0; i < olen; i++) probe.compare(c.child(oNode, "oneOf", i), c.child(nNode, "oneOf", i), false);
  return probe.out.some((c) => c.rule !== "doc-changed");
}

/** Compares the combinators and `dependentSchemas` of two schema objects. */
export function compareCombinators(
  c: Comparison,
  oNode: SchemaNode,
  nNode: SchemaNode,
  o: Obj,
  n: Obj,
  negated: boolean,
): void {
  const at = c.loc(nNode);
  // allOf: conjunction (an added branch narrows); anyOf/oneOf: disjunction (an added branch widens).
  for (const kw of ["allOf", "anyOf", "oneOf"] as const) {
    const a = Array.isArray(o[kw]) ? (o[kw] as unknown[]) : [];
    const b = Array.isArray(n[kw]) ? (n[kw] as unknown[]) : [];
    if (a.length === 0 && b.length === 0) continue;
    const before = c.out.length;
    const conj = kw === "allOf";
    if (a.length === 0 || b.length === 0) {
      // introducing or dropping the whole keyword
      const narrowed = conj ? b.length > 0 : a.length > 0;
      c.emit(
        narrowed ? "schema-constraint-narrowed" : "schema-constraint-widened",
        `${at}/${kw}`,
        `${kw} ${b.length > 0 ? "introduced" : "dropped"}`,
        negated,
      );
    } else {
      for (let i = 0; i < Math.min(a.length, b.length); i++)
        c.compare(c.child(oNode, kw, i), c.child(nNode, kw, i), negated);
      for (let i = a.length; i < b.length; i++)
        c.emit(
          conj ? "schema-constraint-narrowed" : "schema-constraint-widened",
          `${at}/${kw}/${i}`,
          `${kw} branch ${i} added`,
          negated,
        );
      for (let i = b.length; i < a.length; i++)
        c.emit(
          conj ? "schema-constraint-widened" : "schema-constraint-narrowed",
          `${c.loc(oNode)}/${kw}/${i}`,
          `${kw} branch ${i} removed`,
          negated,
        );
    }
    // A branch pair already compared elsewhere emits nothing here (it is visited once), so a fresh
    // probe says whether the branches differ at all.
    if (kw === "oneOf" && (c.out.length > before || branchesDiffer(c, oNode, nNode, a.length, b.length))) {
      c.emit(
        "schema-combinator-undecided",
        `${at}/oneOf`,
        "a oneOf changed: widening one branch can make a document match two",
        negated,
      );
    }
  }
  if ("not" in o || "not" in n) {
    if (!("not" in o)) c.emit("schema-constraint-narrowed", `${at}/not`, "not introduced", negated);
    else if (!("not" in n)) c.emit("schema-constraint-widened", `${at}/not`, "not dropped", negated);
    else c.compare(c.child(oNode, "not"), c.child(nNode, "not"), !negated);
  }
  if ("if" in o || "if" in n) {
    const probe = c.probe();
    const oif = "if" in o ? c.child(oNode, "if") : { ...oNode, schema: true };
    const nif = "if" in n ? c.child(nNode, "if") : { ...nNode, schema: true };
    probe.compare(oif, nif, false);
    if (probe.out.some((c) => c.rule !== "doc-changed")) {
      c.emit("schema-combinator-undecided", `${at}/if`, "the if condition changed", negated);
    }
    for (const kw of ["then", "else"]) {
      const on = kw in o ? c.child(oNode, kw) : { ...oNode, schema: true, pointer: `${oNode.pointer}/${kw}` };
      const nn = kw in n ? c.child(nNode, kw) : { ...nNode, schema: true, pointer: `${nNode.pointer}/${kw}` };
      c.compare(on, nn, negated);
    }
  }
  const ods = isObject(o.dependentSchemas) ? o.dependentSchemas : {};
  const nds = isObject(n.dependentSchemas) ? n.dependentSchemas : {};
  for (const key of new Set([...Object.keys(ods), ...Object.keys(nds)])) {
    // "if key is present, S": monotone in S.
    if (!(key in ods))
      c.emit(
        "schema-constraint-narrowed",
        `${at}/dependentSchemas/${token(key)}`,
        `dependent schema of ${key} introduced`,
        negated,
      );
    else if (!(key in nds))
      c.emit(
        "schema-constraint-widened",
        `${at}/dependentSchemas/${token(key)}`,
        `dependent schema of ${key} dropped`,
        negated,
      );
    else c.compare(c.child(oNode, "dependentSchemas", key), c.child(nNode, "dependentSchemas", key), negated);
  }
}
