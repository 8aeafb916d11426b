/**
 * `lifeloop-callback render --adapter claude|codex [FILE|-]`: read a render request
 * (schemas/hooks/hook-render-request.schema.json) and print the harness hook output on stdout
 * (spec/harness-hooks.md, "Command line").
 *
 * stdout carries the hook JSON and nothing else, and only on exit 0; warnings and refusals go to
 * stderr. Exit codes (spec/tables/cli-exit-codes.json, by the error kind's `exit` in
 * spec/tables/harness-hook-mapping.json): 0 rendered; 1 invalid request, invalid directive, adapter
 * id mismatch, context too large; 2 usage; 3 unreadable or not one JSON document; 4 the harness has
 * no hook event for the lifecycle event (nothing on stdout, so a hook wrapper can skip; the reason on stderr).
 */
import { HARNESS_HOOK_MAPPING } from "../../../generated/ts/spec.js";
import { HOOK_ADAPTERS, isHookAdapter } from "../../hooks/mapping.js";
import { renderHookPayloadFromBytes } from "../../hooks/render.js";
import { DEFAULT_DOCUMENT_LIMITS } from "../../wire/validate.js";
import { EXIT, jsonLine, parseFlags, readCommandInput, UsageError, type CliIo } from "../io.js";

/** Usage text of the render command. */
export const RENDER_USAGE = `usage: lifeloop-callback render --adapter ${HOOK_ADAPTERS.join("|")} [FILE|-]
  Reads a hook render request (schemas/hooks/hook-render-request.schema.json) from FILE or standard
  input and prints the harness hook output JSON on stdout; warnings and errors go to standard error.
  exit 0 rendered, 1 invalid request or directive, 2 usage, 3 unreadable or not one JSON document,
  4 unsupported event (nothing on stdout; the reason on stderr)`;

/** Run the render command; returns the exit code. */
export async function runRender(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(args, { values: ["--adapter"] });
  const adapter = values.get("--adapter");
  if (adapter === undefined) throw new UsageError("render needs --adapter");
  if (!isHookAdapter(adapter))
    throw new UsageError(`unknown adapter ${adapter} (expected one of ${HOOK_ADAPTERS.join(", ")})`);
  const [source = "-", ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  const bytes = await readCommandInput("render", source, DEFAULT_DOCUMENT_LIMITS.maxBytes, io);
  if (bytes === null) return EXIT.input;
  const result = renderHookPayloadFromBytes(bytes, { adapter });
  if (result.ok) {
    io.out(`${result.rendered.text}\n`);
    for (const w of result.rendered.warnings) io.err(`render: warning: ${w.code}: ${w.message}\n`);
    return EXIT.ok;
  }
  const { kind, message, issues } = result.error;
  if (kind === "invalid_request" && issues?.[0]?.rule.startsWith("json.")) {
    io.err(`render: not one readable JSON document: ${message}\n`);
    return EXIT.input;
  }
  const exit = EXIT[HARNESS_HOOK_MAPPING.errors.find((e) => e.kind === kind)?.exit ?? "validation"];
  // stdout stays empty on exit 4 so a hook wrapper can skip; stderr still says why, for a person.
  if (exit === EXIT.unsupported) io.err(`render: unsupported: ${message}\n`);
  else io.err(`render: ${kind}: ${message}\n${issues ? jsonLine(issues) : ""}`);
  return exit;
}
