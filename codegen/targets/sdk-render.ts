/**
 * Rendering one SDK, the same way for every language: validate the view model against
 * `sdk/<language>/templates/view-model.schema.json` and the part files it references
 * (`view-model.<part>.schema.json`; read as one schema by {@link viewModelSchema}; closed objects;
 * every issue listed, up to five), render an explicit list of templates (handlebars 4.7.10, an isolated instance, `noEscape`
 * and `strict`, with the language's syntax helpers and partials registered: string literals, doc
 * comments, struct fields; see <language>/syntax.ts) into the SDK's own folder `sdk/<language>/`,
 * each file with a banner naming its template, and normalise whitespace (no trailing blanks, at
 * most two blank lines in a row, one final newline). The hand-written files of `sdk/<language>/`
 * live beside the generated ones and are never read or written here; generated files carry
 * generated names (`zz_*.go`, `_gen_*.py`; see codegen/emit/check.ts).
 *
 * Errors: throws naming the schema path and member when the view model does not match, and the
 * template when rendering fails.
 */
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import { finalNewline, type OutputFile } from "../emit/output.js";
import type { Model } from "../model/model.js";

/** handlebars is CommonJS (`export =`); loaded through require so the import type-checks without esModuleInterop. */
const Handlebars = createRequire(import.meta.url)("handlebars") as typeof import("handlebars");

/** Folder of a language's SDK (hand-written and generated files), repository-relative. */
export function sdkDir(language: string): string {
  return `sdk/${language}`;
}

/** Folder of a language's templates and view-model schema, repository-relative. */
export function sdkTemplateDir(language: string): string {
  return `${sdkDir(language)}/templates`;
}

/** A file of the model's SDK sources by repository-relative path; throws naming it when it is missing. */
export function sdkSource(model: Model, path: string): string {
  const text = model.sdkSources.get(path);
  if (text === undefined) throw new Error(`${path} is missing`);
  return text;
}

/** The root file of a language's view-model schema, repository-relative. */
export function viewModelSchemaPath(language: string): string {
  return `${sdkTemplateDir(language)}/view-model.schema.json`;
}

/**
 * A language's view-model schema as one JSON Schema object. The root file keeps each large member
 * in a part file of the same folder (`view-model.<part>.schema.json`, a `$defs` entry referenced by
 * the root's `properties` as `view-model.<part>.schema.json#/$defs/<member>`; the part refers back
 * to the root's `$defs` as `view-model.schema.json#/$defs/<name>`), so that no file is over 800
 * lines. Here every reference into a part is replaced by the part's entry and every reference back
 * to the root becomes local again, giving the schema that ajv and json-schema-to-typescript read.
 * Throws naming the file when a referenced part or entry is missing.
 */
export function viewModelSchema(model: Model, language: string): Record<string, unknown> {
  const dir = sdkTemplateDir(language);
  const partRef = /^(view-model\.[a-z]+\.schema\.json)#\/\$defs\/([A-Za-z]+)$/;
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (value === null || typeof value !== "object") return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && Object.keys(value).length === 1) {
      const [, file, entry] = partRef.exec(ref) ?? [];
      if (file !== undefined && entry !== undefined) {
        const path = `${dir}/${file}`;
        const defs = (JSON.parse(sdkSource(model, path)) as { $defs?: Record<string, unknown> }).$defs ?? {};
        if (!Object.hasOwn(defs, entry))
          throw new Error(`${path}: no $defs entry ${entry} (referenced from ${viewModelSchemaPath(language)})`);
        return inline(defs[entry]);
      }
      if (ref.startsWith("view-model.schema.json#")) return { $ref: ref.slice("view-model.schema.json".length) };
    }
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, inline(member)]));
  };
  return inline(JSON.parse(sdkSource(model, viewModelSchemaPath(language)))) as Record<string, unknown>;
}

/** The banners of one generated file (comment syntax included), given its template's repository-relative path. */
export interface SdkBanners {
  /** For the language's sources (`{{banner}}`). */
  readonly banner: string;
  /** For Markdown (`{{markdownBanner}}`). */
  readonly markdownBanner: string;
}

/** What to render for one SDK. */
export interface SdkRendering {
  /** `go` or `python`: names `sdk/<language>/` (output) and `sdk/<language>/templates/`. */
  readonly language: string;
  /** Template (relative to sdk/<language>/templates/) → output path (relative to `sdk/<language>/`). */
  readonly templates: readonly (readonly [string, string])[];
  /** The banners each output starts with, naming its template (replace the view's `banner` and `markdownBanner`). */
  readonly banners: (templatePath: string) => SdkBanners;
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
  readonly helpers: Readonly<
    Record<string, (params: readonly unknown[], hash: Readonly<Record<string, unknown>>) => string>
  >;
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
export function renderTemplate(
  syntax: SdkSyntax,
  template: string,
  view: unknown,
  hbs = syntaxInstance(syntax),
): string {
  return hbs.compile(template, { noEscape: true, strict: true })(view);
}

/** Validate `view` against the language's closed view-model schema ({@link viewModelSchema}). */
export function checkViewModel(model: Model, language: string, view: unknown): void {
  const path = viewModelSchemaPath(language);
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  // json-schema-to-typescript's annotation for a member of any JSON value (view-model-types.ts).
  ajv.addKeyword({ keyword: "tsType", schemaType: "string" });
  const validate = ajv.compile(viewModelSchema(model, language));
  if (!validate(view)) {
    const detail = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || "/"}: ${e.message ?? "invalid"} ${JSON.stringify(e.params)}`);
    throw new Error(`${language} target: the view model does not match ${path}:\n${detail.join("\n")}`);
  }
}

/**
 * Render the templates of `rendering` with `view` (the language's view-model type, generated from
 * its schema: GoViewModel, PythonSdkViewModel), each with the banners naming its template.
 */
export function renderSdk<View extends object>(model: Model, rendering: SdkRendering, view: View): OutputFile[] {
  checkViewModel(model, rendering.language, view);
  const hbs = syntaxInstance(rendering.syntax);
  const outputs: OutputFile[] = [];
  for (const [template, output] of rendering.templates) {
    const path = `${sdkTemplateDir(rendering.language)}/${template}`;
    let content: string;
    try {
      content = renderTemplate(rendering.syntax, sdkSource(model, path), { ...view, ...rendering.banners(path) }, hbs);
    } catch (error) {
      throw new Error(`${path}: ${(error as Error).message}`);
    }
    outputs.push({
      path: `${sdkDir(rendering.language)}/${output}`,
      content: finalNewline(content.replace(/[ \t]+$/gm, "").replace(/\n{4,}/g, "\n\n\n")),
    });
  }
  return outputs;
}
