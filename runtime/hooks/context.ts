/**
 * The context envelope written into a harness's context slot (spec/harness-hooks.md, "Context
 * slot"): `{"payloads": [...]}` with one entry per eligible payload in input order, each
 * `{body | body_ref, payload_id, payload_kind}`, pretty-printed with two-space indentation, or the
 * literal `{}` when no payload is eligible. Bodies are carried verbatim as strings (never parsed) and
 * body_ref is passed through (never dereferenced).
 *
 * Every JSON text the renderer writes has its object members in code point order of their keys,
 * which is the order the reference renderer (serde_json maps) writes them in.
 */
import type { HookRenderPayload } from "../../generated/ts/types.js";

/** The context slot's value when no payload is eligible. */
export const EMPTY_CONTEXT = "{}";

function sortMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortMembers);
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value as Record<string, unknown>).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(keys.map((k) => [k, sortMembers((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** JSON text of `value` with members sorted by key; `indent` 0 gives the compact form. */
export function sortedJson(value: unknown, indent = 0): string {
  return JSON.stringify(sortMembers(value), null, indent);
}

/** Number of Unicode code points of a string (what JSON Schema maxLength counts). */
export function codePointLength(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return text.length - pairs;
}

/** The envelope text for the payloads whose placement is in `placements`, and which payloads went in. */
export function renderContextEnvelope(
  payloads: readonly HookRenderPayload[],
  placements: readonly string[],
): { readonly text: string; readonly rendered: ReadonlySet<HookRenderPayload> } {
  const rendered = new Set<HookRenderPayload>();
  const entries: Record<string, string>[] = [];
  for (const p of payloads) {
    if (!placements.includes(p.placement)) continue;
    const { body, body_ref: bodyRef, payload_id: payloadId, payload_kind: payloadKind } = p.envelope;
    if (typeof body === "string") entries.push({ body, payload_id: payloadId, payload_kind: payloadKind });
    else if (typeof bodyRef === "string")
      entries.push({ body_ref: bodyRef, payload_id: payloadId, payload_kind: payloadKind });
    else continue;
    rendered.add(p);
  }
  return { text: entries.length === 0 ? EMPTY_CONTEXT : sortedJson({ payloads: entries }, 2), rendered };
}
