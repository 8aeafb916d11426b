/**
 * Target: `generated/vectors/window/`, the cross-version vectors of the wire-version window
 * (spec/wire-window.md): the same documents at the versions of the window, each with the verdict of
 * the version it carries, run by every binding (TypeScript, Go, Python) through its window-aware reader.
 *
 * `generated/vectors/window/index.json`:
 *
 *   { "$comment", "format", "current", "default_window": [versions, newest first],
 *     "vectors": [{ id, path, type, window, expect, rule, pointer }] }
 *
 * and one file per case, `generated/vectors/window/<id>.json` (`path` is relative to the index's folder):
 *
 *   { "$comment", "id", "type", "window", "expect", "rule", "pointer", "message", "description",
 *     "document_base64" }
 *
 * `window` is the reader's window for the case (versions, newest first) or null for the binding's
 * default window (`current` then `accepted`); `rule`/`pointer` name the primary issue of an invalid
 * case (null for a valid one); `message` is the exact primary message of an outside-window refusal
 * (`outside_window.message` formatted), null otherwise.
 *
 * The cases, all derived from the model (Model.window holds each accepted version's snapshot model,
 * whose rule plans expect its own version):
 * - **Rule differences.** For each accepted version A and root type, every rule step that is in one
 *   version's plan and not in the other's (compared by rule, place, field(s) and check): the corpus
 *   document of the version that has the step (corpus.ts) that breaks exactly that step, written with
 *   every schema_version set to that version (invalid by that step) and to the other one (its verdict,
 *   valid when the other version lacks the step).
 * - **Typical documents** of each root type at every version of the window (valid).
 * - **Nested versions.** For each root type with a nested schema_version (a PayloadEnvelope in
 *   CallbackResponse.client_payloads, ...): a document whose root carries A and whose first nested
 *   schema_version carries current, and the reverse (invalid at the nested pointer).
 * - **Outside the window**, default window: every schema_version set to the oldest retired version
 *   outside the window and to a future version (invalid, `outside_window.rule` at the root's
 *   schema_version, with the message); **closed windows**: [current] on an A document and [A] on a
 *   current document (outside the window, the message naming that one version), [A] on an A document
 *   (A's verdict).
 *
 * Expectations come from construction (codegen/model/samples.ts: every rule step of the judging
 * version checked on the document with every member held fixed), never from running a validator.
 * A document built from one version and judged by another is only emitted when the two versions
 * give the root type the same wire schemas (the schema layer's verdict is then the same by
 * construction); today every accepted version has current's shapes.
 */
import { BANNER, stableJson, type OutputFile } from "../../emit/output.js";
import { ModelError } from "../../model/errors.js";
import type { Model, RuleStep } from "../../model/model.js";
import {
  concretePointer,
  fullObject,
  satisfy,
  slug,
  typeNamed,
  type Conflict,
  type JsonObject,
  type JsonValue,
} from "../../model/samples.js";
import { buildCorpusCases } from "./corpus.js";

/** Folder of the window vectors, relative to the repository root. */
export const WINDOW_VECTORS_DIR = "generated/vectors/window";

/** One window vector before rendering. */
export interface WindowVector {
  /** `<type-kebab>-<case>`: the file is `<id>.json` in {@link WINDOW_VECTORS_DIR}. */
  readonly id: string;
  readonly type: string;
  /** The reader's window, newest first, or null for the default window. */
  readonly window: readonly string[] | null;
  readonly expect: "valid" | "invalid";
  readonly rule: string | null;
  readonly pointer: string | null;
  /** The exact primary message of an outside-window refusal; null otherwise. */
  readonly message: string | null;
  readonly description: string;
  readonly bytes: Uint8Array;
}

/** The model that judges documents of `version`: current's or an accepted version's snapshot model. */
function modelOf(model: Model, version: string): Model {
  if (version === model.wireVersion.current) return model;
  const accepted = model.window.find((w) => w.version === version);
  if (!accepted) throw new ModelError("spec/wire-version.json", "/accepted", `${version} is not in the window`);
  return accepted.model;
}

/** Identity of a rule step across versions: rule, place, field(s) and check (the expected version aside). */
function stepKey(step: RuleStep): string {
  return JSON.stringify([step.rule, step.at, step.field ?? null, step.fields ?? null, step.check]);
}

