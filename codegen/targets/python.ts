/**
 * Target: `generated/python/`, the Python client SDK (package `lifeloop_callback`, distribution
 * `lifeloop-callback`, Python 3.9+, standard library only).
 *
 * Every `*.hbs` file under `sdk-templates/python/` is rendered (handlebars 4.7.10, isolated instance,
 * `noEscape` + `strict`) with one view model into `generated/python/<same path without .hbs>`. The view
 * model is built here from the Model only and validated against the closed JSON Schema
 * `sdk-templates/python/view-model.schema.json` before any template sees it (handlebars' strict mode
 * does not catch a misspelt `#each` or `#if`; see toolchain-notes §1.5). Strings that become Python
 * source (literals, docstrings, annotations) are rendered here, deterministically.
 *
 * Adding a spec table needs nothing here: every table of the model's raw tables is exposed as a
 * `<STEM>_TABLE` constant and in `SPEC_TABLES` of `lifeloop_callback/spec.py`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, sep } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { finalNewline, hashBanner, markdownBanner, type OutputFile } from "../emit/output.js";
import { wrapWords } from "../emit/text.js";
import type { CommandGroup, Field, Model, RuleStep, Shape, WireType } from "../model/model.js";
import { copyRuntimeSources } from "./sdk-runtime.js";
import { camelWords, hookExample, hookMapping, runnerOutcomeBullets, runnerOutcomes, runnerOutcomeTable, runnerVariants } from "./sdk-shared.js";

/** handlebars is CommonJS (`export =`); loaded through require so the import type-checks without esModuleInterop. */
const Handlebars = createRequire(import.meta.url)("handlebars") as typeof import("handlebars");

/** Template folder, relative to the repository root. */
export const PYTHON_TEMPLATE_DIR = "sdk-templates/python";
/** Output folder, relative to the repository root. */
export const PYTHON_OUTPUT_DIR = "generated/python";
/** Version of the generated distribution. */
export const PYTHON_SDK_VERSION = "0.1.0";

const PY_KEYWORDS = new Set([
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
  "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
  "pass", "raise", "return", "try", "while", "with", "yield", "match", "case", "type",
]);

// ---------------------------------------------------------------------------
// Python source helpers

/** A Python string literal (JSON string syntax is valid Python). */
export function pyStr(text: string): string {
  return JSON.stringify(text);
}

/** A Python tuple literal of expressions. */
function pyTuple(exprs: readonly string[]): string {
  if (exprs.length === 0) return "()";
  return `(${exprs.join(", ")}${exprs.length === 1 ? "," : ""})`;
}

/** A Python tuple literal of strings. */
function pyStrTuple(values: readonly string[]): string {
  return pyTuple(values.map(pyStr));
}

