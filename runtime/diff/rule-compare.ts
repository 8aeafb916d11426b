/**
 * Cross-field rules (spec/tables/rules.json) as acceptance-set constraints. Each (rule, target)
 * pair is one constraint on a wire type's field: a new pair narrows what is accepted (rule-added,
 * breaks senders), a dropped one widens it (rule-removed, breaks receivers). For an existing pair
 * the condition or value set is resolved (a `{table, column}` reference through that side's event
 * vocabulary) and compared as sets: a set that makes the rule fire on more documents is
 * rule-narrowed, on fewer rule-widened. A changed check kind or field list is rule-changed
 * (undecided). The `equals_wire_version` constant is the wire version itself: the version gate
 * judges it, not this comparator.
 *
 * Locations: `spec/tables/rules.json#/rules/<rule id>/<Type>.<field>`.
 */
import type { RawChange } from "./change.js";
import { canonical, isObject, token } from "./json.js";

const FILE = "spec/tables/rules.json";

interface Constraint {
  readonly shape: string;
  /** The set whose members make the rule fire, and whether it is that set (`in`) or its complement (`not_in`). */
  readonly firing?: { readonly op: "in" | "not_in" | "values"; readonly set: ReadonlySet<string> };
}

function resolve(raw: unknown, events: readonly Record<string, unknown>[]): string[] {
  if (Array.isArray(raw)) return raw.map(String);
  if (isObject(raw) && raw.table === "event-vocabulary" && typeof raw.column === "string") {
    return events.filter((row) => row[raw.column as string] === true).map((row) => String(row.event));
  }
  return [canonical(raw)];
}

/** Every (rule id, type.field) constraint of one side's rules table. */
export function ruleConstraints(rulesTable: unknown, eventVocabulary: unknown): Map<string, Constraint> {
  const out = new Map<string, Constraint>();
  const rules =
    isObject(rulesTable) && Array.isArray(rulesTable.rules) ? (rulesTable.rules as Record<string, unknown>[]) : [];
  const events =
    isObject(eventVocabulary) && Array.isArray(eventVocabulary.events)
      ? (eventVocabulary.events as Record<string, unknown>[])
      : [];
  for (const rule of rules) {
    const targets = Array.isArray(rule.targets) ? (rule.targets as Record<string, unknown>[]) : [];
    for (const target of targets) {
      const fields = Array.isArray(target.fields) ? (target.fields as string[]).join("+") : String(target.field);
      const key = `${String(rule.id)}/${String(target.type)}.${fields}`;
      const shape = canonical({
        check: rule.check,
        each: target.each ?? false,
        length_field: target.length_field ?? null,
        when_field: isObject(rule.when) ? rule.when.field : null,
      });
      let firing: Constraint["firing"];
      if (isObject(rule.when)) {
        const op = "in" in rule.when ? "in" : "not_in";
        firing = { op, set: new Set(resolve(rule.when[op], events)) };
      } else if (rule.values !== undefined) firing = { op: "values", set: new Set(resolve(rule.values, events)) };
      out.set(key, { shape, ...(firing ? { firing } : {}) });
    }
  }
  return out;
}

/** Compare the constraints of two sides (see the module comment). */
export function compareRules(oldRules: Map<string, Constraint>, newRules: Map<string, Constraint>): RawChange[] {
  const out: RawChange[] = [];
  const at = (key: string): string => `${FILE}#/rules/${key.split("/").map(token).join("/")}`;
  for (const [key, n] of newRules) {
    const o = oldRules.get(key);
    if (!o) {
      out.push({ rule: "rule-added", location: at(key), detail: `rule ${key} now applies` });
      continue;
    }
    if (o.shape !== n.shape || (o.firing?.op ?? "") !== (n.firing?.op ?? "")) {
      out.push({
        rule: "rule-changed",
        location: at(key),
        detail: `rule ${key} changed its check, fields or condition kind`,
      });
      continue;
    }
    if (!o.firing || !n.firing) continue;
    const grew = [...n.firing.set].filter((v) => !o.firing?.set.has(v));
    const shrank = [...o.firing.set].filter((v) => !n.firing?.set.has(v));
    // For `in` and `values` a larger set fires on more documents; for `not_in` on fewer.
    const positive = n.firing.op !== "not_in";
    const more = positive ? grew : shrank;
    const fewer = positive ? shrank : grew;
    if (more.length > 0)
      out.push({
        rule: "rule-narrowed",
        location: at(key),
        detail: `rule ${key} now also fires for ${[...grew, ...shrank].join(", ")}`,
      });
    if (fewer.length > 0)
      out.push({
        rule: "rule-widened",
        location: at(key),
        detail: `rule ${key} no longer fires for some of ${[...grew, ...shrank].join(", ")}`,
      });
  }
  for (const key of oldRules.keys()) {
    if (!newRules.has(key))
      out.push({ rule: "rule-removed", location: at(key), detail: `rule ${key} no longer applies` });
  }
  return out;
}
