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
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli-process.js";
import { pythonInterpreter } from "../support/python.js";
import { atVersion, invokeWithReference, REFERENCE_HOSTS, referenceHostMissing } from "../support/window.js";

const CLIENT = join(REPO_ROOT, "examples", "python", "client.py");
const SDK = join(REPO_ROOT, "sdk", "python");

/** A DispatchEnvelope that both references accept, at `version` (every schema_version). */
function envelope(version: string): unknown {
  return atVersion(
    {
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
    },
    version,
  );
}

describe("one Python client (the README's) under both reference hosts, no configuration", () => {
  for (const host of REFERENCE_HOSTS) {
    const missing = referenceHostMissing(host);
    it.skipIf(missing !== null)(
      `${host.name} (${host.version}): lifeloop event invoke prints a delivered receipt${missing ? ` [skipped: ${missing}]` : ""}`,
      async () => {
        const run = await invokeWithReference(host, envelope(host.version), pythonInterpreter(), {
          args: [CLIENT],
          env: { ...process.env, PYTHONPATH: SDK },
        });
        expect(run.timedOut).toBe(false);
        expect(run.code, `stderr: ${run.stderr}`).toBe(0);
        expect(run.receipt).toMatchObject({
          schema_version: host.version,
          status: "delivered",
          client_id: "window-suite",
          event: "session.started",
          event_id: "ev-window-1",
          failure_class: null,
          retry_class: null,
        });
      },
      90_000,
    );
  }
});