/** A Python literal of a JSON value (dicts and lists), pretty-printed with 4-space indentation. */
export function pyLiteral(value: unknown, indent = ""): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`non-finite number ${value} in a table`);
    return Number.isInteger(value) ? String(value) : JSON.stringify(value);
  }
  if (typeof value === "string") return pyStr(value);
  const inner = `${indent}    `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => `${inner}${pyLiteral(v, inner)},`).join("\n")}\n${indent}]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([k, v]) => `${inner}${pyStr(k)}: ${pyLiteral(v, inner)},`).join("\n")}\n${indent}}`;
  }
  throw new Error(`cannot render ${typeof value} as a Python literal`);
}

/** Word-wrap `text` into lines of at most `width` characters (never splits a word; keeps blank lines). */
function wrap(text: string, width: number): string[] {
  return wrapWords(text, width, true);
}

/** Escape text for a triple-quoted Python docstring. */
function docEscape(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"');
}

/** A complete docstring block at `indent`, wrapped at 100 columns. */
export function pyDocstring(text: string, indent: string): string {
  const lines = wrap(docEscape(text.trim()), Math.max(40, 100 - indent.length));
  if (lines.length === 1 && indent.length + (lines[0] ?? "").length + 6 <= 110) return `${indent}"""${lines[0]}"""`;
  return [`${indent}"""${lines[0]}`, ...lines.slice(1).map((l) => (l ? `${indent}${l}` : "")), `${indent}"""`].join("\n");
}

/** UPPER_SNAKE member name of an enum value (`context.pressure_observed` -> `CONTEXT_PRESSURE_OBSERVED`). */
export function pyConstName(value: string): string {
  let name = value.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "").toUpperCase();
  if (/^[0-9]/.test(name)) name = `_${name}`;
  if (!name) throw new Error(`cannot name enum value ${JSON.stringify(value)}`);
  return name;
}

/** Python attribute name of a wire field (a keyword gets a trailing underscore). */
function pyAttr(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`field ${JSON.stringify(name)} is not a Python identifier`);
  return PY_KEYWORDS.has(name) ? `${name}_` : name;
}

function snake(text: string): string {
  return text.replace(/-/g, "_");
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

/**
 * Sort imported names like isort's `order-by-type` (ruff's I001): CONSTANTS, then Classes, then
 * functions/variables, each group case-insensitively.
 */
export function isortNames(names: readonly string[]): string[] {
  const group = (n: string): number => (n === n.toUpperCase() && /[A-Z]/.test(n) ? 0 : /^[A-Z]/.test(n) ? 1 : 2);
  return [...names].sort((a, b) => {
    const g = group(a) - group(b);
    if (g !== 0) return g;
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
  });
}

/** Names `lifeloop_callback/commands.py` defines for every registry (re-exported by the package). */
const STATIC_COMMAND_EXPORTS = [
  "COMMAND_GROUPS",
  "CommandError",
  "CommandFailedError",
  "CommandOutputError",
  "CommandReportedError",
  "CommandSpawnError",
  "CommandTimeoutError",
  "CommandUsageError",
  "ListedEntry",
];

// ---------------------------------------------------------------------------
// View model pieces

function annotationOf(shape: Shape): string {
  switch (shape.kind) {
    case "string":
      return "str";
    case "integer":
      return "int";
    case "enum":
      return shape.enumName;
    case "object":
      return shape.typeName;
    case "open_object":
      return "Dict[str, JsonValue]";
    case "array":
      return `Tuple[${annotationOf(shape.items)}, ...]`;
  }
}

function shapeExpr(shape: Shape): string {
  switch (shape.kind) {
    case "string":
      return `Shape("string", max_length=${shape.maxLength})`;
    case "integer":
      return `Shape("integer", minimum=${shape.minimum}, maximum=${shape.maximum})`;
    case "enum":
      return `Shape("enum", ref=${pyStr(shape.enumName)})`;
    case "object":
      return `Shape("object", ref=${pyStr(shape.typeName)})`;
    case "open_object":
      return `Shape("open_object")`;
    case "array":
      return `Shape("array", items=${shapeExpr(shape.items)}, max_items=${shape.maxItems})`;
  }
}

interface PyField {
  readonly attr: string;
  readonly annotation: string;
  readonly default: string;
  readonly comment: string[];
}

function dataclassField(field: Field): PyField & { readonly hasDefault: boolean } {
  const attr = pyAttr(field.name);
  const base = annotationOf(field.shape);
  const comment = wrap(`${field.description} (wire: \`${field.name}\`, ${field.presence})`, 92);
  if (field.name === "schema_version" && field.presence === "required" && field.shape.kind === "string") {
    return { attr, annotation: base, default: " = WIRE_VERSION", comment, hasDefault: true };
  }
  switch (field.presence) {
    case "required":
      return { attr, annotation: base, default: "", comment, hasDefault: false };
    case "required_nullable":
    case "optional":
    case "optional_emit_null":
      return { attr, annotation: `Optional[${base}]`, default: " = None", comment, hasDefault: true };
    case "collection":
      return {
        attr,
        annotation: base,
        default: field.shape.kind === "open_object" ? " = field(default_factory=dict)" : " = ()",
        comment,
        hasDefault: true,
      };
  }
}

