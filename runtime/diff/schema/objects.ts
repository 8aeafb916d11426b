/**
 * Object keywords: `required` and `dependentRequired`, and the content model (`properties`,
 * `patternProperties`, `additionalProperties`/`unevaluatedProperties`, `propertyNames`), with the
 * bounded run of a property-name pattern ({@link patternRunRefusal}). Also the member model that
 * arrays.ts shares ({@link rest}, {@link compareMember}).
 *
 * @module
 */
import { isObject, jsonEqual, token } from "../json.js";
import { acceptsAll, type Comparison, type Emit, type Member, type Obj } from "./context.js";
import type { CompatRuleId } from "../change.js";
import { sameReach } from "./refs.js";
import type { SchemaNode } from "./side.js";

/** The rules a member comparison reports: a member accepted / refused on one side only, constrained / unconstrained. */
export interface MemberRules {
  readonly added: CompatRuleId;
  readonly removed: CompatRuleId;
  readonly addedOpen: CompatRuleId;
  readonly removedOpen: CompatRuleId;
}

/** Compares `required` and `dependentRequired` of two normalized schema objects. */
export function compareRequired(o: Obj, n: Obj, emit: Emit): void {
  // required, dependentRequired
  const oreq = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
  const nreq = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
  for (const name of nreq)
    if (!oreq.has(name)) emit("schema-required-added", `/required/${token(name)}`, `${name} became required`);
  for (const name of oreq)
    if (!nreq.has(name)) emit("schema-required-removed", `/required/${token(name)}`, `${name} is no longer required`);
  const odr = isObject(o.dependentRequired) ? o.dependentRequired : {};
  const ndr = isObject(n.dependentRequired) ? n.dependentRequired : {};
  for (const key of new Set([...Object.keys(odr), ...Object.keys(ndr)])) {
    const a = new Set((odr[key] as string[] | undefined) ?? []);
    const b = new Set((ndr[key] as string[] | undefined) ?? []);
    if ([...b].some((x) => !a.has(x)))
      emit(
        "schema-constraint-narrowed",
        `/dependentRequired/${token(key)}`,
        `more members required when ${key} is present`,
      );
    if ([...a].some((x) => !b.has(x)))
      emit(
        "schema-constraint-widened",
        `/dependentRequired/${token(key)}`,
        `fewer members required when ${key} is present`,
      );
  }
}

/**
 * The schema a concrete property name meets on one side (properties, else patterns, else the
 * rest). A pattern is only run against the name when that matters (the rest constrains) and
 * when {@link patternRunRefusal} finds its backtracking bounded; otherwise whether it covers the
 * name is undecided: a schema-pattern-properties-changed warning says why, and the name counts as
 * covered (the pattern schemas are compared as their own conjuncts).
 */
function memberFor(c: Comparison, node: SchemaNode, s: Obj, name: string, restKw: string, negated: boolean): Member {
  const props = isObject(s.properties) ? s.properties : {};
  if (Object.hasOwn(props, name)) return { kind: "schema", node: c.child(node, "properties", name) };
  const restMember = rest(c, node, s, restKw);
  if (restMember.kind === "anything") return restMember; // covered by a pattern or not, the name may hold anything here
  const patterns = isObject(s.patternProperties) ? Object.keys(s.patternProperties) : [];
  for (const pattern of patterns) {
    const refusal = patternRunRefusal(pattern, name);
    if (refusal !== null) {
      c.emit(
        "schema-pattern-properties-changed",
        `${c.loc(node)}/patternProperties/${token(pattern)}`,
        `whether this pattern covers property ${name} is not decided: ${refusal}`,
        negated,
      );
      return { kind: "anything" };
    }
    if (safeTest(pattern, name)) return { kind: "anything" };
  }
  return restMember;
}

/** What the keyword `kw` (the rest of an object, or the items after a tuple) lets a member hold. */
export function rest(c: Comparison, node: SchemaNode, s: Obj, kw: string): Member {
  const value = s[kw];
  if (value === undefined || acceptsAll(value)) return { kind: "anything" };
  if (value === false) return { kind: "never" };
  return { kind: "schema", node: c.child(node, kw) };
}

