/**
 * Value-set keywords: `type` (with `number` split so that `integer` is a part of it),
 * `enum`/`const`, and the string formats `pattern`/`format`.
 *
 * @module
 */
import { canonical, token } from "../json.js";
import type { Emit, Obj } from "./context.js";

/** JSON instance types, with `number` split so that `integer` is a part of it. */
const ALL_TYPES = ["null", "boolean", "object", "array", "string", "integer", "fraction"] as const;

/** The instance types a schema admits (every type when `type` is absent). */
function typeSet(schema: Obj): Set<string> {
  if (schema.type === undefined) return new Set(ALL_TYPES);
  const list = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const out = new Set<string>();
  for (const t of list) {
    if (t === "number") {
      out.add("integer");
      out.add("fraction");
    } else out.add(t);
  }
  return out;
}

/** Type names for messages. */
function typeNames(set: Iterable<string>): string {
  return [...set].map((t) => (t === "fraction" ? "number (non-integer)" : t)).join(", ");
}

/** The set an enum/const admits, as canonical texts; null for no constraint. */
function valueSet(schema: Obj): Set<string> | null {
  let set: Set<string> | null = null;
  if (Array.isArray(schema.enum)) set = new Set(schema.enum.map(canonical));
  if ("const" in schema) {
    const c = canonical(schema.const);
    set = set === null ? new Set([c]) : new Set([...set].filter((v) => v === c));
  }
  return set;
}

/** Compares `type` and `enum`/`const` of two normalized schema objects. */
export function compareTypes(o: Obj, n: Obj, emit: Emit): void {
  const ot = typeSet(o);
  const nt = typeSet(n);
  const typesRemoved = [...ot].filter((t) => !nt.has(t));
  const typesAdded = [...nt].filter((t) => !ot.has(t));
  if (typesRemoved.length > 0) emit("schema-type-removed", "/type", `no longer accepts ${typeNames(typesRemoved)}`);
  if (typesAdded.length > 0) emit("schema-type-added", "/type", `now accepts ${typeNames(typesAdded)}`);

  // enum / const
  const ov = valueSet(o);
  const nv = valueSet(n);
  if (ov !== null || nv !== null) {
    const suffix = "enum" in n || "enum" in o ? "/enum" : "/const";
    if (ov === null) emit("schema-enum-value-removed", suffix, "an enum/const constraint was introduced");
    else if (nv === null) emit("schema-enum-value-added", suffix, "the enum/const constraint was dropped");
    else {
      const removed = [...ov].filter((v) => !nv.has(v));
      const added = [...nv].filter((v) => !ov.has(v));
      for (const v of removed) emit("schema-enum-value-removed", `${suffix}/${token(v)}`, `value ${v} removed`);
      for (const v of added) emit("schema-enum-value-added", `${suffix}/${token(v)}`, `value ${v} added`);
    }
  }
}

/** Compares `pattern` and `format` (a string format is a pattern-like constraint) of two normalized schema objects. */
export function comparePatterns(o: Obj, n: Obj, emit: Emit): void {
  for (const kw of ["pattern", "format"]) {
    if (o[kw] === n[kw]) continue;
    if (o[kw] === undefined) emit("schema-pattern-added", `/${kw}`, `${kw} ${JSON.stringify(n[kw])} introduced`);
    else if (n[kw] === undefined) emit("schema-pattern-removed", `/${kw}`, `${kw} ${JSON.stringify(o[kw])} dropped`);
    else emit("schema-pattern-changed", `/${kw}`, `${kw} ${JSON.stringify(o[kw])} → ${JSON.stringify(n[kw])}`);
  }
}