function typeView(type: WireType): { name: string; docstring: string; fields: PyField[] } {
  const fields = type.fields.map(dataclassField);
  const ordered = [...fields.filter((f) => !f.hasDefault), ...fields.filter((f) => f.hasDefault)];
  return {
    name: type.name,
    docstring: pyDocstring(`${type.description}\n\nSchema: schemas/${type.file}.`, "    "),
    fields: ordered.map(({ attr, annotation, default: d, comment }) => ({ attr, annotation, default: d, comment })),
  };
}

function ruleStepExpr(step: RuleStep): string {
  const parts = [`rule=${pyStr(step.rule)}`, `check=${pyStr(step.check)}`, `at=${pyStr(step.at)}`, `message=${pyStr(step.message)}`];
  if (step.field !== undefined) parts.push(`field=${pyStr(step.field)}`);
  if (step.fields !== undefined) parts.push(`fields=${pyStrTuple(step.fields)}`);
  if (step.each) parts.push("each=True");
  if (step.lengthField !== undefined) parts.push(`length_field=${pyStr(step.lengthField)}`);
  if (step.when) {
    parts.push(`when=Condition(field=${pyStr(step.when.field)}, op=${pyStr(step.when.op)}, values=${pyStrTuple(step.when.values)})`);
  }
  if (step.values !== undefined) parts.push(`values=${pyStrTuple(step.values)}`);
  if (step.expected !== undefined) parts.push(`expected=${pyStr(step.expected)}`);
  return parts.join(", ");
}

function eventRowExpr(row: Model["tables"]["eventVocabulary"]["events"][number]): string {
  const b = (v: boolean): string => (v ? "True" : "False");
  return [
    `event=${pyStr(row.event)}`,
    `summary=${pyStr(row.summary)}`,
    `requires_frame_context=${b(row.requires_frame_context)}`,
    `notification_only=${b(row.notification_only)}`,
    `dispatchable=${b(row.dispatchable)}`,
    `stream_v2=${pyStr(row.stream_v2)}`,
  ].join(", ");
}

/** Python type and readers of a member the host CLI prints (a result field or an error field). */
interface MemberType {
  readonly annotation: string;
  /** `CommandReportedError` accessor for error fields. */
  readonly accessor: string;
  /** Module-level parser for result fields. */
  readonly parser: string;
}

/** Python type and readers of each member type of spec/tables/client-initiated-commands.json `members`. */
const MEMBER_PY_TYPES: Readonly<Record<"string" | "unsigned_integer" | "nullable_unsigned_integer" | "entries", MemberType>> = {
  string: { annotation: "str", accessor: "_str", parser: "_want_str" },
  unsigned_integer: { annotation: "int", accessor: "_int", parser: "_want_int" },
  nullable_unsigned_integer: { annotation: "Optional[int]", accessor: "_int", parser: "_want_optional_int" },
  entries: { annotation: "Tuple[ListedEntry, ...]", accessor: "_str", parser: "_want_entries" },
};

function fieldType(group: CommandGroup, member: string, where: string): MemberType {
  const known = group.members.find((m) => m.name === member);
  if (!known) throw new Error(`python target: ${where} prints member ${JSON.stringify(member)}, which spec/tables/client-initiated-commands.json members does not type`);
  if (known.nullable && known.type !== "unsigned_integer") throw new Error(`python target: ${where}: a nullable ${known.type} member has no Python reader yet`);
  return MEMBER_PY_TYPES[known.nullable ? "nullable_unsigned_integer" : known.type];
}

