/**
 * The documents the wire parser tests share: the shared vectors (generated/vectors) and the valid
 * conformance fixtures (generated/conformance/<fixture_kind>/valid-*.json).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { WireObjectTypeName } from "../../generated/ts/spec.js";
import { REPO_ROOT } from "./cli-process.js";

/** One shared vector: its id, wire type, expected verdict, document bytes (base64) and, for an invalid one, its rule. */
export interface SharedVector {
  readonly id: string;
  readonly type: WireObjectTypeName;
  readonly expect: string;
  readonly document_base64: string;
  readonly rule?: string;
}

/** Every shared vector, in index order. */
export function sharedVectors(): SharedVector[] {
  const dir = join(REPO_ROOT, "generated", "vectors");
  const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as { vectors: { path: string }[] };
  return index.vectors.map((v) => JSON.parse(readFileSync(join(dir, v.path), "utf8")) as SharedVector);
}

/** The document of a conformance fixture file: its `data`, or its `data_base64` parsed. */
export function fixtureDocument(file: string): unknown {
  const fixture = JSON.parse(readFileSync(file, "utf8")) as { data?: unknown; data_base64?: string };
  return fixture.data_base64 === undefined
    ? fixture.data
    : JSON.parse(Buffer.from(fixture.data_base64, "base64").toString("utf8"));
}

/** The documents of the valid conformance fixtures of `fixtureKind`, in file order. */
export function validFixtureDocuments(fixtureKind: string): unknown[] {
  const dir = join(REPO_ROOT, "generated", "conformance", fixtureKind);
  return readdirSync(dir)
    .filter((f) => f.startsWith("valid-") && f.endsWith(".json"))
    .map((f) => fixtureDocument(join(dir, f)));
}

/** Every value a rule step of `plans` names (when values, forbidden values, the expected version and one past it). */
export function ruleStepValues(
  plans: Readonly<
    Record<
      string,
      readonly {
        readonly when?: { readonly values: readonly string[] };
        readonly values?: readonly string[];
        readonly expected?: string;
      }[]
    >
  >,
): string[] {
  return [
    ...new Set(
      Object.values(plans).flatMap((plan) =>
        plan.flatMap((s) => [
          ...(s.when?.values ?? []),
          ...(s.values ?? []),
          ...(s.expected ? [s.expected, `${s.expected}x`] : []),
        ]),
      ),
    ),
  ];
}

/**
 * Copies of `value` with one member of one object (anywhere inside) edited: for every key of every
 * object, the object without it and with it set to each of `values`, plus what `extra(obj)` gives
 * for that object (whole replacements).
 */
export function memberEdits(
  value: unknown,
  values: readonly unknown[],
  extra: (obj: Record<string, unknown>) => unknown[] = () => [],
): unknown[] {
  const out: unknown[] = [];
  const visit = (node: unknown, replace: (next: unknown) => unknown): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        visit(item, (next) => replace(node.map((x, j) => (j === i ? next : x))));
      });
      return;
    }
    if (node === null || typeof node !== "object") return;
    const obj = node as Record<string, unknown>;
    for (const next of extra(obj)) out.push(replace(next));
    for (const key of Object.keys(obj)) {
      const { [key]: _dropped, ...rest } = obj;
      out.push(replace(rest));
      for (const v of values) out.push(replace({ ...obj, [key]: v }));
      visit(obj[key], (next) => replace({ ...obj, [key]: next }));
    }
  };
  visit(value, (next) => next);
  return out;
}
