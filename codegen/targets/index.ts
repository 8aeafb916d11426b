/**
 * The list of generation targets. Each target takes the model and returns output files; a target
 * never reads spec/ or schemas/ itself and never writes to disk.
 */
import type { Model } from "../model/model.js";
import type { OutputFile } from "../emit/output.js";
import { generateDocs } from "./docs.js";
import { generateDriftTables } from "./drift-tables.js";
import { generateGo } from "./go.js";
import { generatePython } from "./python.js";
import { generateTsSpec } from "./ts-spec.js";
import { generateTsTables } from "./ts-tables.js";
import { generateTsTypes } from "./ts-types.js";
import { generateTsValidators } from "./ts-validators.js";
import { generateStreamVectors } from "./stream-vectors.js";
import { generateVectors } from "./vectors.js";

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
  { name: "drift-tables", generate: generateDriftTables },
  { name: "docs", generate: generateDocs },
  { name: "go", generate: generateGo },
  { name: "python", generate: generatePython },
  { name: "vectors", generate: generateVectors },
  { name: "stream-vectors", generate: generateStreamVectors },
];
