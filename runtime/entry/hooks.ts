/**
 * `lifeloop-callback/hooks`: harness hooks (spec/harness-hooks.md, spec/hook-command.md). The hook
 * tables, rendering a CallbackResponse into a harness's hook payload, the hook configuration a
 * harness installs, and the `lifeloop-callback hook` command as a function.
 * Every name is also exported by the package root, `lifeloop-callback`; this entry point re-exports
 * the root's own bindings.
 */
export {
  defaultStateDir,
  HARNESS_HOOK_INPUTS,
  HARNESS_HOOK_MAPPING,
  HOOK_ADAPTERS,
  HOOK_SCHEMAS,
  HookRenderError,
  hookConfig,
  hookEventFor,
  isHookAdapter,
  renderHookPayload,
  renderHookPayloadFromBytes,
  renderHookPayloadOrThrow,
  renderRequestIssues,
  runHookCommand,
} from "../index.js";
export type {
  HookAdapter,
  HookCommandOptions,
  HookCommandOutcome,
  HookConfigOptions,
  HookRenderErrorKind,
  HookRenderFailure,
  HookRenderResult,
  HookRenderTarget,
  HookRenderWarning,
  HookRenderWarningCode,
  OnFailure,
  RenderedHookPayload,
} from "../index.js";
