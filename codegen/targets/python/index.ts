/**
 * Target: the generated files of `sdk/python/`, the Python client SDK (package `lifeloop_callback`,
 * distribution `lifeloop-callback`, Python 3.9+, standard library only).
 *
 * Every `*.hbs` file under `sdk/python/templates/` is rendered (handlebars 4.7.10, isolated instance,
 * `noEscape` + `strict`) with one view model into `sdk/python/` (see TEMPLATES): generated modules
 * are named `lifeloop_callback/_gen_<name>.py`, beside the hand-written modules of the package,
 * which are never read or written here (`__init__.py`, `pyproject.toml` and `README.md` are
 * generated under their fixed names). The view model is built by the
 * modules of this folder (naming, types, tables, commands, runner, hooks) from the Model only and
 * validated against the closed JSON Schema `sdk/python/templates/view-model.schema.json` before any
 * template sees it (handlebars' strict mode does not catch a misspelt `#each` or `#if`). Strings
 * that become Python source (literals, docstrings, annotations) are rendered here, deterministically.
 *
 * Adding a spec table needs nothing here: every table is exposed as a `<STEM>_TABLE` constant and
 * in `SPEC_TABLES` of `lifeloop_callback/_gen_spec.py`.
 */
import { hashBanner, markdownBanner, type OutputFile } from "../../emit/output.js";
import type { Model } from "../../model/model.js";
import type { PythonSdkViewModel } from "../../../generated/codegen/python/view-model.js";
import { renderSdk } from "../sdk-render.js";
import { commandGroupView } from "./commands.js";
import { hooksView } from "./hooks.js";
import { failureVariantConst, isortNames, pyConstName, snake } from "./naming.js";
import { runnerView } from "./runner.js";
import { PYTHON_SYNTAX } from "./syntax.js";
import { eventRowView } from "./tables.js";
import { dependencyOrder, typeView } from "./types.js";
import { rulePlansView, schemaMetadataView, windowView } from "./window.js";

/** Version of the generated distribution. */
export const PYTHON_SDK_VERSION = "0.1.0";

