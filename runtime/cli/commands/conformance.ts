/**
 * `lifeloop-callback conformance run --root DIR [--substitute-version OLD]...`: run every fixture
 * file under DIR (recursively, in path order) in the reference's fixture format
 * `{kind, expect, expect_error?, expect_rule?, expect_pointer?, description?, data | data_base64}` and
 * print one JSON line per fixture:
 * `{path, kind, expect, actual, pass, rule?, pointer?, expected_rule?, expected_pointer?, reason?}`.
 *
 * - kinds callback_request, callback_response, dispatch_envelope, payload_envelope and
 *   lifecycle_receipt are judged; any other kind is reported with actual "skipped" (pass true).
 * - `expect_error` (a fragment of the reference's error text) is mapped to our rule id through the
 *   spec tables' reference_messages; when it maps, the primary issue must carry that rule. Our own
 *   fixtures may say `expect_rule` directly.
 * - Our own fixtures may carry the document as `data_base64` (its exact bytes, base64) instead of
 *   `data`, for documents whose bytes matter (BOM, invalid UTF-8, duplicate keys, number lexemes); those
 *   bytes go through the whole parse + validate pipeline. `expect_pointer`, when given, must equal the
 *   primary issue's JSON pointer.
 * - `--substitute-version OLD` rewrites every `schema_version` equal to OLD inside `data` (or, for
 *   `data_base64`, every `"schema_version": "OLD"` member in the bytes) to the current wire version
 *   first (for fixtures written before the current version; repeatable).
 *
 * Exit 0 when every fixture passes; 1 when one fails or there are none; 2 usage; 3 when the root or a
 * fixture file cannot be read or is not a fixture.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { INTEGER_PATHS, WIRE_DOCUMENTS, WIRE_VERSION } from "../../../generated/ts/spec.js";
import { defineMember } from "../../wire/own.js";
import { ruleForReferenceMessage } from "../../wire/reference-messages.js";
import { PARSE_RULES, parseStrictJson } from "../../wire/json/parse.js";
import type { ValidationIssue } from "../../wire/issues.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument, validateParsed } from "../../wire/validate.js";
import { EXIT, jsonLine, parseFlags, UsageError, type CliIo } from "../io.js";
import { fileKind, readRegularFile } from "../regular-file.js";

/** Usage text of the conformance command. */
export const CONFORMANCE_USAGE = `usage: lifeloop-callback conformance run --root DIR [--substitute-version OLD]...
  Runs every *.json fixture under DIR and prints one JSON line per fixture.
  exit 0 all pass, 1 a fixture failed (or none found), 2 usage, 3 unreadable root or fixture`;

/** One output row. */
export interface FixtureRow {
  readonly path: string;
  readonly kind: string | null;
  readonly expect: string | null;
  readonly actual: "valid" | "invalid" | "skipped" | "unreadable";
  readonly pass: boolean;
  readonly rule?: string;
  readonly pointer?: string;
  readonly expected_rule?: string;
  readonly expected_pointer?: string;
  readonly reason?: string;
}

/** Integer fields of every wire document type, below a fixture's `data` member. */
const FIXTURE_INTEGER_PATHS: readonly string[] = [...new Set(WIRE_DOCUMENTS.flatMap((d) => INTEGER_PATHS[d.typeName].map((p) => `/data${p}`)))];

/** One entry found under the root: a fixture file to judge, or a path that cannot be walked or read (a row of its own). */
type FoundFixture = { readonly path: string; readonly problem?: string };

/** `ENOENT` → "ENOENT" (the errno code), else the message. */
function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String((error as Error).message ?? error);
}

/**
 * Every `*.json` under `root`, in path order, never blocking and never throwing: symlinks are
 * followed (each directory is walked once, by its real path, so a symlink cycle ends), and a
 * dangling symlink, a symlink loop, a non-regular file (FIFO, socket, device) or a directory that
 * cannot be read becomes an entry with a `problem` (reported as an `unreadable` row, exit 3).
 */
