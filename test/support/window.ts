/**
 * Helpers of the wire-version window suites (spec/wire-window.md): a document rewritten to another
 * version, and the two reference hosts that write each version of the default window —
 * lifeloop-cli 0.5.0 (`lifeloop.v0.3`) and the pinned reference (spec/wire-version.json, 0.9.0 with
 * `lifeloop.v0.4`) — running `lifeloop event invoke` with a client.
 */
import { existsSync } from "node:fs";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { WIRE_WINDOW } from "../../generated/ts/window.js";
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

/** The older version of the default window the 0.5.0 reference speaks. */
export const OLDER_VERSION = "lifeloop.v0.3";

/** A reference host and the one wire version it writes and reads. */
export interface ReferenceHost {
  readonly name: string;
  readonly bin: string;
  readonly version: string;
}

/** Both reference hosts, oldest first (0.5.0 is installed by tools/setup/prepare.sh for this and the continuation suites). */
export const REFERENCE_HOSTS: readonly ReferenceHost[] = [
  { name: "lifeloop-cli 0.5.0", bin: CONTINUATION_REFERENCE_CLI, version: OLDER_VERSION },
  { name: "lifeloop-cli (pinned)", bin: REFERENCE_CLI, version: WIRE_VERSION },
];

/** Why the reference hosts cannot run here (null when both are installed and the window holds both versions). */
export function referenceHostsMissing(): string | null {
  for (const host of REFERENCE_HOSTS) {
    if (!existsSync(host.bin))
      return `${host.name} is missing at ${host.bin}; run bash tools/setup/prepare.sh (${REFERENCE_INSTALL_COMMAND})`;
    if (!(WIRE_WINDOW as readonly string[]).includes(host.version))
      return `${host.version} is not in this build's window (${WIRE_WINDOW.join(", ")})`;
  }
  return null;
}

/** What `lifeloop event invoke` did: exit code, the receipt it printed (parsed) or null, and stderr. */
export interface ReferenceInvocation {
  readonly code: number | null;
  readonly receipt: { readonly schema_version: string; readonly status: string } | null;
  readonly stderr: string;
}

/**
 * Run `lifeloop event invoke` of `host` with `envelope` (already at the host's version) on stdin and the
 * client `program` (plus `args`). The watchdog (60 s) is far above a round trip, which takes well under
 * a second even on a loaded machine: it only keeps a hang from stalling the suite.
 */
export async function invokeWithReference(
  host: ReferenceHost,
  envelope: unknown,
  program: string,
  args: readonly string[] = [],
): Promise<ReferenceInvocation> {
  const run = await spawnChild({
    command: host.bin,
    args: [
      "event",
      "invoke",
      "--client-cmd",
      program,
      ...args.flatMap((a) => ["--client-arg", a]),
      "--timeout-ms",
      "20000",
      "--client-id",
      "window-suite",
    ],
    input: JSON.stringify(envelope),
    watchdogMs: 60_000,
  });
  let receipt: ReferenceInvocation["receipt"] = null;
  try {
    receipt = run.code === 0 ? (JSON.parse(run.stdout) as ReferenceInvocation["receipt"]) : null;
  } catch {
    receipt = null;
  }
  return { code: run.code, receipt, stderr: run.stderr };
}
