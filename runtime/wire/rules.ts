/**
 * Interpreter of the generated rule plans (generated/ts/spec.ts RULE_PLANS, from
 * spec/tables/rules.json). Runs after the schema layer has accepted the value, so field types are
 * known to be right; it never throws on odd shapes, it just finds nothing to check.
 *
 * Semantics (spec/README.md, "Rules"): a field is *present* when the key exists and its value is not
 * null (null and absent both mean "none" for optional fields). Steps run in plan order.
 */
import { RULE_PROBES } from "../../generated/ts/rule-probes.js";
import { RULE_PLANS, type RuleStep, type WireObjectTypeName } from "../../generated/ts/spec/plans.js";
import type { ValidationIssue } from "./issues.js";
import { childPointer, escapeToken } from "./pointer.js";

type JsonObject = Record<string, unknown>;

const hasOwn = Object.prototype.hasOwnProperty;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function present(obj: JsonObject, field: string): boolean {
  const value = obj[field];
  return value !== null && value !== undefined && hasOwn.call(obj, field);
}

function conditionHolds(step: RuleStep, obj: JsonObject): boolean {
  if (!step.when) return true;
  const value = obj[step.when.field];
  if (typeof value !== "string") return false;
  const member = step.when.values.includes(value);
  return step.when.op === "in" ? member : !member;
}

function format(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => vars[name] ?? whole);
}

/** UTF-8 byte length of a string (lone surrogates count as the 3-byte replacement character). */
function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * A type's plan compiled once (on first use): the distinct `at` patterns, split into tokens, and each
 * step with the index of its pattern. Evaluation walks every pattern once per document (not once per
 * step) and runs the steps, in plan order, over the objects found; the matched path is turned into a
 * JSON pointer only when an issue is reported.
 */
interface CompiledPlan {
  readonly patterns: readonly (readonly string[])[];
  readonly steps: readonly { readonly check: Check; readonly pattern: number }[];
  /** Per pattern, the checks of its steps (plan order). */
  readonly byPattern: readonly (readonly Check[])[];
}

const compiledPlans = new WeakMap<readonly RuleStep[], CompiledPlan>();

function compiledPlan(planSteps: readonly RuleStep[]): CompiledPlan {
  let plan = compiledPlans.get(planSteps);
  if (plan === undefined) {
    const index = new Map<string, number>();
    const patterns: string[][] = [];
    const steps = planSteps.map((step) => {
      let pattern = index.get(step.at);
      if (pattern === undefined) {
        pattern = patterns.length;
        index.set(step.at, pattern);
        patterns.push(step.at === "" ? [] : step.at.slice(1).split("/"));
      }
      return { check: compileStep(step), pattern };
    });
    plan = {
      patterns,
      steps,
      byPattern: patterns.map((_, p) => steps.filter((step) => step.pattern === p).map((step) => step.check)),
    };
    compiledPlans.set(planSteps, plan);
  }
  return plan;
}

/** An object matched by a pattern, with its path (member names and array indexes). */
interface Match {
  readonly obj: JsonObject;
  readonly path: readonly (string | number)[];
}

/** JSON pointer of a matched path (tokens: member names or array indexes). */
function pointerOf(path: readonly (string | number)[]): string {
  let pointer = "";
  for (const token of path) pointer += typeof token === "number" ? `/${token}` : `/${escapeToken(token)}`;
  return pointer;
}

/** Collects issues up to a limit; evaluation stops once it is full. */
interface Sink {
  readonly out: ValidationIssue[];
  readonly limit: number;
}

function report(
  sink: Sink,
  step: RuleStep,
  obj: JsonObject,
  path: readonly (string | number)[],
  at: string | null,
  extra: Readonly<Record<string, string>> = {},
): void {
  const pointer = pointerOf(path);
  const fieldPointer = childPointer(pointer, step.field ?? "");
  const vars: Record<string, string> = {
    field: fieldPointer,
    when_value: step.when ? String(obj[step.when.field]) : "",
    expected: step.expected ?? "",
    ...extra,
  };
  sink.out.push({ rule: step.rule, pointer: at ?? fieldPointer, message: format(step.message, vars) });
}

