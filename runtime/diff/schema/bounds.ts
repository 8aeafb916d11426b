/**
 * Bound keywords: `maxLength`/`minLength`, `maximum`/`minimum` and their exclusive forms,
 * `maxItems`/`minItems`, `maxProperties`/`minProperties`, `maxContains`/`minContains`, plus
 * `multipleOf` and `uniqueItems`. Raising an upper bound widens, raising a lower one narrows.
 *
 * @module
 */
import type { CompatRuleId } from "../change.js";
import type { Emit, Obj } from "./context.js";

/** Dedicated rule pairs of the bound keywords: [rule when the value goes up, rule when it goes down]. */
const BOUNDS: readonly { kw: string; upper: boolean; absent: number; up: CompatRuleId; down: CompatRuleId }[] = [
  {
    kw: "maxLength",
    upper: true,
    absent: Infinity,
    up: "schema-max-length-increased",
    down: "schema-max-length-decreased",
  },
  { kw: "minLength", upper: false, absent: 0, up: "schema-min-length-increased", down: "schema-min-length-decreased" },
  { kw: "maximum", upper: true, absent: Infinity, up: "schema-maximum-increased", down: "schema-maximum-decreased" },
  { kw: "minimum", upper: false, absent: -Infinity, up: "schema-minimum-increased", down: "schema-minimum-decreased" },
  {
    kw: "maxItems",
    upper: true,
    absent: Infinity,
    up: "schema-max-items-increased",
    down: "schema-max-items-decreased",
  },
  { kw: "minItems", upper: false, absent: 0, up: "schema-min-items-increased", down: "schema-min-items-decreased" },
  {
    kw: "exclusiveMaximum",
    upper: true,
    absent: Infinity,
    up: "schema-constraint-widened",
    down: "schema-constraint-narrowed",
  },
  {
    kw: "exclusiveMinimum",
    upper: false,
    absent: -Infinity,
    up: "schema-constraint-narrowed",
    down: "schema-constraint-widened",
  },
  {
    kw: "maxProperties",
    upper: true,
    absent: Infinity,
    up: "schema-constraint-widened",
    down: "schema-constraint-narrowed",
  },
  { kw: "minProperties", upper: false, absent: 0, up: "schema-constraint-narrowed", down: "schema-constraint-widened" },
  {
    kw: "maxContains",
    upper: true,
    absent: Infinity,
    up: "schema-constraint-widened",
    down: "schema-constraint-narrowed",
  },
  { kw: "minContains", upper: false, absent: 1, up: "schema-constraint-narrowed", down: "schema-constraint-widened" },
];

/** A bound's value, `absent` when the keyword is not a number. */
function num(value: unknown, absent: number): number {
  return typeof value === "number" ? value : absent;
}

/** A bound for messages (`unbounded` for an absent upper or lower bound). */
function fmt(n: number): string {
  return Number.isFinite(n) ? String(n) : n > 0 ? "unbounded" : "unbounded below";
}

/** Compares the bound keywords, `multipleOf` and `uniqueItems` of two normalized schema objects. */
export function compareBounds(o: Obj, n: Obj, emit: Emit): void {
  for (const b of BOUNDS) {
    const ob = num(o[b.kw], b.absent);
    const nb = num(n[b.kw], b.absent);
    if (nb > ob) emit(b.up, `/${b.kw}`, `${b.kw} ${fmt(ob)} → ${fmt(nb)}`);
    else if (nb < ob) emit(b.down, `/${b.kw}`, `${b.kw} ${fmt(ob)} → ${fmt(nb)}`);
  }
  compareMultipleOf(o, n, emit);
  if ((o.uniqueItems === true) !== (n.uniqueItems === true)) {
    emit(
      n.uniqueItems === true ? "schema-constraint-narrowed" : "schema-constraint-widened",
      "/uniqueItems",
      `uniqueItems ${String(o.uniqueItems === true)} → ${String(n.uniqueItems === true)}`,
    );
  }
}

/** `multipleOf`: the multiples of a are multiples of b when b divides a. */
function compareMultipleOf(o: Obj, n: Obj, emit: Emit): void {
  const a = typeof o.multipleOf === "number" ? o.multipleOf : undefined;
  const b = typeof n.multipleOf === "number" ? n.multipleOf : undefined;
  if (a === b) return;
  const detail = `multipleOf ${String(a)} → ${String(b)}`;
  if (a === undefined) {
    emit("schema-constraint-narrowed", "/multipleOf", detail);
    return;
  }
  if (b === undefined) {
    emit("schema-constraint-widened", "/multipleOf", detail);
    return;
  }
  const divides = (x: number, y: number): boolean => Number.isInteger(x / y);
  // Multiples of a are multiples of b when b divides a (old ⊆ new); the converse when a divides b.
  if (!divides(a, b)) emit("schema-constraint-narrowed", "/multipleOf", detail);
  if (!divides(b, a)) emit("schema-constraint-widened", "/multipleOf", detail);
}