function listFixtures(root: string): FoundFixture[] {
  const out: FoundFixture[] = [];
  const seen = new Set<string>();
  const walk = (dir: string): void => {
    let names: string[];
    try {
      const real = realpathSync(dir);
      if (seen.has(real)) return;
      seen.add(real);
      names = readdirSync(dir).sort();
    } catch (error) {
      out.push({ path: dir, problem: `cannot read the directory: ${errorCode(error)}` });
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      let stats: Stats;
      try {
        stats = statSync(path);
      } catch (error) {
        // A dangling symlink (ENOENT), a symlink loop (ELOOP), a name that vanished.
        if (name.endsWith(".json") || lstatOrNull(path)?.isSymbolicLink()) out.push({ path, problem: `cannot stat: ${errorCode(error)}` });
        continue;
      }
      if (stats.isDirectory()) walk(path);
      else if (!name.endsWith(".json")) continue;
      else if (stats.isFile()) out.push({ path });
      else out.push({ path, problem: `not a regular file (${fileKind(stats)}); only regular files are read` });
    }
  };
  walk(root);
  return out;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}


/**
 * The bytes of a regular file, read without ever blocking (regular-file.ts: a FIFO swapped in
 * after the walk opens at once instead of waiting for a writer) and never past the document limit
 * plus one byte (a 2 GB fixture is refused without being read), or why not.
 */
function readFixtureFile(path: string): { ok: true; bytes: Uint8Array } | { ok: false; reason: string } {
  const max = DEFAULT_DOCUMENT_LIMITS.maxBytes;
  const read = readRegularFile(path, max);
  if (read.ok) return read;
  if (read.problem === "not_regular") return { ok: false, reason: `not a regular file (${read.kind}); only regular files are read` };
  if (read.problem === "too_large") return { ok: false, reason: `${PARSE_RULES.maxBytes}: the file is larger than the limit of ${max} bytes` };
  return { ok: false, reason: `cannot read: ${errorCode(read.error)}` };
}

/**
 * A copy of a parsed document with every `schema_version` member equal to one of `from` set to the
 * current wire version. Members are defined as own data properties (`out[k] = v` would turn a
 * `"__proto__"` member into a prototype change and drop it), so the copy has the same members in
 * the same order and a rule's pointer does not move.
 */
function substituteVersions(value: unknown, from: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => substituteVersions(v, from));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const next = k === "schema_version" && typeof v === "string" && from.has(v) ? WIRE_VERSION : substituteVersions(v, from);
      defineMember(out, k, next);
    }
    return out;
  }
  return value;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Rewrite `"schema_version": "OLD"` members in raw document bytes (latin1 round trip keeps every byte). */
function substituteVersionBytes(bytes: Uint8Array, from: ReadonlySet<string>): Uint8Array {
  let text = Buffer.from(bytes).toString("latin1");
  for (const old of from) {
    const escaped = old.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    text = text.replace(new RegExp(`("schema_version"[ \t\r\n]*:[ \t\r\n]*)"${escaped}"`, "g"), (_m, head: string) => `${head}${JSON.stringify(WIRE_VERSION)}`);
  }
  return new Uint8Array(Buffer.from(text, "latin1"));
}