function commandGroupView(group: CommandGroup) {
  const className = pascal(group.group);
  const cliText = group.cli.join(" ");
  const errors = group.errors.map((e) => ({
    className: `${className}${pascal(e.error)}Error`,
    errorLiteral: pyStr(e.error),
    docstring: pyDocstring(
      `\`${e.error}\` reported by \`${cliText}\` (exit status ${e.exit_code})${e.fields.length ? `; fields: ${e.fields.join(", ")}` : ""}.`,
      "    ",
    ),
    fields: e.fields.map((f) => {
      const t = fieldType(group, f, `client-initiated-commands ${group.group} error ${e.error}`);
      return {
        name: f,
        attr: pyAttr(f),
        nameLiteral: pyStr(f),
        annotation: t.annotation.startsWith("Optional[") ? t.annotation.slice(9, -1) : t.annotation,
        accessor: t.accessor,
      };
    }),
  }));
  const commands = group.commands.map((c) => {
    const method = snake(c.command);
    const resultClass = `${className}${pascal(c.command)}Result`;
    const params: string[] = ["self"];
    const kwParams: string[] = [];
    const flags = c.flags.map((f) => {
      const param = pyAttr(snake(f.flag.replace(/^--/, "")));
      const pyType = f.value === "unsigned_integer" ? "int" : "str";
      if (f.required) params.push(`${param}: ${pyType}`);
      else kwParams.push(`${param}: Optional[${pyType}] = None`);
      return { flagLiteral: pyStr(f.flag), param, kindLiteral: pyStr(f.value) };
    });
    if (c.stdin === "blob") params.push("blob: bytes");
    const signature = [...params, ...(kwParams.length ? ["*", ...kwParams] : [])].join(", ");
    const where = `client-initiated-commands ${group.group} ${c.command}`;
    const resultFields = c.result_fields.map((f) => {
      const t = fieldType(group, f, where);
      return { attr: pyAttr(f), annotation: t.annotation, parser: t.parser, nameLiteral: pyStr(f) };
    });
    const source =
      c.stdout === "json" ? "the JSON object on stdout" : c.stderr === "json_metadata" ? "the JSON metadata on stderr" : "stdout";
    const flagDoc = c.flags
      .map((f) => `\`${f.flag}\` (${f.required ? "required" : "optional"} ${f.value.replace("_", " ")})`)
      .join(", ");
    const doc = [
      `Run \`${cliText} ${c.command}\` and return its result (fields from ${source}: ${c.result_fields.join(", ")}).`,
      "",
      `Flags: ${flagDoc || "none"}.${c.stdin === "blob" ? " `blob` is written to the command's stdin." : ""}${
        c.stdout === "blob" ? " The blob comes back raw from stdout." : ""
      }`,
      "",
      `Raises a CommandReportedError subclass for ${group.errors.map((e) => `\`${e.error}\``).join(", ")}; CommandUsageError, CommandTimeoutError, CommandSpawnError, CommandFailedError or CommandOutputError otherwise.`,
    ].join("\n");
    if (c.stdout === "json" && c.stderr === "json_metadata") throw new Error(`${where}: JSON on both stdout and stderr is not supported`);
    if (c.stdout === "blob" && c.stderr !== "json_metadata") throw new Error(`${where}: a blob result needs JSON metadata on stderr`);
    return {
      method,
      commandLiteral: pyStr(c.command),
      resultClass,
      resultDocstring: pyDocstring(`Result of \`${cliText} ${c.command}\`.`, "    "),
      signature,
      docstring: pyDocstring(doc, "        "),
      flags,
      stdinArg: c.stdin === "blob" ? "blob" : "None",
      fieldsSource: c.stdout === "json" ? "_stdout_json" : "_stderr_json",
      blobResult: c.stdout === "blob",
      diagnostics: c.stderr === "diagnostics",
      resultFields,
    };
  });
  const envDoc = group.environment.map((e) => `\`${e.name}\`: ${e.meaning}`).join(" ");
  return {
    className,
    groupLiteral: pyStr(group.group),
    programLiteral: pyStr(group.cli[0] ?? ""),
    groupArgsLiteral: pyStrTuple(group.cli.slice(1)),
    usageExitCode: group.usage_error_exit_code,
    docstring: pyDocstring(
      `The \`${group.group}\` commands (${group.spec}): ${group.purpose}\n\nRuns \`${cliText} <command>\`. Identifiers (${group.identifier.max_length} bytes at most, pattern \`${group.identifier.pattern}\`) are checked by the host CLI. Environment: ${envDoc}`,
      "    ",
    ),
    errors,
    commands,
  };
}

