/**
 * Differential check of the hook renderer against the reference renderer (lifeloop-cli 0.5.0,
 * `protocol::render_hook_payload`) through the Rust harness's `render` kind (tools/reference/).
 * Every (adapter, event, directive, payload set, adapter id) combination goes to both; outputs must
 * be the same JSON value and the same stdout text byte for byte, and refusals the same kind. The
 * only accepted disagreements are the deliberate differences of spec/tables/reference-differences.json
 * with scope `rendering`, each asserted explicitly below.
 *
 * Needs the release binary: cargo build --release --manifest-path tools/reference/Cargo.toml
 */
import { describe, expect, it } from "vitest";
import { HARNESS_HOOK_MAPPING, REFERENCE_DIFFERENCES, type HookAdapter } from "../../generated/ts/spec.js";
import type { HookRenderRequest } from "../../generated/ts/types.js";
import { hookEventFor } from "../../runtime/hooks/mapping.js";
import { renderHookPayload, type HookRenderResult } from "../../runtime/hooks/render.js";
import { judgeWithReference, type ReferenceVerdict } from "../support/reference-harness.js";
import { ADAPTERS, DIRECTIVES, envelope, EVENTS, payload, PAYLOAD_SETS, request } from "./cases.js";

interface Case {
  readonly id: string;
  readonly adapter: HookAdapter;
  readonly request: HookRenderRequest;
}

interface RenderOutput {
  readonly hook_event_name: string;
  readonly body: Record<string, unknown>;
  readonly text: string;
}

async function reference(cases: readonly Case[]): Promise<ReferenceVerdict[]> {
  return judgeWithReference(
    cases.map((c) => ({ id: c.id, kind: "render", text: JSON.stringify({ adapter: c.adapter, request: c.request }) })),
    { timeoutMs: 300_000 },
  );
}

function referenceKind(v: ReferenceVerdict): string {
  expect(v.stage, `${v.id}: ${v.error}`).toBe("render");
  return (v.output as { kind: string }).kind;
}

/** The placements the reference puts in a context slot where we deliberately do not. */
function referenceOnlyPlacements(adapter: HookAdapter, c: Case): string[] {
  const event = hookEventFor(adapter, c.request.event);
  if (!event) return [];
  const ours = event.context_placements as readonly string[];
  return (event.reference_context_placements as readonly string[]).filter((p) => !ours.includes(p));
}

function allCases(): Case[] {
  const cases: Case[] = [];
  const ids: Record<HookAdapter, readonly string[]> = {
    claude: ["claude", "claude-code", "codex", "", "Claude"],
    codex: ["codex", "claude", "claude-code", " codex"],
  };
  for (const adapter of ADAPTERS) {
    for (const event of EVENTS) {
      for (const [d, directive] of Object.entries(DIRECTIVES)) {
        for (const [p, payloads] of Object.entries(PAYLOAD_SETS)) {
          cases.push({
            id: `${adapter}|${event}|${d}|${p}`,
            adapter,
            request: request(adapter, event, { payloads, directive }),
          });
        }
        for (const adapterId of ids[adapter].slice(1)) {
          cases.push({
            id: `${adapter}|${event}|${d}|id=${adapterId}`,
            adapter,
            request: request(adapter, event, { directive, adapterId }),
          });
        }
      }
      // Advisory inputs do not change the output.
      cases.push({
        id: `${adapter}|${event}|advisory`,
        adapter,
        request: {
          ...request(adapter, event, { payloads: PAYLOAD_SETS.several }),
          integration_mode: "launcher_wrapper",
          adapter_version: "",
          frame: { frame_id: "f-1", frame_class: "top_level" },
        },
      });
    }
  }
  return cases;
}

