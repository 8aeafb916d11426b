/**
 * The wire-version window of the Python SDK (window.py → `lifeloop_callback/_gen_window.py`;
 * spec/wire-window.md): the default window (current, then spec/wire-version.json `accepted`,
 * newest first), the outside-window rule and message, and for each accepted version the rule plans
 * of its release snapshot (`Model.window`; each plan's `schema-version-current` steps expect that
 * version) and its schema metadata. The metadata (enum values, object schemas, integer paths) is
 * emitted only when it differs from current's; otherwise the version shares current's objects, so
 * nothing is duplicated while the shapes stay the same.
 */
import type { Model } from "../../model/model.js";
import type { PythonSdkViewModel } from "../../../generated/codegen/python/view-model.js";
import { isortNames, pyAttr } from "./naming.js";
import { ruleStepView } from "./types.js";

/** The schema metadata of one model, as plans.py and window.py render it (ENUM_VALUES, OBJECT_SCHEMAS, INTEGER_PATHS). */
export function schemaMetadataView(model: Model): {
  enums: { name: string; values: string[] }[];
  objectSchemas: PythonSdkViewModel["objectSchemas"];
  integerPaths: PythonSdkViewModel["integerPaths"];
} {
  return {
    enums: model.enums.map((e) => ({ name: e.name, values: [...e.values] })),
    objectSchemas: model.types.map((t) => ({
      name: t.name,
      required: (t.schema.required as string[] | undefined) ?? [],
      fields: t.fields.map((f) => ({
        name: f.name,
        attr: pyAttr(f.name),
        presence: f.presence,
        nullable: f.nullable,
        shape: f.shape,
      })),
    })),
    integerPaths: model.types.map((t) => ({ name: t.name, paths: [...(model.integerPaths.get(t.name) ?? [])] })),
  };
}

/** The rule plans of one model, one entry per wire type (plans.py RULE_PLANS, window.py). */
export function rulePlansView(model: Model): PythonSdkViewModel["rulePlans"] {
  return model.types.map((t) => ({ name: t.name, steps: (model.rulePlans.get(t.name) ?? []).map(ruleStepView) }));
}

/** `lifeloop.v0.3` → `LIFELOOP_V0_3`: a version as part of a Python constant name. */
function constSuffix(version: string): string {
  return version.replace(/[^A-Za-z0-9]+/g, "_").toUpperCase();
}

/** The window view: default window, outside-window rule and message, and every accepted version's plans and metadata. */
export function windowView(model: Model): PythonSdkViewModel["window"] {
  const current = JSON.stringify(schemaMetadataView(model));
  const suffixes = new Set<string>();
  const accepted = model.window.map(({ version, snapshot, model: frozen }) => {
    const suffix = constSuffix(version);
    if (suffixes.has(suffix))
      throw new Error(`python target: two accepted versions map to the constant suffix ${suffix}`);
    suffixes.add(suffix);
    const metadata = schemaMetadataView(frozen);
    return {
      version,
      constSuffix: suffix,
      snapshot,
      rulePlans: rulePlansView(frozen),
      ownSchemas: JSON.stringify(metadata) === current ? null : metadata,
    };
  });
  const steps = accepted.flatMap((a) => a.rulePlans.flatMap((p) => p.steps));
  const ownSchemas = accepted.some((a) => a.ownSchemas !== null);
  const planImports = [
    "ENUM_VALUES",
    "INTEGER_PATHS",
    "OBJECT_SCHEMAS",
    "RULE_PLANS",
    "ObjectSchema",
    "RuleStep",
    ...(steps.some((s) => s.when !== null) ? ["Condition"] : []),
    ...(ownSchemas ? ["Field", "Shape"] : []),
  ];
  return {
    versions: [model.wireVersion.current, ...model.wireVersion.accepted],
    outsideRule: model.wireVersion.outside_window.rule,
    outsideMessage: model.wireVersion.outside_window.message,
    planImports: isortNames(planImports),
    accepted,
  };
}
