/**
 * The scenarios of `lifeloop-callback conform` (spec/conformance-runner.md), generated from the spec
 * tables: the check families of spec/tables/conformance-checks.json expanded over the event
 * vocabulary, the shared DispatchEnvelope vectors (generated/vectors/) and the objects of the
 * typical envelope. Nothing here lists an event, a rule or a nesting level by hand.
 *
 * Scenarios speak one wire version (spec/wire-window.md, "Who speaks which version"; default
 * current): for an older version of the window, every document the vectors hold in the current
 * version is written in that version (each `schema_version` naming current is renamed) and judged
 * by that version's rules, so a refusal scenario is kept only when that version refuses it, under
 * the rule it refuses it with. A client answers in the request's version (spec/wire-window.md, "Who
 * speaks which version"), so answers must be in the scenarios' version, except to a request whose
 * version no reader can read (not one JSON document, no string `schema_version`, or one outside the
 * window): a client answers that in its own current version, which may be any version this build reads.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CONFORMANCE_CHECKS_TABLE,
  DOCUMENT_RULES,
  EVENT_VOCABULARY,
  RECEIPT_EMITTED_GUARD,
  RETIRED_WIRE_VERSIONS,
  RULE_PLANS,
  STREAM_V2,
  WIRE_VERSION,
} from "../../generated/ts/spec.js";
import { WIRE_WINDOW } from "../../generated/ts/window.js";
import { escapeToken } from "../wire/pointer.js";
import { parseStrictJson } from "../wire/json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument, validateValue } from "../wire/validate.js";
import { closedWindow, DEFAULT_WIRE_WINDOW, type WireWindow } from "../wire/window.js";
import { envelopeFor, type Json } from "./envelopes.js";
import { streamEventScenarios, streamSingleScenario } from "./stream-scenarios.js";
import type { CheckFamily, Scenario, ScenarioExpectation, ScenarioInput, ScenarioTransport } from "./types.js";

interface VectorIndex {
  readonly vectors: readonly {
    readonly id: string;
    readonly type: string;
    readonly expect: string;
    readonly rule?: string;
    readonly path: string;
  }[];
}

const encoder = new TextEncoder();

function readVector(vectorsDir: string, path: string): Uint8Array {
  const doc = JSON.parse(readFileSync(join(vectorsDir, path), "utf8")) as { document_base64: string };
  return new Uint8Array(Buffer.from(doc.document_base64, "base64"));
}

/** JSON pointers of every object inside `value` (the root is ""), in document order. */
function objectPointers(value: Json, pointer = ""): string[] {
  if (value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => objectPointers(item, `${pointer}/${i}`));
  return [pointer, ...Object.entries(value).flatMap(([k, v]) => objectPointers(v, `${pointer}/${escapeToken(k)}`))];
}

function objectAt(root: Json, pointer: string): { [key: string]: Json } {
  let node = root;
  for (const token of pointer.split("/").slice(1)) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    node = Array.isArray(node) ? (node[Number(key)] as Json) : ((node as { [key: string]: Json })[key] as Json);
  }
  return node as { [key: string]: Json };
}

/** `value` (a deep copy) with every `schema_version` member that names the current version renamed to `wireVersion`. */
function inVersion(value: Json, wireVersion: string): Json {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => inVersion(item, wireVersion));
  const out: { [key: string]: Json } = {};
  for (const [key, member] of Object.entries(value))
    out[key] = key === "schema_version" && member === WIRE_VERSION ? wireVersion : inVersion(member, wireVersion);
  return out;
}

/**
 * The bytes of a document with every JSON string token that is exactly the current version
 * (WIRE_VERSION as a JSON string, unescaped) replaced by `wireVersion`'s. The bytes need not be valid JSON
 * (the parse-layer vectors are not), so this works on bytes, not on a parsed value.
 */
