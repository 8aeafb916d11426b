/**
 * The documents the parse benchmarks run on, built deterministically so every run (and every
 * binding) sees the same bytes:
 * - `envelope(targetBytes)`: a valid DispatchEnvelope of about `targetBytes` bytes (a full request
 *   plus payloads with ~1 KB text bodies): 2,048 gives 2,436 bytes with 2 payloads, 262,144 gives
 *   262,369 bytes with 166 payloads (the two envelopes of the parse-speed issue);
 * - `worstCaseDocuments()`: valid DispatchEnvelopes at the limits of spec/tables/limits.json
 *   (max_request_bytes, max_depth), in the shapes the reliability issue names as the worst cases for a
 *   parser: millions of tiny values, over a million keys, maximum depth, one maximum-size string.
 */
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import type { DispatchEnvelope, PayloadEnvelope } from "../../generated/ts/types.js";

function payload(i: number, body: string): PayloadEnvelope {
  return {
    schema_version: WIRE_VERSION,
    payload_id: `pay-${i}`,
    client_id: "ccd",
    payload_kind: "handover",
    format: "markdown",
    content_encoding: "utf8",
    body,
    byte_size: Buffer.byteLength(body, "utf8"),
    content_digest: `sha256:${"0".repeat(64)}`,
    acceptable_placements: [
      { placement: "pre_prompt_frame", requirement: "preferred" },
      { placement: "receipt_only", requirement: "optional" },
    ],
    idempotency_key: `idem-${i}`,
    metadata: { origin: "bench", attempt: i },
  };
}

/** A small valid DispatchEnvelope with no payloads (the request alone, frame.opening). */
function baseEnvelope(): DispatchEnvelope {
  return {
    schema_version: WIRE_VERSION,
    request: {
      schema_version: WIRE_VERSION,
      event: "frame.opening",
      event_id: "evt-3f1c2a",
      adapter_id: "codex",
      adapter_version: "0.9.1",
      integration_mode: "native_hook",
      invocation_id: "inv-77a0",
      harness_session_id: "sess-91b2",
      harness_run_id: "run-0004",
      harness_task_id: "task-12",
      frame_context: { frame_id: "frame-7", parent_frame_id: "frame-6", frame_class: "subcall" },
      capability_snapshot_ref: "caps:sha256:abcdef",
      payload_refs: [
        { payload_id: "pay-0", payload_kind: "handover", content_digest: `sha256:${"0".repeat(64)}`, byte_size: 120 },
      ],
      sequence: 42,
      idempotency_key: "idem-request-42",
      metadata: { trace_id: "4bf92f3577b34da6a3ce929d0e0e4736", tags: ["bench", "dispatch"] },
    },
    payloads: [],
  };
}

/** A valid DispatchEnvelope of about `targetBytes` bytes (UTF-8): a full request plus payloads with ~1 KB bodies. */
export function envelope(targetBytes: number): Uint8Array {
  const doc = baseEnvelope();
  const sentence = "The quick brown fox jumps over the lazy dog; naïve café, 東京, emoji 😀. ";
  let i = 0;
  let bytes = new TextEncoder().encode(JSON.stringify(doc));
  while (bytes.length < targetBytes) {
    const room = targetBytes - bytes.length;
    const body = sentence.repeat(Math.max(1, Math.min(14, Math.floor((room - 600) / 80))));
    doc.payloads?.push(payload(i++, body));
    bytes = new TextEncoder().encode(JSON.stringify(doc));
    if (room < 700) break;
  }
  return bytes;
}

/** One worst-case document: a short name, what it is, and its bytes. */
export interface WorstCaseDocument {
  readonly name: string;
  readonly description: string;
  readonly bytes: Uint8Array;
}

function limit(name: keyof typeof LIMITS): number {
  return LIMITS[name];
}

/**
 * Splice `fill` (a JSON text) into the base envelope as the value of request.metadata.a and return the
 * UTF-8 bytes; `fill` is produced by the caller so the document stays just under max_request_bytes.
 */
function withMetadataValue(fill: (room: number) => string): Uint8Array {
  const doc = baseEnvelope();
  const marker = '"__FILL__"';
  doc.request.metadata = { a: "__FILL__" };
  const text = JSON.stringify(doc);
  const room = limit("max_request_bytes") - Buffer.byteLength(text, "utf8") + marker.length;
  return new TextEncoder().encode(text.replace(marker, fill(room)));
}

/** Repeat `item` joined by commas inside `open`/`close` so the result is at most `room` bytes (ASCII items). */
function repeated(open: string, item: (i: number) => string, close: string, room: number): string {
  const parts: string[] = [];
  let size = open.length + close.length;
  for (let i = 0; ; i++) {
    const next = item(i);
    const cost = next.length + (i > 0 ? 1 : 0);
    if (size + cost > room) break;
    parts.push(next);
    size += cost;
  }
  return `${open}${parts.join(",")}${close}`;
}

/**
 * Valid DispatchEnvelopes of just under max_request_bytes (16 MiB), each one worst case for a strict
 * parser: `tiny-values` (an array of about 5.6 million empty objects), `many-keys` (one object with
 * about 1.3 million members), `max-depth` (arrays nested to max_depth, repeated to fill the size) and
 * `max-string` (one payload whose body is a single ~16 MB string, with a matching byte_size).
 */
export function worstCaseDocuments(): WorstCaseDocument[] {
  const maxDepth = limit("max_depth");
  // The array that is request.metadata.a is level 4 (root, request, metadata are 1 to 3); each nest
  // inside it adds one level per "[", so the deepest "[" is exactly at max_depth.
  const nestLevels = maxDepth - 4;
  const nest = `${"[".repeat(nestLevels)}${"]".repeat(nestLevels)}`;
  const stringDoc = baseEnvelope();
  const body = "x".repeat(limit("max_request_bytes") - 2048);
  stringDoc.payloads = [payload(0, body)];
  return [
    {
      name: "tiny-values",
      description: "metadata.a = [{},{},...] (millions of empty objects)",
      bytes: withMetadataValue((room) => repeated("[", () => "{}", "]", room)),
    },
    {
      name: "many-keys",
      description: 'metadata.a = {"k0":0,"k1":0,...} (over a million members)',
      bytes: withMetadataValue((room) => repeated("{", (i) => `"k${i}":0`, "}", room)),
    },
    {
      name: "max-depth",
      description: `metadata.a = [[...]] nests at max_depth (${maxDepth}), repeated`,
      bytes: withMetadataValue((room) => repeated("[", () => nest, "]", room)),
    },
    {
      name: "max-string",
      description: "one payload body of a single ~16 MB string",
      bytes: new TextEncoder().encode(JSON.stringify(stringDoc)),
    },
  ];
}
