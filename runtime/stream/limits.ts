/**
 * Bounds of a StreamInvoker (spec/tables/limits.json; spec/stream-protocol.md §"Limits"): the v1
 * limits plus the stream's own, by their table names. Defaults are the table's values.
 */
import { LIMITS } from "../../generated/ts/spec.js";
import { DEFAULT_INVOKER_LIMITS, resolveLimitSet, type InvokerLimits } from "../invoker/config.js";

/**
 * - `max_frame_bytes` (bytes): one frame since the last LF, both directions;
 * - `max_client_requests_in_flight` (count): unanswered client → host requests;
 * - `stream_close_grace_ms`, `stream_term_grace_ms` (ms): the shutdown's waits after EOF and SIGTERM;
 * - `stream_max_consecutive_timeouts` (count): timeouts in a row that end the stream;
 * - `stream_max_failed_spawns` (count), `stream_respawn_cooldown_ms` (ms): the respawn bound;
 * - the {@link InvokerLimits}: `max_request_bytes` bounds each DispatchEnvelope, `kill_grace_ms`
 *   SIGTERM → SIGKILL after a violation, `settle_margin_ms` the settle bound, `stderr_tail_bytes`,
 *   `failure_detail_preview_bytes`; each result is bounded by its frame's limits (`max_frame_bytes`,
 *   `max_frame_values`), not by `max_response_bytes` (spec/host-runtime.md §"Frames from the client").
 */
export interface StreamInvokerLimits extends InvokerLimits {
  readonly max_frame_bytes: number;
  readonly max_client_requests_in_flight: number;
  readonly stream_close_grace_ms: number;
  readonly stream_term_grace_ms: number;
  readonly stream_max_consecutive_timeouts: number;
  readonly stream_max_failed_spawns: number;
  readonly stream_respawn_cooldown_ms: number;
}

/** The defaults: the values of spec/tables/limits.json. */
export const DEFAULT_STREAM_LIMITS: StreamInvokerLimits = Object.freeze({
  ...DEFAULT_INVOKER_LIMITS,
  max_frame_bytes: LIMITS.max_frame_bytes,
  max_client_requests_in_flight: LIMITS.max_client_requests_in_flight,
  stream_close_grace_ms: LIMITS.stream_close_grace_ms,
  stream_term_grace_ms: LIMITS.stream_term_grace_ms,
  stream_max_consecutive_timeouts: LIMITS.stream_max_consecutive_timeouts,
  stream_max_failed_spawns: LIMITS.stream_max_failed_spawns,
  stream_respawn_cooldown_ms: LIMITS.stream_respawn_cooldown_ms,
});

/** Merge overrides (InvokerConfigError for unknown names or bad values). */
export function resolveStreamLimits(overrides: Partial<StreamInvokerLimits> | undefined): StreamInvokerLimits {
  return resolveLimitSet(DEFAULT_STREAM_LIMITS, overrides);
}
