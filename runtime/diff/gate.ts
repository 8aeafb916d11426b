/**
 * `lifeloop-callback diff`: the breaking-change gate between two versions of the spec.
 *
 * {@link diffTrees} compares two project trees: every wire schema (acceptance sets, both
 * directions), the cross-field rules, every spec table by its declared evolution, the frozen
 * release snapshots (spec/releases/<wire version>/ never change), the wire version (a change that
 * breaks either direction needs a bump; a decrease is an error) and the allowlist
 * (spec/compat-allowlist.json: entries `{rule, location, reason}` for one version pair; an entry
 * that matches nothing is allowlist-entry-stale). {@link diffSchemas} compares two lone schema
 * documents. Both return a {@link DiffReport}, the shape of spec/cli/diff-report.schema.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { packageRoot } from "../process/package-root.js";
import { toChanges, type Change, type RawChange, type RuleRegistry } from "./change.js";
import { isObject } from "./json.js";
import { compareRules, ruleConstraints } from "./rule-compare.js";
import { compareSchemas } from "./schema/compare.js";
import { SchemaSide, type Dialect, type SchemaDocument, type SchemaNode } from "./schema/side.js";
import { dialectOf, schemaDocs, type LoadedSchema } from "./schema-files.js";
import { compareTable, declarations } from "./table-compare.js";
import { pathsUnder, treeJson, type ProjectTree } from "./tree.js";

/** The diff's result: every change (in a stable order) and the summary. */
export interface DiffReport {
  readonly changes: readonly Change[];
  readonly summary: {
    /** No error or warning breaks senders: every document valid under base is valid under head. */
    readonly backward_compatible: boolean;
    /** No error or warning breaks receivers: every document valid under head is valid under base. */
    readonly forward_compatible: boolean;
    readonly errors: number;
    readonly warnings: number;
    readonly infos: number;
    /**
     * The gate's decision, and the only source of exit 1: tree mode, an error-level change that no
     * allowlist entry and no version bump allows; `--schema` mode, either direction not compatible.
     */
    readonly gated: boolean;
    readonly base_version: string | null;
    readonly head_version: string | null;
    /** The allowlist that applied (`null`: none). */
    readonly allowlist: string | null;
  };
}

/** One allowlist entry: a change is allowed when rule and location are equal; `reason` is for reviewers. */
export interface AllowlistEntry {
  readonly rule: string;
  readonly location: string;
  readonly reason: string;
}

/** An allowlist document (spec/meta/compat-allowlist.schema.json). */
export interface Allowlist {
  readonly base: string;
  readonly head: string;
  readonly entries: readonly AllowlistEntry[];
}

/** An allowlist that is not valid (exit 3) or is for another version pair while named explicitly (exit 2 is decided by the caller). */
export class AllowlistError extends Error {
  override readonly name = "AllowlistError";
}

/** Rules of the gate itself: never licensed by a version bump. */
const GATE_RULES = new Set([
  "wire-version-not-bumped",
  "wire-version-decreased",
  "released-snapshot-modified",
  "released-snapshot-removed",
  "allowlist-entry-stale",
]);

/** Parse a wire version (`lifeloop.v1.2` into [1, 2]); null when it is not a wire version. */
export function parseWireVersion(version: string): number[] | null {
  const m = /^lifeloop\.v([0-9]+(?:\.[0-9]+)*)$/.exec(version);
  return m ? (m[1] as string).split(".").map(Number) : null;
}

/** Negative, zero or positive as `a` is older than, equal to or newer than `b`. */
export function compareWireVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function currentVersion(tree: ProjectTree): string | null {
  const doc = treeJson(tree, "spec/wire-version.json");
  return isObject(doc) && typeof doc.current === "string" ? doc.current : null;
}