/** Compares what a member accepts on each side, reporting with the given rule set. */
export function compareMember(
  c: Comparison,
  o: Member,
  n: Member,
  at: string,
  negated: boolean,
  rules: MemberRules,
  what: string,
): void {
  if (o.kind === "never" && n.kind === "never") return;
  if (o.kind === "never") {
    c.emit(rules.added, at, `${what} is now accepted`, negated);
    return;
  }
  if (n.kind === "never") {
    c.emit(rules.removed, at, `${what} is no longer accepted`, negated);
    return;
  }
  if (o.kind === "anything" && n.kind === "anything") return;
  if (o.kind === "anything" && n.kind === "schema") {
    if (!acceptsAll(n.node.schema)) c.emit(rules.addedOpen, at, `${what} is now constrained`, negated);
    return;
  }
  if (o.kind === "schema" && n.kind === "anything") {
    if (!acceptsAll(o.node.schema)) c.emit(rules.removedOpen, at, `${what} is no longer constrained`, negated);
    return;
  }
  if (o.kind === "schema" && n.kind === "schema") c.compare(o.node, n.node, negated);
}

/** Compares the content models (properties, pattern properties, the rest, property names) of two schema objects. */
export function compareContentModel(
  c: Comparison,
  oNode: SchemaNode,
  nNode: SchemaNode,
  o: Obj,
  n: Obj,
  negated: boolean,
): void {
  const keys = ["properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames"];
  if (!keys.some((k) => k in o || k in n)) return;
  const at = c.loc(nNode);
  // unevaluatedProperties next to dynamic applicators: what counts as evaluated depends on the instance.
  const dynamic = (s: Obj): boolean =>
    ["allOf", "anyOf", "oneOf", "if", "dependentSchemas", "$ref", "not"].some((k) => k in s);
  const usesUnevaluated = "unevaluatedProperties" in o || "unevaluatedProperties" in n;
  if (usesUnevaluated && (dynamic(o) || dynamic(n)) && !sameReach(c, oNode, nNode, o, n)) {
    c.emit(
      "schema-combinator-undecided",
      `${at}/unevaluatedProperties`,
      "unevaluatedProperties next to applicators whose evaluated members depend on the instance",
      negated,
    );
  }
  const restKw = (s: Obj): string => ("additionalProperties" in s ? "additionalProperties" : "unevaluatedProperties");
  const oprops = isObject(o.properties) ? Object.keys(o.properties) : [];
  const nprops = isObject(n.properties) ? Object.keys(n.properties) : [];
  const propertyRules: MemberRules = {
    added: "schema-property-added-closed",
    removed: "schema-property-removed-closed",
    addedOpen: "schema-property-added-open",
    removedOpen: "schema-property-removed-open",
  };
  // Sets, not Array.includes: a closed object with 10^5 properties must not take quadratic time.
  const oset = new Set(oprops);
  const nset = new Set(nprops);
  for (const name of new Set([...oprops, ...nprops])) {
    const om = memberFor(c, oNode, o, name, restKw(o), negated);
    const nm = memberFor(c, nNode, n, name, restKw(n), negated);
    const where =
      nset.has(name) || !oset.has(name)
        ? `${at}/properties/${token(name)}`
        : `${c.loc(oNode)}/properties/${token(name)}`;
    compareMember(c, om, nm, where, negated, propertyRules, `property ${name}`);
  }
  // pattern schemas: compared pairwise when the pattern sets agree, else undecided.
  const opat = isObject(o.patternProperties) ? o.patternProperties : {};
  const npat = isObject(n.patternProperties) ? n.patternProperties : {};
  const samePatterns = jsonEqual(Object.keys(opat).sort(), Object.keys(npat).sort());
  if (!samePatterns)
    c.emit("schema-pattern-properties-changed", `${at}/patternProperties`, "the set of patterns changed", negated);
  else
    for (const p of Object.keys(npat))
      c.compare(c.child(oNode, "patternProperties", p), c.child(nNode, "patternProperties", p), negated);
  // the rest: names in no properties and no pattern
  const orest = rest(c, oNode, o, restKw(o));
  const nrest = rest(c, nNode, n, restKw(n));
  compareMember(
    c,
    orest,
    nrest,
    `${at}/${restKw(n)}`,
    negated,
    {
      added: "schema-additional-properties-opened",
      removed: "schema-additional-properties-closed",
      addedOpen: "schema-additional-properties-closed",
      removedOpen: "schema-additional-properties-opened",
    },
    "members not listed in properties",
  );
  // propertyNames: a conjunct over every name (absent = any name)
  if ("propertyNames" in o || "propertyNames" in n) {
    const on = "propertyNames" in o ? c.child(oNode, "propertyNames") : { ...oNode, schema: true };
    const nn =
      "propertyNames" in n
        ? c.child(nNode, "propertyNames")
        : { ...nNode, schema: true, pointer: `${nNode.pointer}/propertyNames` };
    c.compare(on, nn, negated);
  }
}

