/**
 * Spec tables (spec/tables/*.json) compared by their declared evolution
 * (spec/tables/table-evolution.json, meta-schema spec/meta/table-evolution.schema.json): rows by
 * their key column, each column and each top-level member by its policy. Anything a declaration
 * does not cover that changed is table-undeclared-changed (a warning: never silently compatible).
 *
 * Locations: `spec/tables/<stem>.json#/<rows member>/<row key>/<column>` (the key replaces the
 * row index, so a location survives reordering) or `spec/tables/<stem>.json#/<member>`.
 */
import type { RawChange } from "./change.js";
import { canonical, isObject, jsonEqual, token } from "./json.js";

/** A column or member policy (spec/meta/table-evolution.schema.json). */
export type Policy = "immutable" | "doc" | "upper-bound" | "growable-set" | "wire";

/** One table's declaration. */
export interface TableDeclaration {
  readonly table: string;
  readonly rows: readonly {
    readonly at: string;
    readonly key: string;
    readonly growth: "append-only" | "closed";
    readonly columns: Readonly<Record<string, Policy>>;
    readonly other_columns: Policy;
    readonly provisional?: { readonly column: string; readonly values: readonly string[] };
  }[];
  readonly members: Readonly<Record<string, Policy>>;
}

/** Declarations by table stem, from a table-evolution document (undefined or malformed: none). */
export function declarations(doc: unknown): Map<string, TableDeclaration> {
  const tables = isObject(doc) && Array.isArray(doc.tables) ? (doc.tables as TableDeclaration[]) : [];
  return new Map(tables.map((t) => [t.table, t]));
}

function valueChange(policy: Policy, o: unknown, n: unknown, at: string, what: string, out: RawChange[]): void {
  if (jsonEqual(o, n)) return;
  switch (policy) {
    case "doc":
      out.push({ rule: "table-doc-changed", location: at, detail: `${what} reworded` });
      return;
    case "upper-bound":
      if (typeof o === "number" && typeof n === "number") {
        out.push({
          rule: n > o ? "table-limit-increased" : "table-limit-decreased",
          location: at,
          detail: `${what} ${o} → ${n}`,
        });
        return;
      }
      out.push({ rule: "table-cell-changed", location: at, detail: `${what} changed (not a number on both sides)` });
      return;
    case "growable-set":
      growable(o, n, at, what, out);
      return;
    case "wire": // judged by the rule comparator (rules.json); elsewhere treated as immutable
    case "immutable":
      out.push({ rule: "table-cell-changed", location: at, detail: `${what}: ${short(o)} → ${short(n)}` });
  }
}

/** Arrays grow by elements (compared by value), objects by members (compared recursively); scalars never change. */
function growable(o: unknown, n: unknown, at: string, what: string, out: RawChange[]): void {
  if (Array.isArray(o) && Array.isArray(n)) {
    const oldSet = new Set(o.map(canonical));
    const newSet = new Set(n.map(canonical));
    for (const v of n)
      if (!oldSet.has(canonical(v)))
        out.push({
          rule: "table-set-member-added",
          location: `${at}/${token(label(v))}`,
          detail: `${what} gained ${short(v)}`,
        });
    for (const v of o)
      if (!newSet.has(canonical(v)))
        out.push({
          rule: "table-set-member-removed",
          location: `${at}/${token(label(v))}`,
          detail: `${what} lost or changed ${short(v)}`,
        });
    return;
  }
  if (isObject(o) && isObject(n)) {
    for (const k of Object.keys(n)) {
      if (!(k in o))
        out.push({
          rule: "table-set-member-added",
          location: `${at}/${token(k)}`,
          detail: `${what} gained member ${k}`,
        });
      else growable(o[k], n[k], `${at}/${token(k)}`, `${what}.${k}`, out);
    }
    for (const k of Object.keys(o))
      if (!(k in n))
        out.push({
          rule: "table-set-member-removed",
          location: `${at}/${token(k)}`,
          detail: `${what} lost member ${k}`,
        });
    return;
  }
  if (!jsonEqual(o, n))
    out.push({ rule: "table-set-member-removed", location: at, detail: `${what}: ${short(o)} → ${short(n)}` });
}

