/**
 * `--wire-version V` on `invoke` and `session` as real processes (the built CLI, dist/; run
 * `npm run build` first; spec/wire-window.md, "Who speaks which version"): the host writes V and
 * requires answers in V. Against lifeloop-cli 0.5.0's own test client `lifeloop-fake-ccd-client`
 * (a lifeloop.v0.3 client that answers v0.3 whatever it is sent): `invoke --wire-version
 * lifeloop.v0.3` gets its valid answer, and without the flag (current) the same answer is refused
 * as invalid_response naming the version found. `session` does the same over both transports, and
 * a `--ledger` keeps the version it was written under.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { validateValue } from "../../runtime/wire/validate.js";
import { closedWindow } from "../../runtime/wire/window.js";
import { runCli } from "../support/cli-process.js";
import { FIXTURE_CLIENTS_DIR } from "../support/fixture-clients.js";
import { FAKE_CLIENT_0_5, OLDER_VERSION } from "../support/window.js";

const V03 = OLDER_VERSION;
const REFERENCE_CLIENT = FAKE_CLIENT_0_5;
const INSTALL =
  "cargo install lifeloop-cli --version 0.5.0 --locked --root .cache/lifeloop-ref-0.5.0 (or bash tools/setup/prepare.sh)";
const SCRIPTED = join(FIXTURE_CLIENTS_DIR, "stream-raw", "scripted-client.mjs");
// Generous: each client answers in milliseconds; the bound only keeps a broken run from hanging.
const TIMEOUT_MS = "10000";

const tmp = mkdtempSync(join(tmpdir(), "lifeloop-cli-wire-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function referenceClient(): string {
  if (!existsSync(REFERENCE_CLIENT))
    throw new Error(`lifeloop-cli 0.5.0's test client is missing at ${REFERENCE_CLIENT}; install it with: ${INSTALL}`);
  return REFERENCE_CLIENT;
}

/** A frame.opening envelope in `version` (the fake client answers it with a payload). */
function frameOpening(version: string, n = 1): Record<string, unknown> {
  return {
    schema_version: version,
    request: {
      schema_version: version,
      event: "frame.opening",
      event_id: `evt-${n}`,
      adapter_id: "codex",
      adapter_version: "0.1.0",
      integration_mode: "native_hook",
      invocation_id: `inv-${n}`,
      idempotency_key: `idem-${n}`,
      frame_context: { frame_id: "frame-1", frame_class: "top_level" },
    },
  };
}

interface Printed {
  response: Record<string, unknown> | null;
  failure: Record<string, unknown> | null;
  receipt: Record<string, unknown> | null;
}

function invoke(extra: readonly string[], envelope: unknown): { code: number | null; out: Printed; stderr: string } {
  const r = runCli(
    [
      "invoke",
      "--program",
      referenceClient(),
      "--arg",
      "ok",
      "--timeout-ms",
      TIMEOUT_MS,
      "--client-id",
      "ccd",
      ...extra,
    ],
    { input: JSON.stringify(envelope) },
  );
  const out =
    r.stdout === "" ? ({ response: null, failure: null, receipt: null } as Printed) : (JSON.parse(r.stdout) as Printed);
  return { code: r.code, out, stderr: r.stderr };
}

describe("invoke --wire-version against lifeloop-cli 0.5.0's fake client", () => {
  it("--wire-version lifeloop.v0.3: the client's v0.3 answer is valid; the receipt is v0.3", () => {
    const r = invoke(["--wire-version", V03], frameOpening(V03));
    expect(r.code, r.stderr).toBe(0);
    expect(r.out.response).toMatchObject({
      schema_version: V03,
      status: "delivered",
      client_payloads: [{ schema_version: V03, payload_id: "pay-fake-ccd-1", idempotency_key: "idem-1" }],
    });
    expect(r.out.receipt).toMatchObject({ schema_version: V03, status: "delivered", client_id: "ccd" });
    expect(validateValue("LifecycleReceipt", r.out.receipt, closedWindow(V03))).toEqual([]);
  });

  it("without the flag (current): the same client's v0.3 answer is invalid_response naming the version", () => {
    const r = invoke([], frameOpening(WIRE_VERSION));
    expect(r.code).toBe(1);
    expect(r.out.response).toBeNull();
    expect(r.out.failure).toMatchObject({ variant: "invalid_response" });
    const detail = String(r.out.failure?.detail);
    expect(detail).toContain("schema-version-current");
    expect(detail).toContain(`\`${V03}\``);
    // The hint: a client answers in the request's version, and how a host would speak the client's.
    expect(detail).toContain(`a host that speaks ${V03}: --wire-version ${V03}`);
    expect(r.out.receipt).toMatchObject({ schema_version: WIRE_VERSION, status: "failed" });
  });

  it("an envelope in another version than --wire-version is invalid_request (exit 1, no receipt)", () => {
    for (const [flag, envelopeVersion] of [
      [V03, WIRE_VERSION],
      [WIRE_VERSION, V03],
    ] as const) {
      const r = invoke(["--wire-version", flag], frameOpening(envelopeVersion));
      expect(r.code).toBe(1);
      expect(r.out.failure).toMatchObject({ variant: "invalid_request" });
      expect(String(r.out.failure?.detail)).toContain(`\`${envelopeVersion}\``);
      expect(String(r.out.failure?.detail)).toContain(`--wire-version ${envelopeVersion}`);
      expect(r.out.receipt).toBeNull();
    }
  });

  it("a version this build does not speak is a usage error (exit 2) naming the ones it does", () => {
    const r = invoke(["--wire-version", "lifeloop.v0.2"], frameOpening(V03));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--wire-version "lifeloop.v0.2" is not a version this build reads');
  });

  it("--ledger keeps the version it was written under: a v0.3 ledger refuses a current receipt (exit 3)", () => {
    const ledger = join(tmp, "v03.sqlite");
    const first = invoke(["--wire-version", V03, "--ledger", ledger], frameOpening(V03, 7));
    expect(first.code, first.stderr).toBe(0);
    expect(first.out.receipt).toMatchObject({ schema_version: V03 });
    const again = invoke(["--wire-version", V03, "--ledger", ledger], frameOpening(V03, 7));
    expect(again.code, again.stderr).toBe(0);
    expect(again.out).toMatchObject({ replayed: true, receipt: first.out.receipt });
    const current = invoke(["--ledger", ledger], frameOpening(WIRE_VERSION, 8));
    expect(current.code).toBe(3);
    expect(current.stderr).toContain(`was last written under wire ${V03}`);
  });
});

