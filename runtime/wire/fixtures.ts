/**
 * Judging a fixture corpus in the reference's fixture format (`conformance run`,
 * runtime/cli/commands/conformance.ts says the format and the rows): find every `*.json` under a
 * root, run each through the parse + validate pipeline, and compare with what it expects.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { INTEGER_PATHS, WIRE_DOCUMENTS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { fileKind, readRegularFile } from "../process/regular-file.js";
import type { ValidationIssue } from "./issues.js";
import { defineMember } from "./own.js";
import { ruleForReferenceMessage } from "./reference-messages.js";
import { PARSE_RULES, parseStrictJson } from "./json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument, validateParsed } from "./validate.js";
import { closedWindow, type WireWindow } from "./window.js";

/**
 * Fixtures are in the reference's format and the reference reads one version: by default they are
 * judged with the window closed to current (spec/wire-window.md, "The reference is the oracle of current").
 */
const CURRENT_ONLY: WireWindow = closedWindow(WIRE_VERSION);

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
const FIXTURE_INTEGER_PATHS: readonly string[] = [
  ...new Set(WIRE_DOCUMENTS.flatMap((d) => INTEGER_PATHS[d.typeName].map((p) => `/data${p}`))),
];

/** One entry found under the root: a fixture file to judge, or a path that cannot be walked or read (a row of its own). */
export type FoundFixture = { readonly path: string; readonly problem?: string };

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
export function listFixtures(root: string): FoundFixture[] {
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
        if (name.endsWith(".json") || lstatOrNull(path)?.isSymbolicLink())
          out.push({ path, problem: `cannot stat: ${errorCode(error)}` });
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
  if (read.problem === "not_regular")
    return { ok: false, reason: `not a regular file (${read.kind}); only regular files are read` };
  if (read.problem === "too_large")
    return { ok: false, reason: `${PARSE_RULES.maxBytes}: the file is larger than the limit of ${max} bytes` };
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
      const next =
        k === "schema_version" && typeof v === "string" && from.has(v) ? WIRE_VERSION : substituteVersions(v, from);
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
    text = text.replace(
      new RegExp(`("schema_version"[ \t\r\n]*:[ \t\r\n]*)"${escaped}"`, "g"),
      (_m, head: string) => `${head}${JSON.stringify(WIRE_VERSION)}`,
    );
  }
  return new Uint8Array(Buffer.from(text, "latin1"));
}

/** Judge one fixture file. */
export function runFixture(
  path: string,
  substitutions: ReadonlySet<string>,
  window: WireWindow = CURRENT_ONLY,
): FixtureRow {
  const read = readFixtureFile(path);
  if (!read.ok) return { path, kind: null, expect: null, actual: "unreadable", pass: false, reason: read.reason };
  const bytes = read.bytes;
  // The envelope adds two levels ({data: ...}) around the document.
  const parsed = parseStrictJson(
    bytes,
    { maxBytes: DEFAULT_DOCUMENT_LIMITS.maxBytes, maxDepth: DEFAULT_DOCUMENT_LIMITS.maxDepth + 1 },
    { nonIntegerPaths: FIXTURE_INTEGER_PATHS },
  );
  if (!parsed.ok) {
    return {
      path,
      kind: null,
      expect: null,
      actual: "unreadable",
      pass: false,
      reason: `${parsed.issue.rule}: ${parsed.issue.message}`,
    };
  }
  const fixture = parsed.value as Record<string, unknown>;
  const kind = typeof fixture?.kind === "string" ? fixture.kind : null;
  const expect = fixture?.expect === "valid" || fixture?.expect === "invalid" ? fixture.expect : null;
  const hasData = fixture !== null && typeof fixture === "object" && "data" in fixture;
  const base64 = fixture?.data_base64;
  const hasBase64 = base64 !== undefined;
  if (kind === null || expect === null || hasData === hasBase64) {
    return {
      path,
      kind,
      expect,
      actual: "unreadable",
      pass: false,
      reason: "not a fixture: needs kind, expect (valid|invalid) and exactly one of data and data_base64",
    };
  }
  if (hasBase64 && (typeof base64 !== "string" || base64.length % 4 !== 0 || !BASE64.test(base64))) {
    return {
      path,
      kind,
      expect,
      actual: "unreadable",
      pass: false,
      reason: "not a fixture: data_base64 must be a padded base64 string",
    };
  }
  const expectPointer = fixture.expect_pointer;
  if (expectPointer !== undefined && typeof expectPointer !== "string") {
    return {
      path,
      kind,
      expect,
      actual: "unreadable",
      pass: false,
      reason: "not a fixture: expect_pointer must be a string",
    };
  }
  const doc = WIRE_DOCUMENTS.find((d) => d.fixtureKind === kind);
  if (!doc) return { path, kind, expect, actual: "skipped", pass: true, reason: "not a wire-document kind" };
  let issues: readonly ValidationIssue[];
  if (typeof base64 === "string") {
    const raw = new Uint8Array(Buffer.from(base64, "base64"));
    const result = parseWireDocument(
      doc.typeName,
      substitutions.size > 0 ? substituteVersionBytes(raw, substitutions) : raw,
      DEFAULT_DOCUMENT_LIMITS,
      window,
    );
    issues = result.ok ? [] : result.issues;
  } else {
    const data = substitutions.size > 0 ? substituteVersions(fixture.data, substitutions) : fixture.data;
    const pointers = parsed.nonIntegerNumberPointers
      .filter((p) => p.startsWith("/data/"))
      .map((p) => p.slice("/data".length));
    issues = validateParsed(doc.typeName, data, pointers, window);
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
  if (!pass)
    reason = `expected ${expect}, got ${actual}${primary ? ` (${primary.rule} at "${primary.pointer}": ${primary.message})` : ""}`;
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
