/**
 * Target: `generated/ts/validators.ts`, precompiled ajv validators (draft 2020-12, strict mode,
 * first error only) for every wire object type, as ESM with a `createRequire` shim for ajv's
 * runtime helpers (ajv's standalone ESM output still calls `require`).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import _standaloneCode from "ajv/dist/standalone/index.js";
import { ANNOTATION_KEYWORDS } from "../model/load.js";
import type { Model } from "../model/model.js";
import { finalNewline, slashBanner, type OutputFile } from "../emit/output.js";

const standaloneCode = _standaloneCode.default;

/** The export name of a type's validator, e.g. `validateCallbackRequest`. */
export function validatorName(typeName: string): string {
  return `validate${typeName}`;
}

/** Generate generated/ts/validators.ts. */
export async function generateTsValidators(model: Model): Promise<OutputFile[]> {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: false,
    code: { source: true, esm: true, lines: true, optimize: true },
  });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  for (const e of model.enums) ajv.addSchema(e.schema);
  for (const t of model.types) ajv.addSchema(t.schema);
  const exports: Record<string, string> = {};
  for (const t of model.types) exports[validatorName(t.name)] = t.id;
  const code = standaloneCode(ajv, exports);
  const header = [
    slashBanner("Precompiled ajv validators (draft 2020-12, strict). Runtime helpers come from the `ajv` package."),
    "// @ts-nocheck",
    "/* eslint-disable */",
    'import { createRequire } from "node:module";',
    "const require = createRequire(import.meta.url);",
    "",
  ].join("\n");
  return [{ path: "generated/ts/validators.ts", content: finalNewline(header + code) }];
}
