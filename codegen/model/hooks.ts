/**
 * Loads `schemas/hooks/` (harness hook output schemas and the render request schema) and
 * cross-checks them against spec/tables/harness-hook-mapping.json and the enums. Called by
 * loadModel (load.ts); kept apart so the wire-type loader stays untouched.
 *
 * Errors: throws {@link ModelError} naming the file, a JSON pointer and the broken expectation.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ModelError } from "./errors.js";
import { ANNOTATION_KEYWORDS, checkSchemaHeader, readJsonFile, SCHEMA_ID_BASE } from "./files.js";
import type {
  EnumType,
  HarnessHookInputs,
  HarnessHookMapping,
  HookSchema,
  JsonSchema,
  ReferenceDifference,
  WireType,
} from "./model.js";

const TABLE = "spec/tables/harness-hook-mapping.json";
const INPUTS_TABLE = "spec/tables/harness-hook-inputs.json";
/** Stem of the render request schema; every other schema under schemas/hooks/ is an output. */
export const HOOK_REQUEST_SCHEMA = "hook-render-request";
/** The `hook_event` of an `events` row whose lifecycle event the harness has no hook for. */
export const UNSUPPORTED_HOOK_EVENT = "unsupported";

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The JSON Schema character class matching one character outside `ranges` (used for block reasons). */
export function nonWhiteSpacePattern(ranges: readonly (readonly [number, number])[]): string {
  const c = (cp: number): string => String.fromCodePoint(cp);
  const parts = ranges.map(([lo, hi]) => (lo === hi ? c(lo) : hi === lo + 1 ? c(lo) + c(hi) : `${c(lo)}-${c(hi)}`));
  return `[^${parts.join("")}]`;
}

/**
 * Read and compile (strict draft 2020-12, together with the wire schemas they reference) every
 * schema under schemas/hooks/, classifying each by the mapping table.
 */
export function loadHookSchemas(
  root: string,
  mapping: HarnessHookMapping,
  enums: readonly EnumType[],
  types: readonly WireType[],
  inputTable: HarnessHookInputs,
): HookSchema[] {
  const outputs = new Map<string, { adapter: string; hookEvent: string }>();
  for (const a of mapping.adapters)
    for (const h of a.hook_events) outputs.set(h.output_schema, { adapter: a.adapter, hookEvent: h.hook_event });
  const inputs = new Map<string, { adapter: string; hookEvent: string; closed: boolean }>();
  for (const a of inputTable.adapters)
    for (const h of a.hook_events)
      inputs.set(h.input_schema, {
        adapter: a.adapter,
        hookEvent: h.hook_event,
        closed: a.unknown_input_fields === "rejected",
      });
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  for (const s of [...enums, ...types]) ajv.addSchema(s.schema);
  const files = readdirSync(join(root, "schemas", "hooks"))
    .filter((name) => name.endsWith(".schema.json"))
    .sort();
  const loaded: HookSchema[] = [];
  for (const file of files) {
    const rel = `schemas/hooks/${file}`;
    const schema = readJsonFile(root, rel) as JsonSchema;
    const kebab = file.slice(0, -".schema.json".length);
    const name = checkSchemaHeader(rel, schema, `${SCHEMA_ID_BASE}hooks/`);
    const input = inputs.get(kebab);
    // An input schema is open only where its harness adds input fields (harness-hook-inputs.json unknown_input_fields).
    const closed = input ? input.closed : true;
    if (
      schema.type !== "object" ||
      (closed ? schema.additionalProperties !== false : schema.additionalProperties !== undefined)
    ) {
      throw new ModelError(
        rel,
        "",
        closed
          ? "a hook schema is a closed object"
          : "this input schema tolerates unknown members (harness-hook-inputs.json): leave additionalProperties out",
      );
    }
    try {
      ajv.addSchema(schema);
      ajv.getSchema(String(schema.$id));
    } catch (error) {
      throw new ModelError(rel, "", `does not compile in strict mode: ${(error as Error).message}`);
    }
    const output = outputs.get(kebab) ?? input;
    if (!output && kebab !== HOOK_REQUEST_SCHEMA)
      throw new ModelError(rel, "", `no row of ${TABLE} or ${INPUTS_TABLE} names this schema`);
    loaded.push({
      name,
      file,
      kebab,
      id: String(schema.$id),
      description: String(schema.description),
      role: input ? "input" : output ? "output" : "request",
      ...(output ? { adapter: output.adapter, hookEvent: output.hookEvent } : {}),
      schema,
    });
  }
  if (!loaded.some((s) => s.role === "request"))
    throw new ModelError(
      `schemas/hooks/${HOOK_REQUEST_SCHEMA}.schema.json`,
      "",
      "the render request schema is missing",
    );
  return loaded;
}

