/**
 * Every (adapter, lifecycle event, directive) combination of the hook renderer, with the expected
 * outcome stated here independently of the mapping table (the facts of the reference renderer,
 * lifeloop-cli 0.9.0 src/protocol/{claude,codex}.rs), plus request validation and warnings.
 */
import { describe, expect, it } from "vitest";
import { HARNESS_HOOK_MAPPING } from "../../generated/ts/spec.js";
import { isBlankReason } from "../../runtime/hooks/mapping.js";
import {
  renderHookPayload,
  renderHookPayloadFromBytes,
  renderHookPayloadOrThrow,
  HookRenderError,
} from "../../runtime/hooks/render.js";
import { ADAPTERS, CORE_DIRECTIVES, DIRECTIVES, envelope, EVENTS, payload, PAYLOAD_SETS, request } from "./cases.js";

/** Expected hook event per adapter and lifecycle event; absent = unsupported. */
const HOOK_EVENT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  claude: {
    "session.starting": "SessionStart",
    "session.started": "SessionStart",
    "frame.opening": "UserPromptSubmit",
    "context.pressure_observed": "PreCompact",
    "frame.ending": "Stop",
    "frame.ended": "Stop",
    "session.ending": "SessionEnd",
    "session.ended": "SessionEnd",
  },
  codex: {
    "session.starting": "SessionStart",
    "session.started": "SessionStart",
    "frame.opening": "UserPromptSubmit",
    "context.pressure_observed": "PreCompact",
    "context.compacted": "PostCompact",
    "frame.ending": "Stop",
    "frame.ended": "Stop",
  },
};
/** Hook events with a context slot, and those that render a block directive. */
const WITH_CONTEXT = new Set(["SessionStart", "UserPromptSubmit"]);
const BLOCKS: Readonly<Record<string, ReadonlySet<string>>> = {
  claude: new Set(["UserPromptSubmit", "Stop"]),
  codex: new Set(["UserPromptSubmit", "Stop"]),
};
/** Hook events that refuse a block directive (unsupported_directive), as 0.9.0's Claude renderer does. */
const REFUSES_BLOCK: Readonly<Record<string, ReadonlySet<string>>> = {
  claude: new Set(["PreCompact", "SessionEnd"]),
  codex: new Set(),
};

describe("renderHookPayload: every (adapter, event, directive) combination", () => {
  for (const adapter of ADAPTERS) {
    for (const event of EVENTS) {
      for (const d of CORE_DIRECTIVES) {
        it(`${adapter} ${event} directive=${d}`, () => {
          const directive = DIRECTIVES[d];
          const result = renderHookPayload(request(adapter, event, { directive, payloads: PAYLOAD_SETS.pre_prompt }), {
            adapter,
          });
          const hookEvent = HOOK_EVENT[adapter]?.[event];
          if (d === "block_empty") {
            expect(result.ok ? "rendered" : result.error.kind).toBe("invalid_directive");
            return;
          }
          if (hookEvent === undefined) {
            expect(result.ok ? "rendered" : result.error.kind).toBe("unsupported_event");
            return;
          }
          if (d === "block" && REFUSES_BLOCK[adapter]?.has(hookEvent)) {
            expect(result.ok ? "rendered" : result.error.kind).toBe("unsupported_directive");
            return;
          }
          if (!result.ok) throw new Error(result.error.message);
          const { body, text, hookEventName, warnings } = result.rendered;
          expect(hookEventName).toBe(hookEvent);
          expect(JSON.parse(text)).toEqual(body);
          const blocked = d === "block" && (BLOCKS[adapter]?.has(hookEvent) ?? false);
          const expected: Record<string, unknown> = {};
          if (blocked) Object.assign(expected, { decision: "block", reason: (directive as { reason: string }).reason });
          if (WITH_CONTEXT.has(hookEvent)) {
            expected.hookSpecificOutput = {
              hookEventName: hookEvent,
              additionalContext: `{\n  "payloads": [\n    {\n      "body": "{\\"next_focus\\":[\\"finish\\"]}",\n      "payload_id": "pl-pre",\n      "payload_kind": "lifecycle.context"\n    }\n  ]\n}`,
            };
          }
          expect(body).toEqual(expected);
          expect(text).toBe(
            JSON.stringify(
              expected,
              Object.keys(expected).sort().concat(["additionalContext", "hookEventName"]).sort(),
            ),
          );
          expect(warnings.some((w) => w.code === "directive_ignored")).toBe(d === "block" && !blocked);
          expect(warnings.some((w) => w.code === "payload_not_rendered")).toBe(!WITH_CONTEXT.has(hookEvent));
        });
      }
    }
  }
});

