/**
 * Acceptance-set comparison of two JSON Schemas (the driver; one keyword family per file beside it:
 * bounds.ts, types.ts, objects.ts, arrays.ts, combinators.ts, refs.ts) (2020-12 or draft-07), for `lifeloop-callback diff`.
 *
 * Question answered, per wire type: is every instance valid under OLD valid under NEW (else the
 * change breaks *senders*: new receivers reject what old senders send) and is every instance valid
 * under NEW valid under OLD (else it breaks *receivers*)? A schema is treated as the conjunction of
 * independent units: `type`, `enum`/`const`, each bound, `pattern`, `required`, the object content
 * model (`properties` + `patternProperties` + `additionalProperties`/`unevaluatedProperties`), the
 * array positions (`prefixItems` + `items`), `contains`, and each combinator. If every unit of OLD
 * is a subset of the same unit of NEW, OLD is a subset of NEW; so comparing unit by unit, and
 * reporting a unit whose inclusion is not decided as a warning in both directions, can report a
 * breaking change where there is none (a false positive) but never report a breaking change as
 * compatible. `not` flips the direction; `oneOf`, a changed `if` and `unevaluatedProperties` next
 * to dynamic applicators are not monotone and are reported as schema-combinator-undecided.
 *
 * Rule ids are those of spec/tables/compat-rules.json. Locations are `<file>#<JSON pointer>` of
 * the NEW schema (of the OLD one for what exists only there).
 *
 * @module
 */
import { isObject, jsonEqual, MAX_JSON_DEPTH, token } from "../json.js";
import { TreeError } from "../tree.js";
import { RECEIVER_ONLY_RULES, SENDER_ONLY_RULES } from "../../../generated/ts/tooling.js";
import type { CompatRuleId, RawChange } from "../change.js";
import { compareArrays } from "./arrays.js";
import { compareBounds } from "./bounds.js";
import { compareCombinators } from "./combinators.js";
import { acceptsAll, ANNOTATIONS, type Comparison, normalize, type Obj } from "./context.js";
import { compareContentModel, compareRequired } from "./objects.js";
import { compareRefSiblings, deref } from "./refs.js";
import type { SchemaNode, SchemaSide } from "./side.js";
import { comparePatterns, compareTypes } from "./types.js";

const MODELLED = new Set([
  "type",
  "enum",
  "const",
  "maxLength",
  "minLength",
  "maximum",
  "minimum",
  "maxItems",
  "minItems",
  "exclusiveMaximum",
  "exclusiveMinimum",
  "multipleOf",
  "maxProperties",
  "minProperties",
  "maxContains",
  "minContains",
  "uniqueItems",
  "pattern",
  "format",
  "required",
  "dependentRequired",
  "dependentSchemas",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "prefixItems",
  "items",
  "unevaluatedItems",
  "contains",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "$ref",
]);

/**
 * Compare two sides. `roots` pairs the nodes to compare (one pair per wire type present on both
 * sides). Returns the raw changes found, in discovery order (dedupe with toChanges).
 */
export function compareSchemas(
  oldSide: SchemaSide,
  newSide: SchemaSide,
  roots: readonly [SchemaNode, SchemaNode][],
): RawChange[] {
  const comparer = new Comparer(oldSide, newSide);
  for (const [o, n] of roots) comparer.compare(o, n, false);
  return comparer.out;
}

/** The {@link Comparison} of two sides: visits each node pair once and dispatches to the keyword families. */
class Comparer implements Comparison {
  readonly out: RawChange[] = [];
  private readonly seen = new Set<string>();

  /** `depth`: the compare levels already open around this comparer (a probe's parent's). */
  constructor(
    readonly oldSide: SchemaSide,
    readonly newSide: SchemaSide,
    private depth = 0,
  ) {}

  private sidesSame: boolean | undefined;

  /** Whether the two sides hold the same documents (computed once). */
  sidesEqual(): boolean {
    this.sidesSame ??= this.oldSide.sameAs(this.newSide);
    return this.sidesSame;
  }

  probe(): Comparison {
    return new Comparer(this.oldSide, this.newSide, this.depth);
  }

  loc(node: SchemaNode, suffix = ""): string {
    return `${node.doc.file}#${node.pointer}${suffix}`;
  }

  emit(rule: CompatRuleId, at: string, detail: string, negated: boolean): void {
    if (negated && SENDER_ONLY_RULES.has(rule))
      this.out.push({ rule: "schema-constraint-widened", location: at, detail: `under not: ${rule}: ${detail}` });
    else if (negated && RECEIVER_ONLY_RULES.has(rule))
      this.out.push({ rule: "schema-constraint-narrowed", location: at, detail: `under not: ${rule}: ${detail}` });
    else this.out.push({ rule, location: at, detail });
  }