function compareReleases(base: ProjectTree, head: ProjectTree, out: RawChange[]): void {
  const versions = (tree: ProjectTree): Set<string> =>
    new Set(pathsUnder(tree, "spec/releases/").map((p) => p.split("/")[2] as string));
  const baseVersions = versions(base);
  const headVersions = versions(head);
  // A base without releases is itself a release snapshot (or predates releases): nothing to protect.
  if (baseVersions.size === 0) return;
  for (const v of baseVersions) {
    const prefix = `spec/releases/${v}/`;
    if (!headVersions.has(v)) {
      out.push({ rule: "released-snapshot-removed", location: prefix, detail: `release ${v} was deleted` });
      continue;
    }
    for (const file of new Set([...pathsUnder(base, prefix), ...pathsUnder(head, prefix)])) {
      const a = base.files.get(file);
      const b = head.files.get(file);
      if (!a || !b || !a.equals(b))
        out.push({
          rule: "released-snapshot-modified",
          location: file,
          detail: !a ? "file added to a release" : !b ? "file deleted from a release" : "file changed in a release",
        });
    }
  }
  for (const v of headVersions)
    if (!baseVersions.has(v))
      out.push({ rule: "released-snapshot-added", location: `spec/releases/${v}/`, detail: `release ${v} frozen` });
}

/** Compare the wire schemas, rules and tables of two trees (no gate). */
function specChanges(base: ProjectTree, head: ProjectTree): RawChange[] {
  const out: RawChange[] = [];
  const baseDocs = schemaDocs(base);
  const headDocs = schemaDocs(head);
  const oldSide = new SchemaSide(baseDocs);
  const newSide = new SchemaSide(headDocs);
  const headByFile = new Map(headDocs.map((d) => [d.file, d]));
  const baseFiles = new Set(baseDocs.map((d) => d.file));
  const roots: [SchemaNode, SchemaNode][] = [];
  for (const doc of baseDocs) {
    const next = headByFile.get(doc.file);
    if (!next) out.push({ rule: "wire-type-removed", location: `${doc.file}#`, detail: `${doc.file} was deleted` });
    else
      roots.push([
        { schema: doc.json, doc, pointer: "" },
        { schema: next.json, doc: next, pointer: "" },
      ]);
  }
  for (const doc of headDocs)
    if (!baseFiles.has(doc.file))
      out.push({ rule: "wire-type-added", location: `${doc.file}#`, detail: `${doc.file} is new` });
  out.push(...compareSchemas(oldSide, newSide, roots));

  const stems = (tree: ProjectTree): string[] =>
    pathsUnder(tree, "spec/tables/").map((p) => p.slice("spec/tables/".length, -".json".length));
  const baseStems = new Set(stems(base));
  const headStems = new Set(stems(head));
  const decls = declarations(
    treeJson(head, "spec/tables/table-evolution.json") ?? treeJson(base, "spec/tables/table-evolution.json"),
  );
  for (const stem of [...new Set([...baseStems, ...headStems])].sort()) {
    const file = `spec/tables/${stem}.json`;
    if (!baseStems.has(stem)) out.push({ rule: "table-added", location: `${file}#`, detail: `table ${stem} is new` });
    else if (!headStems.has(stem))
      out.push({ rule: "table-removed", location: `${file}#`, detail: `table ${stem} was deleted` });
    else compareTable(stem, treeJson(base, file), treeJson(head, file), decls.get(stem), out);
  }
  if (baseStems.has("rules") || headStems.has("rules")) {
    const constraints = (tree: ProjectTree): ReturnType<typeof ruleConstraints> =>
      ruleConstraints(treeJson(tree, "spec/tables/rules.json"), treeJson(tree, "spec/tables/event-vocabulary.json"));
    out.push(...compareRules(constraints(base), constraints(head)));
  }
  return out;
}

let allowlistValidator: (((doc: unknown) => boolean) & { errors?: unknown }) | undefined;