/** A readable label of a set element: its first string member (a name, an error code) or its text. */
function label(v: unknown): string {
  if (isObject(v)) {
    const first = Object.values(v).find((x) => typeof x === "string");
    if (typeof first === "string") return first;
  }
  return typeof v === "string" ? v : canonical(v);
}

function short(v: unknown): string {
  const text = canonical(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Compare one table present on both sides. */
export function compareTable(
  stem: string,
  o: unknown,
  n: unknown,
  decl: TableDeclaration | undefined,
  out: RawChange[],
): void {
  const file = `spec/tables/${stem}.json`;
  if (!isObject(o) || !isObject(n)) {
    if (!jsonEqual(o, n))
      out.push({ rule: "table-undeclared-changed", location: `${file}#`, detail: "not a JSON object" });
    return;
  }
  if (!decl) {
    if (!jsonEqual(withoutSchema(o), withoutSchema(n)))
      out.push({
        rule: "table-undeclared-changed",
        location: `${file}#`,
        detail: `${stem} has no declaration in spec/tables/table-evolution.json`,
      });
    return;
  }
  const rowMembers = new Set(decl.rows.map((r) => r.at.slice(1)));
  for (const rows of decl.rows) {
    const member = rows.at.slice(1);
    const oldRows = keyed(o[member], rows.key);
    const newRows = keyed(n[member], rows.key);
    const base = `${file}#/${token(member)}`;
    if (!oldRows || !newRows) {
      if (!jsonEqual(o[member], n[member]))
        out.push({ rule: "table-undeclared-changed", location: base, detail: `rows are not keyed by ${rows.key}` });
      continue;
    }
    for (const [key, row] of newRows) {
      const old = oldRows.get(key);
      const at = `${base}/${token(key)}`;
      if (!old) {
        out.push({
          rule: rows.growth === "closed" ? "table-row-added-to-closed" : "table-row-added",
          location: at,
          detail: `row ${key} added`,
        });
        continue;
      }
      if (rows.provisional?.values.includes(String(old[rows.provisional.column]))) {
        // Not a contract yet: report that it changed, at info level, without judging each column.
        if (!jsonEqual(old, row))
          out.push({
            rule: "table-provisional-row-changed",
            location: at,
            detail: `${key} (${rows.provisional.column} ${String(old[rows.provisional.column])}) changed`,
          });
        continue;
      }
      for (const column of new Set([...Object.keys(old), ...Object.keys(row)])) {
        const policy = rows.columns[column] ?? rows.other_columns;
        if (policy === "wire" && stem === "rules") continue;
        if (!(column in old) || !(column in row)) {
          const added = !(column in old);
          out.push({
            rule: added ? "table-column-added" : "table-column-removed",
            location: `${at}/${token(column)}`,
            detail: `${key}.${column} ${added ? "added" : "removed"}`,
          });
          continue;
        }
        valueChange(policy, old[column], row[column], `${at}/${token(column)}`, `${key}.${column}`, out);
      }
    }
    for (const key of oldRows.keys())
      if (!newRows.has(key))
        out.push({ rule: "table-row-removed", location: `${base}/${token(key)}`, detail: `row ${key} removed` });
  }
  for (const member of new Set([...Object.keys(o), ...Object.keys(n)])) {
    if (member === "$schema" || rowMembers.has(member) || jsonEqual(o[member], n[member])) continue;
    const policy = decl.members[member];
    const at = `${file}#/${token(member)}`;
    if (policy === undefined)
      out.push({ rule: "table-undeclared-changed", location: at, detail: `member ${member} is not declared` });
    else valueChange(policy, o[member], n[member], at, member, out);
  }
}

function withoutSchema(o: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = o;
  return rest;
}

/** Rows by key; null when the member is not an array of objects with unique string/number keys. */
function keyed(rows: unknown, key: string): Map<string, Record<string, unknown>> | null {
  if (!Array.isArray(rows)) return null;
  const out = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    if (!isObject(row)) return null;
    const k = row[key];
    if (typeof k !== "string" && typeof k !== "number") return null;
    if (out.has(String(k))) return null;
    out.set(String(k), row);
  }
  return out;
}
