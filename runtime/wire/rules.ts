/**
 * Interpreter of the generated rule plans (generated/ts/spec.ts RULE_PLANS, from
 * spec/tables/rules.json). Runs after the schema layer has accepted the value, so field types are
 * known to be right; it never throws on odd shapes, it just finds nothing to check.
 *
 * Semantics (spec/README.md, "Rules"): a field is *present* when the key exists and its value is not
 * null (null and absent both mean "none" for optional fields). Steps run in plan order.
 */
import { RULE_PLANS, type RuleStep, type WireObjectTypeName } from "../../generated/ts/spec.js";
import type { ValidationIssue } from "./issues.js";
import { childPointer, matchPattern } from "./pointer.js";

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function present(obj: JsonObject, field: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, field) && obj[field] !== null && obj[field] !== undefined;
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

function runStep(step: RuleStep, pointer: string, obj: JsonObject, out: ValidationIssue[]): void {
  const field = step.field ?? "";
  const fieldPointer = childPointer(pointer, field);
  const vars: Record<string, string> = {
    field: fieldPointer,
    when_value: step.when ? String(obj[step.when.field]) : "",
    expected: step.expected ?? "",
  };
  const issue = (at: string, extra: Record<string, string> = {}): void => {
    out.push({ rule: step.rule, pointer: at, message: format(step.message, { ...vars, ...extra }) });
  };
  switch (step.check) {
    case "equals_wire_version": {
      const value = obj[field];
      if (typeof value === "string" && value !== step.expected) issue(fieldPointer, { value });
      return;
    }
    case "non_empty_string": {
      const value = obj[field];
      if (step.each) {
        if (!Array.isArray(value)) return;
        value.forEach((item, i) => {
          if (item === "") issue(childPointer(fieldPointer, i), { field: childPointer(fieldPointer, i) });
        });
      } else if (value === "") {
        issue(fieldPointer);
      }
      return;
    }
    case "required_when":
      if (conditionHolds(step, obj) && !present(obj, field)) issue(fieldPointer);
      return;
    case "forbidden_when":
      if (conditionHolds(step, obj) && present(obj, field)) issue(fieldPointer);
      return;
    case "forbidden_value": {
      const value = obj[field];
      if (typeof value === "string" && (step.values ?? []).includes(value)) issue(fieldPointer, { value });
      return;
    }
    case "exactly_one_present": {
      const fields = step.fields ?? [];
      const here = fields.filter((f) => present(obj, f));
      if (here.length === 0) issue(pointer);
      else if (here.length > 1) issue(childPointer(pointer, here[1] as string));
      return;
    }
    case "utf8_byte_length_equals": {
      const body = obj[field];
      const declared = obj[step.lengthField ?? ""];
      if (typeof body !== "string" || typeof declared !== "number") return;
      const actual = utf8Length(body);
      if (actual !== declared) issue(fieldPointer, { actual: String(actual), expected: String(declared) });
      return;
    }
    case "non_empty_array": {
      const value = obj[field];
      if (Array.isArray(value) && value.length === 0) issue(fieldPointer);
      return;
    }
  }
}

/**
 * Evaluate every rule of `typeName` against `value` (already accepted by the schema layer).
 * Returns the issues in plan order (empty when the value satisfies every rule). `limit` caps how many
 * issues are collected (default: all).
 */
export function evaluateRules(typeName: WireObjectTypeName, value: unknown, limit = Number.POSITIVE_INFINITY): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const step of RULE_PLANS[typeName]) {
    for (const [pointer, obj] of matchPattern(value, step.at)) {
      if (!isObject(obj)) continue;
      runStep(step, pointer, obj, out);
      if (out.length >= limit) return out.slice(0, limit);
    }
  }
  return out;
}
