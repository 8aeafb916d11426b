/**
 * Harness hook rendering (spec/harness-hooks.md): lifecycle events → Claude Code / Codex hook output.
 */
export {
  HookRenderError,
  renderHookPayload,
  renderHookPayloadFromBytes,
  renderHookPayloadOrThrow,
  type HookRenderFailure,
  type HookRenderResult,
  type HookRenderTarget,
  type HookRenderWarning,
  type RenderedHookPayload,
} from "./render.js";
export {
  HOOK_ADAPTERS,
  hookEventFor,
  isBlankReason,
  isHookAdapter,
  type HookAdapterRow,
  type HookEventRow,
} from "./mapping.js";
export { renderRequestIssues } from "./request.js";
export { runHookCommand, type HookCommandOptions, type HookCommandOutcome, type OnFailure } from "./command/run.js";
export { hookConfig, type HookConfigOptions } from "./command/config.js";
export { defaultStateDir } from "./command/state.js";
