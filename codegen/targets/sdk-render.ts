/**
 * Rendering one SDK, the same way for every language: validate the view model against
 * `sdk-templates/<language>/view-model.schema.json` (closed objects; every issue listed, up to
 * five), render an explicit list of templates (handlebars 4.7.10, an isolated instance, `noEscape`
 * and `strict`, with the language's syntax helpers and partials registered: string literals, doc
 * comments, struct fields; see <language>/syntax.ts), normalise whitespace (no trailing blanks, at most two blank lines in a row, one
 * final newline), then copy the plain sources of `sdk-runtime/<language>/` below the banner.
 *
 * Errors: throws naming the schema path and member when the view model does not match, and the
 * template when rendering fails.
 */
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import { finalNewline, type OutputFile } from "../emit/output.js";
import type { Model } from "../model/model.js";
import { copyRuntimeSources, sdkSource } from "./sdk-runtime.js";

/** handlebars is CommonJS (`export =`); loaded through require so the import type-checks without esModuleInterop. */
const Handlebars = createRequire(import.meta.url)("handlebars") as typeof import("handlebars");

/** What to render for one SDK. */
export interface SdkRendering {
  /** `go` or `python`: names `sdk-templates/<language>/` and `sdk-runtime/<language>/`. */
  readonly language: string;
  /** Template (relative to sdk-templates/<language>/) → output path (relative to `outDir`). */
  readonly templates: readonly (readonly [string, string])[];
  /** Output folder, e.g. `generated/go`. */
  readonly outDir: string;
  /** File name endings of the runtime sources to copy, e.g. `[".go"]`. */
  readonly runtimeExtensions: readonly string[];
  /** The banner lines (comment syntax included, ending in a newline) put above each copied source. */
  readonly banner: string;
  /** The language's syntax: handlebars helpers and partials every template may use. */
  readonly syntax: SdkSyntax;
}

/**
 * A language's syntax for the templates: helpers (`{{goString name}}`, `{{goDoc doc indent=1}}`)
 * that turn view-model values into source text, block helpers that wrap the rendered block
 * (`{{#goBraces}}A: 1{{/goBraces}}` is `{A: 1}`: a template cannot write `}` right after `}}`),
 * and partials (`{{> goStructField}}`). Helpers receive the positional parameters of the call,
 * then its hash (named parameters).
 */
export interface SdkSyntax {
  readonly helpers: Readonly<Record<string, (params: readonly unknown[], hash: Readonly<Record<string, unknown>>) => string>>;
  readonly blocks: Readonly<Record<string, (inner: string) => string>>;
  readonly partials: Readonly<Record<string, string>>;
}

/** A helper's string parameter; throws naming the helper when the template passed something else. */
export function helperString(value: unknown, helper: string): string {
  if (typeof value !== "string") throw new Error(`${helper}: expected a string, got ${JSON.stringify(value)}`);
  return value;
}

/** A helper's list-of-strings parameter; throws naming the helper otherwise. */
export function helperStrings(value: unknown, helper: string): string[] {
  if (!Array.isArray(value)) throw new Error(`${helper}: expected a list of strings, got ${JSON.stringify(value)}`);
  return value.map((v) => helperString(v, helper));
}

/** A helper's optional number parameter (`fallback` when absent); throws naming the helper otherwise. */
export function helperNumber(value: unknown, fallback: number, helper: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number") throw new Error(`${helper}: expected a number, got ${JSON.stringify(value)}`);
  return value;
}

/** A handlebars instance with `syntax` registered (an isolated instance: nothing leaks between languages). */
function syntaxInstance(syntax: SdkSyntax): typeof Handlebars {
  const hbs = Handlebars.create();
  for (const [name, helper] of Object.entries(syntax.helpers)) {
    hbs.registerHelper(name, (...args: unknown[]) => {
      const options = args.pop() as { hash?: Record<string, unknown> };
      return helper(args, options.hash ?? {});
    });
  }
  for (const [name, block] of Object.entries(syntax.blocks)) {
    hbs.registerHelper(name, function (this: unknown, options: { fn?: (context: unknown) => string }) {
      if (options.fn === undefined) throw new Error(`${name} is a block helper: {{#${name}}}...{{/${name}}}`);
      return block(options.fn(this));
    });
  }
  for (const [name, partial] of Object.entries(syntax.partials)) hbs.registerPartial(name, partial);
  return hbs;
}

/** Compile and render one template with `syntax` (the options every SDK template is rendered with). */
export function renderTemplate(syntax: SdkSyntax, template: string, view: unknown, hbs = syntaxInstance(syntax)): string {
  return hbs.compile(template, { noEscape: true, strict: true })(view);
}

/** Validate `view` against the language's closed view-model schema. */
export function checkViewModel(model: Model, language: string, view: unknown): void {
  const path = `sdk-templates/${language}/view-model.schema.json`;
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  // json-schema-to-typescript's annotation for a member of any JSON value (view-model-types.ts).
  ajv.addKeyword({ keyword: "tsType", schemaType: "string" });
  const validate = ajv.compile(JSON.parse(sdkSource(model, path)) as Record<string, unknown>);
  if (!validate(view)) {
    const detail = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"}: ${e.message ?? "invalid"} ${JSON.stringify(e.params)}`);
    throw new Error(`${language} target: the view model does not match ${path}:\n${detail.join("\n")}`);
  }
}

/**
 * Render the templates of `rendering` with `view` (the language's view-model type, generated from
 * its schema: GoViewModel, PythonSdkViewModel) and copy the runtime sources.
 */
export function renderSdk<View extends object>(model: Model, rendering: SdkRendering, view: View): OutputFile[] {
  checkViewModel(model, rendering.language, view);
  const hbs = syntaxInstance(rendering.syntax);
  const outputs: OutputFile[] = [];
  for (const [template, output] of rendering.templates) {
    const path = `sdk-templates/${rendering.language}/${template}`;
    let content: string;
    try {
      content = renderTemplate(rendering.syntax, sdkSource(model, path), view, hbs);
    } catch (error) {
      throw new Error(`${path}: ${(error as Error).message}`);
    }
    outputs.push({ path: `${rendering.outDir}/${output}`, content: finalNewline(content.replace(/[ \t]+$/gm, "").replace(/\n{4,}/g, "\n\n\n")) });
  }
  outputs.push(...copyRuntimeSources(model, rendering.language, rendering.runtimeExtensions, rendering.outDir, rendering.banner));
  return outputs;
}
