/**
 * The wire-version window end to end (issue 27, "Done when"): ONE Go client binary, written as the
 * README shows (examples/go/main.go, built from a fresh `go mod init` against sdk/go of this
 * clone), returns a delivered receipt from both reference hosts' `lifeloop event invoke`:
 *
 * - lifeloop-cli 0.5.0 (.cache/lifeloop-ref-0.5.0), which reads and writes `lifeloop.v0.3`
 *   envelopes and refuses a response in any other version;
 * - lifeloop-cli 0.9.0 (.cache/lifeloop-ref, the reference spec/wire-version.json names), which
 *   speaks the current version.
 *
 * The client has no configuration: the SDK reads each request by the version it carries and
 * answers in it (spec/wire-window.md, "Clients answer in the request's version"). Each host is
 * given the README's example envelope (examples/dispatch-envelope.json: frame.opening, a top-level
 * frame, one payload) in its own version.
 *
 * Needs Go 1.22+ on PATH (a missing toolchain fails the suite). A missing reference binary skips its
 * case, naming the binary and the command that installs it (bash tools/setup/prepare.sh installs
 * both).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WIRE_WINDOW } from "../../generated/ts/spec.js";
import { readmeExample } from "../package/readme-examples.js";
import { REPO_ROOT } from "../support/cli-process.js";
import {
  exampleEnvelopeAt,
  invokeWithReference,
  OLDER_VERSION,
  REFERENCE_HOSTS,
  referenceHostMissing,
} from "../support/window.js";

/**
 * Watchdog, not a bound: a `go build` of the SDK from a cold cache takes tens of seconds on a
 * loaded 2-core machine.
 */
const BUILD_TIMEOUT_MS = 540_000;

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-window-go-"));
const CLIENT = join(TMP, "myclient");
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** Run a build step to completion (spawnSync reaps it); a failure throws with its output. */
function step(command: string, args: readonly string[]): void {
  const r = spawnSync(command, args, { cwd: TMP, encoding: "utf8", timeout: BUILD_TIMEOUT_MS });
  if (r.error) throw new Error(`${command} could not run: ${r.error.message} (the Go SDK needs Go 1.22+ on PATH)`);
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(" ")} exited ${String(r.status ?? r.signal)}:\n${r.stdout}${r.stderr}`);
}

beforeAll(() => {
  // The README's Go client section, as a client author runs it (with this clone as the SDK path).
  writeFileSync(join(TMP, "main.go"), readmeExample(REPO_ROOT, "examples/go/main.go").code);
  step("go", ["mod", "init", "example.com/myclient"]);
  step("go", [
    "mod",
    "edit",
    "-require",
    "lifeloop-callback.dev/lifeloop@v0.0.0",
    "-replace",
    `lifeloop-callback.dev/lifeloop=${join(REPO_ROOT, "sdk", "go")}`,
  ]);
  step("go", ["build", "-o", CLIENT, "."]);
}, BUILD_TIMEOUT_MS + 60_000);

describe("one Go client binary (the README's) under both reference hosts", () => {
  it("0.5.0's version is in the SDKs' window (else this suite no longer proves the rolling upgrade)", () => {
    expect(WIRE_WINDOW).toContain(OLDER_VERSION);
  });

  for (const host of REFERENCE_HOSTS) {
    const missing = referenceHostMissing(host);
    it.skipIf(missing !== null)(
      `returns a delivered ${host.version} receipt from ${host.name}${missing ? ` [skipped: ${missing}]` : ""}`,
      { timeout: 90_000 },
      async () => {
        const outcome = await invokeWithReference(host, exampleEnvelopeAt(host.version), CLIENT);
        expect(outcome.timedOut, outcome.stderr).toBe(false);
        expect(outcome.code, outcome.stderr).toBe(0);
        expect(outcome.receipt).toMatchObject({
          schema_version: host.version,
          status: "delivered",
          event: "frame.opening",
          event_id: "evt-1",
          failure_class: null,
          payload_receipts: [{ payload_id: "pl-1", status: "delivered" }],
        });
      },
    );
  }
});
