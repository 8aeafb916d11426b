/**
 * Target: the precompiled ajv validators (draft 2020-12, strict mode, first error only) of every
 * wire object type and hook schema: one CommonJS module per type, `generated/ts/validators/<Type>.cjs`
 * (ajv's own standalone format: it `require`s its runtime helpers), and the index
 * `generated/ts/validators.ts`, whose `loadValidator(typeName)` loads a type's module on first use.
 * One module per type because start-up is a user's latency (issue 30): all validators in one module
 * were about half a megabyte that every `hook` and `invoke` read and compiled to judge three or four
 * types. A type's module holds every schema it references, so shared schemas are repeated across
 * modules; each command reads only the modules of the types it judges.
 * CommonJS, loaded with `require`, because a validator is looked up synchronously (runtime/wire/
 * schema.ts) and an ES module cannot be loaded synchronously on every Node the package supports;
 * the build copies the modules beside the compiled index (packaging/copy-validators.mjs).
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
 * Generate generated/ts/validators.ts and one generated/ts/validators/<Type>.cjs per type; with `dir`
 * (an accepted version with its own schemas, see ts/window.ts) `<dir>/validators.ts` and
 * `<dir>/validators/<Type>.cjs` instead.
 */
export async function generateTsValidators(model: Model, dir = "generated/ts"): Promise<OutputFile[]> {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: false,
    code: { source: true, esm: false, lines: true, optimize: true },
  });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  for (const e of model.enums) ajv.addSchema(e.schema);
  for (const t of model.types) ajv.addSchema(t.schema);
  for (const h of model.hookSchemas) ajv.addSchema(h.schema);
  const roots = [...model.types, ...model.hookSchemas].map((t) => ({ name: t.name, id: t.id }));
  const modules = roots.map(({ name, id }) => ({
    path: `${dir}/validators/${name}.cjs`,
    content: finalNewline(
      [
        slashBanner(
          `The precompiled ajv validator of ${name} (draft 2020-12, strict), loaded by generated/ts/validators.ts. Runtime helpers come from the \`ajv\` package.`,
        ),
        guardCodePointCounts(standaloneCode(ajv, { [validatorName(name)]: id })),
      ].join(""),
    ),
  }));
  const names = JSON.stringify(roots.map((r) => r.name));
  const index = `${slashBanner(
    "Loads the precompiled ajv validators of generated/ts/validators/<Type>.cjs (one CommonJS module per type) on first use.",
  )}
import { createRequire } from "node:module";

/** A precompiled validator: true when \`data\` is valid; else false, with its first error in \`errors\`. */
export type StandaloneValidator = ((data: unknown) => boolean) & { errors?: unknown[] | null };

/** The types that have a validator: the wire object types, then the hook schemas. */
export const VALIDATOR_TYPE_NAMES: ReadonlySet<string> = new Set(${names});

// A local require (not the global one): bundlers leave it alone, so the modules stay files of their own.
const require = createRequire(import.meta.url);

/**
 * The validator of \`typeName\`, read from validators/<typeName>.cjs beside this module the first time
 * it is asked for (Node keeps the module); undefined for a name that has no validator.
 */
export function loadValidator(typeName: string): StandaloneValidator | undefined {
  if (!VALIDATOR_TYPE_NAMES.has(typeName)) return undefined;
  const loaded = require(\`./validators/\${typeName}.cjs\`) as Record<string, StandaloneValidator | undefined>;
  return loaded[\`${validatorName("")}\${typeName}\`];
}
`;
  return [{ path: `${dir}/validators.ts`, content: finalNewline(index) }, ...modules];
}
