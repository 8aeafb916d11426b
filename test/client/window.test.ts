/**
 * The TypeScript client runner answers in the request's wire version (spec/wire-window.md, "Clients
 * answer in the request's version"), in both transports, with no configuration:
 *
 * - the same client program (test/fixtures/client-lang-neutral/node/runner-echo.mjs, on the built
 *   package) returns a delivered receipt from `lifeloop event invoke` of lifeloop-cli 0.5.0 (a
 *   `lifeloop.v0.3` envelope) and of the pinned reference (the current version);
 * - v1 and v2 (`--stream`) answers carry the request's version; a request outside the window is
 *   answered `failed` in current with the window's message; a handler that answers in another
 *   version than the request's is replaced by the runner's failed response in the request's version.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { STREAM_V2, WIRE_VERSION } from "../../generated/ts/spec.js";
import type { CallbackRequest, CallbackResponse } from "../../generated/ts/types.js";
import { WIRE_WINDOW } from "../../generated/ts/window.js";
import { serve } from "../../runtime/index.js";
import { callbackRequest, dispatchEnvelope } from "../support/dispatch.js";
import { FIXTURE_CLIENTS_DIR } from "../support/fixture-clients.js";
import {
  atVersion,
  exampleEnvelopeAt,
  invokeWithReference,
  OLDER_VERSION,
  REFERENCE_HOSTS,
  referenceHostMissing,
} from "../support/window.js";

const RUNNER_ECHO = `${FIXTURE_CLIENTS_DIR}/node/runner-echo.mjs`;
const ENVELOPE = dispatchEnvelope(
  callbackRequest("session.started", { event_id: "evt-w", invocation_id: "inv-w", harness_session_id: "s-w" }),
);
describe("one TS client under both reference hosts", () => {
  for (const host of REFERENCE_HOSTS) {
    const missing = referenceHostMissing(host);
    it.skipIf(missing !== null)(
      `${host.name} delivers to runner-echo.mjs in ${host.version}${missing ? ` [skipped: ${missing}]` : ""}`,
      async () => {
        const run = await invokeWithReference(host, exampleEnvelopeAt(host.version), RUNNER_ECHO);
        expect(run.code, run.stderr).toBe(0);
        expect(run.receipt).toMatchObject({ schema_version: host.version, status: "delivered" });
      },
      90_000,
    );
  }
});

type Handler = (request: CallbackRequest) => CallbackResponse;

/** Serve one v1 request (`bytes` on stdin) with `handler`; the parsed response. */
async function serveOnce(bytes: string, handler: Handler): Promise<CallbackResponse> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  stdout.on("data", (c: Buffer) => out.push(c));
  stderr.resume();
  stdin.end(bytes);
  const status = await serve(handler, { argv: [], stdin, stdout, stderr, exit: false });
  expect(status).toBe(0);
  return JSON.parse(Buffer.concat(out).toString("utf8")) as CallbackResponse;
}

/** Serve one v2 `event/<kind>` request frame carrying `envelope`; the reply's result. */
async function serveStreamOnce(envelope: unknown, handler: Handler): Promise<CallbackResponse> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stderr.resume();
  const reply = new Promise<CallbackResponse>((resolve) => {
    let text = "";
    stdout.on("data", (c: Buffer) => {
      text += c.toString("utf8");
      const end = text.indexOf("\n");
      if (end >= 0) {
        resolve((JSON.parse(text.slice(0, end)) as { result: CallbackResponse }).result);
        stdin.end();
      }
    });
  });
  const served = serve(handler, { argv: [STREAM_V2.launch.flag], stdin, stdout, stderr, exit: false });
  stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: `${STREAM_V2.host_to_client.event_method_prefix}session.started`, params: envelope })}\n`,
  );
  const result = await reply;
  await served;
  return result;
}

const echo: Handler = (request) => ({ schema_version: request.schema_version, status: "delivered" });

describe.each([
  ["v1", (envelope: unknown, handler: Handler) => serveOnce(JSON.stringify(envelope), handler)],
  ["v2", serveStreamOnce],
] as const)("the runner over %s", (_transport, serveOne) => {
  it.each(WIRE_WINDOW.map((v) => [v]))("answers a %s request in its version", async (version) => {
    const response = await serveOne(atVersion(ENVELOPE, version), echo);
    expect(response).toEqual({ schema_version: version, status: "delivered" });
  });

  it("refuses a request outside the window in current, naming the window", async () => {
    const response = await serveOne(atVersion(ENVELOPE, "lifeloop.v0.2"), echo);
    expect(response).toMatchObject({
      schema_version: WIRE_VERSION,
      status: "failed",
      failure_class: "invalid_request",
    });
    expect(response.warnings?.[0]?.code).toBe("schema-version-current");
    expect(response.warnings?.[0]?.message).toContain(WIRE_WINDOW.map((v) => `\`${v}\``).join(", "));
  });

  it("writes a handler's current-version answer in the request's version (as the Go and Python runners)", async () => {
    const response = await serveOne(atVersion(ENVELOPE, OLDER_VERSION), () => ({
      schema_version: WIRE_VERSION,
      status: "delivered",
    }));
    expect(response).toEqual({ schema_version: OLDER_VERSION, status: "delivered" });
  });

  it("replaces a handler's answer in another, older version with a failure in the request's version", async () => {
    const response = await serveOne(ENVELOPE, () => ({ schema_version: OLDER_VERSION, status: "delivered" }));
    expect(response).toMatchObject({ schema_version: WIRE_VERSION, status: "failed", failure_class: "internal_error" });
    expect(response.warnings?.[0]?.code).toBe("schema-version-current");
  });

  it("judges a v0.3 request by v0.3's rules: an empty payload digest is not refused", async () => {
    const envelope = atVersion(
      {
        ...ENVELOPE,
        request: { ...ENVELOPE.request, payload_refs: [{ payload_id: "p", payload_kind: "k", content_digest: "" }] },
      },
      OLDER_VERSION,
    );
    expect(await serveOne(envelope, echo)).toEqual({ schema_version: OLDER_VERSION, status: "delivered" });
    const current = await serveOne(atVersion(envelope, WIRE_VERSION), echo);
    expect(current).toMatchObject({ schema_version: WIRE_VERSION, status: "failed", failure_class: "invalid_request" });
    expect(current.warnings?.[0]?.code).toBe("non-empty-identifier");
  });
});
