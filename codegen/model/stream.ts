/**
 * Cross-checks of spec/tables/stream-v2.json (spec/stream-protocol.md) against the facts it repeats
 * or depends on, so that no copy can drift:
 * - `reverse_methods` is exactly the derivation from spec/tables/client-initiated-commands.json
 *   (method = prefix + command; one param per flag, `--ttl-s` → `ttl_s`; a stdin blob is
 *   `blob_base64`; result = result_fields, plus `blob_base64` first when stdout is a blob);
 * - `error_codes`: codes unique; our own codes only in -32000..-32099, standard ones outside it;
 *   every failure class is a FailureClass, and each FailureClass has exactly one canonical code;
 *   every command error of every group has a row of the same name; the not_available code exists;
 * - `framing_rules`: ids unique; `frames`: each schema file exists under schemas/stream/ and
 *   compiles (strict 2020-12, with the wire schemas it references);
 * - the limits the prose names exist in spec/tables/limits.json;
 * - every dispatchable event travels as a request (the invoker has no result shape for notifications).
 *
 * Errors: throws ModelError with the file and JSON pointer at fault.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ModelError } from "./errors.js";
import { ANNOTATION_KEYWORDS } from "./files.js";
import type { EnumType, Tables } from "./model.js";

/** One member of a client-to-host method's params (mirrors a CLI flag, or the stdin blob as base64). */
export interface StreamMethodParam {
  readonly name: string;
  readonly flag: string | null;
  readonly required: boolean;
  readonly value: "identifier" | "unsigned_integer" | "base64";
}
/** One client-to-host method, derived from spec/tables/client-initiated-commands.json. */
export interface StreamReverseMethod {
  readonly method: string;
  readonly group: string;
  readonly command: string;
  readonly params: readonly StreamMethodParam[];
  readonly result: readonly string[];
}

const FILE = "spec/tables/stream-v2.json";

/** The JSON-RPC range reserved for implementation-defined server errors. */
export const OWN_ERROR_CODE_RANGE = { min: -32099, max: -32000 } as const;

/** Name of the error code answered for a reverse method without a handler. */
export const NOT_AVAILABLE_ERROR = "not_available";

/** Limits the stream binding relies on (spec/tables/limits.json). */
export const STREAM_LIMITS = [
  "max_frame_bytes",
  "max_frame_values",
  "max_client_requests_in_flight",
  "client_handler_concurrency",
  "stream_close_grace_ms",
  "stream_term_grace_ms",
  "stream_client_exit_ms",
  "stream_max_consecutive_timeouts",
  "stream_max_failed_spawns",
  "stream_respawn_cooldown_ms",
  "kill_grace_ms",
] as const;

/** Param name of a CLI flag: `--ttl-s` → `ttl_s`. */
export function paramName(flag: string): string {
  return flag.replace(/^--/, "").replace(/-/g, "_");
}

/** The client-to-host methods derived from the client-initiated commands table. */
export function deriveReverseMethods(tables: Tables): StreamReverseMethod[] {
  return tables.clientInitiatedCommands.groups.flatMap((g) =>
    g.commands.map((c): StreamReverseMethod => {
      const params: StreamMethodParam[] = c.flags.map((f) => ({
        name: paramName(f.flag),
        flag: f.flag,
        required: f.required,
        value: f.value,
      }));
      if (c.stdin === "blob") params.push({ name: "blob_base64", flag: null, required: true, value: "base64" });
      const result = c.stdout === "blob" ? ["blob_base64", ...c.result_fields] : [...c.result_fields];
      return { method: `${g.stream_v2_method_prefix}${c.command}`, group: g.group, command: c.command, params, result };
    }),
  );
}

