/**
 * Turn the facts of one child run into the invocation's outcome (spec/host-runtime.md
 * §"Classification order"). The first matching step wins:
 *  1. the program could not be started → `spawn`;
 *  2. stdout exceeded max_response_bytes → `response_too_large`;
 *  3. the deadline passed → `timeout` (also before the spawn, while it was queued: nothing was delivered);
 *  4. writing stdin failed other than by a broken pipe → `write_request`;
 *  5. stdin's pipe broke and the child did not exit 0 → `non_zero_exit` (the exit status is the
 *     truthful diagnosis; the broken pipe is its symptom);
 *  6. reading stdout failed → `read_response`;
 *  7. the child exited non-zero or died by a signal → `non_zero_exit` (even after a valid response);
 *  8. stdout is not exactly one JSON document → `write_request` when stdin's pipe broke (the
 *     request was not delivered whole), else `parse_response`;
 *  9. the document breaks the CallbackResponse schema or a rule, judged with the window closed to
 *     the version the host speaks (a response in another version, even one of the window, is
 *     refused with rule `schema-version-current` naming the version found) → `invalid_response`;
 * otherwise the response is returned, even when stdin's pipe broke (a client may answer from a
 * prefix of the request and exit 0).
 */
import { LIMITS } from "../../generated/ts/spec/limits.js";
import type { CallbackResponse } from "../../generated/ts/types.js";
import { parseWireDocument, parseWireDocumentSliced, type DocumentLimits, type WireResult } from "../wire/validate.js";
import { versionHint, type WireWindow } from "../wire/window.js";
import type { ChildRun } from "./child-run.js";
import { CURRENT_HOST_WINDOW, SETTLE_RESERVE_MS, type InvokerLimits } from "./config.js";
import { errorText, issueText, makeFailure, spawnFailureDetail, type FailureFacts } from "./failure.js";
import { previewBytes } from "./preview.js";
import type { InvocationFailure } from "./types.js";

/** Outcome of a run before timing is attached. */
export type RunOutcome =
  | { readonly ok: true; readonly response: CallbackResponse; readonly stderrTail: string }
  | { readonly ok: false; readonly failure: InvocationFailure };

/**
 * What the classification needs besides the run: names and bounds for the details, and `window`,
 * the host's (closed to the version it speaks; spec/wire-window.md), which the response is judged
 * with (default: closed to current).
 */
export interface ClassifyContext {
  readonly program: string;
  readonly timeoutMs: number;
  readonly limits: InvokerLimits;
  readonly window?: WireWindow;
}

const BROKEN_PIPE_CODES: ReadonlySet<string> = new Set(["EPIPE", "ECONNRESET"]);

function isBrokenPipe(error: NodeJS.ErrnoException | null): boolean {
  return error !== null && error.code !== undefined && BROKEN_PIPE_CODES.has(error.code);
}

function exitText(run: ChildRun): string {
  const exit = run.exit;
  if (exit === null) return "the client was not reaped";
  return exit.signal !== null
    ? `the client was killed by signal ${exit.signal}`
    : `the client exited with code ${exit.code}`;
}

function exitedZero(run: ChildRun): boolean {
  return run.exit !== null && run.exit.signal === null && run.exit.code === 0;
}

/** The failure builder of one run: attaches stderr tail, exit code or signal, and issues. */
function failWith(run: ChildRun) {
  return (
    variant: Parameters<typeof makeFailure>[0],
    detail: string,
    issues?: InvocationFailure["issues"],
  ): RunOutcome => {
    const facts: FailureFacts = { stderr_tail: run.stderr.text() };
    if (issues !== undefined) facts.issues = issues;
    if (run.exit !== null) {
      if (run.exit.signal !== null) facts.signal = run.exit.signal;
      else if (run.exit.code !== null && run.exit.code !== 0) facts.exit_code = run.exit.code;
    }
    return { ok: false, failure: makeFailure(variant, detail, facts) };
  };
}

