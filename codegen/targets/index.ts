/**
 * The list of generation targets. Each target is a function of the model: it returns output files,
 * and never reads or writes the disk (spec pages, the conformance corpus and the SDK templates and
 * runtime sources are in the model, codegen/model/sources.ts).
 */
import type { Model } from "../model/model.js";
import type { OutputFile } from "../emit/output.js";
import { generateCompatDocs } from "./compat-docs.js";
import { generateDocs } from "./docs.js";
import { generateDriftTables } from "./drift-tables.js";
import { generateGo } from "./go/index.js";
import { generatePython } from "./python/index.js";
import { generateTsAcceptChecks } from "./ts-accept-checks.js";
import { generateTsRuleProbes } from "./ts-rule-probes.js";
import { generateTsSpec } from "./ts-spec.js";
import { generateTsTables } from "./ts-tables.js";
import { generateTsTooling } from "./ts/tooling.js";
import { generateTsTypes } from "./ts-types.js";
import { generateTsValidators } from "./ts-validators.js";
import { generateStreamVectors } from "./stream-vectors.js";
import { generateVectors } from "./vectors.js";
import { generateViewModelTypes } from "./view-model-types.js";

/** A named generator. */
export interface Target {
  readonly name: string;
  readonly generate: (model: Model) => Promise<OutputFile[]>;
}

/** Every target, in the order their outputs are reported. */
export const TARGETS: readonly Target[] = [
  { name: "ts-types", generate: generateTsTypes },
  { name: "ts-validators", generate: generateTsValidators },
  { name: "ts-tables", generate: generateTsTables },
  { name: "ts-spec", generate: generateTsSpec },
  { name: "ts-rule-probes", generate: generateTsRuleProbes },
  { name: "ts-accept-checks", generate: generateTsAcceptChecks },
  { name: "ts-tooling", generate: generateTsTooling },
  { name: "drift-tables", generate: generateDriftTables },
  { name: "docs", generate: generateDocs },
  { name: "compat-docs", generate: generateCompatDocs },
  { name: "go", generate: generateGo },
  { name: "python", generate: generatePython },
  { name: "vectors", generate: generateVectors },
  { name: "view-model-types", generate: generateViewModelTypes },
  { name: "stream-vectors", generate: generateStreamVectors },
];