/** Validate an allowlist document against spec/meta/compat-allowlist.schema.json; throws AllowlistError. */
export function parseAllowlist(doc: unknown, label: string): Allowlist {
  if (!allowlistValidator) {
    const meta = JSON.parse(
      readFileSync(join(packageRoot(), "spec/meta/compat-allowlist.schema.json"), "utf8"),
    ) as object;
    allowlistValidator = new Ajv2020({ strict: true }).compile(meta);
  }
  if (!allowlistValidator(doc))
    throw new AllowlistError(
      `${label}: not a valid allowlist (spec/meta/compat-allowlist.schema.json): ${JSON.stringify((allowlistValidator.errors as unknown[])?.[0])}`,
    );
  return doc as Allowlist;
}

/** Options of a tree diff. */
export interface TreeDiffOptions {
  readonly registry: RuleRegistry;
  /** An explicit allowlist (`--allowlist FILE`); otherwise head's spec/compat-allowlist.json applies when it is for this version pair. */
  readonly allowlist?: { readonly label: string; readonly list: Allowlist };
  /** Compare only the release snapshots (spec/releases/): no schemas, tables, version gate or allowlist. */
  readonly releasesOnly?: boolean;
}

function order(changes: Change[]): Change[] {
  const rank = { error: 0, warning: 1, info: 2 } as const;
  return changes.sort(
    (a, b) =>
      rank[a.level] - rank[b.level] ||
      (a.location < b.location ? -1 : a.location > b.location ? 1 : 0) ||
      (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0),
  );
}

function summarize(
  changes: Change[],
  extra: Pick<DiffReport["summary"], "base_version" | "head_version" | "allowlist">,
): DiffReport {
  const breaking = (role: "senders" | "receivers"): boolean =>
    changes.some((c) => c.level !== "info" && c.breaks.includes(role) && !GATE_RULES.has(c.rule));
  return {
    changes: order(changes),
    summary: {
      backward_compatible: !breaking("senders"),
      forward_compatible: !breaking("receivers"),
      errors: changes.filter((c) => c.level === "error").length,
      warnings: changes.filter((c) => c.level === "warning").length,
      infos: changes.filter((c) => c.level === "info").length,
      gated: changes.some((c) => c.level === "error" && !c.allowed),
      ...extra,
    },
  };
}

/**
 * Compare two project trees and apply the gate. Throws TreeError for unreadable input and
 * AllowlistError for an explicit allowlist of another version pair.
 */