/**
 * Wire types with every referenced type before its referrers (model order otherwise), so no class
 * annotation is a forward reference (mypy would resolve a forward `Warning` to the builtin).
 */
function dependencyOrder(types: readonly WireType[]): WireType[] {
  const byName = new Map(types.map((t) => [t.name, t]));
  const done = new Set<string>();
  const out: WireType[] = [];
  const refs = (shape: Shape): string[] =>
    shape.kind === "object" ? [shape.typeName] : shape.kind === "array" ? refs(shape.items) : [];
  const visit = (type: WireType, stack: readonly string[]): void => {
    if (done.has(type.name)) return;
    if (stack.includes(type.name)) throw new Error(`recursive wire types: ${[...stack, type.name].join(" -> ")}`);
    for (const field of type.fields) {
      for (const name of refs(field.shape)) visit(byName.get(name) as WireType, [...stack, type.name]);
    }
    done.add(type.name);
    out.push(type);
  };
  for (const type of types) visit(type, []);
  return out;
}

/** UPPER_SNAKE words of a harness event name: `UserPromptSubmit` → `USER_PROMPT_SUBMIT`. */
function upperSnake(camel: string): string {
  return camelWords(camel).join("_").toUpperCase();
}

/** Python constant of a failure variant of spec/tables/subprocess-failure-mapping.json, e.g. `FAILURE_VARIANT_HANDLER_THREW`. */
function failureVariantConst(variant: string): string {
  return `FAILURE_VARIANT_${pyConstName(variant)}`;
}

/** The client runner: failure classes and warning-code constants from the tables, and its documented outcomes. */
function runnerView(model: Model) {
  const v = runnerVariants(model, "python");
  const classExpr = (failureClass: string): string => `FailureClass.${pyConstName(failureClass)}`;
  const outcomes = runnerOutcomes(model, "python", { binding: "python", handlerFails: "raises an exception", invalidResponseExtra: " or is not a CallbackResponse at all" });
  const codes = {
    readRequestCode: failureVariantConst(v.readRequest.variant),
    guardCode: failureVariantConst(v.guard.variant),
    handlerThrewCode: failureVariantConst(v.handlerThrew.variant),
    invalidResponseCode: failureVariantConst(v.invalidResponse.variant),
  };
  return {
    rejectClass: v.invalidRequest.failureClass,
    rejectClassExpr: classExpr(v.invalidRequest.failureClass),
    guardEvent: model.tables.receiptEmittedGuard.event,
    guardClassExpr: classExpr(v.guard.failureClass),
    handlerClass: v.handlerThrew.failureClass,
    handlerClassExpr: classExpr(v.handlerThrew.failureClass),
    readClassExpr: classExpr(v.readRequest.failureClass),
    ...codes,
    specImports: isortNames([...new Set(Object.values(codes))]),
    outcomeLines: runnerOutcomeBullets(outcomes, 98, (name) => `\`\`${name}\`\``),
    outcomeTable: runnerOutcomeTable(outcomes),
  };
}

