/**
 * The continuation group of spec/tables/client-initiated-commands.json (CONTINUATION-001), read from
 * the generated constants: identifier rule, root resolution, limits, entry format, error codes. The
 * store and the CLI take every such fact from here; none is restated in code.
 */
import { CLIENT_INITIATED_COMMANDS } from "../../generated/ts/spec/client-initiated-commands.js";

type Groups = (typeof CLIENT_INITIATED_COMMANDS)["groups"];
/** The continuation group's row, exactly as generated. */
export type ContinuationGroup = Extract<Groups[number], { readonly group: "continuation" }>;

function findGroup(): ContinuationGroup {
  const group = CLIENT_INITIATED_COMMANDS.groups.find((g) => g.group === "continuation");
  if (!group) throw new Error("spec/tables/client-initiated-commands.json has no continuation group");
  return group as ContinuationGroup;
}

/** The continuation group (spec/tables/client-initiated-commands.json). */
export const CONTINUATION = findGroup();

/** The command names, e.g. `put`, in table order. */
export type ContinuationCommandName = ContinuationGroup["commands"][number]["command"];

/** A JSON error code of the group, the reference's and ours (`extension_errors`). */
export type ContinuationErrorCode =
  | ContinuationGroup["errors"][number]["error"]
  | ContinuationGroup["extension_errors"][number]["error"];

/** Exit code of every JSON error envelope (the table gives one per error; they agree today). */
export function exitCodeOf(code: ContinuationErrorCode): number {
  const row = [...CONTINUATION.errors, ...CONTINUATION.extension_errors].find((e) => e.error === code);
  if (!row) throw new Error(`unknown continuation error code ${code}`);
  return row.exit_code;
}

/** The identifier rule: compiled once from the table's pattern. */
export const IDENTIFIER_PATTERN = new RegExp(CONTINUATION.identifier.pattern);

/** Largest blob in bytes when `max_blob_bytes_environment` is unset. */
export const DEFAULT_MAX_BLOB_BYTES = CONTINUATION.limits.max_blob_bytes;

/** Bytes a stored file may hold beyond the blob limit (framing header plus meta JSON). */
export const READ_OVERHEAD_BYTES = CONTINUATION.limits.read_overhead_bytes;

/** Default wait for a thread's lock, in ms. */
export const LOCK_TIMEOUT_MS = CONTINUATION.limits.lock_timeout_ms;

/** File and directory modes of created entries (numbers, e.g. 0o600). */
export const FILE_MODE = Number.parseInt(CONTINUATION.entry_format.file_mode, 8);
export const DIRECTORY_MODE = Number.parseInt(CONTINUATION.entry_format.directory_mode, 8);

/** Expand a name template of `entry_format` (`.{key}.tmp.{pid}-{seq}-{nanos}`) with the given values. */
export function expandName(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-z]+)\}/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`name template ${template}: no value for {${name}}`);
    return value;
  });
}

/**
 * A matcher for names made from a template: `{pid}`, `{seq}` and `{nanos}` match non-empty digit runs,
 * the other placeholders match the given literal values, or any non-empty text when not given.
 */
export function nameMatcher(template: string, values: Readonly<Record<string, string>>): RegExp {
  let source = "";
  let last = 0;
  for (const m of template.matchAll(/\{([a-z]+)\}/g)) {
    source += escapeRegExp(template.slice(last, m.index));
    const name = m[1] as string;
    source +=
      name === "pid" || name === "seq" || name === "nanos"
        ? "[0-9]+"
        : values[name] === undefined
          ? ".+"
          : escapeRegExp(values[name]);
    last = (m.index ?? 0) + m[0].length;
  }
  source += escapeRegExp(template.slice(last));
  return new RegExp(`^${source}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