/** Check the stream table; see the module doc. */
export function checkStreamV2(root: string, tables: Tables, enums: readonly EnumType[]): void {
  const s = tables.streamV2;
  const derived = deriveReverseMethods(tables);
  const actual = JSON.stringify(s.reverse_methods);
  const expected = JSON.stringify(derived);
  if (actual !== expected) {
    throw new ModelError(
      FILE,
      "/reverse_methods",
      `must be exactly the derivation from spec/tables/client-initiated-commands.json: ${expected}`,
    );
  }

  const classes = enums.find((e) => e.name === "FailureClass")?.values ?? [];
  const codes = new Set<number>();
  const names = new Set<string>();
  const canonical = new Map<string, number>();
  s.error_codes.forEach((row, i) => {
    const at = `/error_codes/${i}`;
    if (codes.has(row.code)) throw new ModelError(FILE, `${at}/code`, `duplicate code ${row.code}`);
    if (names.has(row.name)) throw new ModelError(FILE, `${at}/name`, `duplicate name ${row.name}`);
    codes.add(row.code);
    names.add(row.name);
    const own = row.code >= OWN_ERROR_CODE_RANGE.min && row.code <= OWN_ERROR_CODE_RANGE.max;
    if ((row.origin === "lifeloop-callback") !== own) {
      throw new ModelError(
        FILE,
        `${at}/code`,
        `codes of our own are exactly those in ${OWN_ERROR_CODE_RANGE.min}..${OWN_ERROR_CODE_RANGE.max}`,
      );
    }
    if (!classes.includes(row.failure_class))
      throw new ModelError(FILE, `${at}/failure_class`, `${row.failure_class} is not a FailureClass`);
    if (row.canonical) {
      if (canonical.has(row.failure_class))
        throw new ModelError(
          FILE,
          `${at}/canonical`,
          `${row.failure_class} already has canonical code ${canonical.get(row.failure_class)}`,
        );
      canonical.set(row.failure_class, row.code);
    }
  });
  for (const c of classes) {
    if (!canonical.has(c)) throw new ModelError(FILE, "/error_codes", `FailureClass ${c} has no canonical error code`);
  }
  if (!names.has(NOT_AVAILABLE_ERROR))
    throw new ModelError(FILE, "/error_codes", `an error code named ${NOT_AVAILABLE_ERROR} is required`);
  for (const g of tables.clientInitiatedCommands.groups) {
    for (const e of g.errors) {
      if (!names.has(e.error))
        throw new ModelError(FILE, "/error_codes", `command error ${e.error} (group ${g.group}) has no error code`);
    }
  }

  const ruleIds = new Set<string>();
  s.framing_rules.forEach((r, i) => {
    if (ruleIds.has(r.id)) throw new ModelError(FILE, `/framing_rules/${i}/id`, "duplicate rule id");
    ruleIds.add(r.id);
  });

  for (const name of STREAM_LIMITS) {
    if (!tables.limits.limits.some((l) => l.name === name))
      throw new ModelError("spec/tables/limits.json", "/limits", `the stream binding needs limit ${name}`);
  }
  if (s.ids.integer_maximum !== tables.limits.limits.find((l) => l.name === "max_safe_integer")?.value) {
    throw new ModelError(FILE, "/ids/integer_maximum", "must equal limits.max_safe_integer");
  }
  for (const [i, step] of s.shutdown.steps.entries()) {
    if (step.wait_limit !== null && !tables.limits.limits.some((l) => l.name === step.wait_limit)) {
      throw new ModelError(
        FILE,
        `/shutdown/steps/${i}/wait_limit`,
        `no limit ${step.wait_limit} in spec/tables/limits.json`,
      );
    }
  }
  tables.eventVocabulary.events.forEach((e, i) => {
    if (e.dispatchable && e.stream_v2 !== "request") {
      throw new ModelError(
        "spec/tables/event-vocabulary.json",
        `/events/${i}/stream_v2`,
        "the stream invoker sends every dispatchable event as a request (a notification would have no CallbackResponse to return); change the invoker and the spec together",
      );
    }
  });
  compileFrameSchemas(
    root,
    s.frames.map((f) => f.schema),
  );
}

/** Compile every schema under schemas/stream/ together with the wire schemas; the frames' files must be among them. */
function compileFrameSchemas(root: string, frameFiles: readonly string[]): void {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  const read = (rel: string): Record<string, unknown> =>
    JSON.parse(readFileSync(join(root, rel), "utf8")) as Record<string, unknown>;
  for (const name of readdirSync(join(root, "schemas")).filter((n) => n.endsWith(".schema.json")))
    ajv.addSchema(read(`schemas/${name}`));
  const streamFiles = readdirSync(join(root, "schemas", "stream"))
    .filter((n) => n.endsWith(".schema.json"))
    .map((n) => `schemas/stream/${n}`);
  for (const rel of streamFiles) {
    const schema = read(rel);
    if (schema.$id !== `https://lifeloop-callback.dev/${rel}`)
      throw new ModelError(rel, "/$id", `must be "https://lifeloop-callback.dev/${rel}"`);
    ajv.addSchema(schema);
  }
  for (const rel of streamFiles) {
    try {
      ajv.getSchema(`https://lifeloop-callback.dev/${rel}`);
    } catch (error) {
      throw new ModelError(rel, "", `does not compile in strict mode: ${(error as Error).message}`);
    }
  }
  frameFiles.forEach((rel, i) => {
    if (!streamFiles.includes(rel)) throw new ModelError(FILE, `/frames/${i}/schema`, `no such schema ${rel}`);
  });
}
