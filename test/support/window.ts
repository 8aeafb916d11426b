/**
 * Helpers of the wire-version window suites (spec/wire-window.md): a document rewritten to another
 * version, and the two reference hosts that write each version of the default window —
 * lifeloop-cli 0.5.0 (`lifeloop.v0.3`) and the pinned reference (spec/wire-version.json, 0.9.0 with
 * the current version) — running `lifeloop event invoke` with a client.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { REFERENCE_IMPLEMENTATION, WIRE_VERSION } from "../../generated/ts/spec.js";
import { WIRE_WINDOW } from "../../generated/ts/spec/wire-version.js";
import { REPO_ROOT } from "./cli-process.js";
import { CONTINUATION_REFERENCE_CLI } from "./continuation-reference.js";
import { REFERENCE_CLI, REFERENCE_INSTALL_COMMAND } from "./reference-cli.js";
import { spawnChild } from "./spawn-child.js";

/** A copy of `doc` with every `schema_version` member (at any depth) set to `version`. */
export function atVersion<T>(doc: T, version: string): T {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === "schema_version" && typeof v === "string" ? version : walk(v)]),
    );
  };
  return walk(doc) as T;
}

/** The wire version lifeloop-cli 0.5.0 reads and writes (a fact of the released binary); an accepted version of the window. */
export const OLDER_VERSION = "lifeloop.v0.3";

/** lifeloop-cli 0.5.0's own test client: a lifeloop.v0.3 client that answers with a context payload. */
export const FAKE_CLIENT_0_5 = join(dirname(CONTINUATION_REFERENCE_CLI), "lifeloop-fake-ccd-client");

/** A reference host and the one wire version it writes and reads. */
export interface ReferenceHost {
  readonly name: string;
  readonly bin: string;
  readonly version: string;
}

/** Both reference hosts, oldest first (0.5.0 is installed by tools/setup/prepare.sh for this and the continuation suites). */
export const REFERENCE_HOSTS: readonly ReferenceHost[] = [
  { name: "lifeloop-cli 0.5.0", bin: CONTINUATION_REFERENCE_CLI, version: OLDER_VERSION },
  { name: `lifeloop-cli ${REFERENCE_IMPLEMENTATION.version}`, bin: REFERENCE_CLI, version: WIRE_VERSION },
];

/** Why `host` cannot run here (naming the binary and how to install it), or null when it can. */
export function referenceHostMissing(host: ReferenceHost): string | null {
  if (!existsSync(host.bin))
    return `${host.name} is missing at ${host.bin}; run bash tools/setup/prepare.sh (${REFERENCE_INSTALL_COMMAND} for the pinned one)`;
  if (!(WIRE_WINDOW as readonly string[]).includes(host.version))
    return `${host.version} is not in this build's window (${WIRE_WINDOW.join(", ")})`;
  return null;
}

/** The README's example envelope (examples/dispatch-envelope.json) with every schema_version set to `version`. */
export function exampleEnvelopeAt(version: string): unknown {
  return atVersion(JSON.parse(readFileSync(join(REPO_ROOT, "examples", "dispatch-envelope.json"), "utf8")), version);
}

/** What `lifeloop event invoke` did: exit code, the receipt it printed (parsed) or null, and stderr. */
export interface ReferenceInvocation {
  readonly code: number | null;
  readonly timedOut: boolean;
  readonly receipt: Record<string, unknown> | null;
  readonly stderr: string;
}

/** Options of {@link invokeWithReference}. */
export interface ReferenceInvokeOptions {
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** The client's deadline under the reference (ms, default 30,000: a Python or Node start on a loaded 2-core machine takes well under it). */
  readonly timeoutMs?: number;
}

/**
 * Run `lifeloop event invoke` of `host` with `envelope` (already at the host's version) on stdin and the
 * client `program` (plus `args`). The watchdog (the client deadline + 30 s) only keeps a hang from
 * stalling the suite: a round trip takes well under a second even on a loaded machine.
 */
export async function invokeWithReference(
  host: ReferenceHost,
  envelope: unknown,
  program: string,
  options: ReferenceInvokeOptions = {},
): Promise<ReferenceInvocation> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const run = await spawnChild({
    command: host.bin,
    args: [
      "event",
      "invoke",
      "--client-cmd",
      program,
      ...(options.args ?? []).flatMap((a) => ["--client-arg", a]),
      "--timeout-ms",
      String(timeoutMs),
      "--client-id",
      "window-suite",
    ],
    input: JSON.stringify(envelope),
    ...(options.env ? { env: options.env } : {}),
    watchdogMs: timeoutMs + 30_000,
  });
  let receipt: Record<string, unknown> | null = null;
  try {
    receipt = run.code === 0 ? (JSON.parse(run.stdout) as Record<string, unknown>) : null;
  } catch {
    receipt = null;
  }
  return { code: run.code, timedOut: run.timedOut, receipt, stderr: run.stderr };
}
