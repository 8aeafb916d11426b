/**
 * `lifeloop-callback/continuation`: the continuation store (CONTINUATION-001,
 * spec/continuation-store.md) behind `lifeloop-callback continuation` and the host's
 * `continuation/*` answers to stream clients, and how its root and limits are resolved.
 * Every name is also exported by the package root, `lifeloop-callback`; this entry point re-exports
 * the root's own bindings.
 */
export {
  ContinuationError,
  ContinuationStore,
  continuationHandlers,
  resolveMaxBlobBytes,
  resolveRoot,
  storeForCommand,
  storeFromEnvironment,
} from "../index.js";
export type {
  ContinuationEnvironment,
  ContinuationErrorEnvelope,
  ContinuationHandlerOptions,
  ContinuationStoreOptions,
  ContinuationStoreSource,
  EntryInfo,
  GetResult,
  ListDiagnostic,
  ListedKey,
  ListResult,
  PutOptions,
  StoreUse,
} from "../index.js";
