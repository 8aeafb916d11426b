/**
 * Every hook input the reference crate ships, replayed through `lifeloop-callback hook` (in process,
 * each delivery a real client process): the sanitized live Codex recordings (0.122.0 and 0.129.0)
 * and the generated Claude Code inputs (tests/fixtures/live/claude). Fixtures are read from the
 * crate's sources at test time (test/support/reference-crate.ts); nothing is copied.
 *
 * For a Codex recording the client is scripted to answer what the recorded output says (a block
 * with the recorded reason, a context payload with the recorded text, or nothing), then:
 * - the lifecycle events delivered are the recording's `lifeloop_events`, in order;
 * - the requests carry the input's session and turn ids;
 * - the printed output and the recorded output both validate against our schema for the hook;
 * - the printed output equals the recorded one where the client answers the same: exactly for a
 *   block or an empty output, after unwrapping the context envelope for a context answer, and up to
 *   the members a client answer cannot produce (systemMessage, continue: true) otherwise.
 */
import { afterAll, describe, expect, it } from "vitest";
import { HARNESS_HOOK_INPUTS, HARNESS_HOOK_MAPPING } from "../../../generated/ts/spec.js";
import { hookInputEvent, inputSchemaName } from "../../../runtime/hooks/command/tables.js";
import { hookEventFor, outputSchemaName } from "../../../runtime/hooks/mapping.js";
import { hookSchemaIssues } from "../../../runtime/hooks/request.js";
import type { LifecycleEventKind } from "../../../generated/ts/types.js";
import { claudeInputs, codexRecordings, type CodexRecording } from "../../support/reference-crate.js";
import { callHook, contextPayload, printed, type Scratch, ScratchPool } from "./support.js";

const pool = new ScratchPool();
const scratch = (): Scratch => pool.make();
afterAll(pool.removeAll);

/** Members of a hook output that a client's answer can put there (the rest are the harness probe's own). */
const ANSWERABLE = ["decision", "reason", "hookSpecificOutput"];

function answerFor(recording: CodexRecording): Record<string, unknown> {
  const rendered = hookInputEvent("codex", recording.hookEvent)?.renders as string;
  const out = recording.output;
  if (out.decision === "block")
    return { [rendered]: { metadata: { directive: { kind: "block", reason: out.reason } } } };
  const context = (out.hookSpecificOutput as { additionalContext?: string } | undefined)?.additionalContext;
  if (context !== undefined) return { [rendered]: { client_payloads: [contextPayload("pl-recorded", context)] } };
  return {};
}