function bytesInVersion(bytes: Uint8Array, wireVersion: string): Uint8Array {
  const from = Buffer.from(JSON.stringify(WIRE_VERSION), "utf8");
  const to = Buffer.from(JSON.stringify(wireVersion), "utf8");
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const parts: Buffer[] = [];
  let at = 0;
  for (let i = buf.indexOf(from, at); i !== -1; i = buf.indexOf(from, at)) {
    parts.push(buf.subarray(at, i), to);
    at = i + from.length;
  }
  if (parts.length === 0) return bytes;
  parts.push(buf.subarray(at));
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * An invalid DispatchEnvelope vector (`rule`: its primary rule in the current version) as a request
 * in `wireVersion`: the vector itself for current; otherwise its bytes in that version with the
 * rule that version refuses them with, or null when that version accepts them.
 */
function refusalIn(
  bytes: Uint8Array,
  rule: string,
  wireVersion: string,
  window: WireWindow,
): { readonly rule: string; readonly bytes: Uint8Array } | null {
  if (wireVersion === WIRE_VERSION) return { rule, bytes };
  const relabelled = bytesInVersion(bytes, wireVersion);
  const judged = parseWireDocument("DispatchEnvelope", relabelled, DEFAULT_DOCUMENT_LIMITS, window);
  return judged.ok ? null : { rule: (judged.issues[0] as { rule: string }).rule, bytes: relabelled };
}

/**
 * The window a client's answer to the request `bytes` is judged with: closed to the request's
 * version when a reader can read it (one JSON document whose root `schema_version` is a version of
 * this build's window: `sameAs` when it is that version, so the scenarios share one window), else
 * every version this build reads (see the module comment).
 */
function answerWindowOf(bytes: Uint8Array, sameAs: WireWindow): WireWindow {
  const parsed = parseStrictJson(bytes, DEFAULT_DOCUMENT_LIMITS);
  const root = parsed.ok ? parsed.value : null;
  const version =
    root !== null && typeof root === "object" && !Array.isArray(root)
      ? (root as { readonly schema_version?: unknown }).schema_version
      : undefined;
  if (typeof version !== "string" || !(WIRE_WINDOW as readonly string[]).includes(version)) return DEFAULT_WIRE_WINDOW;
  return version === sameAs[0] ? sameAs : closedWindow(version);
}

/**
 * A wire version outside the window of every reader this build has (spec/wire-window.md): the
 * oldest retired version that is not accepted, or a made-up one when every retired version still is.
 */
function versionOutsideWindow(): string {
  return (
    RETIRED_WIRE_VERSIONS.find((r) => !(WIRE_WINDOW as readonly string[]).includes(r.version))?.version ??
    "lifeloop.v0.0"
  );
}

/** Open maps (`metadata`, ...) accept any member: an unknown member there is no fault. */
function isOpenMap(pointer: string): boolean {
  const last = pointer.split("/").pop() ?? "";
  return (
    last === "metadata" ||
    last === "telemetry_summary" ||
    pointer.includes("/metadata/") ||
    pointer.includes("/telemetry_summary/")
  );
}

/** The member the unknown-member scenarios add (not declared by any schema). */
export const UNKNOWN_MEMBER = "conform_unknown_member";

/** Every rule id a client must enforce on a DispatchEnvelope: the parse and schema layers and the envelope's rule plan. */
export function clientRuleIds(): string[] {
  const plan = RULE_PLANS.DispatchEnvelope.map((s) => s.rule);
  return [...new Set([...DOCUMENT_RULES.map((r) => r.id), ...plan])];
}

/** Every rule id a client must enforce on a stream: the framing rules of spec/tables/stream-v2.json. */
export function clientStreamRuleIds(): string[] {
  return STREAM_V2.framing_rules.map((r) => r.id);
}

/**
 * Build every scenario for `transport` from the tables and the shared vectors under `vectorsDir`
 * (generated/vectors/ of this package), speaking `wireVersion` (a version of WIRE_WINDOW; default
 * current; see the module comment). Throws when a vector the families need is missing (the package
 * is incomplete), when the typical envelope is not valid in `wireVersion`, and the WireWindowError
 * of runtime/wire/window.ts for a version this build does not read; never for anything a client does.
 */
export function buildScenarios(
  vectorsDir: string,
  transport: "subprocess" | "stream" = "subprocess",
  wireVersion: string = WIRE_VERSION,
): Scenario[] {
  const answerWindow = closedWindow(wireVersion);
  const index = JSON.parse(readFileSync(join(vectorsDir, "index.json"), "utf8")) as VectorIndex;
  const typicalVector = index.vectors.find((v) => v.id === "dispatch-envelope/valid-typical");
  if (!typicalVector) throw new Error(`no dispatch-envelope/valid-typical vector under ${vectorsDir}`);
  const typical = inVersion(
    JSON.parse(Buffer.from(readVector(vectorsDir, typicalVector.path)).toString("utf8")) as Json,
    wireVersion,
  ) as { [key: string]: Json };
  const typicalIssue = validateValue("DispatchEnvelope", typical, answerWindow)[0];
  if (typicalIssue !== undefined)
    throw new Error(
      `the typical DispatchEnvelope (${typicalVector.path}) is not valid in ${wireVersion}: ${typicalIssue.rule} at "${typicalIssue.pointer}": ${typicalIssue.message}`,
    );
  const out: Scenario[] = [];
  for (const family of CONFORMANCE_CHECKS_TABLE.families) {
    if (!(family.transports as readonly string[]).includes(transport)) continue;
    const base = {
      family: family.id,
      level: family.level,
      transport,
      since: family.since,
      wireVersion,
      answerWindow,
    } as const;
    const add = (
      variant: string | null,
      input: Extract<ScenarioInput, { kind: "bytes" }>,
      expect: ScenarioExpectation,
      extraRules: readonly string[] = [],
    ): void => {
      const rule_ids = [...new Set([...family.rule_ids, ...extraRules])];
      out.push({
        ...base,
        id: variant === null ? family.id : `${family.id}.${variant}`,
        rule_ids,
        summary: family.summary,
        input,
        expect,
        // A request built valid is in the scenarios' version; a refused one may not be readable.
        ...(expect === "refuse" ? { answerWindow: answerWindowOf(input.bytes, answerWindow) } : {}),
      });
    };
    const bytesOf = (doc: Json): Extract<ScenarioInput, { kind: "bytes" }> => ({
      kind: "bytes",
      bytes: encoder.encode(JSON.stringify(doc)),
    });
    if (transport === "stream") {
      const parts =
        family.generator === "per_event"
          ? streamEventScenarios(family.id, typical)
          : family.generator === "single"
            ? [streamSingleScenario(family.id, typical)]
            : [];
      if (parts.length === 0)
        throw new Error(
          `conformance-checks.json: stream family ${family.id} uses generator "${family.generator}", which has no stream form`,
        );
      for (const p of parts)
        out.push({
          ...base,
          id: p.id,
          rule_ids: family.rule_ids,
          summary: family.summary,
          input: { kind: "stream", bytes: new Uint8Array(0), script: p.script, shared: p.shared === true },
          expect: p.expect,
        });
      continue;
    }
    switch (family.generator) {
      case "per_event":
        for (const row of EVENT_VOCABULARY) {
          if (row.dispatchable) add(row.event, bytesOf(envelopeFor(typical, row.event)), "answer");
        }
        break;
      case "per_rule_vector": {
        const seen = new Set<string>();
        for (const v of index.vectors) {
          if (v.type !== "DispatchEnvelope" || v.expect !== "invalid" || v.rule === undefined) continue;
          // In current a vector's rule is known before it is read; in an older version only once it is judged.
          if (wireVersion === WIRE_VERSION && seen.has(v.rule)) continue;
          const refusal = refusalIn(readVector(vectorsDir, v.path), v.rule, wireVersion, answerWindow);
          if (refusal === null || seen.has(refusal.rule)) continue;
          seen.add(refusal.rule);
          add(refusal.rule, { kind: "bytes", bytes: refusal.bytes }, "refuse", [refusal.rule]);
        }
        break;
      }
      case "per_object_level":
        for (const pointer of objectPointers(typical)) {
          if (isOpenMap(pointer)) continue;
          const doc = structuredClone(typical);
          objectAt(doc, pointer)[UNKNOWN_MEMBER] = true;
          add(pointer === "" ? "root" : pointer.slice(1).replace(/\//g, "."), bytesOf(doc), "refuse");
        }
        break;
      case "single":
        out.push(
          ...singleScenario(family, typical).map((s) => ({
            ...base,
            ...s,
            ...(s.expect === "refuse" ? { answerWindow: answerWindowOf(s.input.bytes, answerWindow) } : {}),
            rule_ids: family.rule_ids,
            summary: family.summary,
          })),
        );
        break;
    }
  }
  return out;
}

/** A valid envelope of about 1 MiB (one payload body): many pipe buffers (64 KiB on Linux), far below the limit. */
function largeEnvelope(typical: { [key: string]: Json }): Uint8Array {
  const doc = envelopeFor(typical, "session.starting");
  const body = "x".repeat(1 << 20);
  const first = (doc.payloads as { [key: string]: Json }[])[0] as { [key: string]: Json };
  first.body = body;
  first.byte_size = body.length;
  delete first.body_ref;
  doc.payloads = [first];
  return encoder.encode(JSON.stringify(doc));
}

/** The hand-shaped inputs of the `single` families, by family id. */
function singleScenario(
  family: CheckFamily,
  typical: { [key: string]: Json },
): Pick<Scenario, "id" | "input" | "expect">[] {
  const text = JSON.stringify(typical);
  const bytes = (s: string): Uint8Array => encoder.encode(s);
  switch (family.id) {
    case "refuse-empty-stdin":
      return [{ id: family.id, input: { kind: "bytes", bytes: new Uint8Array(0) }, expect: "refuse" }];
    case "refuse-truncated":
      return [
        {
          id: family.id,
          input: { kind: "bytes", bytes: bytes(text.slice(0, Math.floor(text.length / 2))) },
          expect: "refuse",
        },
      ];
    case "refuse-wrong-wire-version": {
      const doc = structuredClone(typical);
      const retired = versionOutsideWindow();
      doc.schema_version = retired;
      (doc.request as { [key: string]: Json }).schema_version = retired;
      return [{ id: family.id, input: { kind: "bytes", bytes: bytes(JSON.stringify(doc)) }, expect: "refuse" }];
    }
    case "refuse-receipt-emitted":
      return [
        {
          id: family.id,
          input: { kind: "bytes", bytes: bytes(JSON.stringify(envelopeFor(typical, RECEIPT_EMITTED_GUARD.event))) },
          expect: "refuse",
        },
      ];
    case "large-request":
      return [{ id: family.id, input: { kind: "bytes", bytes: largeEnvelope(typical) }, expect: "answer" }];
    case "slow-request":
      // 128 KiB of leading whitespace first (a write that completes only once the client reads), then
      // the document in 64-byte pieces with pauses, so the client is already reading when they come.
      return [
        {
          id: family.id,
          input: { kind: "slow", bytes: bytes(text), chunkBytes: 64, pauseMs: 2, leadingWhitespace: 128 * 1024 },
          expect: "answer",
        },
      ];
    case "sigterm":
      return [{ id: family.id, input: { kind: "sigterm", bytes: largeEnvelope(typical) }, expect: "end_on_sigterm" }];
    default:
      throw new Error(
        `conformance-checks.json: family ${family.id} uses generator "single" but the runner has no input for it`,
      );
  }
}

/** The smoke scenario of `transport`: the per-event family's scenario for smoke_event. */
export function smokeScenario(scenarios: readonly Scenario[], transport: ScenarioTransport): Scenario {
  const family = CONFORMANCE_CHECKS_TABLE.families.find(
    (f) => f.generator === "per_event" && (f.transports as readonly string[]).includes(transport),
  );
  const smoke = scenarios.find(
    (s) => s.transport === transport && s.id === `${family?.id}.${CONFORMANCE_CHECKS_TABLE.smoke_event}`,
  );
  if (!smoke) throw new Error(`no ${transport} smoke scenario for ${CONFORMANCE_CHECKS_TABLE.smoke_event}`);
  return smoke;
}

/** The wire version scenarios are built for by default (buildScenarios' `wireVersion`). */
export const SCENARIO_WIRE_VERSION = WIRE_VERSION;
