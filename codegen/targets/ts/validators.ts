/**
 * Target: `generated/ts/validators.ts`, precompiled ajv validators (draft 2020-12, strict mode,
 * first error only) for every wire object type, as ESM with a `createRequire` shim for ajv's
 * runtime helpers (ajv's standalone ESM output still calls `require`).
 *
 * One rewrite of ajv's output, for speed with identical results: ajv checks `maxLength` by counting
 * the code points of every string (`ucs2length`, a loop over the whole string). A string never has
 * more code points than UTF-16 code units, so when `s.length <= max` the count cannot exceed `max`;
 * the rewritten check counts only strings whose `length` is above the limit (see
 * {@link guardCodePointCounts}).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import _standaloneCode from "ajv/dist/standalone/index.js";
import { ANNOTATION_KEYWORDS } from "../../model/load.js";
import type { Model } from "../../model/model.js";
import { finalNewline, slashBanner, type OutputFile } from "../../emit/output.js";

const standaloneCode = _standaloneCode.default;

/** The export name of a type's validator, e.g. `validateCallbackRequest`. */
export function validatorName(typeName: string): string {
  return `validate${typeName}`;
}

/**
 * Rewrite every `<ucs2length>(x) > N` of ajv's standalone code as `(x.length > N && <ucs2length>(x) > N)`.
 * Throws when ajv's output no longer has the expected shape (so an ajv upgrade cannot silently drop it).
 */
export function guardCodePointCounts(code: string): string {
  const helper = /const (func\d+) = require\("ajv\/dist\/runtime\/ucs2length"\)\.default;/.exec(code)?.[1];
  if (helper === undefined) return code;
  let rewritten = 0;
  const out = code.replace(
    new RegExp(`\\b${helper}\\((\\w+)\\) > (\\d+)\\b`, "g"),
    (_m, value: string, limit: string) => {
      rewritten++;
      return `(${value}.length > ${limit} && ${helper}(${value}) > ${limit})`;
    },
  );
  const calls = out.split(`${helper}(`).length - 1;
  if (rewritten === 0 || calls !== rewritten) {
    throw new Error(
      `ts/validators: unexpected use of ajv's ucs2length helper (${calls} calls, ${rewritten} rewritten); update guardCodePointCounts`,
    );
  }
  return out;
}

/**
 * Generate generated/ts/validators.ts (or, for an accepted version's own schemas, the module at `path`,
 * see ts/window.ts).
 */
export async function generateTsValidators(model: Model, path = "generated/ts/validators.ts"): Promise<OutputFile[]> {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: false,
    code: { source: true, esm: true, lines: true, optimize: true },
  });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  for (const e of model.enums) ajv.addSchema(e.schema);
  for (const t of model.types) ajv.addSchema(t.schema);
  for (const h of model.hookSchemas) ajv.addSchema(h.schema);
  const exports: Record<string, string> = {};
  for (const t of model.types) exports[validatorName(t.name)] = t.id;
  for (const h of model.hookSchemas) exports[validatorName(h.name)] = h.id;
  const code = guardCodePointCounts(standaloneCode(ajv, exports));
  const header = [
    slashBanner("Precompiled ajv validators (draft 2020-12, strict). Runtime helpers come from the `ajv` package."),
    "// @ts-nocheck",
    "/* eslint-disable */",
    'import { createRequire } from "node:module";',
    "const require = createRequire(import.meta.url);",
    "",
  ].join("\n");
  return [{ path, content: finalNewline(header + code) }];
}