describe("live Codex recordings", () => {
  const recordings = codexRecordings();
  it("are all found (0.122.0 and 0.129.0)", () => {
    expect(recordings.map((r) => r.name.split("/")[0])).toEqual(
      expect.arrayContaining(["codex_cli_0_122_0", "codex_cli_0_129_0"]),
    );
    expect(recordings.length).toBeGreaterThanOrEqual(9);
  });

  for (const recording of recordings) {
    it(`${recording.name} (${recording.hookEvent})`, async () => {
      const s = scratch().answer(answerFor(recording));
      expect(
        hookSchemaIssues(inputSchemaName("codex", recording.hookEvent), recording.input),
        "the recorded input matches our closed input schema",
      ).toEqual([]);
      const outcome = await callHook(s, { adapter: "codex", hookEvent: recording.hookEvent, input: recording.input });
      expect(outcome.exitCode, outcome.stderr).toBe(0);

      const delivered = s.delivered();
      expect(delivered.map((r) => r.event)).toEqual(recording.lifeloopEvents);
      expect(outcome.delivered).toEqual(recording.lifeloopEvents);
      for (const r of delivered) {
        expect(r.adapter_id).toBe("codex");
        expect(r.integration_mode).toBe("native_hook");
        expect(r.harness_session_id).toBe(recording.input.session_id);
        expect(r.metadata?.hook_event_name).toBe(recording.hookEvent);
        if (r.event.startsWith("frame."))
          expect(r.frame_context).toEqual({ frame_id: recording.input.turn_id, frame_class: "top_level" });
        if (recording.input.prompt !== undefined) expect(r.metadata?.prompt).toBe(recording.input.prompt);
        if (recording.input.stop_hook_active !== undefined)
          expect(r.metadata?.stop_hook_active).toBe(recording.input.stop_hook_active);
      }
      expect(s.receiptLines().map((r) => r.event)).toEqual(recording.lifeloopEvents);

      const output = printed(outcome);
      const schema = outputSchemaName("codex", recording.hookEvent);
      expect(hookSchemaIssues(schema, output), "our output validates").toEqual([]);
      expect(hookSchemaIssues(schema, recording.output), "the output Codex accepted validates too").toEqual([]);
      const recordedContext = (recording.output.hookSpecificOutput as { additionalContext?: string } | undefined)
        ?.additionalContext;
      if (recordedContext !== undefined) {
        const specific = output.hookSpecificOutput as { hookEventName: string; additionalContext: string };
        expect(specific.hookEventName).toBe(recording.hookEvent);
        expect(
          (JSON.parse(specific.additionalContext) as { payloads: { body: string }[] }).payloads.map((p) => p.body),
        ).toEqual([recordedContext]);
      } else {
        const answerable = Object.fromEntries(Object.entries(recording.output).filter(([k]) => ANSWERABLE.includes(k)));
        expect(output).toEqual(answerable);
        expect(recording.output.continue).not.toBe(false);
      }
    });
  }

  it("a Stop block, then the continuation's Stop with stop_hook_active, up to the bound", async () => {
    const block = codexRecordings().find(
      (r) => r.name === "codex_cli_0_122_0/stop_block_continuation.json",
    ) as CodexRecording;
    const after = codexRecordings().find(
      (r) => r.name === "codex_cli_0_122_0/stop_after_continuation.json",
    ) as CodexRecording;
    expect(block.input.stop_hook_active).toBe(false);
    expect(after.input.stop_hook_active).toBe(true);
    const s = scratch().answer({ "frame.ending": { metadata: { directive: { kind: "block", reason: "once more" } } } });
    const cap = HARNESS_HOOK_INPUTS.max_stop_continuations;
    const first = printed(await callHook(s, { adapter: "codex", hookEvent: "Stop", input: block.input }));
    expect(first).toEqual({ decision: "block", reason: "once more" });
    for (let n = 2; n <= cap; n++)
      expect(
        printed(await callHook(s, { adapter: "codex", hookEvent: "Stop", input: after.input })),
        `continuation ${n}`,
      ).toEqual({ decision: "block", reason: "once more" });
    const capped = await callHook(s, { adapter: "codex", hookEvent: "Stop", input: after.input });
    const body = printed(capped);
    expect(body.decision).toBeUndefined();
    expect(body.systemMessage).toContain(`bound of ${cap}`);
    expect(capped.stderr).toContain("continuation not requested");
    // The client was still told about the Stop (both events) every time.
    expect(s.delivered().map((r) => r.event)).toEqual(
      Array.from({ length: cap + 1 }, () => ["frame.ending", "frame.ended"]).flat(),
    );
    // A Stop the harness marks as fresh (stop_hook_active false) starts a new chain.
    expect(printed(await callHook(s, { adapter: "codex", hookEvent: "Stop", input: block.input }))).toEqual({
      decision: "block",
      reason: "once more",
    });
  });
});

describe("Stop loops without a session id (hostile review)", () => {
  it("a continuation chain is bounded when session_id is empty (no state to count in)", async () => {
    const after = codexRecordings().find(
      (r) => r.name === "codex_cli_0_122_0/stop_after_continuation.json",
    ) as CodexRecording;
    const input = { ...after.input, session_id: "" };
    const s = scratch().answer({ "frame.ending": { metadata: { directive: { kind: "block", reason: "once more" } } } });
    const cap = HARNESS_HOOK_INPUTS.max_stop_continuations;
    const outputs = [];
    for (let n = 0; n <= cap; n++)
      outputs.push(printed(await callHook(s, { adapter: "codex", hookEvent: "Stop", input })));
    // The harness would run another turn for every block: at most cap of them may follow one another.
    expect(outputs.filter((o) => o.decision === "block").length).toBeLessThanOrEqual(cap);
    // Without a session id there is no count: a Stop that follows a continuation gets no other.
    const first = outputs[0] as Record<string, unknown>;
    expect(first.decision).toBeUndefined();
    expect(first.systemMessage).toContain("no session id");
  });
});

