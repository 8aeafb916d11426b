/**
 * Target: `generated/ts/accept-checks.ts`, one straight-line function per wire object type that
 * proves, in one walk over the value `JSON.parse` built, that a document passes its schema and
 * rules and the value-side checks of the fast accept path (runtime/wire/fast-parse.ts: every number
 * finite and not `-0`, every container within the depth limit), and counts the members it holds
 * (the fast path compares that count with the text's member colons: equal counts prove there is no
 * duplicate and, the counted members being the schema's own, no unknown member either).
 *
 * It only proves, never reports: it answers -1 ("not proved") for anything it does not accept, and
 * the caller then runs the generic walk, the ajv validators and the rule plans, which find the
 * issues with their rule ids and pointers. So each check here is the schema's or stricter (a
 * string longer than `maxLength` in UTF-16 code units declines, though ajv counts code points),
 * never laxer; test/wire/accept-checks.test.ts compares it with the full path on the vectors and
 * on mutants. Schemas using a keyword this target does not implement fail generation.
 *
 * Why generated: every member is read by a constant name (cached loads, no `for...in` over closed
 * objects) and nothing is allocated per value (ajv builds an options object and a pointer string
 * for every nested object it validates).
 */
import type { Field, Model, Shape, WireType } from "../../model/model.js";
import { finalNewline, slashBanner, type OutputFile } from "../../emit/output.js";
import { probeName } from "./rule-probes.js";

/** The export name of a type's accept check, e.g. `acceptDispatchEnvelope`. */
export function acceptCheckName(typeName: string): string {
  return `accept${typeName}`;
}

/** The (module-private) member counter of one object type, e.g. `membersPayloadEnvelope`. */
function counterName(typeName: string): string {
  return `members${typeName}`;
}