/** A compiled step: checks one object (located by `path`) and reports into the sink. */
type Check = (obj: JsonObject, path: readonly (string | number)[], sink: Sink) => void;

/** Compile one step into a closure with its constants bound (same semantics as the table's check). */
function compileStep(step: RuleStep): Check {
  const field = step.field ?? "";
  const when = step.when;
  const holds = when === undefined ? (): boolean => true : (obj: JsonObject): boolean => conditionHolds(step, obj);
  switch (step.check) {
    case "equals_wire_version": {
      const expected = step.expected;
      return (obj, path, sink) => {
        const value = obj[field];
        if (typeof value === "string" && value !== expected) report(sink, step, obj, path, null, { value });
      };
    }
    case "non_empty_string":
      if (step.each) {
        return (obj, path, sink) => {
          const value = obj[field];
          if (!Array.isArray(value)) return;
          for (let i = 0; i < value.length; i++) {
            if (value[i] !== "") continue;
            const itemPointer = childPointer(childPointer(pointerOf(path), field), i);
            report(sink, step, obj, path, itemPointer, { field: itemPointer });
          }
        };
      }
      return (obj, path, sink) => {
        if (obj[field] === "") report(sink, step, obj, path, null);
      };
    case "required_when":
      return (obj, path, sink) => {
        if (holds(obj) && !present(obj, field)) report(sink, step, obj, path, null);
      };
    case "forbidden_when":
      return (obj, path, sink) => {
        if (holds(obj) && present(obj, field)) report(sink, step, obj, path, null);
      };
    case "forbidden_value": {
      const values = step.values ?? [];
      return (obj, path, sink) => {
        const value = obj[field];
        if (typeof value === "string" && values.includes(value)) report(sink, step, obj, path, null, { value });
      };
    }
    case "exactly_one_present": {
      const fields = step.fields ?? [];
      return (obj, path, sink) => {
        let count = 0;
        let second: string | undefined;
        for (const f of fields) {
          if (!present(obj, f)) continue;
          count++;
          if (count === 2) second = f;
        }
        if (count === 0) report(sink, step, obj, path, pointerOf(path));
        else if (count > 1) report(sink, step, obj, path, childPointer(pointerOf(path), second as string));
      };
    }
    case "utf8_byte_length_equals": {
      const lengthField = step.lengthField ?? "";
      return (obj, path, sink) => {
        const body = obj[field];
        const declared = obj[lengthField];
        if (typeof body !== "string" || typeof declared !== "number") return;
        const actual = utf8Length(body);
        if (actual !== declared)
          report(sink, step, obj, path, null, { actual: String(actual), expected: String(declared) });
      };
    }
    case "non_empty_array":
      return (obj, path, sink) => {
        const value = obj[field];
        if (Array.isArray(value) && value.length === 0) report(sink, step, obj, path, null);
      };
    case "fields_differ": {
      const fields = step.fields ?? [];
      return (obj, path, sink) => {
        const repeated = firstRepeatedField(obj, fields);
        if (repeated !== undefined)
          report(sink, step, obj, path, childPointer(pointerOf(path), repeated), {
            field: childPointer(pointerOf(path), repeated),
          });
      };
    }
  }
}

/**
 * Check `fields_differ`: the first of `fields` whose string value equals that of an earlier one
 * (absent, null and non-string members take part in no comparison); undefined when all differ.
 */
function firstRepeatedField(obj: JsonObject, fields: readonly string[]): string | undefined {
  for (let i = 1; i < fields.length; i++) {
    const value = obj[fields[i] as string];
    if (typeof value !== "string") continue;
    for (let j = 0; j < i; j++) if (obj[fields[j] as string] === value) return fields[i];
  }
  return undefined;
}

/** Collect every object matching `tokens` below `value` (`*` = every array element), in document order. */
function collect(
  value: unknown,
  tokens: readonly string[],
  index: number,
  path: (string | number)[],
  out: Match[],
): void {
  if (index === tokens.length) {
    if (isObject(value)) out.push({ obj: value, path: path.slice() });
    return;
  }
  const token = tokens[index] as string;
  if (token === "*") {
    if (!Array.isArray(value)) return;
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      collect(value[i], tokens, index + 1, path, out);
      path.pop();
    }
    return;
  }
  if (!isObject(value) || !hasOwn.call(value, token)) return;
  path.push(token);
  collect(value[token], tokens, index + 1, path, out);
  path.pop();
}

