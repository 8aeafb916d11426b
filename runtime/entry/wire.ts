/**
 * `lifeloop-callback/wire`: the wire layer alone. The wire types and spec tables generated from
 * schemas/ and spec/, strict JSON parsing and validation with stable rule ids and JSON pointers
 * (spec/wire-contract.md), and the stream (v2) frame codec and error-code table
 * (spec/stream-protocol.md).
 * Every name is also exported by the package root, `lifeloop-callback`; this entry point re-exports
 * the root's own bindings, so a name means the same thing through either.
 */
export type * from "../../generated/ts/types.js";
export {
  CLI_EXIT_CODES,
  CLIENT_INITIATED_COMMANDS,
  codeForFailureClass,
  DEFAULT_DOCUMENT_LIMITS,
  DOCUMENT_RULES,
  encodeFrame,
  errorCode,
  errorNameForCode,
  EVENT_VOCABULARY,
  FAILURE_RETRY_DEFAULTS,
  FAILURE_VARIANTS,
  failureClassForCode,
  FrameReader,
  LIMITS,
  parseFrame,
  parseStrictJson,
  parseStrictJsonSliced,
  parseWireDocument,
  parseWireDocumentOrThrow,
  parseWireDocumentSliced,
  RECEIPT_EMITTED_GUARD,
  REFERENCE_DIFFERENCES,
  REFERENCE_IMPLEMENTATION,
  RETIRED_WIRE_VERSIONS,
  RULES,
  STREAM_V2,
  SUBPROCESS_WIRE_FRAMING,
  sameId,
  TRANSPORT_MODES,
  validateParsed,
  validateValue,
  WIRE_DOCUMENTS,
  WIRE_OBJECT_TYPES,
  WIRE_VERSION,
  WireValidationError,
} from "../index.js";
export type {
  DocumentLimits,
  DocumentRuleId,
  FailureVariant,
  FrameEvent,
  FrameResult,
  JsonRpcError,
  JsonRpcId,
  ParseIssue,
  StreamErrorName,
  StreamFrame,
  StreamReverseMethodName,
  StreamRuleId,
  StrictJsonLimits,
  StrictParseResult,
  StrictSliceOptions,
  ValidationIssue,
  WireObjectTypeName,
  WireResult,
  WireTypeMap,
} from "../index.js";
