/**
 * Shared by the `hook` command suites: a scratch directory per case (the client's log, its scripted
 * answers, the state directory, the receipts file) and one hook call run in this process through
 * runHookCommand with a real SubprocessInvoker, so every delivery is a real client process
 * (test/fixtures/client-lang-neutral/node/hook-client.mjs).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WIRE_VERSION, type HookAdapter } from "../../../generated/ts/spec.js";
import type {
  CallbackRequest,
  LifecycleReceipt,
  PayloadEnvelope,
  PlacementClass,
} from "../../../generated/ts/types.js";
import { runHookCommand, type HookCommandOutcome, type OnFailure } from "../../../runtime/hooks/command/run.js";
import { SubprocessInvoker } from "../../../runtime/invoker/subprocess.js";
import { FIXTURE_CLIENTS_DIR } from "../../support/fixture-clients.js";
import { claudeInputs, codexRecordings } from "../../support/reference-crate.js";

/** The scripted fixture client. */
export const HOOK_CLIENT = join(FIXTURE_CLIENTS_DIR, "node", "hook-client.mjs");

/** A scratch directory for one or more hook calls of one harness session. */
export class Scratch {
  readonly dir = mkdtempSync(join(tmpdir(), "lifeloop-hook-"));
  readonly log = join(this.dir, "delivered.jsonl");
  readonly answerFile = join(this.dir, "answer.json");
  readonly stateDir = join(this.dir, "state");
  readonly receipts = join(this.dir, "receipts.jsonl");

  /** Script the client's answers: event (or "*") -> members merged over a delivered response. */
  answer(answers: Readonly<Record<string, unknown>>): this {
    writeFileSync(this.answerFile, JSON.stringify(answers));
    return this;
  }

  /** The requests the client received, in order (read from its log). */
  delivered(): CallbackRequest[] {
    if (!existsSync(this.log)) return [];
    return readFileSync(this.log, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { request: CallbackRequest }).request);
  }

  /** The receipts written so far. */
  receiptLines(): LifecycleReceipt[] {
    if (!existsSync(this.receipts)) return [];
    return readFileSync(this.receipts, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LifecycleReceipt);
  }

  /** Forget what the client received (keep the state). */
  clearLog(): void {
    rmSync(this.log, { force: true });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** One hook call's options. */
export interface CallOptions {
  readonly adapter: HookAdapter;
  readonly hookEvent: string;
  /** The harness input: an object (sent as its JSON text) or raw bytes. */
  readonly input: Record<string, unknown> | Uint8Array;
  readonly onFailure?: OnFailure;
  readonly timeoutMs?: number;
  /** Another state directory (default: the scratch's). */
  readonly stateDir?: string;
  /** Another receipts file, or null for none (default: the scratch's). */
  readonly receipts?: string | null;
  /** Another client program and its arguments (default: the scratch's scripted client). */
  readonly program?: { readonly path: string; readonly args: readonly string[] };
}

/** Run one hook call on `scratch`. */
export async function callHook(scratch: Scratch, o: CallOptions): Promise<HookCommandOutcome> {
  if (!existsSync(scratch.answerFile)) scratch.answer({});
  const program = o.program ?? { path: HOOK_CLIENT, args: ["--log", scratch.log, "--answer", scratch.answerFile] };
  const invoker = new SubprocessInvoker({
    program: program.path,
    args: program.args,
    timeoutMs: o.timeoutMs ?? 10_000,
  });
  const bytes = o.input instanceof Uint8Array ? o.input : Buffer.from(JSON.stringify(o.input));
  return runHookCommand(
    {
      adapter: o.adapter,
      hookEvent: o.hookEvent,
      invoker,
      clientId: "hook-client.mjs",
      onFailure: o.onFailure ?? "open",
      receiptsFile: o.receipts === undefined ? scratch.receipts : o.receipts,
      stateDir: o.stateDir ?? scratch.stateDir,
    },
    bytes,
  );
}

/** The printed output as a value (stdout is one JSON line). */
export function printed(outcome: HookCommandOutcome): Record<string, unknown> {
  if (!outcome.stdout.endsWith("\n")) throw new Error(`stdout is not one line: ${JSON.stringify(outcome.stdout)}`);
  return JSON.parse(outcome.stdout) as Record<string, unknown>;
}

/** A valid PayloadEnvelope with an inline body, acceptable at `placement`. */
export function contextPayload(
  id: string,
  body: string,
  placement: PlacementClass = "developer_equivalent_frame",
): PayloadEnvelope {
  return {
    schema_version: WIRE_VERSION,
    payload_id: id,
    client_id: "hook-client",
    payload_kind: "lifecycle.context",
    format: "text/plain",
    content_encoding: "utf8",
    body,
    byte_size: Buffer.byteLength(body, "utf8"),
    acceptable_placements: [{ placement, requirement: "preferred" }],
  };
}

/** Scratch directories made by a suite, removed by its afterAll (`afterAll(pool.removeAll)`). */
export class ScratchPool {
  private readonly made: Scratch[] = [];
  /** A new scratch directory, optionally with scripted answers. */
  readonly make = (answers?: Readonly<Record<string, unknown>>): Scratch => {
    const s = new Scratch();
    if (answers) s.answer(answers);
    this.made.push(s);
    return s;
  };
  readonly removeAll = (): void => {
    for (const s of this.made) s.remove();
  };
}

/**
 * A valid input of every served (adapter, hook event): the reference crate's fixture (Claude Code)
 * or recording (Codex). Codex PreCompact and PostCompact have no recorded input; theirs are built
 * from the recorded SessionStart's members plus the turn_id and trigger that Codex's own input
 * schema for the event lists.
 */
export function hookInputFor(adapter: HookAdapter, hookEvent: string): Record<string, unknown> {
  if (adapter === "claude") {
    const found = claudeInputs().find((c) => c.hookEvent === hookEvent);
    if (!found) throw new Error(`no Claude Code fixture for ${hookEvent}`);
    return found.input;
  }
  const recorded = codexRecordings().find((r) => r.hookEvent === hookEvent);
  if (recorded) return recorded.input;
  const start = codexRecordings().find((r) => r.hookEvent === "SessionStart")?.input as Record<string, unknown>;
  return {
    session_id: start.session_id,
    transcript_path: start.transcript_path,
    cwd: start.cwd,
    hook_event_name: hookEvent,
    model: start.model,
    turn_id: "codex-turn-compact",
    trigger: "auto",
  };
}
