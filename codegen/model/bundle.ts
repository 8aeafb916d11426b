/**
 * An in-memory bundle of the wire schemas: one document whose `$defs` holds every type under its
 * spec name, with cross-file `$ref`s rewritten to `#/$defs/<Name>`. Generators that do not resolve
 * relative file references (json-schema-to-typescript) consume this instead of the files.
 */
import type { JsonSchema, Model } from "./model.js";

function rewriteRefs(node: unknown, fileToName: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, fileToName));
  if (node && typeof node === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === "$id" || key === "$schema") continue;
      if (key === "$ref" && typeof value === "string") {
        const name = fileToName.get(value);
        if (!name) throw new Error(`unresolvable $ref ${value}`);
        out[key] = `#/$defs/${name}`;
      } else {
        out[key] = rewriteRefs(value, fileToName);
      }
    }
    return out;
  }
  return node;
}

/** Build the bundle: `{ $defs: { <TypeName>: schema, ... } }`, enums first, then object types, each in file order. */
export function bundleSchemas(model: Model): { readonly $defs: Readonly<Record<string, JsonSchema>> } {
  const fileToName = new Map<string, string>([
    ...model.enums.map((e): [string, string] => [e.file, e.name]),
    ...model.types.map((t): [string, string] => [t.file, t.name]),
  ]);
  const defs: Record<string, JsonSchema> = {};
  for (const e of model.enums) defs[e.name] = rewriteRefs(e.schema, fileToName) as JsonSchema;
  for (const t of model.types) defs[t.name] = rewriteRefs(t.schema, fileToName) as JsonSchema;
  return { $defs: defs };
}

/**
 * The schemas under schemas/hooks/ as `$defs` entries, with their `../<wire>.schema.json` refs
 * rewritten to `#/$defs/<Name>`: merge with {@link bundleSchemas} to resolve them.
 */
export function bundleHookSchemas(model: Model): { readonly $defs: Readonly<Record<string, JsonSchema>> } {
  const fileToName = new Map<string, string>([
    ...model.enums.map((e): [string, string] => [`../${e.file}`, e.name]),
    ...model.types.map((t): [string, string] => [`../${t.file}`, t.name]),
  ]);
  return {
    $defs: Object.fromEntries(model.hookSchemas.map((h) => [h.name, rewriteRefs(h.schema, fileToName) as JsonSchema])),
  };
}