/** The harness hook mapping as typed constants (lifeloop_callback/hooks.py). */
function hooksView(model: Model) {
  const facts = hookMapping(model);
  const adapterConst = (adapter: string): string => `HOOK_ADAPTER_${pyConstName(adapter)}`;
  const eventConst = (adapter: string, hookEvent: string): string => `${pyConstName(adapter)}_HOOK_EVENT_${upperSnake(hookEvent)}`;
  const literalType = (values: readonly string[], what: string): string => {
    if (values.length === 0) throw new Error(`python target: spec/tables/harness-hook-mapping.json has no ${what}; hooks.py needs at least one`);
    return `Literal[${values.map(pyStr).join(", ")}]`;
  };
  const adapters = facts.adapters.map((a) => {
    const constName = adapterConst(a.adapter);
    const limit = a.contextLimit;
    const hookEvents = a.hookEvents.map((h) => ({
      constName: eventConst(a.adapter, h.hookEvent),
      literal: pyStr(h.hookEvent),
      docLines: wrap(
        `The ${a.harness} hook event ${h.hookEvent} (output schema schemas/hooks/${h.outputSchema}.schema.json); lifecycle events: ${a.events
          .filter((e) => e.hookEvent === h.hookEvent)
          .map((e) => e.event)
          .join(", ")}.`,
        97,
      ),
      infoExpr: [
        `adapter=${constName}`,
        `hook_event=${eventConst(a.adapter, h.hookEvent)}`,
        `output_schema=${pyStr(h.outputSchema)}`,
        `context_slot=${h.contextSlot === null ? "None" : pyStr(h.contextSlot)}`,
        `context_placements=${pyTuple(h.contextPlacements.map((p) => `PlacementClass.${pyConstName(p)}`))}`,
        `block=${pyStr(h.block)}`,
        `block_applies=${h.blockApplies ? "True" : "False"}`,
      ].join(", "),
    }));
    return {
      constName,
      literal: pyStr(a.adapter),
      doc: `Canonical adapter name of ${a.harness} (adapter ids ${a.adapterIds.join(", ")}).`,
      ids: a.adapterIds.map((id) => ({ literal: pyStr(id) })),
      infoHead: [
        `adapter=${constName}`,
        `harness=${pyStr(a.harness)}`,
        `adapter_ids=${pyStrTuple(a.adapterIds)}`,
        `context_limit=${limit === null ? "None" : `HookContextLimit(length=${limit.length}, unit=${pyStr(limit.unit)}, on_exceed=${pyStr(limit.onExceed)}, fact=${pyStr(limit.fact)})`}`,
      ].join(", "),
      hookEvents,
      events: a.events.map((e) => ({
        member: `LifecycleEventKind.${pyConstName(e.event)}`,
        value: e.hookEvent === null ? "None" : eventConst(a.adapter, e.hookEvent),
      })),
    };
  });
  const example = hookExample(facts);
  const exports = [
    "HOOK_ADAPTERS",
    "HOOK_ADAPTER_IDS",
    "HOOK_ADAPTER_INFO",
    "HOOK_EVENTS",
    "HookAdapterInfo",
    "HookBlockEffect",
    "HookContextLimit",
    "HookContextSlot",
    "HookEventInfo",
    "hook_adapter_for",
    "hook_event_for",
    "hook_event_info_for",
    ...adapters.flatMap((a) => [a.constName, ...a.hookEvents.map((h) => h.constName)]),
  ];
  return {
    blockEffectType: literalType(
      facts.blockEffects.map((b) => b.block),
      "block effect",
    ),
    contextSlotType: literalType(facts.contextSlots, "context slot"),
    adapters,
    adapterTuple: pyTuple(adapters.map((a) => a.constName)),
    example: {
      adapterIdLiteral: pyStr(example.adapterId),
      eventMember: `LifecycleEventKind.${pyConstName(example.event)}`,
      hookEventConst: eventConst(example.adapter.adapter, example.hookEvent.hookEvent),
      hookEventLiteral: pyStr(example.hookEvent.hookEvent),
    },
    exports,
  };
}

