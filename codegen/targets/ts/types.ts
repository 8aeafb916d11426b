/**
 * Target: `generated/ts/types.ts`, the TypeScript types of every wire type and enum, produced by
 * json-schema-to-typescript from the schema bundle.
 */
import { compile } from "json-schema-to-typescript";
import { bundleHookSchemas, bundleSchemas } from "../../model/bundle.js";
import type { Model } from "../../model/model.js";
import { finalNewline, slashBanner, type OutputFile } from "../../emit/output.js";

const ROOT_NAME = "LifeloopWireTypes";

/** Generate generated/ts/types.ts. */
export async function generateTsTypes(model: Model): Promise<OutputFile[]> {
  const bundle = bundleSchemas(model);
  const root = {
    title: ROOT_NAME,
    type: "object",
    additionalProperties: false,
    properties: {},
    $defs: { ...bundle.$defs, ...bundleHookSchemas(model).$defs },
  };
  const compiled = await compile(root as never, ROOT_NAME, {
    bannerComment: "",
    unreachableDefinitions: true,
    additionalProperties: false,
    strictIndexSignatures: true,
    format: true,
    style: { printWidth: 120, singleQuote: false, trailingComma: "all" },
    declareExternallyReferenced: true,
    $refOptions: { resolve: { http: false, file: false } } as never,
  });
  // The bundle's synthetic root and json-schema-to-typescript's provenance notes are artefacts of
  // bundling, not part of the spec: drop them.
  const cleaned = compiled
    .replace(
      /\n \*\s*\n \* This interface was referenced by `\w+`'s JSON-Schema\n \* via the `definition` "\w+"\./g,
      "",
    )
    .replace(new RegExp(`export interface ${ROOT_NAME} \\{\\}\\n`), "");
  if (cleaned.includes("This interface was referenced") || cleaned.includes(ROOT_NAME)) {
    throw new Error(
      "json-schema-to-typescript output changed shape; update the clean-up in codegen/targets/ts/types.ts",
    );
  }
  const header = `${slashBanner()}// TypeScript types of the Lifeloop wire (${model.wireVersion.current}), one per schema in schemas/.\n\n`;
  return [{ path: "generated/ts/types.ts", content: finalNewline(header + cleaned) }];
}