/** Keywords of a wire object schema's root and of its property schemas that the checks below implement (or that only annotate). */
const ROOT_KEYWORDS = new Set([
  "$schema",
  "$id",
  "title",
  "description",
  "x-wire-document",
  "type",
  "properties",
  "required",
  "additionalProperties",
]);
const PROPERTY_KEYWORDS = new Set([
  "description",
  "type",
  "maxLength",
  "minimum",
  "maximum",
  "items",
  "maxItems",
  "$ref",
  "anyOf",
  "additionalProperties",
  "x-open",
  "x-emit-null",
]);
const ENUM_KEYWORDS = new Set(["$schema", "$id", "title", "description", "type", "enum"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Throws when `schema` (at `where`) uses a keyword outside `known` (recursing into items and anyOf branches). */
function checkKeywords(schema: Record<string, unknown>, known: ReadonlySet<string>, where: string): void {
  for (const keyword of Object.keys(schema)) {
    if (!known.has(keyword))
      throw new Error(
        `ts/accept-checks: ${where} uses the keyword ${keyword}, which the accept checks do not implement; extend codegen/targets/ts/accept-checks.ts`,
      );
  }
  if (isRecord(schema.items)) checkKeywords(schema.items, PROPERTY_KEYWORDS, `${where}/items`);
  if (Array.isArray(schema.anyOf)) {
    schema.anyOf.forEach((branch, i) => {
      if (isRecord(branch)) checkKeywords(branch, PROPERTY_KEYWORDS, `${where}/anyOf/${i}`);
    });
  }
}

/** A member read with a constant name; a name that `Object.prototype` has would read it when absent, so it is refused. */
function member(obj: string, name: string): string {
  if (name in Object.prototype || name === "__proto__")
    throw new Error(`ts/accept-checks: the member name ${name} is also a property of Object.prototype`);
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `${obj}.${name}` : `${obj}[${JSON.stringify(name)}]`;
}

/** Generation state of one function: enum values by name, and a counter for fresh variable names. */
interface Scope {
  readonly enums: ReadonlyMap<string, readonly string[]>;
  next: number;
}

/**
 * Statements that `return -1` unless the value in `v` (at nesting `level`: `level` plus a constant)
 * has `shape`, add the members below it to `n` and the length of its shortest text to `t` (or, for
 * objects, to `c.chars`; `c.exact` false for a number that may have a shorter lexeme than
 * `String(x)`, as the generic walk's isExactNumber).
 */
function shapeChecks(shape: Shape, v: string, level: number, scope: Scope): string[] {
  const at = level === 0 ? "level" : `level + ${level}`;
  switch (shape.kind) {
    case "string":
      return [`if (typeof ${v} !== "string" || ${v}.length > ${shape.maxLength}) return -1;`, `t += ${v}.length + 2;`];
    case "integer":
      // Above 2^53 a lexeme may be shorter than String(x) (7378697629483821e4 is 2 ** 66): the length proof needs safe integers.
      if (!(Number.isSafeInteger(shape.minimum) && Number.isSafeInteger(shape.maximum)))
        throw new Error("ts/accept-checks: integer bounds must be safe integers (|x| <= 2^53 - 1)");
      // `x % 1 !== 0` also holds for the non-finite numbers; `1 / x < 0` finds -0.
      return [
        `if (typeof ${v} !== "number" || ${v} % 1 !== 0 || ${v} < ${shape.minimum} || ${v} > ${shape.maximum} || (${v} === 0 && 1 / ${v} < 0)) return -1;`,
        `if (${v} % 100 !== 0 || ${v} === 0) t += String(${v}).length;`,
        "else c.exact = false;",
      ];
    case "enum": {
      const values = scope.enums.get(shape.enumName);
      if (values === undefined || values.length === 0)
        throw new Error(`ts/accept-checks: no values for enum ${shape.enumName}`);
      return [
        `if (${values.map((value) => `${v} !== ${JSON.stringify(value)}`).join(" && ")}) return -1;`,
        `t += ${v}.length + 2;`,
      ];
    }
    case "object": {
      const k = `k${scope.next++}`;
      return [`const ${k} = ${counterName(shape.typeName)}(${v}, ${at}, c);`, `if (${k} < 0) return -1;`, `n += ${k};`];
    }
    case "open_object": {
      const k = `k${scope.next++}`;
      return [
        `if (typeof ${v} !== "object" || ${v} === null || Array.isArray(${v})) return -1;`,
        `const ${k} = c.open(${v}, ${at});`,
        `if (${k} < 0) return -1;`,
        `n += ${k};`,
      ];
    }
    case "array": {
      const i = `i${scope.next++}`;
      const item = `e${scope.next++}`;
      return [
        `if (!Array.isArray(${v}) || ${v}.length > ${shape.maxItems} || ${at} > c.maxDepth) return -1;`,
        `c.elements += ${v}.length;`,
        `t += ${v}.length === 0 ? 2 : 1 + ${v}.length;`,
        `for (let ${i} = 0; ${i} < ${v}.length; ${i}++) {`,
        `  const ${item}: any = ${v}[${i}];`,
        ...shapeChecks(shape.items, item, level + 1, scope).map((line) => `  ${line}`),
        "}",
      ];
    }
  }
}

/**
 * Statements checking one field of the object in `obj` and counting it (and what it holds) in `n`
 * and `t` (a member's text: its quoted name, a colon, its value and a comma or the closing brace).
 */
function fieldChecks(field: Field, obj: string, scope: Scope): string[] {
  const x = `x${scope.next++}`;
  const checks = shapeChecks(field.shape, x, 1, scope);
  const count = ["n++;", `t += ${field.name.length + 4};`];
  const valueChecks = field.nullable
    ? [`if (${x} === null) t += 4;`, "else {", ...checks.map((line) => `  ${line}`), "}"]
    : checks;
  const lines = [`const ${x}: any = ${member(obj, field.name)};`];
  if (field.presence === "required" || field.presence === "required_nullable") {
    lines.push(`if (${x} === undefined) return -1;`, ...count, ...valueChecks);
  } else {
    lines.push(`if (${x} !== undefined) {`, ...[...count, ...valueChecks].map((line) => `  ${line}`), "}");
  }
  return lines;
}

/** The member counter of one object type: -1 unless `v` is such an object at nesting `level`. */
function counter(type: WireType, scope: Scope): string[] {
  checkKeywords(type.schema, ROOT_KEYWORDS, `schemas/${type.file}`);
  const properties = type.schema.properties as Record<string, unknown>;
  for (const [name, raw] of Object.entries(properties))
    if (isRecord(raw)) checkKeywords(raw, PROPERTY_KEYWORDS, `schemas/${type.file}#/properties/${name}`);
  scope.next = 0;
  const body = type.fields.flatMap((field) => fieldChecks(field, "v", scope));
  return [
    `/** Members of \`v\` and below when it is a ${type.name} at nesting \`level\` that the accept check proves; -1 otherwise. */`,
    `function ${counterName(type.name)}(v: any, level: number, c: AcceptContext): number {`,
    '  if (typeof v !== "object" || v === null || Array.isArray(v) || level > c.maxDepth) return -1;',
    "  let n = 0;",
    "  let t = 0;",
    ...body.map((line) => `  ${line}`),
    "  c.chars += t === 0 ? 2 : t + 1;",
    "  return n;",
    "}",
    "",
  ];
}

/** Generate generated/ts/accept-checks.ts. */
export async function generateTsAcceptChecks(model: Model): Promise<OutputFile[]> {
  for (const e of model.enums) checkKeywords(e.schema, ENUM_KEYWORDS, `schemas/${e.file}`);
  const scope: Scope = { enums: new Map(model.enums.map((e) => [e.name, e.values])), next: 0 };
  const lines: string[] = [
    slashBanner(
      "Accept checks: schema, rules and the fast path's value checks in one walk (codegen/targets/ts/accept-checks.ts)",
    ),
    "/* eslint-disable @typescript-eslint/no-explicit-any */",
    `import { ${model.types.map((t) => probeName(t.name)).join(", ")} } from "./rule-probes.js";`,
    'import type { WireObjectTypeName } from "./spec.js";',
    "",
    "/**",
    " * What an accept check shares with the fast path (runtime/wire/fast-parse.ts): the depth limit (levels,",
    " * the root container being level 1); counters it adds every array's length to (`elements`) and the",
    " * length of the value's shortest text to (`chars`: no whitespace, no escapes, numbers as `String(x)`),",
    " * with `exact` cleared when a number may be written shorter than that; and the generic walk for open",
    " * objects (members below the value, or -1 when it cannot prove it; it adds to the same counters).",
    " */",
    "export interface AcceptContext {",
    "  maxDepth: number;",
    "  elements: number;",
    "  chars: number;",
    "  exact: boolean;",
    "  readonly open: (value: object, level: number) => number;",
    "}",
    "",
    "/** An accept check: the members `value` holds when it provably passes, -1 when not proved (never an issue). */",
    "export type AcceptCheck = (value: unknown, c: AcceptContext) => number;",
    "",
  ];
  for (const type of model.types) lines.push(...counter(type, scope));
  for (const type of model.types) {
    lines.push(
      `/** Members of \`value\` when it provably is a valid ${type.name} (schema and rules; numbers finite, not -0; depth within c.maxDepth), else -1. */`,
      `export function ${acceptCheckName(type.name)}(value: unknown, c: AcceptContext): number {`,
      `  const n = ${counterName(type.name)}(value, 1, c);`,
      `  return n < 0 || ${probeName(type.name)}(value) ? -1 : n;`,
      "}",
      "",
    );
  }
  lines.push("/** Every accept check by wire type name. */");
  lines.push("export const ACCEPT_CHECKS: { readonly [K in WireObjectTypeName]: AcceptCheck } = {");
  for (const type of model.types) lines.push(`  ${JSON.stringify(type.name)}: ${acceptCheckName(type.name)},`);
  lines.push("};");
  return [{ path: "generated/ts/accept-checks.ts", content: finalNewline(lines.join("\n")) }];
}