  child(node: SchemaNode, ...tokens: (string | number)[]): SchemaNode {
    let value: unknown = node.schema;
    for (const t of tokens)
      value = Array.isArray(value) ? value[Number(t)] : isObject(value) ? value[String(t)] : undefined;
    return { schema: value, doc: node.doc, pointer: `${node.pointer}${tokens.map((t) => `/${token(t)}`).join("")}` };
  }

  /**
   * Compare two schema nodes; `negated` is true under an odd number of `not`s. Throws TreeError
   * (exit 3) past MAX_JSON_DEPTH open levels: a chain of `$ref`s nests as deep as the inline
   * nesting a file may not exceed, and would otherwise overflow the stack.
   */
  compare(oldNode: SchemaNode, newNode: SchemaNode, negated: boolean): void {
    if (this.depth >= MAX_JSON_DEPTH) {
      throw new TreeError(
        `the schemas nest deeper than ${MAX_JSON_DEPTH} levels through $ref (at ${this.loc(newNode)}), the bound a file's own nesting has`,
      );
    }
    this.depth++;
    try {
      this.compareAt(oldNode, newNode, negated);
    } finally {
      this.depth--;
    }
  }

  private compareAt(oldNode: SchemaNode, newNode: SchemaNode, negated: boolean): void {
    const o0 = deref(this, oldNode, this.oldSide, negated);
    const n0 = deref(this, newNode, this.newSide, negated);
    if (!o0 || !n0) return;
    const key = `${o0.doc.uri}#${o0.pointer}|${n0.doc.uri}#${n0.pointer}|${negated}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const at = this.loc(n0);
    const os = o0.schema;
    const ns = n0.schema;
    if (typeof os === "boolean" || typeof ns === "boolean") {
      const oAll = acceptsAll(os);
      const nAll = acceptsAll(ns);
      if (os === false && ns === false) return;
      if (os === false) this.emit("schema-constraint-widened", at, "a `false` schema now accepts instances", negated);
      else if (ns === false) this.emit("schema-constraint-narrowed", at, "the schema became `false`", negated);
      else if (oAll && nAll) return;
      else {
        // true vs an object: compare as {} vs the object.
        this.compareObjects(
          { ...o0, schema: isObject(os) ? os : {} },
          { ...n0, schema: isObject(ns) ? ns : {} },
          negated,
        );
      }
      return;
    }
    if (!isObject(os) || !isObject(ns)) {
      if (!jsonEqual(os, ns))
        this.emit("schema-keyword-changed", at, "a schema that is neither an object nor a boolean", negated);
      return;
    }
    this.compareObjects(o0, n0, negated);
  }

  private compareObjects(oNode: SchemaNode, nNode: SchemaNode, negated: boolean): void {
    const o = normalize(oNode.schema as Obj, oNode.doc.dialect);
    const n = normalize(nNode.schema as Obj, nNode.doc.dialect);
    const at = this.loc(nNode);
    const emit = (rule: CompatRuleId, suffix: string, detail: string): void =>
      this.emit(rule, `${at}${suffix}`, detail, negated);
    compareRefSiblings(this, oNode, nNode, o, n, negated, emit);
    compareTypes(o, n, emit);
    compareBounds(o, n, emit);
    comparePatterns(o, n, emit);
    compareRequired(o, n, emit);
    compareContentModel(this, oNode, nNode, o, n, negated);
    compareArrays(this, oNode, nNode, o, n, negated);
    compareCombinators(this, oNode, nNode, o, n, negated);

    // everything else: annotations are doc changes, unknown keywords are undecided
    for (const kw of new Set([...Object.keys(o), ...Object.keys(n)])) {
      if (MODELLED.has(kw) || jsonEqual(o[kw], n[kw])) continue;
      if (kw === "title" && oNode.pointer === "" && nNode.pointer === "" && oNode.doc.file !== "") {
        // A wire type's title names its generated SDK types.
        emit("source-type-renamed", "/title", `${JSON.stringify(o.title)} → ${JSON.stringify(n.title)}`);
      } else if (ANNOTATIONS.has(kw) || kw.startsWith("x-")) {
        if (kw !== "$defs" && kw !== "definitions" && kw !== "$id" && kw !== "$schema")
          emit("doc-changed", `/${token(kw)}`, `${kw} changed`);
      } else emit("schema-keyword-changed", `/${token(kw)}`, `keyword ${kw} changed and is not modelled`);
    }
  }
}