/** Longest property name a pattern is run against (characters; see {@link patternRunRefusal}). */
export const MAX_PATTERN_NAME_LENGTH = 256;

/** Most repeating quantifiers a pattern that is run may hold (see {@link patternRunRefusal}). */
export const MAX_PATTERN_QUANTIFIERS = 3;

/** The head of a group that is not a plain capturing one (sticky: matched at lastIndex only). */
const GROUP_KIND = /\(\?(:|=|!|<=|<!|<[^>]*>)/y;

/** A braced quantifier `{n}`, `{n,}` or `{n,m}` (sticky). */
const BRACES = /\{\d+(,\d*)?\}/y;

/**
 * Why `pattern` is not run against `name` by JavaScript's backtracking engine, or null when its
 * work is bounded (spec/README.md, "How `diff` bounds hostile schemas"). A pattern is run only
 * when, read as ECMA-262 source: no repeating quantifier (`*`, `+`, `{n}`, `{n,}`, `{n,m}`; not
 * `?`) applies to a group that holds a quantifier or an alternation (nested quantifiers and
 * repeated alternations, the sources of exponential backtracking: `^(a+)+$`, `(a|a)*`); it holds
 * no backreference (matching with them is NP-hard) and at most MAX_PATTERN_QUANTIFIERS repeating
 * quantifiers; and `name` has at most MAX_PATTERN_NAME_LENGTH characters. Then backtracking is
 * polynomial of degree at most 3 in a short name: at most a few million steps.
 * A conservative, syntactic check: it refuses some patterns that would run fast.
 */
export function patternRunRefusal(pattern: string, name: string): string | null {
  if ([...name].length > MAX_PATTERN_NAME_LENGTH)
    return `the name is longer than ${MAX_PATTERN_NAME_LENGTH} characters`;
  // One frame per open group: whether it holds a quantifier or an alternation so far.
  const groups: { inner: boolean }[] = [{ inner: false }];
  let lastAtomWasGroup: { inner: boolean } | null = null;
  let unbounded = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    const top = groups[groups.length - 1] as { inner: boolean };
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && pattern[i + 2] === "<")) return "it holds a backreference";
      i++;
      lastAtomWasGroup = null;
      continue;
    }
    if (c === "[") {
      // A character class: one atom; `]` right after `[` or `[^` is a literal in non-u patterns, an error with u.
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
      lastAtomWasGroup = null;
      continue;
    }
    if (c === "(") {
      groups.push({ inner: false });
      // (?:, (?=, (?!, (?<=, (?<!, (?<name>: the group's kind, not a quantifier.
      GROUP_KIND.lastIndex = i;
      const kind = GROUP_KIND.exec(pattern);
      if (kind !== null) i += kind[0].length - 1;
      lastAtomWasGroup = null;
      continue;
    }
    if (c === ")") {
      const closed = groups.length > 1 ? (groups.pop() as { inner: boolean }) : { inner: false };
      lastAtomWasGroup = closed;
      // What a group holds, its enclosing group holds too.
      if (closed.inner) (groups[groups.length - 1] as { inner: boolean }).inner = true;
      continue;
    }
    if (c === "|") {
      top.inner = true;
      lastAtomWasGroup = null;
      continue;
    }
    BRACES.lastIndex = i;
    const braces = c === "{" ? BRACES.exec(pattern) : null;
    if (c === "*" || c === "+" || c === "?" || braces !== null) {
      // Every quantifier but `?` repeats its atom; `{n}` and `{n,m}` count as unbounded (m may be huge).
      if (c !== "?") {
        unbounded++;
        if (lastAtomWasGroup?.inner)
          return "a quantifier repeats a group that holds a quantifier or an alternation (nested quantifiers: exponential backtracking)";
      }
      top.inner = true;
      if (braces !== null) i += braces[0].length - 1;
      if (pattern[i + 1] === "?") i++; // lazy
      lastAtomWasGroup = null;
      continue;
    }
    lastAtomWasGroup = null;
  }
  if (unbounded > MAX_PATTERN_QUANTIFIERS)
    return `it holds more than ${MAX_PATTERN_QUANTIFIERS} repeating quantifiers (polynomial backtracking of a higher degree)`;
  return null;
}

/** Whether `pattern` (Unicode mode) matches `name`; false for a pattern that does not compile. */
function safeTest(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern, "u").test(name);
  } catch {
    return false;
  }
}