const ROOT_PATH: readonly (string | number)[] = [];

/**
 * Evaluate every rule of `typeName` against `value` (already accepted by the schema layer).
 * Returns the issues in plan order (empty when the value satisfies every rule). `limit` caps how many
 * issues are collected (default: all).
 */
export function evaluateRules(
  typeName: WireObjectTypeName,
  value: unknown,
  limit = Number.POSITIVE_INFINITY,
): ValidationIssue[] {
  // The generated straight-line probe of the same plan: most values satisfy every rule.
  if (!RULE_PROBES[typeName](value)) return [];
  return run(compiledPlan(RULE_PLANS[typeName]), value, limit);
}

/**
 * Evaluate an explicit rule plan (the steps codegen/model/plans.ts computes for one type, e.g. of
 * another version of the spec) against `value`, with the semantics of {@link evaluateRules}.
 * The plan is compiled once per array identity.
 */
export function evaluateRulePlan(
  plan: readonly RuleStep[],
  value: unknown,
  limit = Number.POSITIVE_INFINITY,
): ValidationIssue[] {
  const compiled = compiledPlan(plan);
  // Most values satisfy every rule: a probe that collects nothing and builds no path proves it;
  // only when it finds something does the evaluation in plan order, with pointers, run.
  if (!probe(compiled, value)) return [];
  return run(compiled, value, limit);
}

/**
 * Whether any step of the plan reports on `value` (order does not matter here). Visits the objects
 * of each pattern directly and runs that pattern's steps with the root path (pointers unused).
 */
function probe(compiled: CompiledPlan, value: unknown): boolean {
  const sink: Sink = { out: [], limit: 1 };
  const { patterns, byPattern } = compiled;
  for (let p = 0; p < patterns.length; p++) {
    if (visit(value, patterns[p] as readonly string[], 0, byPattern[p] as readonly Check[], sink)) return true;
  }
  return false;
}

/** Run `checks` on every object matching `tokens` below `value`; true as soon as one reports. */
function visit(
  value: unknown,
  tokens: readonly string[],
  index: number,
  checks: readonly Check[],
  sink: Sink,
): boolean {
  if (index === tokens.length) {
    if (!isObject(value)) return false;
    for (let c = 0; c < checks.length; c++) {
      (checks[c] as Check)(value, ROOT_PATH, sink);
      if (sink.out.length > 0) return true;
    }
    return false;
  }
  const token = tokens[index] as string;
  if (token === "*") {
    if (!Array.isArray(value)) return false;
    for (let i = 0; i < value.length; i++) if (visit(value[i], tokens, index + 1, checks, sink)) return true;
    return false;
  }
  if (!isObject(value) || !hasOwn.call(value, token)) return false;
  return visit(value[token], tokens, index + 1, checks, sink);
}

/** The evaluation in plan order, collecting up to `limit` issues with their pointers. */
function run({ patterns, steps }: CompiledPlan, value: unknown, limit: number): ValidationIssue[] {
  const matches: Match[][] = new Array(patterns.length);
  for (let p = 0; p < patterns.length; p++) {
    const tokens = patterns[p] as readonly string[];
    if (tokens.length === 0) matches[p] = isObject(value) ? [{ obj: value, path: ROOT_PATH }] : [];
    else {
      const out: Match[] = [];
      collect(value, tokens, 0, [], out);
      matches[p] = out;
    }
  }
  const sink: Sink = { out: [], limit };
  for (let s = 0; s < steps.length; s++) {
    const { check, pattern } = steps[s] as CompiledPlan["steps"][number];
    const found = matches[pattern] as Match[];
    for (let m = 0; m < found.length; m++) {
      const match = found[m] as Match;
      check(match.obj, match.path, sink);
      if (sink.out.length >= limit) return sink.out.slice(0, limit);
    }
  }
  return sink.out;
}
