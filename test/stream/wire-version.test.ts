/**
 * The stream invoker speaks one chosen version (spec/wire-window.md, "Who speaks which version"):
 * `wireVersion` (default current) is checked at construction; every envelope must carry it (another
 * version is `invalid_request`, nothing written) and so must every reply's result (another version,
 * even one of the window, is `invalid_response` naming the rule and the version found, also when
 * the frame judge's accept check proved the result a valid current-version answer); the frames
 * themselves carry no version. The client is a real process writing exact reply bytes
 * (test/fixtures/client-lang-neutral/stream-raw/scripted-client.mjs); its stdin tap shows what the
 * host wrote. Ordering: the client answers a request only after reading it, so once an event
 * settles the tap holds its frame; watchdog: each invoke's timeout.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import { WIRE_WINDOW } from "../../generated/ts/window.js";
import type { InvocationResult } from "../../runtime/invoker/types.js";
import { InvokerConfigError } from "../../runtime/invoker/types.js";
import { StreamInvoker } from "../../runtime/stream/invoker.js";
import { FIXTURE_CLIENTS_DIR } from "../support/fixture-clients.js";
import { checkNothingLeftAfterEach, envelope, Sessions } from "./support.js";
import { atVersion } from "../support/window.js";

/** The newest accepted older version of the window (spec/wire-version.json `accepted`). */
const OLDER = WIRE_WINDOW[1] as string;
const CLIENT = join(FIXTURE_CLIENTS_DIR, "stream-raw", "scripted-client.mjs");
// Generous: the scripted client answers at once; the bound only keeps a broken run from hanging.
const TIMEOUT_MS = 10_000;

const sessions = new Sessions();
const cleanups = checkNothingLeftAfterEach(sessions);

/** The reply line of a delivered answer in `version` (the common reply: the frame judge's accept check proves it for current). */
const delivered = (version: string): string =>
  `{"jsonrpc":"2.0","id":"$ID","result":{"schema_version":"${version}","status":"delivered","failure_class":null,"retry_class":null}}`;

/** A stream invoker speaking `host` over a scripted client that answers every event in `answer`. */
function open(
  host: string,
  answer: string,
): { invoke: (env: DispatchEnvelope) => Promise<InvocationResult>; tap: () => string } {
  const dir = mkdtempSync(join(tmpdir(), "lifeloop-stream-wire-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, "script.json");
  const tap = join(dir, "stdin.tap");
  writeFileSync(script, JSON.stringify({ replies: [], otherwise: [delivered(answer)] }));
  writeFileSync(tap, "");
  const inv = sessions.open({
    program: process.execPath,
    args: [CLIENT, script, tap],
    timeoutMs: TIMEOUT_MS,
    wireVersion: host,
  });
  return {
    invoke: (env) => {
      const result = inv.invoke(env);
      sessions.see(inv);
      return result;
    },
    tap: () => readFileSync(tap, "utf8"),
  };
}

describe("stream invoker: wireVersion", () => {
  it("defaults to current; a version outside the window is an InvokerConfigError naming the field", () => {
    expect(new StreamInvoker({ program: process.execPath, timeoutMs: TIMEOUT_MS }).wireVersion).toBe(WIRE_VERSION);
    expect(OLDER, "no accepted version in generated/ts/window.ts WIRE_WINDOW").toBeTypeOf("string");
    let thrown: unknown;
    try {
      new StreamInvoker({ program: process.execPath, timeoutMs: TIMEOUT_MS, wireVersion: "lifeloop.v0.2" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvokerConfigError);
    expect((thrown as InvokerConfigError).field).toBe("wireVersion");
  });

  it("an older-version host writes its envelopes in that version and takes answers in it", async () => {
    const s = open(OLDER, OLDER);
    const env = atVersion(envelope("session.started", 1), OLDER);
    expect(await s.invoke(env)).toMatchObject({ ok: true, response: { schema_version: OLDER } });
    const frame = JSON.parse(s.tap().split("\n")[0] as string) as { params: DispatchEnvelope };
    expect(frame.params).toEqual(env);
  });

  for (const [host, answer] of [
    [WIRE_VERSION, OLDER],
    [OLDER, WIRE_VERSION],
  ] as const) {
    it(`a ${host} host refuses a ${answer} result (in the window, not its version) as invalid_response naming it`, async () => {
      const s = open(host, answer);
      const result = await s.invoke(atVersion(envelope("session.started", 1), host));
      if (result.ok) throw new Error(`expected invalid_response, got ${JSON.stringify(result.response)}`);
      expect(result.failure.variant).toBe("invalid_response");
      expect(result.failure.issues?.[0]?.rule).toBe("schema-version-current");
      expect(result.failure.detail).toContain(`\`${answer}\``);
      expect(result.failure.detail).toContain(`(\`${host}\`)`);
      // The stream goes on: the next event is refused the same way, on the same child.
      const again = await s.invoke(atVersion(envelope("session.ended", 2), host));
      expect(!again.ok && again.failure.variant).toBe("invalid_response");
    });

    it(`a ${host} host refuses a ${answer} envelope as invalid_request, writing nothing`, async () => {
      const s = open(host, host);
      const result = await s.invoke(atVersion(envelope("session.started", 1), answer));
      expect(!result.ok && result.failure.variant).toBe("invalid_request");
      expect(!result.ok && result.failure.issues?.[0]?.rule).toBe("schema-version-current");
      // The next event in the host's version is the first frame the client reads.
      expect(await s.invoke(atVersion(envelope("session.started", 2), host))).toMatchObject({ ok: true });
      expect(s.tap().split("\n").filter(Boolean)).toHaveLength(1);
    });
  }
});
