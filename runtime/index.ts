/**
 * Public API of lifeloop-callback (`import { ... } from "lifeloop-callback"`).
 *
 * - Wire types and tables: generated from schemas/ and spec/ (generated/ts).
 * - Validation: parseWireDocument / validateValue with stable rule ids and JSON pointers.
 */
export type * from "../generated/ts/types.js";
export {
  WIRE_VERSION,
  RETIRED_WIRE_VERSIONS,
  REFERENCE_IMPLEMENTATION,
  WIRE_OBJECT_TYPES,
  WIRE_DOCUMENTS,
  EVENT_VOCABULARY,
  FAILURE_RETRY_DEFAULTS,
  FAILURE_VARIANTS,
  TRANSPORT_MODES,
  SUBPROCESS_WIRE_FRAMING,
  RECEIPT_EMITTED_GUARD,
  LIMITS,
  CLIENT_INITIATED_COMMANDS,
  REFERENCE_DIFFERENCES,
  DOCUMENT_RULES,
  RULES,
  CLI_EXIT_CODES,
} from "../generated/ts/spec.js";
export type { WireObjectTypeName, WireTypeMap, FailureVariant, DocumentRuleId } from "../generated/ts/spec.js";
export type { ValidationIssue } from "./wire/issues.js";
export { WireValidationError } from "./wire/issues.js";
export {
  DEFAULT_DOCUMENT_LIMITS,
  parseWireDocument,
  parseWireDocumentOrThrow,
  validateParsed,
  validateValue,
  type DocumentLimits,
  type WireResult,
} from "./wire/validate.js";
export { parseStrictJson, type StrictJsonLimits, type StrictParseResult, type ParseIssue } from "./wire/strict-json.js";
