/**
 * `lifeloop-callback validate [--all] [--wire-version V] <type> [FILE|-]`: judge one wire document,
 * by the rules of the version its `schema_version` names among the window's (spec/wire-window.md);
 * `--wire-version V` closes the window to V.
 *
 * Prints a JSON array of issues `{rule, pointer, message}` on stdout (`[]` when valid): the first
 * issue, or with `--all` every issue the layers can find (runtime/wire/all-issues.ts), at most
 * limits.max_reported_issues of them (stderr gives the total when there are more).
 * Exit 0 valid; 1 schema or rule issues; 2 usage; 3 the input is unreadable or not one JSON document
 * (any `json.*` issue: too large, too deep, BOM, invalid UTF-8, syntax, trailing data, duplicate keys).
 */
import { LIMITS } from "../../../generated/ts/spec/limits.js";
import { WIRE_DOCUMENTS } from "../../../generated/ts/spec/plans.js";
import type { ValidationIssue } from "../../wire/issues.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument } from "../../wire/validate.js";
import { closedWindow, DEFAULT_WIRE_WINDOW, type WireWindow } from "../../wire/window.js";
import { WIRE_WINDOW } from "../../../generated/ts/spec/wire-version.js";
import { EXIT, jsonLine, parseFlags, readBoundedInput, UsageError, type CliIo } from "../io.js";
import { WIRE_VERSION_FLAG, wireVersionFlag } from "../wire-version-flag.js";

/** Usage text of the validate command. */
export const VALIDATE_USAGE = `usage: lifeloop-callback validate [--all] [--wire-version V] <type> [FILE|-]
  type: ${WIRE_DOCUMENTS.map((d) => d.cliName).join(" | ")}
  Reads FILE (or standard input) and prints a JSON array of {rule, pointer, message}: the first
  issue (what every binding agrees on), or with --all every issue the layers can find
  (at most ${LIMITS.max_reported_issues}; stderr gives the total when there are more).
  The document is judged by the rules of the version it names, among ${WIRE_WINDOW.join(", ")};
  --wire-version V judges by V alone (a document of another version is refused).
  exit 0 valid, 1 invalid, 2 usage, 3 unreadable or not one JSON document`;

/** Run the validate command; returns the exit code. */
export async function runValidate(args: readonly string[], io: CliIo): Promise<number> {
  const { positionals, switches, values } = parseFlags(args, { switches: ["--all"], values: [WIRE_VERSION_FLAG] });
  const version = wireVersionFlag(values);
  const window = version === undefined ? DEFAULT_WIRE_WINDOW : closedWindow(version);
  const [typeArg, source = "-", ...extra] = positionals;
  if (!typeArg) throw new UsageError("validate needs a type");
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  const doc = WIRE_DOCUMENTS.find((d) => d.cliName === typeArg);
  if (!doc)
    throw new UsageError(
      `unknown type ${typeArg} (expected one of ${WIRE_DOCUMENTS.map((d) => d.cliName).join(", ")})`,
    );
  // A person who typed `validate <type>` alone would otherwise see a silent wait.
  if (source === "-" && (io.stdin as { isTTY?: boolean }).isTTY) {
    io.err("validate: reading the document from standard input (finish with Ctrl-D), or pass a FILE argument\n");
  }
  const read = await readBoundedInput(source, DEFAULT_DOCUMENT_LIMITS.maxBytes, io.stdin);
  if (!read.ok && !read.tooLarge) {
    io.err(`validate: ${read.message}\n`);
    return EXIT.input;
  }
  if (!read.ok) {
    const issue = { rule: "json.max-bytes", pointer: "", message: `input is larger than ${read.maxBytes} bytes` };
    io.out(jsonLine([issue]));
    io.err(`validate: ${issue.message}\n`);
    return EXIT.input;
  }
  const result = switches.has("--all")
    ? await everyIssue(doc.typeName, read.bytes, window)
    : parseWireDocument(doc.typeName, read.bytes, DEFAULT_DOCUMENT_LIMITS, window);
  if (result.ok) {
    io.out(jsonLine([]));
    return EXIT.ok;
  }
  // Without --all exactly the first issue (the layers may have found several: the rules layer
  // reports every rule it breaks); --all: bounded output (a 16 MiB document can hold a million
  // unknown members).
  const shown = result.issues.slice(0, switches.has("--all") ? LIMITS.max_reported_issues : 1);
  io.out(jsonLine(shown));
  if (shown.length < result.issues.length) {
    const why = switches.has("--all") ? "(limits.max_reported_issues)" : "(--all prints every issue)";
    io.err(
      `validate: ${result.issues.length} issues found; the first ${shown.length} ${shown.length === 1 ? "is" : "are"} printed ${why}\n`,
    );
  }
  const primary = result.issues[0];
  const notJson = primary?.rule.startsWith("json.") === true;
  io.err(
    `validate: ${doc.cliName} is ${notJson ? "not one readable JSON document" : "invalid"}: ${primary?.rule} at "${primary?.pointer}": ${primary?.message}\n`,
  );
  return notJson ? EXIT.input : EXIT.validation;
}

/**
 * Every issue of `--all` (runtime/wire/all-issues.ts). Imported only here: it compiles the schemas
 * with ajv's compiler, which a plain `validate` (one issue, the precompiled validators) never needs
 * and which costs a start about half a bare node start again (issue 30).
 */
async function everyIssue(
  typeName: (typeof WIRE_DOCUMENTS)[number]["typeName"],
  bytes: Uint8Array,
  window: WireWindow,
): Promise<{ ok: true } | { ok: false; issues: readonly ValidationIssue[] }> {
  const { allIssues } = await import("../../wire/all-issues.js");
  const issues = allIssues(typeName, bytes, window);
  return issues.length === 0 ? { ok: true } : { ok: false, issues };
}
