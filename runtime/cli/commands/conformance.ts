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
 * fixture file cannot be read or is not a fixture. The judging is runtime/wire/fixtures.ts.
 */
import { statSync } from "node:fs";
import { listFixtures, runFixture, type FixtureRow } from "../../wire/fixtures.js";
import { EXIT, jsonLine, parseFlags, UsageError, type CliIo } from "../io.js";

/** Usage text of the conformance command. */
export const CONFORMANCE_USAGE = `usage: lifeloop-callback conformance run --root DIR [--substitute-version OLD]...
  Runs every *.json fixture under DIR and prints one JSON line per fixture.
  exit 0 all pass, 1 a fixture failed (or none found), 2 usage, 3 unreadable root or fixture`;

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
      found.problem === undefined
        ? runFixture(found.path, substitutions)
        : { path: found.path, kind: null, expect: null, actual: "unreadable", pass: false, reason: found.problem };
    io.out(jsonLine(row));
    if (row.actual === "unreadable") unreadable++;
    else if (!row.pass) failed++;
    else if (row.actual === "skipped") skipped++;
  }
  io.err(
    `conformance: ${files.length} fixtures: ${files.length - failed - unreadable - skipped} passed, ${failed} failed, ${skipped} skipped, ${unreadable} unreadable\n`,
  );
  if (unreadable > 0) return EXIT.input;
  return failed > 0 ? EXIT.validation : EXIT.ok;
}