/** Build the view model every template receives. */
export function pythonViewModel(model: Model): Record<string, unknown> {
  const wireVersion = model.wireVersion.current;
  for (const e of model.enums) {
    const names = e.values.map(pyConstName);
    if (new Set(names).size !== names.length) throw new Error(`enum ${e.name}: two values map to one Python member name`);
  }
  const enums = model.enums.map((e) => ({
    name: e.name,
    docstring: pyDocstring(`${e.description}\n\nSchema: schemas/${e.file}.`, "    "),
    valuesLiteral: pyStrTuple(e.values),
    members: e.values.map((v) => ({ name: pyConstName(v), value: pyStr(v) })),
  }));
  const types = dependencyOrder(model.types).map(typeView);
  const objectSchemas = model.types.map((t) => ({
    name: t.name,
    requiredLiteral: pyStrTuple((t.schema.required as string[] | undefined) ?? []),
    fields: t.fields.map((f) => ({
      literal: `name=${pyStr(f.name)}, attr=${pyStr(pyAttr(f.name))}, presence=${pyStr(f.presence)}, nullable=${f.nullable ? "True" : "False"}, shape=${shapeExpr(f.shape)}`,
    })),
  }));
  const rulePlans = model.types.map((t) => ({ name: t.name, steps: (model.rulePlans.get(t.name) ?? []).map(ruleStepExpr) }));
  const integerPaths = model.types.map((t) => ({ name: t.name, literal: pyStrTuple(model.integerPaths.get(t.name) ?? []) }));
  const tables = model.specTables.map(({ stem, file, doc }) => {
    return {
      constName: `${snake(stem).toUpperCase()}_TABLE`,
      stemLiteral: pyStr(stem),
      doc: `${file} as written (minus \`$schema\`).`,
      literal: pyLiteral(doc),
    };
  });
  const failureRetryDefaults = model.tables.failureRetryDefaults.defaults.map((r) => ({
    failureClass: `FailureClass.${pyConstName(r.failure_class)}`,
    retryClass: `RetryClass.${pyConstName(r.retry_class)}`,
  }));
  const limits = model.tables.limits.limits.map((l) => ({
    nameLiteral: pyStr(l.name),
    constName: `LIMIT_${l.name.toUpperCase()}`,
    value: l.value,
    doc: `limits.${l.name} (${l.unit}): ${l.applies_to.replace(/\s+/g, " ")}`,
  }));
  const runner = runnerView(model);
  const hooks = hooksView(model);
  const groups = model.tables.clientInitiatedCommands.groups.map(commandGroupView);
  const commandExports = groups.flatMap((g) => [g.className, ...g.errors.map((e) => e.className), ...g.commands.map((c) => c.resultClass)]).sort();
  const initModules: [string, string[]][] = [
    ["codec", ["check", "decode", "encode", "from_json_value", "to_json_value"]],
    ["commands", [...STATIC_COMMAND_EXPORTS, ...commandExports]],
    ["enums", ["ENUM_CLASSES", ...model.enums.map((e) => e.name)]],
    ["hooks", hooks.exports],
    ["issues", ["ValidationIssue", "WireValidationError"]],
    ["json_value", ["JsonObject", "JsonValue"]],
    ["runner", ["Handler", "failure_response", "respond", "serve", "serve_io"]],
    [
      "spec",
      [
        "CLIENT_INITIATED_COMMANDS",
        "DISPATCHABLE_EVENTS",
        "EVENT_VOCABULARY",
        "FAILURE_RETRY_DEFAULTS",
        "FAILURE_VARIANTS",
        "LIMITS",
        "SDK_VERSION",
        "SPEC_TABLES",
        "WIRE_VERSION",
        ...model.tables.subprocessFailureMapping.variants.map((r) => failureVariantConst(r.variant)),
      ],
    ],
    ["stream", ["StreamClosedError", "StreamRPCError", "event_done", "serve_stream", "serve_stream_io"]],
    ["wire", ["WIRE_CLASSES", "WireObject", ...model.types.map((t) => t.name)]],
  ];
  const initImports = initModules.map(([module, names]) => ({ module, names: isortNames(names) }));
  const allExports = initModules.flatMap(([, names]) => names).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const twice = allExports.find((name, i) => allExports[i + 1] === name);
  if (twice !== undefined) throw new Error(`python target: two exported names are ${twice}`);
  return {
    banner: hashBanner().trimEnd(),
    markdownBanner: markdownBanner().trimEnd(),
    sdkVersion: PYTHON_SDK_VERSION,
    sdkVersionLiteral: pyStr(PYTHON_SDK_VERSION),
    wireVersion,
    wireVersionLiteral: pyStr(wireVersion),
    referenceCrateLiteral: pyStr(model.wireVersion.reference.crate),
    referenceVersionLiteral: pyStr(model.wireVersion.reference.version),
    enumNames: isortNames(model.enums.map((e) => e.name)),
    initImports,
    enums,
    types,
    objectSchemas,
    rulePlans,
    integerPaths,
    events: model.tables.eventVocabulary.events.map(eventRowExpr),
    failureVariants: model.tables.subprocessFailureMapping.variants.map((r) =>
      [
        `variant=${pyStr(r.variant)}`,
        `failure_class=FailureClass.${pyConstName(r.failure_class)}`,
        `origin=${pyStr(r.origin)}`,
        `reference_variant=${r.reference_variant === null ? "None" : pyStr(r.reference_variant)}`,
        `transports=${pyStrTuple(r.transports)}`,
        `stage=${pyStr(r.stage)}`,
        `when=${pyStr(r.when)}`,
        `reason=${r.reason === undefined ? "None" : pyStr(r.reason)}`,
      ].join(", "),
    ),
    failureRetryDefaults,
    failureVariantConsts: model.tables.subprocessFailureMapping.variants.map((r) => ({
      constName: failureVariantConst(r.variant),
      literal: pyStr(r.variant),
      docLines: wrap(`Failure variant \`\`${r.variant}\`\` (failure class \`\`${r.failure_class}\`\`): ${r.when}`, 97),
    })),
    limits,
    documentRuleIds: pyStrTuple(model.tables.documentRules.rules.map((r) => r.id)),
    ruleConsts: [...model.tables.documentRules.rules, ...model.rules].map((r) => ({
      constName: `RULE_${r.id.replace(/[^A-Za-z0-9]+/g, "_").toUpperCase()}`,
      literal: pyStr(r.id),
      doc: `Rule \`\`${r.id}\`\`: ${r.summary.replace(/\s+/g, " ")}`,
    })),
    ruleIds: pyStrTuple(model.rules.map((r) => r.id)),
    tables,
    groups,
    runner,
    hooks,
    allExports,
  };
}