describe("hook renderer vs. the reference renderer", () => {
  it("agrees on every combination the reference supports (deliberate differences asserted)", async () => {
    const cases = allCases();
    const verdicts = await reference(cases);
    let agreed = 0;
    let refused = 0;
    let differences = 0;
    for (const [i, c] of cases.entries()) {
      const v = verdicts[i] as ReferenceVerdict;
      const ours: HookRenderResult = renderHookPayload(c.request, { adapter: c.adapter });
      if (!v.accepted) {
        expect(ours.ok, `${c.id}: reference refused (${v.error}) but we rendered`).toBe(false);
        if (!ours.ok) expect(ours.error.kind, c.id).toBe(referenceKind(v));
        refused++;
        continue;
      }
      expect(ours.ok, `${c.id}: reference rendered but we refused: ${ours.ok ? "" : ours.error.message}`).toBe(true);
      if (!ours.ok) continue;
      const out = v.output as RenderOutput;
      expect(ours.rendered.hookEventName, c.id).toBe(out.hook_event_name);
      const extra = referenceOnlyPlacements(c.adapter, c).filter((p) =>
        (c.request.payloads ?? []).some((x) => x.placement === p),
      );
      if (extra.length > 0) {
        // codex-post-compact-context: the reference writes a hookSpecificOutput Codex's closed
        // PostCompact schema does not admit; we write {} and warn for each such payload.
        expect(
          REFERENCE_DIFFERENCES.some((d) => d.scope === "rendering" && d.id === "codex-post-compact-context"),
        ).toBe(true);
        expect(out.body, c.id).toHaveProperty("hookSpecificOutput.hookEventName", out.hook_event_name);
        expect(ours.rendered.body, c.id).toEqual({});
        const warned = ours.rendered.warnings.filter(
          (w) => w.code === "payload_not_rendered" && w.message.includes("codex-post-compact-context"),
        );
        expect(warned.length, c.id).toBe((c.request.payloads ?? []).filter((x) => extra.includes(x.placement)).length);
        differences++;
        continue;
      }
      expect(ours.rendered.body, c.id).toEqual(out.body);
      expect(ours.rendered.text, c.id).toBe(out.text);
      agreed++;
    }
    // Every outcome class occurred, so the comparison was not vacuous.
    expect(agreed).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
    expect(differences).toBeGreaterThan(0);
  });

  it("claude-context-over-limit: same output plus a systemMessage above 10,000 UTF-16 code units", async () => {
    const limit = HARNESS_HOOK_MAPPING.adapters.find((a) => a.adapter === "claude")?.harness_context_limit
      ?.length as number;
    const cases: Case[] = [];
    // The envelope adds its own characters around the body: probe both sides of the limit.
    for (const size of [limit - 200, limit - 60, limit, limit + 1, limit * 3]) {
      for (const event of ["session.starting", "frame.opening"] as const) {
        const body = "é😀x".repeat(Math.ceil(size / 4)).slice(0, size);
        cases.push({
          id: `${event}|${size}`,
          adapter: "claude",
          request: request("claude", event, {
            payloads: [payload("pre_prompt_frame", envelope("big", { body }))],
            directive: { kind: "block", reason: "r" },
          }),
        });
      }
    }
    const verdicts = await reference(cases);
    let over = 0;
    for (const [i, c] of cases.entries()) {
      const out = (verdicts[i] as ReferenceVerdict).output as RenderOutput;
      const ours = renderHookPayload(c.request, { adapter: "claude" });
      if (!ours.ok) throw new Error(ours.error.message);
      const context = (out.body.hookSpecificOutput as { additionalContext: string }).additionalContext;
      if (context.length <= limit) {
        expect(ours.rendered.text, c.id).toBe(out.text);
        expect(
          ours.rendered.warnings.filter((w) => w.code === "context_over_harness_limit"),
          c.id,
        ).toEqual([]);
        continue;
      }
      over++;
      const { systemMessage, ...rest } = ours.rendered.body as Record<string, unknown>;
      expect(rest, c.id).toEqual(out.body);
      expect(systemMessage, c.id).toContain(String(context.length));
      expect(
        ours.rendered.warnings.map((w) => w.code).filter((code) => code !== "directive_ignored"),
        c.id,
      ).toEqual(["context_over_harness_limit"]);
    }
    expect(over).toBeGreaterThan(0);
    expect(over).toBeLessThan(cases.length);
  });

  it("context-hard-limit: the reference renders any size, we refuse with context_too_large", async () => {
    const max = HARNESS_HOOK_MAPPING.max_context_code_points;
    const body = "a".repeat(max);
    const c: Case = {
      id: "huge",
      adapter: "codex",
      request: request("codex", "session.started", {
        payloads: [payload("pre_prompt_frame", envelope("huge", { body }))],
      }),
    };
    const [v] = await reference([c]);
    expect(v?.accepted).toBe(true);
    expect(
      ((v?.output as RenderOutput | undefined)?.body.hookSpecificOutput as { additionalContext: string } | undefined)
        ?.additionalContext.length,
    ).toBeGreaterThan(max);
    const ours = renderHookPayload(c.request, { adapter: "codex" });
    expect(ours.ok ? "rendered" : ours.error.kind).toBe("context_too_large");
  });

  it("render-request-validation: an envelope with both body and body_ref renders body in the reference, is refused here", async () => {
    const both = { ...envelope("both", { body: "inline" }), body_ref: "blob://also" };
    const c: Case = {
      id: "both",
      adapter: "claude",
      request: request("claude", "session.starting", { payloads: [payload("pre_prompt_frame", both)] }),
    };
    const [v] = await reference([c]);
    expect(v?.accepted).toBe(true);
    expect((v?.output as RenderOutput | undefined)?.text).toContain("inline");
    const ours = renderHookPayload(c.request, { adapter: "claude" });
    expect(ours.ok).toBe(false);
    if (!ours.ok) {
      expect(ours.error.kind).toBe("invalid_request");
      expect(ours.error.issues?.[0]).toMatchObject({
        rule: "payload-body-exactly-one",
        pointer: "/payloads/0/envelope/body_ref",
      });
    }
  });
});
