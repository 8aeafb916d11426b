/**
 * Target: `generated/ts/rule-probes.ts`, one straight-line function per wire object type that
 * answers "does any rule step of the type's plan (RULE_PLANS, spec/tables/rules.json) report on this
 * value?" without building pointers or messages. runtime/wire/rules.ts calls it first and runs the
 * plan interpreter (which builds the issues, in plan order, with pointers) only when it says yes;
 * the interpreter stays the single definition of each check's meaning, and
 * test/wire/rule-probes.test.ts compares the two on the vectors and mutants of the fixtures.
 *
 * Why generated: the interpreter reads members by a name held in a variable (`obj[field]`), which
 * is a slow, megamorphic property load; here every name is a constant, so each load is cached.
 */
import type { Model, RuleStep } from "../../model/model.js";
import { finalNewline, slashBanner, type OutputFile } from "../../emit/output.js";

/** The export name of a type's probe, e.g. `probeCallbackRequest`. */
export function probeName(typeName: string): string {
  return `probe${typeName}`;
}

/** A member read with a constant name (`__proto__` would read the prototype, so it is refused). */
function member(obj: string, name: string): string {
  if (name === "__proto__") throw new Error("ts/rule-probes: a rule names the member __proto__");
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `${obj}.${name}` : `${obj}[${JSON.stringify(name)}]`;
}

/** `present(obj, name)` of rules.ts: the member exists as an own property and is not null. */
function present(obj: string, name: string): string {
  const v = member(obj, name);
  return `(${v} !== null && ${v} !== undefined && hasOwn.call(${obj}, ${JSON.stringify(name)}))`;
}

/** `values.includes(v)` for a string `v`, as a chain of comparisons (no array per call). */
function oneOf(v: string, values: readonly string[]): string {
  return values.length === 0 ? "false" : `(${values.map((value) => `${v} === ${JSON.stringify(value)}`).join(" || ")})`;
}

/** `conditionHolds` of rules.ts, as an expression (`true` without a condition). */
function holds(step: RuleStep, obj: string): string {
  if (!step.when) return "true";
  const v = member(obj, step.when.field);
  return `(typeof ${v} === "string" && ${step.when.op === "in" ? "" : "!"}${oneOf(v, step.when.values)})`;
}

/** The statements that `return true` when `step` reports on the object in `obj` (compileStep of rules.ts). */
function check(step: RuleStep, obj: string): string[] {
  const field = step.field ?? "";
  const v = member(obj, field);
  switch (step.check) {
    case "equals_wire_version":
      return [`if (typeof ${v} === "string" && ${v} !== ${JSON.stringify(step.expected)}) return true;`];
    case "non_empty_string":
      if (step.each) return [`if (Array.isArray(${v}) && ${v}.includes("")) return true;`];
      return [`if (${v} === "") return true;`];
    case "required_when":
      return [`if (${holds(step, obj)} && !${present(obj, field)}) return true;`];
    case "forbidden_when":
      return [`if (${holds(step, obj)} && ${present(obj, field)}) return true;`];
    case "forbidden_value":
      return [`if (typeof ${v} === "string" && ${oneOf(v, step.values ?? [])}) return true;`];
    case "exactly_one_present": {
      const fields = step.fields ?? [];
      return [`if (${fields.map((f) => `(${present(obj, f)} ? 1 : 0)`).join(" + ") || "0"} !== 1) return true;`];
    }
    case "utf8_byte_length_equals": {
      const declared = member(obj, step.lengthField ?? "");
      return [
        `if (typeof ${v} === "string" && typeof ${declared} === "number" && Buffer.byteLength(${v}, "utf8") !== ${declared}) return true;`,
      ];
    }
    case "non_empty_array":
      return [`if (Array.isArray(${v}) && ${v}.length === 0) return true;`];
    case "fields_differ": {
      const fields = (step.fields ?? []).map((f) => member(obj, f));
      const pairs = fields.flatMap((later, i) =>
        fields.slice(0, i).map((earlier) => `(typeof ${later} === "string" && ${later} === ${earlier})`),
      );
      return pairs.length === 0 ? [] : [`if (${pairs.join(" || ")}) return true;`];
    }
  }
}

/**
 * The body visiting every object that matches `tokens` (as `collect` of rules.ts: `*` is every
 * element of an array, a name an own member of an object) and running `checks` on it.
 */
function visit(
  tokens: readonly string[],
  value: string,
  checks: (obj: string) => string[],
  depth: number,
  indent: string,
): string[] {
  if (tokens.length === 0) {
    return [`${indent}if (isObject(${value})) {`, ...checks(value).map((line) => `${indent}  ${line}`), `${indent}}`];
  }
  const [token, ...rest] = tokens as [string, ...string[]];
  const next = `v${depth}`;
  if (token === "*") {
    return [
      `${indent}if (Array.isArray(${value})) {`,
      `${indent}  for (let i${depth} = 0; i${depth} < ${value}.length; i${depth}++) {`,
      `${indent}    const ${next}: unknown = ${value}[i${depth}];`,
      ...visit(rest, next, checks, depth + 1, `${indent}    `),
      `${indent}  }`,
      `${indent}}`,
    ];
  }
  return [
    `${indent}if (isObject(${value}) && hasOwn.call(${value}, ${JSON.stringify(token)})) {`,
    `${indent}  const ${next}: unknown = ${member(value, token)};`,
    ...visit(rest, next, checks, depth + 1, `${indent}  `),
    `${indent}}`,
  ];
}

/** Generate generated/ts/rule-probes.ts. */
export async function generateTsRuleProbes(model: Model): Promise<OutputFile[]> {
  const lines: string[] = [
    slashBanner("Rule probes: does any step of a type's rule plan report? (codegen/targets/ts/rule-probes.ts)"),
    'import type { WireObjectTypeName } from "./spec.js";',
    "",
    "type JsonObject = Record<string, any>;",
    "const hasOwn = Object.prototype.hasOwnProperty;",
    "",
    "function isObject(value: unknown): value is JsonObject {",
    '  return value !== null && typeof value === "object" && !Array.isArray(value);',
    "}",
    "",
  ];
  for (const type of model.types) {
    const plan = model.rulePlans.get(type.name) ?? [];
    const patterns = [...new Set(plan.map((step) => step.at))];
    lines.push(
      `/** True when some step of the ${type.name} rule plan reports on \`value\` (the plan interpreter then finds the issues). */`,
    );
    lines.push(
      `export function ${probeName(type.name)}(${patterns.length === 0 ? "_value" : "value"}: unknown): boolean {`,
    );
    for (const at of patterns) {
      const steps = plan.filter((step) => step.at === at);
      const tokens = at === "" ? [] : at.slice(1).split("/");
      lines.push(`  // at "${at}"`);
      lines.push(
        ...visit(tokens, "value", (obj) => steps.flatMap((step) => check(step, `(${obj} as JsonObject)`)), 0, "  "),
      );
    }
    lines.push("  return false;", "}", "");
  }
  lines.push("/** Every probe by wire type name. */");
  lines.push("export const RULE_PROBES: { readonly [K in WireObjectTypeName]: (value: unknown) => boolean } = {");
  for (const type of model.types) lines.push(`  ${JSON.stringify(type.name)}: ${probeName(type.name)},`);
  lines.push("};");
  return [{ path: "generated/ts/rule-probes.ts", content: finalNewline(lines.join("\n")) }];
}
