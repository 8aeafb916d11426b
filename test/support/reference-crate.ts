/**
 * The reference crate's source tree (lifeloop-cli at spec/wire-version.json's `reference` version,
 * 0.9.0; MIT licensed), as cargo unpacked it under `$CARGO_HOME/registry/src/<index>/lifeloop-cli-<version>/`
 * when tools/setup/prepare.sh built the harness and installed the reference CLI, and the live harness
 * recordings it ships (read at test time, never copied):
 * - `tests/fixtures/live_codex/codex_cli_<version>/*.json` of kind `codex_live_hook_evidence`:
 *   a real Codex hook input, the lifecycle events it stands for, the output Codex accepted;
 * - `tests/fixtures/live/claude/<HookEvent>/<n>.json`: Claude Code hook inputs generated from the
 *   harness's documented protocol (not recordings); since 0.9.0 the Stop input carries
 *   `last_assistant_message`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { REFERENCE_IMPLEMENTATION } from "../../generated/ts/spec.js";

/** The unpacked crate's folder name: `lifeloop-cli-<version>`. */
const CRATE_FOLDER = `${REFERENCE_IMPLEMENTATION.crate}-${REFERENCE_IMPLEMENTATION.version}`;

/** The crate's directory; throws, saying how to get it, when cargo has not unpacked it. */
export function referenceCrateDir(): string {
  const src = join(process.env.CARGO_HOME ?? join(homedir(), ".cargo"), "registry", "src");
  const found = existsSync(src)
    ? readdirSync(src)
        .map((index) => join(src, index, CRATE_FOLDER))
        .find((dir) => existsSync(join(dir, "Cargo.toml")))
    : undefined;
  if (!found)
    throw new Error(
      `the ${CRATE_FOLDER} sources are not under ${src}: run \`bash tools/setup/prepare.sh\` (it builds tools/reference, which unpacks them)`,
    );
  return found;
}

/** One recorded Codex hook call. */
export interface CodexRecording {
  /** e.g. `codex_cli_0_129_0/stop_block_continuation.json`. */
  readonly name: string;
  readonly hookEvent: string;
  readonly lifeloopEvents: readonly string[];
  readonly input: Record<string, unknown>;
  readonly output: Record<string, unknown>;
}

/** Every recorded Codex hook call, in name order. */
export function codexRecordings(): CodexRecording[] {
  const root = join(referenceCrateDir(), "tests", "fixtures", "live_codex");
  const out: CodexRecording[] = [];
  for (const version of readdirSync(root).sort()) {
    for (const file of readdirSync(join(root, version))
      .filter((f) => f.endsWith(".json"))
      .sort()) {
      const doc = JSON.parse(readFileSync(join(root, version, file), "utf8")) as Record<string, unknown>;
      if (doc.kind !== "codex_live_hook_evidence") continue;
      out.push({
        name: `${version}/${file}`,
        hookEvent: doc.hook_event_name as string,
        lifeloopEvents: doc.lifeloop_events as string[],
        input: doc.input as Record<string, unknown>,
        output: doc.output as Record<string, unknown>,
      });
    }
  }
  return out;
}

/** One generated Claude Code hook input. */
export interface ClaudeInput {
  /** e.g. `Stop/0.json`. */
  readonly name: string;
  readonly hookEvent: string;
  readonly input: Record<string, unknown>;
}

/** Every Claude Code hook input, in name order. */
export function claudeInputs(): ClaudeInput[] {
  const root = join(referenceCrateDir(), "tests", "fixtures", "live", "claude");
  const out: ClaudeInput[] = [];
  for (const event of readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    for (const file of readdirSync(join(root, event))
      .filter((f) => f.endsWith(".json"))
      .sort()) {
      out.push({
        name: `${event}/${file}`,
        hookEvent: event,
        input: JSON.parse(readFileSync(join(root, event, file), "utf8")) as Record<string, unknown>,
      });
    }
  }
  return out;
}
