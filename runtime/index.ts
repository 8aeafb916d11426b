/// <reference types="node" preserve="true" />
// The public types use Node's (Buffer, NodeJS.Signals, streams): the reference above makes them
// resolve in a consumer's project whatever its `types` setting (TypeScript 6+ defaults it to []),
// with @types/node a dependency of this package.
/**
 * Public API of lifeloop-callback (`import { ... } from "lifeloop-callback"`).
 *
 * - Wire types and tables: generated from schemas/ and spec/ (generated/ts).
 * - Validation: parseWireDocument / validateValue with stable rule ids and JSON pointers, each
 *   document judged by its own version among the wire-version window's (spec/wire-window.md).
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
  STREAM_V2,
} from "../generated/ts/spec.js";
export type {
  WireObjectTypeName,
  WireTypeMap,
  FailureVariant,
  DocumentRuleId,
  StreamErrorName,
  StreamReverseMethodName,
  StreamRuleId,
} from "../generated/ts/spec.js";
export type { ValidationIssue } from "./wire/issues.js";
export { WireValidationError } from "./wire/issues.js";
export {
  DEFAULT_DOCUMENT_LIMITS,
  parseWireDocument,
  parseWireDocumentOrThrow,
  parseWireDocumentSliced,
  validateParsed,
  validateValue,
  type DocumentLimits,
  type WireResult,
} from "./wire/validate.js";
export {
  closedWindow,
  DEFAULT_WIRE_WINDOW,
  WireWindowError,
  wireWindow,
  type WireWindow,
} from "./wire/window.js";
export { WIRE_WINDOW, type WindowVersion } from "../generated/ts/window.js";
export { parseStrictJson, type StrictJsonLimits, type StrictParseResult, type ParseIssue } from "./wire/json/parse.js";
export { parseStrictJsonSliced, type StrictSliceOptions } from "./wire/json/sliced.js";
export {
  HARNESS_HOOK_INPUTS,
  HARNESS_HOOK_MAPPING,
  HOOK_SCHEMAS,
  type HookAdapter,
  type HookRenderErrorKind,
  type HookRenderWarningCode,
} from "../generated/ts/spec.js";
export {
  HOOK_ADAPTERS,
  HookRenderError,
  hookEventFor,
  isHookAdapter,
  renderHookPayload,
  renderHookPayloadFromBytes,
  renderHookPayloadOrThrow,
  renderRequestIssues,
  type HookRenderFailure,
  type HookRenderResult,
  type HookRenderTarget,
  type HookRenderWarning,
  type RenderedHookPayload,
  defaultStateDir,
  hookConfig,
  runHookCommand,
  type HookCommandOptions,
  type HookCommandOutcome,
  type HookConfigOptions,
  type OnFailure,
} from "./hooks/index.js";

// --- Host runtime (CALLBACK-001 §"Transport Modes", §"Failure classes", §"Receipt.Emitted
// Notification Guard"; normative prose: spec/host-runtime.md). Invokers deliver one DispatchEnvelope
// and resolve with an InvocationResult (never throw for bad input or a misbehaving client); every
// failure is classified through FAILURE_VARIANTS; ReceiptEmitter turns each outcome into a
// LifecycleReceipt with per-run sequences and idempotency.
export {
  InvokerConfigError,
  type CallbackHandler,
  type CallbackInvoker,
  type InvocationFailure,
  type InvocationResult,
  type InvokeOptions,
} from "./invoker/types.js";
export { SubprocessInvoker, type SubprocessInvokerConfig } from "./invoker/subprocess.js";
export { InProcessInvoker, type InProcessInvokerConfig } from "./invoker/in-process.js";
export { DEFAULT_INVOKER_LIMITS, type InvokerLimits } from "./invoker/config.js";
export { defaultRetryClass, failureClassOf, makeFailure } from "./invoker/failure.js";
export {
  isNotificationOnly,
  prepareEnvelope,
  toWireJson,
  WireSerializeError,
  wireSnapshot,
  type WireSnapshot,
} from "./invoker/request.js";
export { prepareEnvelopeSliced, wireSnapshotSliced, type PreparedEnvelope } from "./invoker/request.js";
export { signalGroup, trackedGroups } from "./process/process-group.js";
export {
  contextIssues,
  ReceiptEmitter,
  ReceiptSynthesisError,
  type EmitOutcome,
  type ReceiptEmitterOptions,
} from "./receipts/emitter.js";
export {
  CLIENT_STDERR_TAIL_WARNING,
  INVOCATION_FAILED_WARNING,
  synthesizeReceipt,
  type ReceiptContext,
} from "./receipts/synthesize.js";
export { SequenceGenerator, type SequenceSource } from "./receipts/sequence.js";
export {
  LEDGER_BINDING,
  LEDGER_BUSY_TIMEOUT_MS,
  LEDGER_SCHEMA_VERSION,
  ReceiptLedger,
  ReceiptLedgerError,
  UNFENCED_LEDGER_SCHEMA_VERSION,
  WIRE_GUARD_TRIGGER,
  type ReceiptLedgerFault,
  type ReceiptLedgerOptions,
} from "./receipts/ledger.js";
export {
  IdempotencyConflictError,
  InMemoryIdempotencyStore,
  replayContent,
  replayContentEqual,
  type IdempotencyKey,
  type IdempotencyStore,
  type StoreOutcome,
} from "./receipts/idempotency.js";

// --- Continuation store (CONTINUATION-001; spec/continuation-store.md): the store behind
// `lifeloop-callback continuation` and the host's `continuation/*` answers, and the helper a
// TypeScript client uses to call the host CLI.
export {
  ContinuationStore,
  type ContinuationStoreOptions,
  type EntryInfo,
  type GetResult,
  type ListDiagnostic,
  type ListedKey,
  type ListResult,
  type PutOptions,
} from "./continuation/store.js";
export { ContinuationError, type ContinuationErrorEnvelope } from "./continuation/errors.js";
export {
  resolveMaxBlobBytes,
  resolveRoot,
  storeForCommand,
  storeFromEnvironment,
  type ContinuationEnvironment,
  type StoreUse,
} from "./continuation/root.js";
export {
  continuationHandlers,
  type ContinuationHandlerOptions,
  type ContinuationStoreSource,
} from "./continuation/stream-handlers.js";

// --- Stream callbacks, v2 (CALLBACK-001 §C; spec/stream-protocol.md, spec/host-runtime.md §"Stream
// invoker (v2)"): the host's StreamInvoker, the frame reader and judge shared with the client runner,
// the error-code table, pluggable client-to-host handlers, and the TypeScript client runner.
export { StreamInvoker, type StreamInvokerConfig, type StreamInvokerStats } from "./stream/invoker.js";
export { DEFAULT_STREAM_LIMITS, type StreamInvokerLimits } from "./stream/limits.js";
export { FrameReader, type FrameEvent } from "./rpc/frame-reader.js";
export {
  parseFrame,
  encodeFrame,
  sameId,
  type FrameResult,
  type JsonRpcError,
  type JsonRpcId,
  type StreamFrame,
} from "./rpc/frame.js";
export { codeForFailureClass, errorCode, errorNameForCode, failureClassForCode } from "./rpc/error-codes.js";
export {
  isReverseMethod,
  ReverseRequestError,
  serveReverseRequest,
  type ReverseHandlers,
  type ReverseMethodHandler,
  type ReverseOutcome,
  type ReverseReply,
  type ReverseRequest,
} from "./stream/reverse.js";
export {
  answerEnvelope,
  failureResponse,
  serve,
  type ClientContext,
  type ClientHandler,
  type ServeOptions,
} from "./client/runner.js";
export {
  ClientCommands,
  CommandError,
  RequestFrameTooLargeError,
  StreamClosedError,
  type CommandResult,
  type CommandTransport,
} from "./client/commands.js";
