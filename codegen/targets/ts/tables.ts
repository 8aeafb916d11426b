/**
 * Target: `generated/ts/tables.ts`, the TypeScript type of every spec table, produced by
 * json-schema-to-typescript from its meta-schema (the type is named by the meta-schema's `title`),
 * and {@link SpecTables}-style registry types keyed by table. codegen/model/model.ts derives its row
 * types from this file, so no table shape is written twice.
 *
 * Errors: throws when two meta-schemas share a title.
 */
import { compile } from "json-schema-to-typescript";
import type { JsonSchema, Model } from "../../model/model.js";
import { finalNewline, slashBanner, type OutputFile } from "../../emit/output.js";

/**
 * Rewrite what json-schema-to-typescript does not read: draft 2020-12 `prefixItems` becomes the
 * draft-04 tuple form (`items` as a list). Drops `$schema`/`$id` (the type needs neither).
 */
function forTypeScript(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forTypeScript);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === "$id" || key === "$schema") continue;
    if (key === "prefixItems") {
      out.items = forTypeScript(value);
      out.additionalItems = false;
    } else if (key === "items" && "prefixItems" in (node as Record<string, unknown>)) continue;
    else out[key] = forTypeScript(value);
  }
  return out;
}

/** The meta-schema as the type source: without the table's own `$schema` member. */
function typeSource(meta: JsonSchema): unknown {
  const clean = forTypeScript(meta) as Record<string, unknown>;
  const properties = { ...(clean.properties as Record<string, unknown>) };
  delete properties.$schema;
  return { ...clean, properties };
}

/** Generate generated/ts/tables.ts. */
export async function generateTsTables(model: Model): Promise<OutputFile[]> {
  const titles = new Map<string, string>();
  const parts: string[] = [];
  for (const table of model.specTables) {
    const title = String(table.meta.title);
    const other = titles.get(title);
    if (other !== undefined)
      throw new Error(`ts/tables target: ${table.metaFile} and ${other} are both titled ${title}`);
    titles.set(title, table.metaFile);
    const compiled = await compile(typeSource(table.meta) as never, title, {
      bannerComment: "",
      additionalProperties: false,
      strictIndexSignatures: true,
      ignoreMinAndMaxItems: true,
      unknownAny: true,
      format: true,
      style: { printWidth: 120, singleQuote: false, trailingComma: "all" },
      $refOptions: { resolve: { http: false, file: false } } as never,
    });
    parts.push(`// ${table.file} (meta-schema ${table.metaFile})\n${compiled.trim()}`);
  }
  const registry = [
    "/** Every spec table by key (lowerCamel of its file stem), typed by its meta-schema. */",
    "export interface SpecTables {",
    ...model.specTables.flatMap((t) => [`  /** ${t.file} */`, `  readonly ${t.key}: ${String(t.meta.title)};`]),
    "}",
    "",
    "/** A table's key in {@link SpecTables}. */",
    "export type SpecTableKey = keyof SpecTables;",
    "",
    "/** The file of every spec table, by key. */",
    `export const SPEC_TABLE_FILES = ${JSON.stringify(Object.fromEntries(model.specTables.map((t) => [t.key, t.file])), null, 2)} as const satisfies Record<SpecTableKey, string>;`,
  ];
  const header = `${slashBanner()}// TypeScript types of the spec tables, one per meta-schema in spec/meta/.\n\n`;
  return [
    { path: "generated/ts/tables.ts", content: finalNewline(header + [...parts, registry.join("\n")].join("\n\n")) },
  ];
}
