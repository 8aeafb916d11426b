/**
 * The types of `conform` (spec/conformance-runner.md) at the bottom of the room: what a scenario is,
 * what it sends and what a correct client does. Every other module of runtime/conform imports
 * them from here; this module imports only the stream session's script type.
 */
import type { CONFORMANCE_CHECKS_TABLE } from "../../generated/ts/spec.js";
import type { WireWindow } from "../wire/window.js";
import type { StreamScript } from "./stream-session.js";

/** A check family row of spec/tables/conformance-checks.json. */
export type CheckFamily = (typeof CONFORMANCE_CHECKS_TABLE.families)[number];

/** The id of a `single` family run over the stream: the keys of the stream script registry (runtime/conform/stream-scenarios.ts). */
export type StreamSingleFamilyId = Extract<
  CheckFamily,
  { readonly generator: "single"; readonly transports: readonly ["stream"] }
>["id"];

/** The transports a scenario can be built for (the first column of conform's text report). */
export const SCENARIO_TRANSPORTS = ["subprocess", "stream"] as const;
/** One of {@link SCENARIO_TRANSPORTS}. */
export type ScenarioTransport = (typeof SCENARIO_TRANSPORTS)[number];

/** What a correct client does in a stream scenario (the docs page's `expect` column). */
export type StreamExpectation = "answer" | "refuse" | "method_not_found" | "no_reply" | "end_stream" | "exit";

/**
 * One stream scenario as the family expansion needs it. `shared`: the scenario runs in one session
 * with the other shared scenarios, one after another, as a host sends events on one stream (a
 * new session only after one ended); otherwise it gets a session of its own.
 */
export interface StreamScenarioParts {
  readonly id: string;
  readonly expect: StreamExpectation;
  readonly script: StreamScript;
  readonly shared?: boolean;
}

/** What the runner sends and how it sends it. */
export type ScenarioInput =
  | { readonly kind: "bytes"; readonly bytes: Uint8Array }
  | {
      readonly kind: "slow";
      readonly bytes: Uint8Array;
      readonly chunkBytes: number;
      readonly pauseMs: number;
      readonly leadingWhitespace: number;
    }
  | { readonly kind: "sigterm"; readonly bytes: Uint8Array }
  | { readonly kind: "stream"; readonly bytes: Uint8Array; readonly script: StreamScript; readonly shared: boolean };

/** What a correct client does with the input (v1; stream scenarios: {@link StreamExpectation}). */
export type ScenarioExpectation = "answer" | "refuse" | "end_on_sigterm" | StreamExpectation;

/**
 * One scenario: `{id, rule_ids, level, transport, since}` as published (the report and the docs
 * page), plus the input and the expectation the runner uses, and the wire version the scenario
 * speaks (spec/wire-window.md, "Who speaks which version"): `wireVersion`, the version its
 * requests carry, and `answerWindow`, the window the client's answers are judged with (closed to
 * `wireVersion`; every version this build reads for a request outside the window, which a client
 * answers in its own current version).
 */
export interface Scenario {
  readonly id: string;
  readonly family: string;
  readonly rule_ids: readonly string[];
  readonly level: "must" | "should";
  readonly transport: "subprocess" | "stream";
  readonly since: string;
  readonly summary: string;
  readonly input: ScenarioInput;
  readonly expect: ScenarioExpectation;
  readonly wireVersion: string;
  readonly answerWindow: WireWindow;
}