function sameList(pointer: string, actual: readonly string[], expected: readonly string[], what: string): void {
  if (actual.length !== expected.length || actual.some((v, i) => v !== expected[i])) {
    throw new ModelError(
      TABLE,
      pointer,
      `${what} must be exactly ${JSON.stringify(expected)} (found ${JSON.stringify(actual)})`,
    );
  }
}

/** Cross-check the mapping table against the enums, the hook schemas and the CLI exit codes. */
export function checkHookMapping(
  mapping: HarnessHookMapping,
  enums: readonly EnumType[],
  hookSchemas: readonly HookSchema[],
  exitCodeNames: readonly string[],
  differences: readonly ReferenceDifference[],
): void {
  const values = (name: string): readonly string[] => enums.find((e) => e.name === name)?.values ?? [];
  const placements = values("PlacementClass");
  const differenceIds = new Set(differences.filter((d) => d.scope === "rendering").map((d) => d.id));
  const adapterNames = new Set<string>();
  const ids = new Set<string>();
  const usedSchemas = new Set<string>();
  const reasonPattern = nonWhiteSpacePattern(mapping.white_space);
  mapping.white_space.forEach(([lo, hi], i) => {
    const previous = mapping.white_space[i - 1];
    if (lo > hi || (previous !== undefined && previous[1] >= lo - 1))
      throw new ModelError(TABLE, `/white_space/${i}`, "ranges are ascending, disjoint and not adjacent");
  });
  mapping.adapters.forEach((a, ai) => {
    const base = `/adapters/${ai}`;
    if (adapterNames.has(a.adapter)) throw new ModelError(TABLE, `${base}/adapter`, "duplicate adapter");
    adapterNames.add(a.adapter);
    if (a.adapter_ids[0] !== a.adapter)
      throw new ModelError(TABLE, `${base}/adapter_ids/0`, "the first adapter id is the adapter itself");
    for (const id of a.adapter_ids) {
      if (ids.has(id)) throw new ModelError(TABLE, `${base}/adapter_ids`, `adapter id ${id} names two harnesses`);
      ids.add(id);
    }
    sameList(
      `${base}/events`,
      a.events.map((e) => e.event),
      values("LifecycleEventKind"),
      "the events of an adapter",
    );
    const hookNames = a.hook_events.map((h) => h.hook_event);
    a.events.forEach((e, ei) => {
      if (e.hook_event !== UNSUPPORTED_HOOK_EVENT && !hookNames.includes(e.hook_event)) {
        throw new ModelError(
          TABLE,
          `${base}/events/${ei}/hook_event`,
          `${e.hook_event} is neither a hook event of ${a.adapter} nor "${UNSUPPORTED_HOOK_EVENT}"`,
        );
      }
    });
    a.hook_events.forEach((h, hi) => {
      const at = `${base}/hook_events/${hi}`;
      if (hookNames.indexOf(h.hook_event) !== hi)
        throw new ModelError(TABLE, `${at}/hook_event`, "duplicate hook event");
      if (!a.events.some((e) => e.hook_event === h.hook_event))
        throw new ModelError(TABLE, at, "no lifecycle event maps to this hook event");
      for (const p of [...h.context_placements, ...h.reference_context_placements]) {
        if (!placements.includes(p)) throw new ModelError(TABLE, at, `${p} is not a PlacementClass`);
      }
      if ((h.context_slot === null) !== (h.context_placements.length === 0))
        throw new ModelError(TABLE, at, "an event has context placements exactly when it has a context slot");
      const same = [...h.context_placements].sort().join() === [...h.reference_context_placements].sort().join();
      if (!same && h.reference_difference === null)
        throw new ModelError(
          TABLE,
          `${at}/reference_difference`,
          "placements that differ from the reference name a reference difference",
        );
      if (h.reference_difference !== null && !differenceIds.has(h.reference_difference))
        throw new ModelError(TABLE, `${at}/reference_difference`, `unknown difference ${h.reference_difference}`);
      const schema = hookSchemas.find((s) => s.kebab === h.output_schema && s.role === "output");
      if (!schema)
        throw new ModelError(TABLE, `${at}/output_schema`, `no schemas/hooks/${h.output_schema}.schema.json`);
      if (usedSchemas.has(schema.kebab))
        throw new ModelError(TABLE, `${at}/output_schema`, "two hook events share an output schema");
      usedSchemas.add(schema.kebab);
      checkOutputSchema(
        schema,
        h.hook_event,
        h.context_slot !== null,
        h.block === "block_prompt" || h.block === "request_continuation",
        mapping.max_context_code_points,
        reasonPattern,
      );
    });
  });
  const request = hookSchemas.find((s) => s.role === "request") as HookSchema;
  const directiveProperty = record(record(request.schema.properties).directive);
  const directive = record(Array.isArray(directiveProperty.anyOf) ? directiveProperty.anyOf[0] : undefined);
  const kinds = (record(record(directive.properties).kind).enum ?? []) as string[];
  sameList(
    "/directives",
    mapping.directives.map((d) => d.kind),
    kinds,
    "the directive kinds (schemas/hooks/hook-render-request.schema.json)",
  );
  // The renderer implements these effects; a table may declare fewer (a frozen release older than an
  // effect, e.g. lifeloop.v0.3 before `refused`, still loads), never another one or out of order.
  const effects = mapping.block_effects.map((b) => b.block);
  const known: readonly (typeof effects)[number][] = ["block_prompt", "request_continuation", "ignored", "refused"];
  sameList(
    "/block_effects",
    effects,
    known.filter((k) => effects.includes(k)),
    `the block effects (a subsequence of ${JSON.stringify(known)})`,
  );
  if (
    mapping.adapters.some((a) => a.hook_events.some((h) => h.block === "refused")) &&
    !mapping.errors.some((e) => e.kind === "unsupported_directive")
  ) {
    throw new ModelError(
      TABLE,
      "/errors",
      "a hook event whose block is refused needs the error kind unsupported_directive",
    );
  }
  mapping.errors.forEach((e, i) => {
    if (!exitCodeNames.includes(e.exit))
      throw new ModelError(TABLE, `/errors/${i}/exit`, `${e.exit} is not a CLI exit code name`);
  });
}

