/**
 * The host's reply judge against exact bytes from a real client (scripted-client.mjs), and the
 * host's request frames as the client read them. The common reply is judged in one walk (the frame
 * judge's accept check, runtime/rpc/frame.ts) and the envelope by its accept check
 * (acceptsSerialized): each reply a fast path could wrongly prove (unknown or repeated members,
 * `__proto__`, escapes, numbers written as 1.0 or 1e400 where integers are required, a number id,
 * late, repeated and timed-out replies, extra frame members) gets the slow path's verdict, failure
 * variant and rule; a discarded reply never settles another event and is counted; the stream goes
 * on after each. Ordering: the client answers a request only after reading it, so once an event
 * settles the tap holds its frame; watchdog: each test's timeout.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import type { InvocationResult } from "../../runtime/invoker/types.js";
import { FIXTURE_CLIENTS_DIR } from "../support/fixture-clients.js";
import { envelope, SESSION_EVENTS, Sessions } from "../stream/support.js";

const CLIENT = join(FIXTURE_CLIENTS_DIR, "stream-raw", "scripted-client.mjs");
const sessions = new Sessions();
const dirs: string[] = [];
afterEach(async () => {
  const left = await sessions.closeAll();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  expect(left.alive, "processes left running").toEqual([]);
  expect(left.tracked, "process groups still tracked").toEqual([]);
});

const RESULT = `{"schema_version":"${WIRE_VERSION}","status":"delivered","failure_class":null,"retry_class":null`;
const reply = (result: string, id = "$ID"): string => `{"jsonrpc":"2.0","id":"${id}","result":${result}}`;
const DELIVERED = reply(`${RESULT}}`);
const payload = (byteSize: string): string =>
  `{"schema_version":"${WIRE_VERSION}","payload_id":"p1","client_id":"c1","payload_kind":"note","format":"text","content_encoding":"utf8","body":"x","byte_size":${byteSize},"acceptable_placements":[{"placement":"receipt_only","requirement":"optional"}]}`;

/** A scripted client's invoker; `replies[N-1]`: the lines for event N, then a delivered reply to every later one. */
function open(
  replies: readonly (readonly string[])[],
  timeoutMs = 10_000,
): {
  invoke: (env: DispatchEnvelope) => Promise<InvocationResult>;
  tap: () => Buffer;
  stats: () => Record<string, number>;
} {
  const dir = mkdtempSync(join(tmpdir(), "lifeloop-reply-judge-"));
  dirs.push(dir);
  const script = join(dir, "script.json");
  const tap = join(dir, "stdin.tap");
  writeFileSync(script, JSON.stringify({ replies, otherwise: [DELIVERED] }));
  writeFileSync(tap, "");
  const inv = sessions.open({
    program: process.execPath,
    args: [CLIENT, script, tap],
    timeoutMs,
    limits: { stream_close_grace_ms: 1000, stream_term_grace_ms: 500 },
  });
  return {
    invoke: (env) => {
      const result = inv.invoke(env);
      sessions.see(inv);
      return result;
    },
    tap: () => readFileSync(tap),
    stats: () => ({ ...inv.stats }),
  };
}

/** `ok`, or the failure's variant and detail. */
const outcome = (r: InvocationResult): string => (r.ok ? "ok" : `${r.failure.variant}: ${r.failure.detail}`);