export function diffTrees(base: ProjectTree, head: ProjectTree, options: TreeDiffOptions): DiffReport {
  const baseVersion = currentVersion(base);
  const headVersion = currentVersion(head);
  if (options.releasesOnly) {
    const raw: RawChange[] = [];
    compareReleases(base, head, raw);
    return summarize(toChanges(raw, options.registry), {
      base_version: baseVersion,
      head_version: headVersion,
      allowlist: null,
    });
  }
  const raw = specChanges(base, head);
  compareReleases(base, head, raw);
  const bv = baseVersion ? parseWireVersion(baseVersion) : null;
  const hv = headVersion ? parseWireVersion(headVersion) : null;
  const order = bv && hv ? compareWireVersions(hv, bv) : 0;
  if (order > 0)
    raw.push({
      rule: "wire-version-bumped",
      location: "spec/wire-version.json#/current",
      detail: `${baseVersion} → ${headVersion}`,
    });
  if (order < 0)
    raw.push({
      rule: "wire-version-decreased",
      location: "spec/wire-version.json#/current",
      detail: `${baseVersion} → ${headVersion}`,
    });
  let changes = toChanges(raw, options.registry);

  // allowlist
  let allowlist: { label: string; list: Allowlist } | undefined = options.allowlist;
  if (allowlist && (allowlist.list.base !== baseVersion || allowlist.list.head !== headVersion)) {
    throw new AllowlistError(
      `${allowlist.label} is for ${allowlist.list.base} → ${allowlist.list.head}, this run compares ${baseVersion} → ${headVersion}`,
    );
  }
  if (!allowlist) {
    const doc = treeJson(head, "spec/compat-allowlist.json");
    if (doc !== undefined) {
      const list = parseAllowlist(doc, `${head.label}: spec/compat-allowlist.json`);
      if (list.base === baseVersion && list.head === headVersion)
        allowlist = { label: "spec/compat-allowlist.json", list };
    }
  }
  const stale: RawChange[] = [];
  if (allowlist) {
    const used = new Set<number>();
    changes = changes.map((c) => {
      const i = allowlist.list.entries.findIndex((e) => e.rule === c.rule && e.location === c.location);
      if (i < 0 || c.rule === "allowlist-entry-stale") return c;
      used.add(i);
      return { ...c, allowed: { by: "allowlist", reason: (allowlist.list.entries[i] as AllowlistEntry).reason } };
    });
    allowlist.list.entries.forEach((e, i) => {
      if (!used.has(i))
        stale.push({
          rule: "allowlist-entry-stale",
          location: `${allowlist.label}#/entries/${i}`,
          detail: `${e.rule} at ${e.location} matches no change`,
        });
    });
  }
  // version gate
  const licensable = (c: Change): boolean => c.level === "error" && !c.allowed && !GATE_RULES.has(c.rule);
  if (order > 0) {
    changes = changes.map((c) =>
      licensable(c) ? { ...c, allowed: { by: "version-bump", reason: `${baseVersion} → ${headVersion}` } } : c,
    );
  } else if (order === 0 && baseVersion && changes.some(licensable)) {
    stale.push({
      rule: "wire-version-not-bumped",
      location: "spec/wire-version.json#/current",
      detail: `breaking changes at ${baseVersion}: run npm run bump-version -- <next> --reason "..." or allow them in spec/compat-allowlist.json`,
    });
  }
  changes.push(...toChanges(stale, options.registry));
  return summarize(changes, {
    base_version: baseVersion,
    head_version: headVersion,
    allowlist: allowlist ? allowlist.label : null,
  });
}

/**
 * Compare two lone JSON Schema documents (no spec tables). `$schema` decides each document's
 * dialect; `draft` applies to documents without one. `$ref`s resolve within each document only
 * (for files with siblings, see {@link diffSchemaFiles}).
 */
export function diffSchemas(oldJson: unknown, newJson: unknown, draft: Dialect, registry: RuleRegistry): DiffReport {
  const lone = (json: unknown, label: string): LoadedSchema => {
    const root: SchemaDocument = {
      file: "",
      uri: isObject(json) && typeof json.$id === "string" ? json.$id : `file:///${label}.json`,
      json,
      dialect: dialectOf(json, draft, label),
    };
    return { root, side: new SchemaSide([root]) };
  };
  return diffSchemaFiles(lone(oldJson, "old"), lone(newJson, "new"), registry);
}

/**
 * Compare two `--schema` sides (runtime/diff/schema-files.ts: each a document plus the sibling
 * files its `$ref`s reached). `summary.gated` is true when either direction is not proven
 * compatible (a warning included), the same decision the CLI's exit code 1 reports.
 */
export function diffSchemaFiles(oldSchema: LoadedSchema, newSchema: LoadedSchema, registry: RuleRegistry): DiffReport {
  const o = oldSchema.root;
  const n = newSchema.root;
  const raw = compareSchemas(oldSchema.side, newSchema.side, [
    [
      { schema: o.json, doc: o, pointer: "" },
      { schema: n.json, doc: n, pointer: "" },
    ],
  ]);
  const report = summarize(toChanges(raw, registry), { base_version: null, head_version: null, allowlist: null });
  const { backward_compatible, forward_compatible } = report.summary;
  return { ...report, summary: { ...report.summary, gated: !(backward_compatible && forward_compatible) } };
}