describe("session --wire-version", () => {
  /** A scripted stream client answering every event in `version`. */
  function streamClient(version: string): string[] {
    const script = join(tmp, `script-${version}.json`);
    const reply = `{"jsonrpc":"2.0","id":"$ID","result":{"schema_version":"${version}","status":"delivered"}}`;
    writeFileSync(script, JSON.stringify({ replies: [], otherwise: [reply] }));
    return ["--program", process.execPath, "--arg", SCRIPTED, "--arg", script, "--arg", join(tmp, `tap-${version}`)];
  }
  const lines = (version: string): string =>
    `${[1, 2].map((n) => JSON.stringify(frameOpening(version, n))).join("\n")}\n`;
  const run = (transport: string, client: readonly string[], extra: readonly string[], version: string) => {
    const r = runCli(["session", "--transport", transport, ...client, "--timeout-ms", TIMEOUT_MS, ...extra, "-"], {
      input: lines(version),
    });
    const out = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Printed & { summary?: Record<string, number> });
    return { code: r.code, stderr: r.stderr, events: out.slice(0, -1), summary: out.at(-1)?.summary };
  };

  for (const transport of ["subprocess", "stream"] as const) {
    const client = (version: string): string[] =>
      transport === "stream" ? streamClient(version) : ["--program", referenceClient(), "--arg", "ok"];

    it(`${transport}: --wire-version lifeloop.v0.3 delivers v0.3 envelopes, takes v0.3 answers, writes v0.3 receipts`, () => {
      const r = run(transport, client(V03), ["--wire-version", V03], V03);
      expect(r.code, r.stderr).toBe(0);
      expect(r.summary).toMatchObject({ events: 2, delivered: 2, failed: 0 });
      for (const e of r.events) {
        expect(e.response).toMatchObject({ schema_version: V03 });
        expect(e.receipt).toMatchObject({ schema_version: V03, status: "delivered" });
      }
    });

    it(`${transport}: without the flag, v0.3 answers to current envelopes are invalid_response`, () => {
      const r = run(transport, client(V03), [], WIRE_VERSION);
      expect(r.code).toBe(1);
      expect(r.summary).toMatchObject({ events: 2, delivered: 0, failed: 2 });
      for (const e of r.events) {
        expect(e.failure).toMatchObject({ variant: "invalid_response" });
        expect(String(e.failure?.detail)).toContain(`\`${V03}\``);
      }
    });
  }
});

describe("receipt emit --wire-version", () => {
  /** An emit input whose request and response are both in `version`. */
  function emitInput(version: string): string {
    const request = frameOpening(version).request as Record<string, unknown>;
    return JSON.stringify({
      request,
      response: { schema_version: version, status: "delivered" },
      context: { client_id: "c", receipt_id: "r1", at_epoch_s: 1 },
    });
  }

  it("emits a receipt in V from a request and response in V; without the flag the v0.3 input is refused by name", () => {
    const older = runCli(["receipt", "emit", "--wire-version", V03, "-"], { input: emitInput(V03) });
    expect(older.code, older.stderr).toBe(0);
    const receipt = JSON.parse(older.stdout) as Record<string, unknown>;
    expect(receipt.schema_version).toBe(V03);
    expect(validateValue("LifecycleReceipt", receipt, closedWindow(V03))).toEqual([]);
    const current = runCli(["receipt", "emit", "-"], { input: emitInput(V03) });
    expect(current.code).toBe(1);
    expect(current.stderr).toContain(`\`${V03}\` is outside this reader's wire-version window (\`${WIRE_VERSION}\`)`);
    expect(runCli(["receipt", "emit", "-"], { input: emitInput(WIRE_VERSION) }).code).toBe(0);
  });
});
