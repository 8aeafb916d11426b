/**
 * Target: `generated/python/`, the Python client SDK (package `lifeloop_callback`, distribution
 * `lifeloop-callback`, Python 3.9+, standard library only).
 *
 * Every `*.hbs` file under `sdk-templates/python/` is rendered (handlebars 4.7.10, isolated instance,
 * `noEscape` + `strict`) with one view model into `generated/python/<same path without .hbs>`, and
 * the plain sources of `sdk-runtime/python/` are copied verbatim. The view model is built by the
 * modules of this folder (naming, types, tables, commands, runner, hooks) from the Model only and
 * validated against the closed JSON Schema `sdk-templates/python/view-model.schema.json` before any
 * template sees it (handlebars' strict mode does not catch a misspelt `#each` or `#if`). Strings
 * that become Python source (literals, docstrings, annotations) are rendered here, deterministically.
 *
 * Adding a spec table needs nothing here: every table is exposed as a `<STEM>_TABLE` constant and
 * in `SPEC_TABLES` of `lifeloop_callback/spec.py`.
 */
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import { finalNewline, hashBanner, markdownBanner, type OutputFile } from "../../emit/output.js";
import type { Model } from "../../model/model.js";
import { sdkFilesUnder } from "../../model/sources.js";
import { copyRuntimeSources, sdkSource } from "../sdk-runtime.js";
import { commandGroupView, STATIC_COMMAND_EXPORTS } from "./commands.js";
import { hooksView } from "./hooks.js";
import { failureVariantConst, isortNames, pyAttr, pyConstName, pyDocstring, pyLiteral, pyStr, pyStrTuple, snake, wrap } from "./naming.js";
import { runnerView } from "./runner.js";
import { eventRowExpr } from "./tables.js";
import { dependencyOrder, ruleStepExpr, shapeExpr, typeView } from "./types.js";

/** handlebars is CommonJS (`export =`); loaded through require so the import type-checks without esModuleInterop. */
const Handlebars = createRequire(import.meta.url)("handlebars") as typeof import("handlebars");

/** Template folder, relative to the repository root. */
export const PYTHON_TEMPLATE_DIR = "sdk-templates/python";

/** Output folder, relative to the repository root. */
export const PYTHON_OUTPUT_DIR = "generated/python";

/** Version of the generated distribution. */
export const PYTHON_SDK_VERSION = "0.1.0";

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

/** Generate generated/python/. */
export async function generatePython(model: Model): Promise<OutputFile[]> {
  const view = pythonViewModel(model);
  const schema = JSON.parse(sdkSource(model, `${PYTHON_TEMPLATE_DIR}/view-model.schema.json`)) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const validate = ajv.compile(schema);
  if (!validate(view)) {
    const detail = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`);
    throw new Error(`python view model does not match ${PYTHON_TEMPLATE_DIR}/view-model.schema.json:\n${detail.join("\n")}`);
  }
  const hbs = Handlebars.create();
  const outputs: OutputFile[] = [];
  for (const { path: rel, text } of sdkFilesUnder(model.sdkSources, PYTHON_TEMPLATE_DIR).filter((f) => f.path.endsWith(".hbs"))) {
    const template = hbs.compile(text, { noEscape: true, strict: true });
    let content: string;
    try {
      content = template(view);
    } catch (error) {
      throw new Error(`${PYTHON_TEMPLATE_DIR}/${rel}: ${(error as Error).message}`);
    }
    outputs.push({ path: `${PYTHON_OUTPUT_DIR}/${rel.slice(0, -".hbs".length)}`, content: finalNewline(content.replace(/[ \t]+$/gm, "").replace(/\n{4,}/g, "\n\n\n")) });
  }
  outputs.push(...copyRuntimeSources(model, "python", [".py"], PYTHON_OUTPUT_DIR, `${String(view.banner)}\n`));
  return outputs;
}
