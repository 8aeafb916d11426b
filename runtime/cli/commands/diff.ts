/**
 * `lifeloop-callback diff`: the breaking-change gate between two versions of the spec
 * (runtime/diff/gate.ts; rules in spec/tables/compat-rules.json; output schema
 * spec/cli/diff-report.schema.json).
 *
 * Exit codes: 0 compatible or allowed (warnings do not fail); 1 gated (tree mode: an error-level
 * change neither allowed nor licensed by a wire version bump; --schema mode: either direction not
 * proven compatible; `summary.gated` is the same decision); 2 usage (including an explicit allowlist for another version pair);
 * 3 unreadable input (a tree without spec/ and schemas/, a bad git revision, a file that is not JSON,
 * an invalid allowlist, an unsupported $schema).
 */
import { appendFileSync } from "node:fs";
import type { DiffReport } from "../../diff/gate.js";
import { loadRuleRegistry } from "../../diff/change.js";
import { render, FORMATS, type Format } from "../../diff/format.js";
import { AllowlistError, diffSchemaFiles, diffTrees, parseAllowlist } from "../../diff/gate.js";
import type { Dialect } from "../../diff/schema/side.js";
import { loadSchemaFile } from "../../diff/schema-files.js";
import { MAX_SCHEMA_BYTES, readBounded, readTree, TreeError } from "../../diff/tree.js";
import { deeperThan, MAX_JSON_DEPTH } from "../../diff/json.js";
import { describeIoError } from "../../process/io-error.js";
import { EXIT, parseFlags, UsageError, type CliIo } from "../io.js";

/** Usage text of the diff command. */
export const DIFF_USAGE = `usage: lifeloop-callback diff --base DIR|git:REF[:PATH] --head DIR|git:REF[:PATH] [--allowlist FILE | --releases-only] [--format ${FORMATS.join("|")}]
       lifeloop-callback diff --schema OLD.json NEW.json [--draft 2020-12|draft-07] [--format ${FORMATS.join("|")}]
  Compares two project trees (each a root holding spec/ and schemas/) or two JSON Schema documents by
  acceptance sets, both directions: a change breaks senders when a document valid under the old spec
  is rejected under the new one, receivers when the reverse. Rules: spec/tables/compat-rules.json.
  --schema follows a $ref to another file by loading it from that side's folder ($id, else the folder).
  --releases-only checks only that the frozen snapshots under spec/releases/ did not change.
  --format github also sets the step outputs error_count, warning_count, info_count ($GITHUB_OUTPUT).
  exit 0 compatible or allowed, 1 gated (--schema: either direction incompatible), 2 usage, 3 unreadable input`;

function readJsonFile(path: string): unknown {
  let text: string;
  try {
    const bytes = readBounded(path, MAX_SCHEMA_BYTES);
    text = bytes.toString("utf8");
  } catch (error) {
    if (error instanceof TreeError) throw error;
    throw new TreeError(describeIoError(`read ${path}`, error));
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new TreeError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (deeperThan(value, MAX_JSON_DEPTH)) throw new TreeError(`${path} nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

/**
 * With `--format github` inside a GitHub Actions step ($GITHUB_OUTPUT set), also set the step
 * outputs `error_count`, `warning_count` and `info_count`.
 */
function writeStepOutputs(report: DiffReport, format: Format): void {
  const file = process.env.GITHUB_OUTPUT;
  if (format !== "github" || !file) return;
  const { errors, warnings, infos } = report.summary;
  try {
    appendFileSync(file, `error_count=${errors}\nwarning_count=${warnings}\ninfo_count=${infos}\n`);
  } catch (error) {
    throw new TreeError(
      `cannot write $GITHUB_OUTPUT (${file}): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** Run the diff command; returns the exit code. */
export async function runDiff(args: readonly string[], io: CliIo): Promise<number> {
  const { values, switches, positionals } = parseFlags(args, {
    values: ["--base", "--head", "--format", "--allowlist", "--draft"],
    switches: ["--schema", "--releases-only"],
  });
  const format = (values.get("--format") ?? "text") as Format;
  if (!FORMATS.includes(format))
    throw new UsageError(`unknown format ${format} (expected one of ${FORMATS.join(", ")})`);
  const registry = loadRuleRegistry();
  try {
    if (switches.has("--schema")) {
      if (
        values.has("--base") ||
        values.has("--head") ||
        values.has("--allowlist") ||
        switches.has("--releases-only")
      ) {
        throw new UsageError(
          "--schema compares two documents; --base, --head, --allowlist and --releases-only are for project trees",
        );
      }
      if (positionals.length !== 2) throw new UsageError("--schema needs OLD.json and NEW.json");
      const draft = (values.get("--draft") ?? "2020-12") as Dialect;
      if (draft !== "2020-12" && draft !== "draft-07")
        throw new UsageError(`unknown draft ${draft} (expected 2020-12 or draft-07)`);
      // Each side: the named file plus the sibling files its $refs reach, read from its own folder.
      const report = diffSchemaFiles(
        loadSchemaFile(positionals[0] as string, draft),
        loadSchemaFile(positionals[1] as string, draft),
        registry,
      );
      io.out(render(report, format));
      writeStepOutputs(report, format);
      return report.summary.gated ? EXIT.validation : EXIT.ok;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (values.has("--draft")) throw new UsageError("--draft applies to --schema");
    const baseSource = values.get("--base");
    const headSource = values.get("--head");
    if (!baseSource || !headSource) throw new UsageError("diff needs --base and --head (or --schema OLD NEW)");
    const cwd = process.cwd();
    const base = readTree(baseSource, cwd);
    const head = readTree(headSource, cwd);
    const allowlistPath = values.get("--allowlist");
    const releasesOnly = switches.has("--releases-only");
    if (releasesOnly && allowlistPath) throw new UsageError("--releases-only takes no allowlist");
    const allowlist = allowlistPath
      ? { label: allowlistPath, list: parseAllowlist(readJsonFile(allowlistPath), allowlistPath) }
      : undefined;
    let report: ReturnType<typeof diffTrees>;
    try {
      report = diffTrees(base, head, { registry, releasesOnly, ...(allowlist ? { allowlist } : {}) });
    } catch (error) {
      if (error instanceof AllowlistError && allowlist && error.message.startsWith(allowlist.label))
        throw new UsageError(error.message);
      throw error;
    }
    io.out(render(report, format));
    writeStepOutputs(report, format);
    return report.summary.gated ? EXIT.validation : EXIT.ok;
  } catch (error) {
    if (error instanceof TreeError || error instanceof AllowlistError) {
      io.err(`diff: ${error.message}\n`);
      return EXIT.input;
    }
    throw error;
  }
}