describe("generated Claude Code inputs", () => {
  const inputs = claudeInputs();
  it("cover every hook event the command serves for Claude Code", () => {
    const served = (HARNESS_HOOK_INPUTS.adapters.find((a) => a.adapter === "claude")?.hook_events ?? []).map(
      (h) => h.hook_event,
    );
    expect([...new Set(inputs.map((i) => i.hookEvent))].sort()).toEqual([...served].sort());
  });

  for (const fixture of inputs) {
    it(`${fixture.name}`, async () => {
      const row = hookInputEvent("claude", fixture.hookEvent);
      if (!row) throw new Error(`no table row for ${fixture.hookEvent}`);
      expect(hookSchemaIssues(inputSchemaName("claude", fixture.hookEvent), fixture.input)).toEqual([]);
      const s = scratch();
      const outcome = await callHook(s, { adapter: "claude", hookEvent: fixture.hookEvent, input: fixture.input });
      expect(outcome.exitCode, outcome.stderr).toBe(0);
      const events = s.delivered().map((r) => r.event);
      expect(events).toEqual(row.delivers);
      // Each delivered event is one the renderer maps to this very hook event.
      for (const e of events)
        expect(hookEventFor("claude", e as LifecycleEventKind)?.hook_event).toBe(fixture.hookEvent);
      for (const r of s.delivered()) expect(r.harness_session_id).toBe(fixture.input.session_id);
      const output = printed(outcome);
      expect(hookSchemaIssues(outputSchemaName("claude", fixture.hookEvent), output)).toEqual([]);
      expect(output).toEqual({});
    });
  }

  it("context and a prompt block reach the Claude Code output", async () => {
    const byEvent = new Map(inputs.map((i) => [i.hookEvent, i.input]));
    const s = scratch().answer({
      "session.starting": { client_payloads: [contextPayload("pl-1", "remember the plan")] },
      "frame.opening": { metadata: { directive: { kind: "block", reason: "not now" } } },
    });
    const start = printed(
      await callHook(s, {
        adapter: "claude",
        hookEvent: "SessionStart",
        input: byEvent.get("SessionStart") as Record<string, unknown>,
      }),
    );
    const context = JSON.parse((start.hookSpecificOutput as { additionalContext: string }).additionalContext) as {
      payloads: { body: string }[];
    };
    expect(context.payloads.map((p) => p.body)).toEqual(["remember the plan"]);
    const prompt = printed(
      await callHook(s, {
        adapter: "claude",
        hookEvent: "UserPromptSubmit",
        input: byEvent.get("UserPromptSubmit") as Record<string, unknown>,
      }),
    );
    expect(prompt).toEqual({ decision: "block", reason: "not now" });
  });

  it("a Claude Code Stop ends the frame its UserPromptSubmit opened (no turn id in the input)", async () => {
    const byEvent = new Map(inputs.map((i) => [i.hookEvent, i.input]));
    const s = scratch();
    await callHook(s, {
      adapter: "claude",
      hookEvent: "UserPromptSubmit",
      input: byEvent.get("UserPromptSubmit") as Record<string, unknown>,
    });
    await callHook(s, { adapter: "claude", hookEvent: "Stop", input: byEvent.get("Stop") as Record<string, unknown> });
    const [opening, ending, ended] = s.delivered();
    expect([opening?.event, ending?.event, ended?.event]).toEqual(["frame.opening", "frame.ending", "frame.ended"]);
    expect(ending?.frame_context?.frame_id).toBe(opening?.frame_context?.frame_id);
    expect(ended?.frame_context?.frame_id).toBe(opening?.frame_context?.frame_id);
  });

  it("Claude Code's Stop block requests a continuation (as 0.9.0 renders it), bounded by max_stop_continuations as for Codex", async () => {
    expect(
      HARNESS_HOOK_MAPPING.adapters
        .find((a) => a.adapter === "claude")
        ?.hook_events.find((h) => h.hook_event === "Stop")?.block,
    ).toBe("request_continuation");
    const stop = inputs.find((i) => i.hookEvent === "Stop")?.input as Record<string, unknown>;
    const s = scratch().answer({ "frame.ending": { metadata: { directive: { kind: "block", reason: "again" } } } });
    const cap = HARNESS_HOOK_INPUTS.max_stop_continuations;
    const first = await callHook(s, {
      adapter: "claude",
      hookEvent: "Stop",
      input: { ...stop, stop_hook_active: false },
    });
    expect(printed(first)).toEqual({ decision: "block", reason: "again" });
    for (let n = 2; n <= cap; n++)
      expect(
        printed(
          await callHook(s, { adapter: "claude", hookEvent: "Stop", input: { ...stop, stop_hook_active: true } }),
        ),
      ).toEqual({ decision: "block", reason: "again" });
    const capped = await callHook(s, {
      adapter: "claude",
      hookEvent: "Stop",
      input: { ...stop, stop_hook_active: true },
    });
    expect(printed(capped)).not.toHaveProperty("decision");
    expect(capped.stderr).toContain(`reach the bound of ${cap}`);
  });

  it("a block at Claude Code's PreCompact or SessionEnd: {} on stdout, the reason on stderr, exit 0 (the reference refuses to render it)", async () => {
    for (const [hookEvent, event] of [
      ["PreCompact", "context.pressure_observed"],
      ["SessionEnd", "session.ending"],
    ] as const) {
      const input = inputs.find((i) => i.hookEvent === hookEvent)?.input as Record<string, unknown>;
      const s = scratch().answer({ [event]: { metadata: { directive: { kind: "block", reason: "hold on" } } } });
      const outcome = await callHook(s, { adapter: "claude", hookEvent, input });
      expect([outcome.exitCode, printed(outcome)], hookEvent).toEqual([0, {}]);
      expect(outcome.stderr, hookEvent).toContain("unsupported_directive");
    }
  });
});