function checkOutputSchema(
  schema: HookSchema,
  hookEvent: string,
  slot: boolean,
  decision: boolean,
  maxContext: number,
  reasonPattern: string,
): void {
  const rel = `schemas/hooks/${schema.file}`;
  const props = record(schema.schema.properties);
  const specific = record(props.hookSpecificOutput);
  if (slot !== "hookSpecificOutput" in props)
    throw new ModelError(
      rel,
      "/properties",
      `hookSpecificOutput is present exactly when the table gives ${hookEvent} a context slot`,
    );
  if (slot) {
    const inner = record(specific.properties);
    if (record(inner.hookEventName).const !== hookEvent)
      throw new ModelError(
        rel,
        "/properties/hookSpecificOutput/properties/hookEventName/const",
        `must be "${hookEvent}"`,
      );
    if (record(inner.additionalContext).maxLength !== maxContext)
      throw new ModelError(
        rel,
        "/properties/hookSpecificOutput/properties/additionalContext/maxLength",
        `must equal max_context_code_points (${maxContext})`,
      );
  }
  if (decision && !("decision" in props))
    throw new ModelError(
      rel,
      "/properties",
      `${hookEvent} honours a block directive, so its output admits decision and reason`,
    );
  if ("decision" in props && record(props.reason).pattern !== reasonPattern)
    throw new ModelError(
      rel,
      "/properties/reason/pattern",
      "must match one character outside the table's white_space ranges",
    );
  if (!("systemMessage" in props))
    throw new ModelError(rel, "/properties", "every output admits systemMessage (the context-limit warning)");
}

