/**
 * Every generation target, behind the one {@link Target} interface (target.ts), grouped by what it
 * makes: `ts/` (generated/ts), `go/` and `python/` (the SDKs), `docs/` (generated/docs, generated/drift,
 * the generated regions of spec/*.md) and `vectors/` (generated/vectors, generated/conformance).
 * Each target is a function of the model: it returns output files and never writes the disk.
 */
import { generateCompatDocs } from "./docs/compat-docs.js";
import { generateDocs } from "./docs/docs.js";
import { generateDriftTables } from "./docs/drift-tables.js";
import { generateGo } from "./go/index.js";
import { generatePython } from "./python/index.js";
import type { Target } from "./target.js";
import { generateTsAcceptChecks } from "./ts/accept-checks.js";
import { generateTsRuleProbes } from "./ts/rule-probes.js";
import { generateTsSpec } from "./ts/spec.js";
import { generateTsTables } from "./ts/tables.js";
import { generateTsTooling } from "./ts/tooling.js";
import { generateTsTypes } from "./ts/types.js";
import { generateTsValidators } from "./ts/validators.js";
import { generateCorpus } from "./vectors/corpus.js";
import { generateStreamVectors } from "./vectors/stream-vectors.js";
import { generateVectors } from "./vectors/vectors.js";
import { generateWindowVectors } from "./vectors/window-vectors.js";
import { generateViewModelTypes } from "./view-model-types.js";

export type { Target } from "./target.js";

/** Every target. main.ts sorts the union of their outputs by path, so the order here is for the reader. */
export const TARGETS: readonly Target[] = [
  // TypeScript: generated/ts/
  { name: "ts/types", generate: generateTsTypes },
  { name: "ts/validators", generate: generateTsValidators },
  { name: "ts/tables", generate: generateTsTables },
  { name: "ts/spec", generate: generateTsSpec },
  { name: "ts/rule-probes", generate: generateTsRuleProbes },
  { name: "ts/accept-checks", generate: generateTsAcceptChecks },
  { name: "ts/tooling", generate: generateTsTooling },
  // The SDKs: the generated files of sdk/go/ and sdk/python/, and the view-model types of their generators
  { name: "go", generate: (model) => generateGo(model) },
  { name: "python", generate: (model) => generatePython(model) },
  { name: "view-model-types", generate: (model) => generateViewModelTypes(model) },
  // Documentation: generated/docs/, generated/drift/, the generated regions of spec/*.md
  { name: "docs/docs", generate: generateDocs },
  { name: "docs/compat-docs", generate: generateCompatDocs },
  { name: "docs/drift-tables", generate: generateDriftTables },
  // Vectors: generated/vectors/ and the conformance corpus generated/conformance/
  { name: "vectors/corpus", generate: generateCorpus },
  { name: "vectors/vectors", generate: generateVectors },
  { name: "vectors/stream-vectors", generate: generateStreamVectors },
  { name: "vectors/window-vectors", generate: generateWindowVectors },
];
