/**
 * The wire-version window of the Go SDK (window.go.hbs → zz_window.go; spec/wire-window.md): the
 * default window, the outside-window rule and message of spec/wire-version.json, and for each
 * accepted version the schema metadata and rule plans of its release snapshot (`Model.window`).
 *
 * Nothing is duplicated that current already has: a snapshot type whose schema (and the values of
 * the enums it uses) is identical to the current type of the same name uses current's metadata
 * variable, and a plan whose steps are identical uses current's plan variable. A version whose
 * every type is identical (and that has no type current lacks, nor lacks one) is `sameShapes`: a
 * tree parsed along current's schemas is its tree too (sdk/go/window.go relies on that).
 *
 * Errors: throws (through stepView) when a snapshot's plan uses a rule check the Go interpreter
 * lacks, and when a version's name gives no Go identifier.
 */
import type { GoViewModel } from "../../../generated/codegen/go/view-model.js";
import type { AcceptedVersion, Model, Shape, WireType } from "../../model/model.js";
import { goString } from "./naming.js";
import { shapeLiteral } from "./syntax.js";
import { stepView } from "./types.js";

/** The window part of the Go view model. */
export type WindowView = GoViewModel["window"];

/** The identifier suffix of a version: `lifeloop.v0.3` → `V0_3`. */
export function versionSuffix(version: string): string {
  const tail = /v(\d+(?:\.\d+)*)$/.exec(version)?.[1];
  const parts = (tail === undefined ? version : tail).split(/[^A-Za-z0-9]+/).filter((p) => p.length > 0);
  if (parts.length === 0) throw new Error(`go target: wire version ${JSON.stringify(version)} gives no Go identifier`);
  return `V${parts.join("_")}`;
}

/** The enum names a shape refers to (items included). */
function enumsOf(shape: Shape, into: Set<string>): Set<string> {
  if (shape.kind === "enum") into.add(shape.enumName);
  if (shape.kind === "array") enumsOf(shape.items, into);
  return into;
}

/** The values of the enum `name` in `model`, undefined when it has none of that name. */
function enumValues(model: Model, name: string): readonly string[] | undefined {
  return model.enums.find((e) => e.name === name)?.values;
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a !== undefined && b !== undefined && a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Whether the snapshot's type has current's schema JSON and its enums current's values. */
function sameType(type: WireType, snapshot: Model, current: Model): boolean {
  const mine = current.types.find((t) => t.name === type.name);
  if (mine === undefined || JSON.stringify(mine.schema) !== JSON.stringify(type.schema)) return false;
  const enums = new Set<string>();
  for (const field of type.fields) enumsOf(field.shape, enums);
  return [...enums].every((name) => sameList(enumValues(snapshot, name), enumValues(current, name)));
}

/** The view of one accepted version. */
function acceptedView(accepted: AcceptedVersion, current: Model): WindowView["accepted"][number] {
  const snapshot = accepted.model;
  const suffix = versionSuffix(accepted.version);
  const currentSteps = new Map(
    current.types.map((t) => [
      t.name,
      JSON.stringify((current.rulePlans.get(t.name) ?? []).map((s) => stepView(s, current.wireVersion.current))),
    ]),
  );
  // An enum whose values differ from current's is written inline in the version's own metadata.
  const enumExpr = (name: string): string => {
    const values = enumValues(snapshot, name);
    if (values === undefined) throw new Error(`go target: ${accepted.snapshot} has no enum ${name}`);
    return sameList(values, enumValues(current, name))
      ? `enumStrings${name}`
      : `[]string{${values.map(goString).join(", ")}}`;
  };
  const types = snapshot.types.map((type) => {
    const steps = (snapshot.rulePlans.get(type.name) ?? []).map((s) => stepView(s, accepted.version));
    const shared = sameType(type, snapshot, current);
    const sharedPlan = currentSteps.get(type.name) === JSON.stringify(steps);
    return {
      name: type.name,
      metaVar: shared ? `meta${type.name}` : `meta${type.name}${suffix}`,
      planVar: sharedPlan ? `rulePlan${type.name}` : `rulePlan${type.name}${suffix}`,
      ownMeta: shared
        ? null
        : {
            file: type.file,
            required: (type.schema.required as string[] | undefined) ?? [],
            fields: type.fields.map((f) => ({
              name: f.name,
              nullable: f.nullable,
              shapeGo: shapeLiteral(f.shape, enumExpr),
            })),
          },
      ownPlan: !sharedPlan,
      ownSteps: steps,
    };
  });
  const sameShapes =
    types.every((t) => t.ownMeta === null) && current.types.every((t) => snapshot.types.some((s) => s.name === t.name));
  return {
    version: accepted.version,
    snapshot: accepted.snapshot,
    rulesVar: `wireRules${suffix}`,
    metaFunc: sameShapes ? "typeMetaOf" : `typeMetaOf${suffix}`,
    planFunc: `rulePlanOf${suffix}`,
    sameShapes,
    typeNames: snapshot.types.map((t) => t.name),
    types,
  };
}

/** The window view: spec/wire-version.json and the accepted versions' snapshots. */
export function windowView(model: Model): WindowView {
  const versions = [model.wireVersion.current, ...model.window.map((a) => a.version)];
  return {
    versions,
    versionsDoc: `The default window (spec/wire-version.json): ${versions.map((v) => `\`${v}\``).join(", ")}.`,
    outsideRule: model.wireVersion.outside_window.rule,
    outsideMessage: model.wireVersion.outside_window.message,
    accepted: model.window.map((a) => acceptedView(a, model)),
  };
}