/** Steps 1-7 of the module doc: the outcome when the facts decide it, or null when stdout is to be judged. */
function classifyFacts(run: ChildRun, ctx: ClassifyContext): RunOutcome | null {
  const fail = failWith(run);
  const { limits } = ctx;
  if (run.spawnError !== null)
    return { ok: false, failure: makeFailure("spawn", spawnFailureDetail(ctx.program, run.spawnError)) };
  if (run.stdoutTooLarge) {
    return fail(
      "response_too_large",
      `stdout exceeded limits.max_response_bytes (${limits.max_response_bytes} bytes); the process group was killed and the rest was not read`,
    );
  }
  if (run.deadlinePassedBeforeSpawn) {
    return fail(
      "timeout",
      `the client was not started: the ${ctx.timeoutMs} ms timeout had passed when its spawn was due (spent preparing the request, or on other work of the host meanwhile, such as other spawns); nothing was delivered`,
    );
  }
  if (run.neverSpawned) {
    return fail(
      "timeout",
      `the client was not started within ${ctx.timeoutMs} ms: its spawn was still queued behind other spawns (spawns are spread over turns of the event loop); nothing was delivered`,
    );
  }
  if (run.timedOut) {
    const where = run.exitedBeforeDeadline
      ? `${exitText(run)} but a process it started still held stdout open`
      : "the client was still running";
    return fail(
      "timeout",
      `the round trip exceeded ${ctx.timeoutMs} ms (${where}); the process group was terminated (SIGTERM, then SIGKILL within ${limits.kill_grace_ms} ms)`,
    );
  }
  if (run.writeError !== null && !isBrokenPipe(run.writeError))
    return fail("write_request", `writing the request to the client's stdin failed: ${errorText(run.writeError)}`);
  if (isBrokenPipe(run.writeError) && !exitedZero(run))
    return fail("non_zero_exit", `${exitText(run)} before reading the whole request`);
  if (run.stdoutError !== null)
    return fail("read_response", `reading the client's stdout failed: ${errorText(run.stdoutError)}`);
  if (!exitedZero(run)) return fail("non_zero_exit", exitText(run));
  return null;
}

/** Steps 8-9 of the module doc: the outcome of the judged stdout. */
function classifyJudged(run: ChildRun, ctx: ClassifyContext, parsed: WireResult<CallbackResponse>): RunOutcome {
  const fail = failWith(run);
  const { limits } = ctx;
  if (parsed.ok) return { ok: true, response: parsed.value, stderrTail: run.stderr.text() };
  const first = parsed.issues[0] as (typeof parsed.issues)[number];
  if (first.rule.startsWith("json.")) {
    if (isBrokenPipe(run.writeError)) {
      return fail(
        "write_request",
        `the client exited 0 without reading the whole request (${errorText(run.writeError as NodeJS.ErrnoException)}) and wrote no valid response; stdout was ${previewBytes(run.stdout, limits.failure_detail_preview_bytes)}`,
      );
    }
    return fail(
      "parse_response",
      `stdout is not exactly one JSON document: ${issueText(first)}; stdout was ${previewBytes(run.stdout, limits.failure_detail_preview_bytes)}`,
      parsed.issues,
    );
  }
  return fail(
    "invalid_response",
    `CallbackResponse is invalid: ${issueText(first)}${versionHint(first, "answer")}`,
    parsed.issues,
  );
}

/** The strict parser's bounds for stdout. */
function responseLimits(limits: InvokerLimits): DocumentLimits {
  return {
    maxBytes: limits.max_response_bytes,
    maxDepth: limits.max_depth,
    maxValues: limits.max_values,
    maxMembers: LIMITS.max_object_members,
  };
}

/** Classify one run synchronously; see the module doc for the order. */
export function classifyRun(run: ChildRun, ctx: ClassifyContext): RunOutcome {
  return (
    classifyFacts(run, ctx) ??
    classifyJudged(
      run,
      ctx,
      parseWireDocument("CallbackResponse", run.stdout, responseLimits(ctx.limits), ctx.window ?? CURRENT_HOST_WINDOW),
    )
  );
}

/**
 * {@link classifyRun} with stdout judged in slices (the event loop stays free, so other invocations
 * keep their deadlines while a large response is parsed). `settleBy` (performance.now() ms) is the
 * invocation's settle bound: judging that would pass it is abandoned and the outcome is `timeout`
 * (the response could not be judged in time). Within the limits this does not happen on a
 * machine that is not overloaded (see spec/host-runtime.md §"Bounds"). Never rejects.
 */
export async function classifyRunSliced(run: ChildRun, ctx: ClassifyContext, settleBy: number): Promise<RunOutcome> {
  const decided = classifyFacts(run, ctx);
  if (decided !== null) return decided;
  const parsed = await parseWireDocumentSliced(
    "CallbackResponse",
    run.stdout,
    responseLimits(ctx.limits),
    { deadlineAt: settleBy - SETTLE_RESERVE_MS },
    ctx.window ?? CURRENT_HOST_WINDOW,
  );
  if (parsed === "deadline") {
    return failWith(run)(
      "timeout",
      `the response (${run.stdout.length} bytes) could not be judged before the settle bound (timeoutMs ${ctx.timeoutMs} + limits.settle_margin_ms ${ctx.limits.settle_margin_ms})`,
    );
  }
  return classifyJudged(run, ctx, parsed);
}