/** Every object of `doc` (a document of `rootType`) with its type, concrete pointer and occurrence pattern. */
function objectsOf(
  model: Model,
  rootType: string,
  doc: JsonObject,
): { readonly obj: JsonObject; readonly typeName: string; readonly pointer: string; readonly pattern: string }[] {
  const out: { obj: JsonObject; typeName: string; pointer: string; pattern: string }[] = [];
  const walk = (obj: JsonObject, typeName: string, pointer: string, pattern: string): void => {
    out.push({ obj, typeName, pointer, pattern });
    for (const field of typeNamed(model, typeName).fields) {
      const value = obj[field.name];
      const isObject = (v: JsonValue | undefined): v is JsonObject =>
        typeof v === "object" && v !== null && !Array.isArray(v);
      if (field.shape.kind === "object" && isObject(value))
        walk(value, field.shape.typeName, `${pointer}/${field.name}`, `${pattern}/${field.name}`);
      if (field.shape.kind === "array" && field.shape.items.kind === "object" && Array.isArray(value)) {
        const itemType = field.shape.items.typeName;
        value.forEach((item, i) => {
          if (isObject(item)) walk(item, itemType, `${pointer}/${field.name}/${i}`, `${pattern}/${field.name}/*`);
        });
      }
    }
  };
  walk(doc, rootType, "", "");
  return out;
}

/**
 * The rule steps of `model` that `doc` breaks, with absolute pointers: every object checked by
 * {@link satisfy} with all its members held fixed (so nothing is edited, only reported).
 */
function ruleConflicts(model: Model, rootType: string, doc: JsonObject): Conflict[] {
  const out: Conflict[] = [];
  for (const { obj, typeName, pointer } of objectsOf(model, rootType, doc)) {
    const pinned = new Set(typeNamed(model, typeName).fields.map((f) => f.name));
    for (const c of satisfy(model, typeName, structuredClone(obj), pinned))
      out.push({ step: c.step, pointer: `${pointer}${c.pointer}` });
  }
  return out;
}

/** The verdict of `model` on `doc` by construction; throws when the document breaks more than one step. */
function verdictOf(
  model: Model,
  rootType: string,
  doc: JsonObject,
  what: string,
): { expect: "valid" | "invalid"; rule: string | null; pointer: string | null } {
  const conflicts = ruleConflicts(model, rootType, doc);
  if (conflicts.length > 1)
    throw new ModelError(
      "spec/tables/rules.json",
      "",
      `window vectors: ${what} breaks ${conflicts.length} rule steps of ${model.wireVersion.current} (${conflicts.map((c) => `${c.step.rule}@${c.pointer}`).join(", ")}); a case holds one violation`,
    );
  const [only] = conflicts;
  return only
    ? { expect: "invalid", rule: only.step.rule, pointer: only.pointer }
    : { expect: "valid", rule: null, pointer: null };
}

/** The places of the schema_version members of `rootType` (its equals_wire_version steps). */
function versionSteps(model: Model, rootType: string): RuleStep[] {
  return (model.rulePlans.get(rootType) ?? []).filter((s) => s.check === "equals_wire_version");
}

/** A copy of `doc` with the schema_version members at the places of `steps` (every array index) set to `version`. */
function withVersions(
  model: Model,
  rootType: string,
  doc: JsonObject,
  steps: readonly RuleStep[],
  version: string,
): JsonObject {
  const copy = structuredClone(doc);
  for (const { obj, pattern } of objectsOf(model, rootType, copy)) {
    for (const step of steps) {
      const field = step.field as string;
      if (step.at === pattern && typeof obj[field] === "string") obj[field] = version;
    }
  }
  return copy;
}

/** True when both models give `rootType` and every type and enum inside it the same wire schema. */
function sameShapes(a: Model, b: Model, rootType: string): boolean {
  const names = new Set((a.occurrences.get(rootType) ?? []).map((o) => o.typeName));
  for (const o of b.occurrences.get(rootType) ?? []) names.add(o.typeName);
  const schemaOf = (m: Model, name: string): string =>
    JSON.stringify(m.types.find((t) => t.name === name)?.schema ?? null);
  for (const name of names) if (schemaOf(a, name) !== schemaOf(b, name)) return false;
  const enums = (m: Model): string => JSON.stringify(m.enums.map((e) => [e.name, e.schema]));
  return enums(a) === enums(b);
}

/** `outside_window.message` with `{value}` and `{window}` (each version in backticks, joined by ", ") filled in. */
export function outsideWindowMessage(model: Model, value: string, window: readonly string[]): string {
  return model.wireVersion.outside_window.message
    .replace("{value}", value)
    .replace("{window}", window.map((v) => `\`${v}\``).join(", "));
}

/**
 * A version newer than any released one, for the outside-window cases: current with its first number
 * raised by nine and the others zero (`lifeloop.v1.2` would give `lifeloop.v10.0`).
 */
function futureVersion(current: string): string {
  const match = /^(.*\.v)([0-9]+)((?:\.[0-9]+)*)$/.exec(current);
  if (!match) throw new ModelError("spec/wire-version.json", "/current", `${current} does not end in vN(.N)*`);
  const rest = (match[3] ?? "").replace(/[0-9]+/g, "0");
  return `${match[1]}${Number(match[2]) + 9}${rest}`;
}