// [what, lines for event 1, the outcome of event 1 (its start), frames discarded, streams spawned]
const CASES: readonly (readonly [string, readonly string[], string, number, number])[] = [
  ["the common reply", [DELIVERED], "ok", 0, 1],
  ["the common reply with whitespace", [` { "jsonrpc" : "2.0" , "id" : "$ID" , "result" : ${RESULT} } } `], "ok", 0, 1],
  [
    "an unknown result member",
    [reply(`${RESULT},"zz":1}`)],
    'invalid_response: CallbackResponse is invalid: schema.additional-properties at "/zz"',
    0,
    1,
  ],
  [
    "a result member __proto__",
    [reply(`${RESULT},"__proto__":{"status":"failed"}}`)],
    'invalid_response: CallbackResponse is invalid: schema.additional-properties at "/__proto__"',
    0,
    1,
  ],
  ["__proto__ inside metadata (open)", [reply(`${RESULT},"metadata":{"__proto__":{"a":1}}}`)], "ok", 0, 1],
  [
    "a repeated result member",
    [reply(`${RESULT},"status":"failed"}`)],
    'stream_framing: the client broke the stream framing: json.duplicate-key at "/result/status"',
    0,
    2,
  ],
  [
    "a repeated frame member",
    [`{"jsonrpc":"2.0","id":"$ID","id":"$ID","result":${RESULT}}}`],
    'stream_framing: the client broke the stream framing: json.duplicate-key at "/id"',
    0,
    2,
  ],
  [
    "an escape that decodes to a valid status",
    [reply(`${RESULT.replace('"delivered"', '"deliv\\u0065red"')}}`)],
    "ok",
    0,
    1,
  ],
  [
    "an escape that decodes to an unknown status",
    [reply(`${RESULT.replace('"delivered"', '"deliv\\u0065re"')}}`)],
    'invalid_response: CallbackResponse is invalid: schema.enum at "/status"',
    0,
    1,
  ],
  [
    "a wrong type nested deep",
    [reply(`${RESULT},"warnings":[{"code":"w","message":7}]}`)],
    'invalid_response: CallbackResponse is invalid: schema.type at "/warnings/0/message"',
    0,
    1,
  ],
  [
    "an integer field written 1.0",
    [reply(`${RESULT},"client_payloads":[${payload("1.0")}]}`)],
    'invalid_response: CallbackResponse is invalid: schema.type at "/client_payloads/0/byte_size": must be an integer written without fraction',
    0,
    1,
  ],
  [
    "an integer field written 1e400",
    [reply(`${RESULT},"client_payloads":[${payload("1e400")}]}`)],
    'stream_framing: the client broke the stream framing: json.number-range at "/result/client_payloads/0/byte_size"',
    0,
    2,
  ],
  [
    "an integer field written -0",
    [reply(`${RESULT},"client_payloads":[${payload("-0")}]}`)],
    'invalid_response: CallbackResponse is invalid: schema.type at "/client_payloads/0/byte_size": must be an integer written without fraction',
    0,
    1,
  ],
  [
    "an integer field written 1e0",
    [reply(`${RESULT},"client_payloads":[${payload("1e0")}]}`)],
    'invalid_response: CallbackResponse is invalid: schema.type at "/client_payloads/0/byte_size": must be an integer written without fraction',
    0,
    1,
  ],
  ["an integer field that is valid", [reply(`${RESULT},"client_payloads":[${payload("1")}]}`)], "ok", 0, 1],
  [
    "a status failed without its classes",
    [reply(`${RESULT.replace('"delivered"', '"failed"')}}`)],
    'invalid_response: CallbackResponse is invalid: failed-requires-failure-class at "/failure_class"',
    0,
    1,
  ],
  [
    "a null result",
    ['{"jsonrpc":"2.0","id":"$ID","result":null}'],
    'invalid_response: CallbackResponse is invalid: schema.type at ""',
    0,
    1,
  ],
  [
    "result and error",
    [`{"jsonrpc":"2.0","id":"$ID","result":${RESULT}},"error":{"code":-32000,"message":"x"}}`],
    'stream_framing: the client broke the stream framing: stream.frame-kind at ""',
    0,
    2,
  ],
  [
    "an extra frame member",
    [`{"jsonrpc":"2.0","id":"$ID","result":${RESULT}},"x":1}`],
    'stream_framing: the client broke the stream framing: stream.frame-kind at "": unknown member "x"',
    0,
    2,
  ],
  // Each 1e21 is a character shorter than String(1e21): seven of them would pay for ',"x":1'.
  [
    "an extra frame member paid for by short numbers",
    [
      `{"jsonrpc":"2.0","id":"$ID","result":${RESULT},"metadata":{"a":1e21,"b":1e21,"c":1e21,"d":1e21,"e":1e21,"f":1e21,"g":1e21}},"x":1}`,
    ],
    'stream_framing: the client broke the stream framing: stream.frame-kind at "": unknown member "x"',
    0,
    2,
  ],
  [
    'jsonrpc "2.0 "',
    [`{"jsonrpc":"2.0 ","id":"$ID","result":${RESULT}}}`],
    'stream_framing: the client broke the stream framing: stream.jsonrpc at "/jsonrpc"',
    0,
    2,
  ],
  ["the id as a number, then the reply", [`{"jsonrpc":"2.0","id":$ID,"result":${RESULT}}}`, DELIVERED], "ok", 1, 1],
  [
    "the reply twice (the first wins)",
    [DELIVERED, reply(`${RESULT.replace('"delivered"', '"skipped"')}}`)],
    "ok",
    1,
    1,
  ],
];