// ---------------------------------------------------------------------------
// Rendering

function listTemplates(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path).sort()) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) walk(child);
      else if (name.endsWith(".hbs")) out.push(child);
    }
  };
  walk(dir);
  return out;
}

/** Generate generated/python/. */
export async function generatePython(model: Model): Promise<OutputFile[]> {
  const templateDir = join(model.root, PYTHON_TEMPLATE_DIR);
  const view = pythonViewModel(model);
  const schema = JSON.parse(readFileSync(join(templateDir, "view-model.schema.json"), "utf8")) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const validate = ajv.compile(schema);
  if (!validate(view)) {
    const detail = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`);
    throw new Error(`python view model does not match ${PYTHON_TEMPLATE_DIR}/view-model.schema.json:\n${detail.join("\n")}`);
  }
  const hbs = Handlebars.create();
  const outputs: OutputFile[] = [];
  for (const file of listTemplates(templateDir)) {
    const rel = relative(templateDir, file).split(sep).join("/");
    const template = hbs.compile(readFileSync(file, "utf8"), { noEscape: true, strict: true });
    let content: string;
    try {
      content = template(view);
    } catch (error) {
      throw new Error(`${PYTHON_TEMPLATE_DIR}/${rel}: ${(error as Error).message}`);
    }
    outputs.push({ path: `${PYTHON_OUTPUT_DIR}/${rel.slice(0, -".hbs".length)}`, content: finalNewline(content.replace(/[ \t]+$/gm, "").replace(/\n{4,}/g, "\n\n\n")) });
  }
  outputs.push(...copyRuntimeSources(model.root, "python", [".py"], PYTHON_OUTPUT_DIR, `${String(view.banner)}\n`));
  return outputs;
}