function encode(value: JsonValue): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

/** The corpus case of `corpusModel` that breaks exactly `step` of `rootType` (first by path), or undefined. */
function corpusCaseBreaking(corpusModel: Model, rootType: string, step: RuleStep) {
  const root = corpusModel.roots.find((r) => r.typeName === rootType);
  const at = concretePointer(step.at);
  const pointers = new Set<string>(step.check === "exactly_one_present" ? [at] : []);
  for (const f of step.fields ?? (step.field !== undefined ? [step.field] : [])) {
    pointers.add(`${at}/${f}`);
    if (step.each) pointers.add(`${at}/${f}/0`);
  }
  return buildCorpusCases(corpusModel).find(
    (c) =>
      c.fixtureKind === root?.fixtureKind &&
      c.expect === "invalid" &&
      c.rule === step.rule &&
      c.pointer !== undefined &&
      pointers.has(c.pointer) &&
      c.data !== undefined &&
      c.bytes === undefined,
  );
}

/** Every window vector of the model, sorted by id. Throws ModelError when a case cannot be built by construction. */
export function windowVectors(model: Model): WindowVector[] {
  const current = model.wireVersion.current;
  const defaultWindow = [current, ...model.window.map((w) => w.version)];
  const out: WindowVector[] = [];
  const add = (v: WindowVector): void => {
    if (out.some((x) => x.id === v.id))
      throw new ModelError("spec/wire-version.json", "", `window vectors: two cases have the id ${v.id}`);
    out.push(v);
  };
  const older = model.wireVersion.retired.map((r) => r.version).find((v) => !defaultWindow.includes(v));
  const future = futureVersion(current);
  for (const root of model.roots) {
    const rootType = root.typeName;
    const id = (rest: string): string => `${root.cliName}-${rest}`;
    const rootVersionStep = versionSteps(model, rootType).find((s) => s.at === "");
    const typical = new Map(defaultWindow.map((v) => [v, fullObject(modelOf(model, v), rootType)]));
    // The document of `version` judged by `judge`'s version (its own by default).
    const judged = (
      doc: JsonObject,
      judge: string,
      what: string,
    ): { expect: "valid" | "invalid"; rule: string | null; pointer: string | null } =>
      verdictOf(modelOf(model, judge), rootType, doc, `${rootType} ${what}`);

    for (const version of defaultWindow) {
      const doc = typical.get(version) as JsonObject;
      add({
        id: id(`typical-${slug(version)}`),
        type: rootType,
        window: null,
        ...judged(doc, version, `typical at ${version}`),
        message: null,
        description: `a ${rootType} with every member filled in, every schema_version ${version} (judged by ${version})`,
        bytes: encode(doc),
      });
    }

    // Outside the window: the root's schema_version is a string no reader window holds.
    const outside = (
      caseId: string,
      doc: JsonObject,
      window: readonly string[] | null,
      value: string,
      description: string,
    ): void => {
      if (!rootVersionStep) return;
      const field = rootVersionStep.field as string;
      add({
        id: id(caseId),
        type: rootType,
        window,
        expect: "invalid",
        rule: model.wireVersion.outside_window.rule,
        pointer: `/${field}`,
        message: outsideWindowMessage(model, value, window ?? defaultWindow),
        description,
        bytes: encode(doc),
      });
    };
    const allSteps = versionSteps(model, rootType);
    for (const value of [older, future]) {
      if (value === undefined) continue;
      outside(
        `outside-${slug(value)}`,
        withVersions(model, rootType, typical.get(current) as JsonObject, allSteps, value),
        null,
        value,
        `a typical ${rootType} with every schema_version ${value}, outside the default window (${defaultWindow.join(", ")})`,
      );
    }

    for (const accepted of model.window) {
      const a = accepted.version;
      const aModel = accepted.model;
      const aDoc = typical.get(a) as JsonObject;
      const currentDoc = typical.get(current) as JsonObject;
      const shared = sameShapes(model, aModel, rootType);

      // Closed windows.
      if (shared) {
        outside(
          `window-${slug(current)}-doc-${slug(a)}`,
          aDoc,
          [current],
          a,
          `a typical ${rootType} at ${a}, read with the window closed to ${current}`,
        );
        outside(
          `window-${slug(a)}-doc-${slug(current)}`,
          currentDoc,
          [a],
          current,
          `a typical ${rootType} at ${current}, read with the window closed to ${a}`,
        );
      }
      add({
        id: id(`window-${slug(a)}-doc-${slug(a)}`),
        type: rootType,
        window: [a],
        ...judged(aDoc, a, `typical at ${a}`),
        message: null,
        description: `a typical ${rootType} at ${a}, read with the window closed to ${a} (judged by ${a})`,
        bytes: encode(aDoc),
      });

      // Nested versions that disagree with the root's: judged by the root's version.
      const nested = versionSteps(model, rootType).find((s) => s.at !== "");
      if (nested) {
        const place = `${concretePointer(nested.at)}/${nested.field}`;
        for (const [rootVersion, nestedVersion] of [
          [a, current],
          [current, a],
        ] as const) {
          const doc = withVersions(
            model,
            rootType,
            typical.get(rootVersion) as JsonObject,
            versionSteps(model, rootType).filter((s) => s.at === nested.at && s.field === nested.field),
            nestedVersion,
          );
          const verdict = judged(doc, rootVersion, `root ${rootVersion}, ${place} ${nestedVersion}`);
          if (verdict.pointer !== place)
            throw new ModelError(
              "spec/tables/rules.json",
              "",
              `window vectors: ${rootType} with ${place} ${nestedVersion} under a ${rootVersion} root is not refused at ${place}`,
            );
          add({
            id: id(`root-${slug(rootVersion)}-nested-${slug(nestedVersion)}`),
            type: rootType,
            window: null,
            ...verdict,
            message: null,
            description: `a typical ${rootType} whose root schema_version is ${rootVersion} but ${place} is ${nestedVersion} (nested versions must equal the root's)`,
            bytes: encode(doc),
          });
        }
      }

      // Rule steps in one version's plan and not in the other's.
      if (!shared) continue;
      for (const [has, lacks] of [
        [current, a],
        [a, current],
      ] as const) {
        const hasModel = modelOf(model, has);
        const lacksKeys = new Set((modelOf(model, lacks).rulePlans.get(rootType) ?? []).map(stepKey));
        for (const step of hasModel.rulePlans.get(rootType) ?? []) {
          if (lacksKeys.has(stepKey(step))) continue;
          const found = corpusCaseBreaking(hasModel, rootType, step);
          if (!found)
            throw new ModelError(
              `${has === current ? "" : `spec/releases/${has}/`}spec/tables/rules.json`,
              "",
              `window vectors: no corpus document of ${rootType} breaks exactly ${step.rule} at ${step.at}/${step.field ?? step.fields?.join(",")}`,
            );
          const stem = found.stem.replace(/^invalid-/, "");
          for (const version of [has, lacks]) {
            const doc = withVersions(
              hasModel,
              rootType,
              found.data as JsonObject,
              versionSteps(hasModel, rootType),
              version,
            );
            const verdict = judged(doc, version, `${found.path} at ${version}`);
            if (version === has && (verdict.rule !== step.rule || verdict.pointer !== found.pointer))
              throw new ModelError(
                found.path,
                "",
                `window vectors: expected ${step.rule} at ${found.pointer} by construction, got ${verdict.rule ?? "valid"}`,
              );
            add({
              id: id(`${slug(version)}-${stem}`),
              type: rootType,
              window: null,
              ...verdict,
              message: null,
              description: `${found.description}; every schema_version ${version}: ${has} ${version === has ? "refuses it" : `has the step and ${version} does not`} (${step.rule})`,
              bytes: encode(doc),
            });
          }
        }
      }
    }
  }
  return out.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

/** Generate generated/vectors/window/ (one file per case and index.json). */
export async function generateWindowVectors(model: Model): Promise<OutputFile[]> {
  const vectors = windowVectors(model);
  const files: OutputFile[] = vectors.map((v) => ({
    path: `${WINDOW_VECTORS_DIR}/${v.id}.json`,
    content: stableJson(
      {
        id: v.id,
        type: v.type,
        window: v.window,
        expect: v.expect,
        rule: v.rule,
        pointer: v.pointer,
        message: v.message,
        description: v.description,
        document_base64: Buffer.from(v.bytes).toString("base64"),
      },
      `${BANNER} Source: spec/wire-version.json and the release snapshots of its window (codegen/targets/vectors/window-vectors.ts).`,
    ),
  }));
  files.push({
    path: `${WINDOW_VECTORS_DIR}/index.json`,
    content: stableJson(
      {
        format:
          "one file per case at generated/vectors/window/<id>.json (path: relative to this folder): {id, type, window, expect, rule, pointer, message, description, document_base64}. Decode the document and judge it as `type` with the reader window `window` (versions newest first; null: the binding's default window, default_window); expect `expect`, and for invalid the primary issue's `rule` and `pointer`, and its exact `message` when `message` is not null (the outside-window refusals).",
        current: model.wireVersion.current,
        default_window: [model.wireVersion.current, ...model.window.map((w) => w.version)],
        vectors: vectors.map((v) => ({
          id: v.id,
          path: `${v.id}.json`,
          type: v.type,
          window: v.window,
          expect: v.expect,
          rule: v.rule,
          pointer: v.pointer,
        })),
      },
      BANNER,
    ),
  });
  return files;
}
