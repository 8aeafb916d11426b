/**
 * `lifeloop-callback conformance run --root DIR [--substitute-version OLD]...`: run every fixture
 * file under DIR (recursively, in path order) in the reference's fixture format
 * `{kind, expect, expect_error?, description?, data}` and print one JSON line per fixture:
 * `{path, kind, expect, actual, pass, rule?, pointer?, expected_rule?, reason?}`.
 *
 * - kinds callback_request, callback_response, dispatch_envelope, payload_envelope and
 *   lifecycle_receipt are judged; any other kind is reported with actual "skipped" (pass true).
 * - `expect_error` (a fragment of the reference's error text) is mapped to our rule id through the
 *   spec tables' reference_messages; when it maps, the primary issue must carry that rule. Our own
 *   fixtures may say `expect_rule` directly.
 * - `--substitute-version OLD` rewrites every `schema_version` equal to OLD inside `data` to the
 *   current wire version first (for fixtures written before the current version; repeatable).
 *
 * Exit 0 when every fixture passes; 1 when one fails or there are none; 2 usage; 3 when the root or a
 * fixture file cannot be read or is not a fixture.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { WIRE_DOCUMENTS, WIRE_VERSION } from "../../../generated/ts/spec.js";
import { ruleForReferenceMessage } from "../../wire/reference-messages.js";
import { parseStrictJson } from "../../wire/strict-json.js";
import { DEFAULT_DOCUMENT_LIMITS, validateParsed } from "../../wire/validate.js";
import { EXIT, jsonLine, parseFlags, UsageError, type CliIo } from "../io.js";

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
  readonly reason?: string;
}

function listFixtures(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".json")) out.push(path);
    }
  };
  walk(root);
  return out;
}

function substituteVersions(value: unknown, from: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => substituteVersions(v, from));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = k === "schema_version" && typeof v === "string" && from.has(v) ? WIRE_VERSION : substituteVersions(v, from);
    }
    return out;
  }
  return value;
}

/** Judge one fixture file. */
export function runFixture(path: string, substitutions: ReadonlySet<string>): FixtureRow {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    return { path, kind: null, expect: null, actual: "unreadable", pass: false, reason: `cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  // The envelope adds two levels ({data: ...}) around the document.
  const parsed = parseStrictJson(bytes, { maxBytes: DEFAULT_DOCUMENT_LIMITS.maxBytes, maxDepth: DEFAULT_DOCUMENT_LIMITS.maxDepth + 1 });
  if (!parsed.ok) {
    return { path, kind: null, expect: null, actual: "unreadable", pass: false, reason: `${parsed.issue.rule}: ${parsed.issue.message}` };
  }
  const fixture = parsed.value as Record<string, unknown>;
  const kind = typeof fixture?.kind === "string" ? fixture.kind : null;
  const expect = fixture?.expect === "valid" || fixture?.expect === "invalid" ? fixture.expect : null;
  if (kind === null || expect === null || !("data" in (fixture ?? {}))) {
    return { path, kind, expect, actual: "unreadable", pass: false, reason: "not a fixture: needs kind, expect (valid|invalid) and data" };
  }
  const doc = WIRE_DOCUMENTS.find((d) => d.fixtureKind === kind);
  if (!doc) return { path, kind, expect, actual: "skipped", pass: true, reason: "not a wire-document kind" };
  const data = substitutions.size > 0 ? substituteVersions(fixture.data, substitutions) : fixture.data;
  const pointers = parsed.nonIntegerNumberPointers.filter((p) => p.startsWith("/data/")).map((p) => p.slice("/data".length));
  const issues = validateParsed(doc.typeName, data, pointers);
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
  }
  return {
    path,
    kind,
    expect,
    actual,
    pass,
    ...(primary ? { rule: primary.rule, pointer: primary.pointer } : {}),
    ...(expectedRule ? { expected_rule: expectedRule } : {}),
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
  for (const file of files) {
    const row = runFixture(file, substitutions);
    io.out(jsonLine(row));
    if (row.actual === "unreadable") unreadable++;
    else if (!row.pass) failed++;
    else if (row.actual === "skipped") skipped++;
  }
  io.err(`conformance: ${files.length} fixtures: ${files.length - failed - unreadable - skipped} passed, ${failed} failed, ${skipped} skipped, ${unreadable} unreadable\n`);
  if (unreadable > 0) return EXIT.input;
  return failed > 0 ? EXIT.validation : EXIT.ok;
}
