/**
 * The spec tables: every `spec/tables/<stem>.json` with its meta-schema `spec/meta/<stem>.schema.json`
 * (plus `spec/wire-version.json`, validated by `spec/meta/wire-version.schema.json`). The folder is
 * the registry: a table is added by adding its two files, nothing else. Each document is validated
 * against its meta-schema; the TypeScript type of every table is generated from the meta-schema
 * into generated/ts/tables.ts (target ts/tables), and the Go and Python table types likewise.
 *
 * Errors: throws {@link ModelError} for a table without a meta-schema, a meta-schema that does not compile or lacks its header, and a table that does not match it.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ModelError } from "./errors.js";
import { DRAFT_2020_12, readJsonFile } from "./files.js";
import type { JsonSchema, SpecTableSource } from "./model.js";

/** `$id` prefix of every meta-schema. */
export const META_ID_BASE = "https://lifeloop-callback.dev/spec-meta/";

/**
 * Tables about this project's tooling (`lifeloop-callback diff`), not about the protocol: loaded and
 * validated like every table but kept out of Model.tables and every SDK (Model.toolTables).
 */
export const TOOLING_TABLES: ReadonlySet<string> = new Set(["compat-rules", "table-evolution"]);

/** The stem of spec/wire-version.json among the tables. */
export const WIRE_VERSION_STEM = "wire-version";

/** One spec table as loaded (the type lives in model.ts, so model.ts imports nothing of the loaders). */
export type { SpecTableSource };

/** `event-vocabulary` → `eventVocabulary`. */
export function tableKey(stem: string): string {
  return stem.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Path of a table file by stem. */
export function tableFile(stem: string): string {
  return stem === WIRE_VERSION_STEM ? "spec/wire-version.json" : `spec/tables/${stem}.json`;
}

function stems(root: string, dir: string, suffix: string): string[] {
  return readdirSync(join(root, dir))
    .filter((name) => name.endsWith(suffix))
    .map((name) => name.slice(0, -suffix.length))
    .sort();
}

/** Load, header-check and validate every table; sorted by stem, wire-version included. */
export function loadSpecTables(root: string): SpecTableSource[] {
  const tableStems = stems(root, "spec/tables", ".json");
  const metaStems = stems(root, "spec/meta", ".schema.json");
  for (const stem of tableStems) {
    if (!metaStems.includes(stem))
      throw new ModelError(tableFile(stem), "", `has no meta-schema spec/meta/${stem}.schema.json`);
  }
  // A meta-schema without a table validates a file elsewhere (e.g. a tool's input): not a table.
  const stemsWithTables = metaStems.filter((stem) => stem === WIRE_VERSION_STEM || tableStems.includes(stem));
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  return stemsWithTables.map((stem) => {
    const file = tableFile(stem);
    const metaFile = `spec/meta/${stem}.schema.json`;
    const meta = readJsonFile(root, metaFile) as JsonSchema;
    if (meta.$id !== `${META_ID_BASE}${stem}.schema.json`)
      throw new ModelError(metaFile, "/$id", `must be "${META_ID_BASE}${stem}.schema.json"`);
    if (meta.$schema !== DRAFT_2020_12)
      throw new ModelError(metaFile, "/$schema", "must be the draft 2020-12 meta-schema");
    if (typeof meta.title !== "string" || !/^[A-Z][A-Za-z0-9]*$/.test(meta.title))
      throw new ModelError(metaFile, "/title", "a PascalCase title names the table's type");
    if (typeof meta.description !== "string" || meta.description.length === 0)
      throw new ModelError(metaFile, "/description", "every meta-schema needs a description");
    let validate: ReturnType<typeof ajv.compile>;
    try {
      validate = ajv.compile(meta);
    } catch (error) {
      throw new ModelError(metaFile, "", `meta-schema does not compile: ${(error as Error).message}`);
    }
    const raw = readJsonFile(root, file);
    if (!validate(raw)) {
      const first = validate.errors?.[0];
      const where = first?.instancePath ?? "";
      const extra = first?.params ? ` ${JSON.stringify(first.params)}` : "";
      throw new ModelError(file, where, `does not match ${metaFile}: ${first?.message ?? "invalid"}${extra}`);
    }
    const { $schema: _schema, ...doc } = raw as Record<string, unknown>;
    return { stem, key: tableKey(stem), file, metaFile, meta, doc };
  });
}