describe("StreamInvoker: the reply judge on a scripted client's bytes", () => {
  it.each(CASES)(
    "%s",
    async (_what, lines, expected, discarded, spawns) => {
      const client = open([lines]);
      const first = await client.invoke(envelope("session.started", 1));
      expect(outcome(first).startsWith(expected), outcome(first)).toBe(true);
      // The stream goes on (or a new one starts after a violation): the next event is delivered.
      const second = await client.invoke(envelope("frame.opening", 2));
      expect(outcome(second)).toBe("ok");
      if (first.ok) expect(first.response.status).toBe("delivered");
      if (second.ok) expect(second.response.status).toBe("delivered");
      expect(client.stats()).toMatchObject({ events: 2, discardedFrames: discarded, spawns });
    },
    30_000,
  );

  it("a reply to an event already answered, or timed out, is discarded and counted, never taken by a pending one", async () => {
    const skipped = reply(`${RESULT.replace('"delivered"', '"skipped"')}}`);
    // Event 1 is never answered (timeout); event 2 gets a reply to 1 first; event 3 a reply to 2 first.
    const client = open(
      [[], [skipped.replace("$ID", "$PREV"), DELIVERED], [skipped.replace("$ID", "$PREV"), DELIVERED]],
      1500,
    );
    const first = await client.invoke(envelope("session.started", 1));
    expect(first.ok ? "ok" : first.failure.variant).toBe("timeout");
    for (const n of [2, 3]) {
      const r = await client.invoke(envelope("frame.opening", n));
      expect(r.ok && r.response.status, outcome(r)).toBe("delivered");
    }
    expect(client.stats()).toMatchObject({ events: 3, discardedFrames: 2, spawns: 1 });
  }, 30_000);
});

describe("StreamInvoker: request frames on the wire", () => {
  it("are the JSON-RPC request around JSON.stringify(envelope), byte for byte (every event kind, escapes, non-ASCII, text and piecewise output)", async () => {
    const envelopes: DispatchEnvelope[] = SESSION_EVENTS.map((event, i) => envelope(event, i + 1));
    const withMetadata = (n: number, metadata: Record<string, unknown>): DispatchEnvelope => {
      const env = envelope("session.started", n);
      return { ...env, request: { ...env.request, metadata } } as DispatchEnvelope;
    };
    const n = envelopes.length;
    envelopes.push(
      withMetadata(n + 1, { text: 'é€😀 "quoted" \\ back\u2028\u0001\u007f', "名前": ["ü", -0, 1.5, 2 ** 53] }),
    );
    // Above the serializer's one-piece output (64 Ki characters): bytes, not text.
    envelopes.push(withMetadata(n + 2, { big: "é€😀".repeat(30_000), ascii: "x".repeat(70_000) }));
    envelopes.push(withMetadata(n + 3, { after: "small again" }));
    const client = open([]);
    for (const env of envelopes) expect(outcome(await client.invoke(env))).toBe("ok");
    const expected = envelopes
      .map(
        (env, i) =>
          `{"jsonrpc":"2.0","id":"${i + 1}","method":"event/${env.request.event}","params":${JSON.stringify(env)}}\n`,
      )
      .join("");
    const tap = client.tap();
    expect(tap.length).toBe(Buffer.byteLength(expected, "utf8"));
    expect(tap.equals(Buffer.from(expected, "utf8"))).toBe(true);
  }, 30_000);
});