/** Build the view model every template receives. */
export function pythonViewModel(model: Model): PythonSdkViewModel {
  const wireVersion = model.wireVersion.current;
  for (const e of model.enums) {
    const names = e.values.map(pyConstName);
    if (new Set(names).size !== names.length)
      throw new Error(`enum ${e.name}: two values map to one Python member name`);
  }
  const enums = model.enums.map((e) => ({
    name: e.name,
    doc: `${e.description}\n\nSchema: schemas/${e.file}.`,
    values: [...e.values],
    members: e.values.map((v) => ({ name: pyConstName(v), value: v })),
  }));
  const types = dependencyOrder(model.types).map(typeView);
  const { objectSchemas, integerPaths } = schemaMetadataView(model);
  const rulePlans = rulePlansView(model);
  const tables = model.specTables.map(({ stem, file, doc }) => ({
    constName: `${snake(stem).toUpperCase()}_TABLE`,
    stem,
    doc: `${file} as written (minus \`$schema\`).`,
    value: doc,
  }));
  const failureRetryDefaults = model.tables.failureRetryDefaults.defaults.map((r) => ({
    failureMember: pyConstName(r.failure_class),
    retryMember: pyConstName(r.retry_class),
  }));
  const limits = model.tables.limits.limits.map((l) => ({
    name: l.name,
    constName: `LIMIT_${l.name.toUpperCase()}`,
    value: l.value,
    doc: `limits.${l.name} (${l.unit}): ${l.applies_to.replace(/\s+/g, " ")}`,
  }));
  const runner = runnerView(model);
  const hooks = hooksView(model);
  const groups = model.tables.clientInitiatedCommands.groups.map(commandGroupView);
  const commandExports = groups
    .flatMap((g) => [g.className, ...g.errors.map((e) => e.className), ...g.commands.map((c) => c.resultClass)])
    .sort();
  const initModules: [string, string[]][] = [
    ["codec", ["check", "decode", "encode", "from_json_value", "to_json_value"]],
    // The hand-written command classes of _host.py: `from ._host import *` (no names: its __all__, added to ours).
    ["_host", []],
    ["commands", ["COMMAND_GROUPS", ...commandExports]],
    ["enums", ["ENUM_CLASSES", ...model.enums.map((e) => e.name)]],
    ["hooks", hooks.exports],
    ["issues", ["ValidationIssue", "WireValidationError"]],
    ["json_value", ["JsonObject", "JsonValue"]],
    ["answer", ["Handler", "failure_response"]],
    ["runner", ["respond", "serve", "serve_io"]],
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
    [
      "stream",
      [
        "RequestFrameTooLargeError",
        "StreamClosedError",
        "StreamRPCError",
        "event_done",
        "serve_stream",
        "serve_stream_io",
      ],
    ],
    ["wire", ["WIRE_CLASSES", "WireObject", ...model.types.map((t) => t.name)]],
    ["window", ["OUTSIDE_WINDOW_MESSAGE", "OUTSIDE_WINDOW_RULE", "WIRE_WINDOW"]],
  ];
  const initImports = initModules
    .map(([module, names]) => ({ module: moduleName(module), names: isortNames(names) }))
    .sort((a, b) => (a.module < b.module ? -1 : a.module > b.module ? 1 : 0));
  const allExports = initModules.flatMap(([, names]) => names).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const twice = allExports.find((name, i) => allExports[i + 1] === name);
  if (twice !== undefined) throw new Error(`python target: two exported names are ${twice}`);
  return {
    banner: hashBanner().trimEnd(),
    markdownBanner: markdownBanner().trimEnd(),
    sdkVersion: PYTHON_SDK_VERSION,
    wireVersion,
    referenceCrate: model.wireVersion.reference.crate,
    referenceVersion: model.wireVersion.reference.version,
    enumNames: isortNames(model.enums.map((e) => e.name)),
    initImports,
    enums,
    types,
    objectSchemas,
    rulePlans,
    integerPaths,
    window: windowView(model),
    events: model.tables.eventVocabulary.events.map(eventRowView),
    failureVariants: model.tables.subprocessFailureMapping.variants.map((r) => ({
      variant: r.variant,
      failureMember: pyConstName(r.failure_class),
      origin: r.origin,
      referenceVariant: r.reference_variant,
      transports: [...r.transports],
      stage: r.stage,
      when: r.when,
      reason: r.reason ?? null,
    })),
    failureRetryDefaults,
    failureVariantConsts: model.tables.subprocessFailureMapping.variants.map((r) => ({
      constName: failureVariantConst(r.variant),
      variant: r.variant,
      doc: `Failure variant \`\`${r.variant}\`\` (failure class \`\`${r.failure_class}\`\`): ${r.when}`,
    })),
    limits,
    documentRuleIds: model.tables.documentRules.rules.map((r) => r.id),
    ruleConsts: [...model.tables.documentRules.rules, ...model.rules].map((r) => ({
      constName: `RULE_${r.id.replace(/[^A-Za-z0-9]+/g, "_").toUpperCase()}`,
      id: r.id,
      doc: `Rule \`\`${r.id}\`\`: ${r.summary.replace(/\s+/g, " ")}`,
    })),
    ruleIds: model.rules.map((r) => r.id),
    tables,
    groups,
    runner,
    hooks,
    allExports,
  };
}

/** The modules of the package that are generated, each as `lifeloop_callback/_gen_<module>.py` from `<module>.py.hbs`. */
const GENERATED_MODULES = ["enums", "wire", "plans", "window", "spec", "runner_outcomes", "commands", "hooks"] as const;

/** The module name a generated module is imported by (`spec` → `_gen_spec`); hand-written modules keep their name. */
function moduleName(module: string): string {
  return (GENERATED_MODULES as readonly string[]).includes(module) ? `_gen_${module}` : module;
}

/**
 * Template (under sdk/python/templates/) → output path (under sdk/python/). codegen/emit/check.ts
 * refuses any other name in the package, so a hand-written module is never overwritten.
 */
const TEMPLATES: readonly (readonly [string, string])[] = [
  ["pyproject.toml.hbs", "pyproject.toml"],
  ["README.md.hbs", "README.md"],
  ["__init__.py.hbs", "lifeloop_callback/__init__.py"],
  ...GENERATED_MODULES.map((m): readonly [string, string] => [`${m}.py.hbs`, `lifeloop_callback/${moduleName(m)}.py`]),
];

/** The banners of a file generated from `templatePath`. */
function pythonBanners(templatePath: string): { banner: string; markdownBanner: string } {
  return {
    banner: hashBanner(`Template: ${templatePath}.`).trimEnd(),
    markdownBanner: markdownBanner(`Template: ${templatePath}.`).trimEnd(),
  };
}

/** Generate the generated files of sdk/python/ from sdk/python/templates/. */
export async function generatePython(model: Model): Promise<OutputFile[]> {
  return renderSdk(
    model,
    { language: "python", templates: TEMPLATES, banners: pythonBanners, syntax: PYTHON_SYNTAX },
    pythonViewModel(model),
  );
}