/** Judge one fixture file. */
export function runFixture(path: string, substitutions: ReadonlySet<string>): FixtureRow {
  const read = readFixtureFile(path);
  if (!read.ok) return { path, kind: null, expect: null, actual: "unreadable", pass: false, reason: read.reason };
  const bytes = read.bytes;
  // The envelope adds two levels ({data: ...}) around the document.
  const parsed = parseStrictJson(bytes, { maxBytes: DEFAULT_DOCUMENT_LIMITS.maxBytes, maxDepth: DEFAULT_DOCUMENT_LIMITS.maxDepth + 1 }, { nonIntegerPaths: FIXTURE_INTEGER_PATHS });
  if (!parsed.ok) {
    return { path, kind: null, expect: null, actual: "unreadable", pass: false, reason: `${parsed.issue.rule}: ${parsed.issue.message}` };
  }
  const fixture = parsed.value as Record<string, unknown>;
  const kind = typeof fixture?.kind === "string" ? fixture.kind : null;
  const expect = fixture?.expect === "valid" || fixture?.expect === "invalid" ? fixture.expect : null;
  const hasData = fixture !== null && typeof fixture === "object" && "data" in fixture;
  const base64 = fixture?.data_base64;
  const hasBase64 = base64 !== undefined;
  if (kind === null || expect === null || hasData === hasBase64) {
    return { path, kind, expect, actual: "unreadable", pass: false, reason: "not a fixture: needs kind, expect (valid|invalid) and exactly one of data and data_base64" };
  }
  if (hasBase64 && (typeof base64 !== "string" || base64.length % 4 !== 0 || !BASE64.test(base64))) {
    return { path, kind, expect, actual: "unreadable", pass: false, reason: "not a fixture: data_base64 must be a padded base64 string" };
  }
  const expectPointer = fixture.expect_pointer;
  if (expectPointer !== undefined && typeof expectPointer !== "string") {
    return { path, kind, expect, actual: "unreadable", pass: false, reason: "not a fixture: expect_pointer must be a string" };
  }
  const doc = WIRE_DOCUMENTS.find((d) => d.fixtureKind === kind);
  if (!doc) return { path, kind, expect, actual: "skipped", pass: true, reason: "not a wire-document kind" };
  let issues: readonly ValidationIssue[];
  if (typeof base64 === "string") {
    const raw = new Uint8Array(Buffer.from(base64, "base64"));
    const result = parseWireDocument(doc.typeName, substitutions.size > 0 ? substituteVersionBytes(raw, substitutions) : raw);
    issues = result.ok ? [] : result.issues;
  } else {
    const data = substitutions.size > 0 ? substituteVersions(fixture.data, substitutions) : fixture.data;
    const pointers = parsed.nonIntegerNumberPointers.filter((p) => p.startsWith("/data/")).map((p) => p.slice("/data".length));
    issues = validateParsed(doc.typeName, data, pointers);
  }
  const actual = issues.length === 0 ? "valid" : "invalid";
  const primary = issues[0];
  const expectedRule =
    typeof fixture.expect_rule === "string"
      ? fixture.expect_rule
      : typeof fixture.expect_error === "string"
        ? ruleForReferenceMessage(fixture.expect_error)
        : null;
  let pass = actual === expect;
  let reason: string | undefined;
  if (!pass) reason = `expected ${expect}, got ${actual}${primary ? ` (${primary.rule} at "${primary.pointer}": ${primary.message})` : ""}`;
  else if (expect === "invalid" && expectedRule && primary?.rule !== expectedRule) {
    pass = false;
    reason = `invalid for the wrong reason: expected rule ${expectedRule}, got ${primary?.rule} at "${primary?.pointer}"`;
  } else if (expect === "invalid" && typeof expectPointer === "string" && primary?.pointer !== expectPointer) {
    pass = false;
    reason = `invalid at the wrong place: expected pointer "${expectPointer}", got ${primary?.rule} at "${primary?.pointer}"`;
  }
  return {
    path,
    kind,
    expect,
    actual,
    pass,
    ...(primary ? { rule: primary.rule, pointer: primary.pointer } : {}),
    ...(expectedRule ? { expected_rule: expectedRule } : {}),
    ...(typeof expectPointer === "string" ? { expected_pointer: expectPointer } : {}),
    ...(reason ? { reason } : {}),
  };
}

/** Run the conformance command; returns the exit code. */
export async function runConformance(args: readonly string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action !== "run") throw new UsageError("conformance needs the subcommand run");
  const { values, lists, positionals } = parseFlags(rest, { values: ["--root"], repeatable: ["--substitute-version"] });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const root = values.get("--root");
  if (!root) throw new UsageError("conformance run needs --root DIR");
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    io.err(`conformance: root ${root} is not a readable directory\n`);
    return EXIT.input;
  }
  const files = listFixtures(root);
  if (files.length === 0) {
    io.err(`conformance: no *.json fixtures under ${root}\n`);
    return EXIT.validation;
  }
  const substitutions = new Set(lists.get("--substitute-version") ?? []);
  let failed = 0;
  let unreadable = 0;
  let skipped = 0;
  for (const found of files) {
    const row: FixtureRow =
      found.problem === undefined ? runFixture(found.path, substitutions) : { path: found.path, kind: null, expect: null, actual: "unreadable", pass: false, reason: found.problem };
    io.out(jsonLine(row));
    if (row.actual === "unreadable") unreadable++;
    else if (!row.pass) failed++;
    else if (row.actual === "skipped") skipped++;
  }
  io.err(`conformance: ${files.length} fixtures: ${files.length - failed - unreadable - skipped} passed, ${failed} failed, ${skipped} skipped, ${unreadable} unreadable\n`);
  if (unreadable > 0) return EXIT.input;
  return failed > 0 ? EXIT.validation : EXIT.ok;
}