describe("renderHookPayload: payloads, directives, refusals", () => {
  it("writes eligible payloads in input order, body verbatim, body_ref passed through, receipt_only never", () => {
    const result = renderHookPayloadOrThrow(request("claude", "session.starting", { payloads: PAYLOAD_SETS.several }), {
      adapter: "claude",
    });
    const context = JSON.parse((result.body.hookSpecificOutput as { additionalContext: string }).additionalContext) as {
      payloads: Record<string, string>[];
    };
    expect(context.payloads.map((p) => p.payload_id)).toEqual(["pl-1", "pl-3", "pl-5", "pl-6", "pl-8"]);
    expect(context.payloads[0]).toEqual({ body: '{"foo":"a"}', payload_id: "pl-1", payload_kind: "lifecycle.context" });
    expect(context.payloads[1]).toEqual({
      body_ref: "blob://dev",
      payload_id: "pl-3",
      payload_kind: "lifecycle.context",
    });
    expect(context.payloads[4]).toEqual({ body: "", payload_id: "pl-8", payload_kind: "lifecycle.context" });
    expect(result.warnings.map((w) => w.payloadId)).toEqual(["pl-4", "pl-7"]);
  });

  it("writes {} into the slot when nothing is eligible", () => {
    const result = renderHookPayloadOrThrow(
      request("codex", "frame.opening", { payloads: PAYLOAD_SETS.receipt_only }),
      { adapter: "codex" },
    );
    expect(result.text).toBe('{"hookSpecificOutput":{"additionalContext":"{}","hookEventName":"UserPromptSubmit"}}');
    expect(result.warnings).toEqual([]);
  });

  it("codex Stop + block is a continuation request", () => {
    const result = renderHookPayloadOrThrow(request("codex", "frame.ended", { directive: DIRECTIVES.block }), {
      adapter: "codex",
    });
    expect(result.text).toBe('{"decision":"block","reason":"policy requires operator review"}');
  });

  it("keeps a block reason verbatim (not trimmed) and treats only Unicode White_Space as blank", () => {
    expect(
      renderHookPayloadOrThrow(request("codex", "frame.ended", { directive: DIRECTIVES.block_padded }), {
        adapter: "codex",
      }).body.reason,
    ).toBe("  keep going \n");
    expect(
      renderHookPayloadOrThrow(request("codex", "frame.ended", { directive: DIRECTIVES.block_feff }), {
        adapter: "codex",
      }).body.reason,
    ).toBe("\ufeff");
    const blank = renderHookPayload(request("codex", "frame.ended", { directive: DIRECTIVES.block_blank }), {
      adapter: "codex",
    });
    expect(blank.ok ? "rendered" : blank.error.kind).toBe("invalid_directive");
    for (const [lo, hi] of HARNESS_HOOK_MAPPING.white_space) {
      expect(isBlankReason(String.fromCodePoint(lo) + String.fromCodePoint(hi))).toBe(true);
      if (lo > 0) expect(isBlankReason(String.fromCodePoint(lo - 1))).toBe(lo - 1 === hi);
    }
    expect(isBlankReason("\u200b")).toBe(false);
  });

  it("refuses in the reference's order: directive, then adapter id, then event", () => {
    const kind = (r: ReturnType<typeof renderHookPayload>): string => (r.ok ? "rendered" : r.error.kind);
    expect(
      kind(
        renderHookPayload(
          request("claude", "supervisor.tick", { directive: DIRECTIVES.block_empty, adapterId: "codex" }),
          { adapter: "claude" },
        ),
      ),
    ).toBe("invalid_directive");
    expect(
      kind(renderHookPayload(request("claude", "supervisor.tick", { adapterId: "codex" }), { adapter: "claude" })),
    ).toBe("adapter_id_mismatch");
    expect(
      kind(
        renderHookPayload(request("claude", "supervisor.tick", { adapterId: "claude-code" }), { adapter: "claude" }),
      ),
    ).toBe("unsupported_event");
    expect(
      kind(renderHookPayload(request("codex", "session.starting", { adapterId: "claude-code" }), { adapter: "codex" })),
    ).toBe("adapter_id_mismatch");
    expect(() => renderHookPayloadOrThrow(request("codex", "session.ended"), { adapter: "codex" })).toThrow(
      HookRenderError,
    );
  });

  it("refuses an invalid request with the issue's rule and pointer", () => {
    const cases: [unknown, string, string][] = [
      [null, "schema.type", ""],
      [{ ...request("claude", "frame.opening"), extra: 1 }, "schema.additional-properties", "/extra"],
      [{ ...request("claude", "frame.opening"), event: "frame.unknown" }, "schema.enum", "/event"],
      [{ ...request("claude", "frame.opening"), payloads: null }, "schema.type", "/payloads"],
      [{ ...request("claude", "frame.opening"), directive: { kind: "block" } }, "schema.required", "/directive/reason"],
      [
        { ...request("claude", "frame.opening"), directive: { kind: "allow", reason: "x" } },
        "schema.additional-properties",
        "/directive/reason",
      ],
      [
        { ...request("claude", "frame.opening"), frame: { frame_id: "", frame_class: "top_level" } },
        "non-empty-identifier",
        "/frame/frame_id",
      ],
      [
        request("claude", "frame.opening", {
          payloads: [payload("pre_prompt_frame", { ...envelope("x", { body: "abc" }), byte_size: 2 })],
        }),
        "payload-body-byte-size",
        "/payloads/0/envelope/body",
      ],
      [
        request("claude", "frame.opening", {
          payloads: [payload("pre_prompt_frame", { ...envelope("x", { body: "a" }), schema_version: "lifeloop.v0.2" })],
        }),
        "schema-version-current",
        "/payloads/0/envelope/schema_version",
      ],
    ];
    for (const [value, rule, pointer] of cases) {
      const result = renderHookPayload(value, { adapter: "claude" });
      expect(result.ok, JSON.stringify(value)).toBe(false);
      if (!result.ok) {
        expect(result.error.kind).toBe("invalid_request");
        expect(result.error.issues?.[0], JSON.stringify(value)).toMatchObject({ rule, pointer });
      }
    }
  });

  it("judges bytes strictly (json.* rules, integer lexemes inside envelopes)", () => {
    const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
    const first = (text: string): string | undefined => {
      const r = renderHookPayloadFromBytes(enc(text), { adapter: "codex" });
      return r.ok ? "rendered" : r.error.issues?.[0]?.rule;
    };
    const good = JSON.stringify(request("codex", "frame.opening", { payloads: PAYLOAD_SETS.pre_prompt }));
    expect(first(good)).toBe("rendered");
    expect(first(good.replace('"adapter_id":"codex"', '"adapter_id":"codex","adapter_id":"codex"'))).toBe(
      "json.duplicate-key",
    );
    expect(first(`${good} x`)).toBe("json.trailing-data");
    const size = Buffer.byteLength('{"next_focus":["finish"]}');
    expect(first(good.replace(`"byte_size":${size}`, `"byte_size":${size}.0`))).toBe("schema.type");
  });

  it("warns and adds a systemMessage when a Claude context exceeds the harness limit", () => {
    const limit = HARNESS_HOOK_MAPPING.adapters[0]?.harness_context_limit?.length as number;
    const result = renderHookPayloadOrThrow(
      request("claude", "session.started", {
        payloads: [payload("pre_prompt_frame", envelope("big", { body: "x".repeat(limit) }))],
      }),
      { adapter: "claude" },
    );
    expect(result.warnings.map((w) => w.code)).toEqual(["context_over_harness_limit"]);
    expect(result.body.systemMessage).toMatch(
      /SessionStart hook output is 10\d{3} characters long; Claude Code keeps only a short preview of context longer than 10000 characters/,
    );
    // Codex documents no such limit.
    const codex = renderHookPayloadOrThrow(
      request("codex", "session.started", {
        payloads: [payload("pre_prompt_frame", envelope("big", { body: "x".repeat(limit) }))],
      }),
      { adapter: "codex" },
    );
    expect(codex.warnings).toEqual([]);
  });
});

describe("a malformed directive is reported at the member that is wrong", () => {
  const cases: [string, unknown, string, string][] = [
    ["an unknown kind", { kind: "Block", reason: "x" }, "schema.enum", "/directive/kind"],
    ["no kind", { reason: "x" }, "schema.required", "/directive/kind"],
    ["block without a reason", { kind: "block" }, "schema.required", "/directive/reason"],
    ["allow with a reason", { kind: "allow", reason: "x" }, "schema.additional-properties", "/directive/reason"],
    ["an unknown member", { kind: "block", reason: "x", extra: 1 }, "schema.additional-properties", "/directive/extra"],
  ];
  for (const [what, directive, rule, pointer] of cases) {
    it(`${what} → ${rule} at ${pointer}`, () => {
      const result = renderHookPayload({ ...request("claude", "frame.opening"), directive }, { adapter: "claude" });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.kind).toBe("invalid_request");
        expect(result.error.issues?.[0]).toMatchObject({ rule, pointer });
      }
    });
  }
});
