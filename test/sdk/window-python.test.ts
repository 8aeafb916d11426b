/**
 * Issue 27, "Done when" (Python): ONE Python client script, written as the README shows
 * (examples/python/client.py, which test/package/readme-blocks.test.ts keeps equal to the README's
 * Python client block), returns a delivered receipt from `lifeloop event invoke` of both reference
 * hosts, with no configuration: lifeloop-cli 0.5.0 (`.cache/lifeloop-ref-0.5.0`, wire lifeloop.v0.3)
 * and 0.9.0 (`.cache/lifeloop-ref`, the current version). Each reference reads exactly one version and
 * refuses a response in any other ("schema_version mismatch"), so a delivered receipt from both
 * proves the SDK answered each host in the host's version (spec/wire-window.md, "Who speaks which
 * version").
 *
 * The envelope is one both references accept (tools/matrix/scenarios.ts): session.started, no frame
 * (so no subcall without a parent), one inline payload whose placement is not side_channel_context;
 * its nested schema_version is the root's, so the request is judged by that version's rules.
 *
 * The SDK is imported from sdk/python (PYTHONPATH), as the README's "Without installing" says.
 * Skipped, saying which and how to install it, only when a reference binary is missing
 * (tools/setup/prepare.sh installs both).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { pythonInterpreter } from "../support/python.js";
import { spawnChild } from "../support/spawn-child.js";

const CLIENT = join(REPO_ROOT, "examples", "python", "client.py");
const SDK = join(REPO_ROOT, "sdk", "python");
/** The client's deadline under the reference host (ms): a Python start on a loaded 2-core machine takes well under it. */
const CLIENT_TIMEOUT_MS = 30_000;
/** Watchdog of the reference process itself: the client deadline plus a generous grace (ms). */
const WATCHDOG_MS = CLIENT_TIMEOUT_MS + 30_000;

interface ReferenceHost {
  readonly label: string;
  readonly binary: string;
  /** The one wire version this reference reads and writes (a fact of the released binary). */
  readonly wireVersion: string;
}

const HOSTS: readonly ReferenceHost[] = [
  {
    label: "lifeloop-cli 0.5.0",
    binary: join(REPO_ROOT, ".cache", "lifeloop-ref-0.5.0", "bin", "lifeloop"),
    wireVersion: "lifeloop.v0.3",
  },
  {
    label: "lifeloop-cli 0.9.0",
    binary: join(REPO_ROOT, ".cache", "lifeloop-ref", "bin", "lifeloop"),
    wireVersion: WIRE_VERSION,
  },
];

/** A DispatchEnvelope of `version` that both references accept. */
function envelope(version: string): string {
  return JSON.stringify({
    schema_version: version,
    request: {
      schema_version: version,
      event: "session.started",
      event_id: "ev-window-1",
      adapter_id: "codex",
      adapter_version: "0.1.0",
      integration_mode: "native_hook",
      invocation_id: "inv-window-1",
    },
    payloads: [
      {
        schema_version: version,
        payload_id: "p1",
        client_id: "window-python",
        payload_kind: "note",
        format: "text",
        content_encoding: "utf8",
        body: "hello",
        byte_size: 5,
        acceptable_placements: [{ placement: "developer_equivalent_frame", requirement: "required" }],
      },
    ],
  });
}

describe("one Python client (the README's) under both reference hosts, no configuration", () => {
  for (const host of HOSTS) {
    const missing = existsSync(host.binary)
      ? ""
      : `${host.label} is missing at ${host.binary}: run bash tools/setup/prepare.sh`;
    it.skipIf(missing !== "")(
      `${host.label} (${host.wireVersion}): lifeloop event invoke prints a delivered receipt${missing === "" ? "" : ` [skipped: ${missing}]`}`,
      async () => {
        const run = await spawnChild({
          command: host.binary,
          args: [
            "event",
            "invoke",
            "--client-cmd",
            pythonInterpreter(),
            "--client-arg",
            CLIENT,
            "--timeout-ms",
            String(CLIENT_TIMEOUT_MS),
            "--client-id",
            "window-python",
          ],
          input: envelope(host.wireVersion),
          env: { ...process.env, PYTHONPATH: SDK },
          watchdogMs: WATCHDOG_MS,
        });
        expect(run.timedOut).toBe(false);
        expect(run.code, `stderr: ${run.stderr}`).toBe(0);
        const receipt = JSON.parse(run.stdout) as Record<string, unknown>;
        expect(receipt).toMatchObject({
          schema_version: host.wireVersion,
          status: "delivered",
          client_id: "window-python",
          event: "session.started",
          event_id: "ev-window-1",
          failure_class: null,
          retry_class: null,
        });
      },
      WATCHDOG_MS + 10_000,
    );
  }
});