/**
 * Cross-check spec/tables/harness-hook-inputs.json against the mapping table and the input schemas:
 * every adapter and hook event exists in the mapping; each delivered event maps to that hook event;
 * `renders` is delivered; each input schema's hook_event_name is the event; every input member is
 * mapped by a `fields` row and every `fields` row names a member of some input schema (nothing
 * reaches the client unmapped, nothing is mapped from nowhere).
 */
export function checkHookInputs(
  table: HarnessHookInputs,
  mapping: HarnessHookMapping,
  hookSchemas: readonly HookSchema[],
): void {
  const mapped = new Set(table.fields.map((f) => f.input));
  const seen = new Set<string>();
  table.adapters.forEach((a, ai) => {
    const base = `/adapters/${ai}`;
    const m = mapping.adapters.find((x) => x.adapter === a.adapter);
    if (!m) throw new ModelError(INPUTS_TABLE, `${base}/adapter`, `${a.adapter} is not an adapter of ${TABLE}`);
    a.hook_events.forEach((h, hi) => {
      const at = `${base}/hook_events/${hi}`;
      if (!m.hook_events.some((x) => x.hook_event === h.hook_event))
        throw new ModelError(
          INPUTS_TABLE,
          `${at}/hook_event`,
          `${h.hook_event} is not a hook event of ${a.adapter} in ${TABLE}`,
        );
      h.delivers.forEach((event, ei) => {
        if (m.events.find((e) => e.event === event)?.hook_event !== h.hook_event)
          throw new ModelError(
            INPUTS_TABLE,
            `${at}/delivers/${ei}`,
            `${event} is not rendered as ${a.adapter} ${h.hook_event} in ${TABLE}`,
          );
      });
      if (!h.delivers.includes(h.renders))
        throw new ModelError(INPUTS_TABLE, `${at}/renders`, "must be one of the delivered events");
      const schema = hookSchemas.find((s) => s.kebab === h.input_schema && s.role === "input");
      if (!schema)
        throw new ModelError(INPUTS_TABLE, `${at}/input_schema`, `no schemas/hooks/${h.input_schema}.schema.json`);
      const props = record(schema.schema.properties);
      if (record(props.hook_event_name).const !== h.hook_event)
        throw new ModelError(
          `schemas/hooks/${schema.file}`,
          "/properties/hook_event_name/const",
          `must be "${h.hook_event}"`,
        );
      for (const name of Object.keys(props)) {
        seen.add(name);
        if (!mapped.has(name))
          throw new ModelError(
            `schemas/hooks/${schema.file}`,
            `/properties/${name}`,
            `no fields row of ${INPUTS_TABLE} maps this member`,
          );
      }
    });
  });
  table.fields.forEach((f, i) => {
    if (!seen.has(f.input))
      throw new ModelError(INPUTS_TABLE, `/fields/${i}/input`, `${f.input} is not a member of any input schema`);
  });
}
