/**
 * Target: `generated/ts/window.ts`, the readers of the wire-version window (spec/wire-window.md; the
 * window's versions and its outside-window rule are in generated/ts/spec/wire-version.ts): for each
 * accepted version the reader generated from its frozen
 * snapshot spec/releases/<version>/: its rule plans (expecting its own version), its integer paths and
 * its schema validators. A snapshot whose wire schemas equal current's shares current's validators
 * (`validators: null`); otherwise its own precompiled validators are generated into
 * `generated/ts/versions/<version>/validators.ts` (and `validators/<Type>.cjs` beside it, loaded on
 * first use as current's are) and imported here.
 */
import type { Model } from "../../model/model.js";
import { finalNewline, slashBanner, type OutputFile } from "../../emit/output.js";
import { generateTsValidators } from "./validators.js";

function literal(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** Canonical JSON (object keys sorted), so two schema documents compare by content. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

/**
 * Whether `other` judges shapes exactly as `model` does: the same wire object types and enums with
 * the same schema documents (annotations included: cheap to compare, and a changed description is
 * a reason to look).
 */
export function sameWireSchemas(model: Model, other: Model): boolean {
  const schemas = (m: Model): string =>
    canonical(
      [...m.types.map((t) => t.schema), ...m.enums.map((e) => e.schema)].sort((a, b) =>
        String(a.$id) < String(b.$id) ? -1 : 1,
      ),
    );
  return schemas(model) === schemas(other);
}

/** The folder that holds the validators of an accepted version with its own schemas. */
export function versionValidatorsDir(version: string): string {
  return `generated/ts/versions/${version}`;
}

/** Generate generated/ts/window.ts and, for accepted versions with their own schemas, their validators. */
export async function generateTsWindow(model: Model): Promise<OutputFile[]> {
  const outputs: OutputFile[] = [];
  const imports: string[] = [];
  const readers: string[] = [];
  for (const [i, accepted] of model.window.entries()) {
    const own = !sameWireSchemas(model, accepted.model);
    let validators = "null";
    if (own) {
      outputs.push(...(await generateTsValidators(accepted.model, versionValidatorsDir(accepted.version))));
      const alias = `acceptedValidators${i}`;
      imports.push(`import * as ${alias} from "./versions/${accepted.version}/validators.js";`);
      validators = alias;
    }
    // Per type: a reference to current's constant when the version's value is the same (most integer
    // paths, the plans of types without a version-dependent rule), else its own literal.
    const currentNames = new Set(model.types.map((t) => t.name));
    const perType = (
      values: (m: Model, name: string) => unknown,
      currentConst: "RULE_PLANS" | "INTEGER_PATHS",
    ): string => {
      const members = accepted.model.types.map((t) => {
        const own = JSON.stringify(values(accepted.model, t.name));
        const same = currentNames.has(t.name) && own === JSON.stringify(values(model, t.name));
        return `${JSON.stringify(t.name)}: ${same ? `${currentConst}.${t.name}` : literal(values(accepted.model, t.name))}`;
      });
      return `{\n${members.join(",\n")}\n}`;
    };
    readers.push(
      [
        `  ${JSON.stringify(accepted.version)}: {`,
        `    version: ${JSON.stringify(accepted.version)},`,
        `    snapshot: ${JSON.stringify(accepted.snapshot)},`,
        `    rulePlans: ${perType((m, name) => m.rulePlans.get(name) ?? [], "RULE_PLANS")},`,
        `    integerPaths: ${perType((m, name) => m.integerPaths.get(name) ?? [], "INTEGER_PATHS")},`,
        `    validators: ${validators},`,
        `  },`,
      ].join("\n"),
    );
  }
  const lines = [
    slashBanner("The wire-version window (spec/wire-window.md): the reader of each accepted older version."),
    `import { INTEGER_PATHS, RULE_PLANS, type RuleStep } from "./spec/plans.js";`,
    ...imports,
    "",
    `// The window itself (WIRE_WINDOW, OUTSIDE_WINDOW) is in ./spec/wire-version.js: cheap to load.`,
    `export { OUTSIDE_WINDOW, WIRE_WINDOW, type WindowVersion } from "./spec/wire-version.js";`,
    "",
    `/** The reader of one accepted version, generated from its snapshot. */`,
    `export interface AcceptedReader {`,
    `  readonly version: string;`,
    `  /** Repository-relative folder of the frozen snapshot it was generated from. */`,
    `  readonly snapshot: string;`,
    `  /** Ordered rule steps per wire object type (its equals_wire_version steps expect \`version\`). */`,
    `  readonly rulePlans: { readonly [typeName: string]: readonly RuleStep[] };`,
    `  /** Pointer patterns of integer fields per wire object type. */`,
    `  readonly integerPaths: { readonly [typeName: string]: readonly string[] };`,
    `  /** Its own validators (the index module of its per-type validators), or null when its wire schemas equal current's. */`,
    `  readonly validators: { readonly loadValidator: (typeName: string) => unknown } | null;`,
    `}`,
    "",
    `/** The reader of every accepted (older) version of the default window, by version. */`,
    `export const ACCEPTED_READERS: { readonly [version: string]: AcceptedReader } = {`,
    ...readers,
    `};`,
  ];
  outputs.push({ path: "generated/ts/window.ts", content: finalNewline(lines.join("\n")) });
  return outputs;
}
