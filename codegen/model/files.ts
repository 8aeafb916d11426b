/**
 * Reading source files of the model (spec/, schemas/): JSON parsing with a {@link ModelError} that
 * names the file, and the header every schema file carries. The only module of the model layer,
 * with load.ts's directory listings, that touches the disk.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ModelError } from "./errors.js";
import type { JsonSchema } from "./model.js";

/** `$id` prefix of every wire schema (hook schemas live under `${SCHEMA_ID_BASE}hooks/`). */
export const SCHEMA_ID_BASE = "https://lifeloop-callback.dev/schemas/";

/** Annotation keywords the wire schemas may use (registered with ajv as annotation-only). */
export const ANNOTATION_KEYWORDS = ["x-open", "x-emit-null", "x-wire-document"] as const;

/** JSON Schema dialect every schema and meta-schema declares. */
export const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/** Read and parse `rel` (repository-relative) below `root`; throws ModelError when it is not JSON. */
export function readJsonFile(root: string, rel: string): unknown {
  const text = readFileSync(join(root, rel), "utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ModelError(rel, "", `not valid JSON: ${(error as Error).message}`);
  }
}

/** `callback-request` → `CallbackRequest`. */
export function pascalFromKebab(kebab: string): string {
  return kebab
    .split("-")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

/**
 * Check the header of a schema file `rel`: title is the PascalCase of its file stem, `$id` is
 * `idBase` + file name, `$schema` is draft 2020-12 and the description is not empty. Returns the title.
 */
export function checkSchemaHeader(rel: string, schema: JsonSchema, idBase: string): string {
  const file = rel.slice(rel.lastIndexOf("/") + 1);
  const name = pascalFromKebab(file.slice(0, -".schema.json".length));
  if (schema.title !== name) throw new ModelError(rel, "/title", `must be "${name}" (PascalCase of the file name)`);
  if (schema.$id !== `${idBase}${file}`) throw new ModelError(rel, "/$id", `must be "${idBase}${file}"`);
  if (schema.$schema !== DRAFT_2020_12) throw new ModelError(rel, "/$schema", "must be the draft 2020-12 meta-schema");
  if (typeof schema.description !== "string" || schema.description.length === 0) {
    throw new ModelError(rel, "/description", "every schema needs a description");
  }
  return name;
}
