/**
 * Target: `generated/vectors/stream/`, the shared stream vectors (spec/stream-protocol.md §"Shared
 * vectors"): byte sequences a stream reader receives, each named by its verdict and the rule it
 * exercises, with the frames a reader must accept (kind, id with its JSON type, method) and the
 * violation that ends the input (or none). The TypeScript, Go and Python readers run the same files
 * and must reach the same verdict whatever the chunking.
 *
 * The cases are built here from the model (wire version, limits, the framing rules of
 * spec/tables/stream-v2.json); every rule id a case names is checked against those tables, and
 * every framing rule except the correlation-layer ones has at least one case.
 */
import type { Model } from "../../model/model.js";
import { stableJson, BANNER, type OutputFile } from "../../emit/output.js";

/** What a reader must yield for one accepted frame. */
interface ExpectedFrame {
  readonly kind: "request" | "notification" | "success_reply" | "error_reply";
  readonly id?: string | number;
  readonly method?: string;
}

interface Case {
  readonly name: string;
  readonly description: string;
  readonly input: Buffer;
  readonly frames: readonly ExpectedFrame[];
  /** The rule of the violation that ends the input, or null (the input ends cleanly). */
  readonly rule: string | null;
  /** A smaller max_frame_bytes for size cases (default: limits.max_frame_bytes). */
  readonly maxFrameBytes?: number;
  /** True when the problem is in a number's lexeme, which a JSON Schema validator cannot see. */
  readonly lexeme?: boolean;
}

const b = (text: string): Buffer => Buffer.from(text, "utf8");
const line = (text: string): Buffer => b(`${text}\n`);

/** Build every case from the model. */
function cases(model: Model): Case[] {
  const v = model.wireVersion.current;
  const limit = (name: string): number => {
    const row = model.tables.limits.limits.find((l) => l.name === name);
    if (!row) throw new Error(`stream-vectors target: spec/tables/limits.json lacks ${name}`);
    return row.value;
  };
  const maxSafe = limit("max_safe_integer");
  const idMax = model.tables.streamV2.ids.string_max_length;
  const cancel = model.tables.streamV2.cancel.method;
  const prefix = model.tables.streamV2.host_to_client.event_method_prefix;
  const resp = `{"schema_version":"${v}","status":"delivered","failure_class":null,"retry_class":null}`;
  const env = `{"schema_version":"${v}","request":{"schema_version":"${v}","event":"session.started","event_id":"e1","adapter_id":"codex","adapter_version":"0.1.0","integration_mode":"native_hook","invocation_id":"i1"}}`;
  const reply = (id: string): string => `{"jsonrpc":"2.0","id":${id},"result":${resp}}`;
  const R1 = reply('"1"');
  const ok1: ExpectedFrame = { kind: "success_reply", id: "1" };
  const small = 256;
  const padTo = (n: number): string => {
    const base = `{"jsonrpc":"2.0","id":"1","result":{"pad":""}}`;
    return `{"jsonrpc":"2.0","id":"1","result":{"pad":"${"x".repeat(n - base.length)}"}}`;
  };
  const out: Case[] = [
    // valid
    {
      name: "valid-empty-input",
      description: "no bytes at all: no frame, no violation",
      input: Buffer.alloc(0),
      frames: [],
      rule: null,
    },
    {
      name: "valid-success-reply",
      description: "a success reply with a CallbackResponse result",
      input: line(R1),
      frames: [ok1],
      rule: null,
    },
    {
      name: "valid-error-reply-with-data",
      description: "an error reply with code, message and data",
      input: line(
        `{"jsonrpc":"2.0","id":"2","error":{"code":-32601,"message":"unknown method","data":{"method":"event/x"}}}`,
      ),
      frames: [{ kind: "error_reply", id: "2" }],
      rule: null,
    },
    {
      name: "valid-event-request",
      description: "a host event request: method event/<kind>, params a DispatchEnvelope",
      input: line(`{"jsonrpc":"2.0","id":"1","method":"${prefix}session.started","params":${env}}`),
      frames: [{ kind: "request", id: "1", method: `${prefix}session.started` }],
      rule: null,
    },
    {
      name: "valid-cancel-notification",
      description: `the ${cancel} notification`,
      input: line(`{"jsonrpc":"2.0","method":"${cancel}","params":{"id":"3","reason":"timeout"}}`),
      frames: [{ kind: "notification", method: cancel }],
      rule: null,
    },
    {
      name: "valid-request-without-params",
      description: "a request may omit params",
      input: line(`{"jsonrpc":"2.0","id":9,"method":"continuation/list"}`),
      frames: [{ kind: "request", id: 9, method: "continuation/list" }],
      rule: null,
    },
    {
      name: "valid-string-and-integer-ids-differ",
      description: 'ids keep their JSON type: "7" and 7 are two different ids',
      input: Buffer.concat([line(reply('"7"')), line(reply("7"))]),
      frames: [
        { kind: "success_reply", id: "7" },
        { kind: "success_reply", id: 7 },
      ],
      rule: null,
    },
    {
      name: "valid-id-integer-max",
      description: "the largest integer id, 2^53-1",
      input: line(reply(String(maxSafe))),
      frames: [{ kind: "success_reply", id: maxSafe }],
      rule: null,
    },
    {
      name: "valid-id-integer-zero",
      description: "id 0 is an id",
      input: line(reply("0")),
      frames: [{ kind: "success_reply", id: 0 }],
      rule: null,
    },
    {
      name: "valid-id-string-max-length",
      description: `an id string of ${idMax} characters`,
      input: line(reply(`"${"a".repeat(idMax)}"`)),
      frames: [{ kind: "success_reply", id: "a".repeat(idMax) }],
      rule: null,
    },
    {
      name: "valid-crlf",
      description: "stream.frame-cr: one CR before the LF is removed",
      input: b(`${R1}\r\n`),
      frames: [ok1],
      rule: null,
    },
    {
      name: "valid-cr-cr-lf",
      description: "stream.frame-cr: after removing one CR, a second CR is JSON whitespace",
      input: b(`${R1}\r\r\n`),
      frames: [ok1],
      rule: null,
    },
    {
      name: "valid-whitespace-around",
      description: "JSON whitespace around the object is allowed",
      input: line(` \t${R1} `),
      frames: [ok1],
      rule: null,
    },
    {
      name: "valid-line-separators-in-strings",
      description: "stream.frame-lf: raw U+2028, U+2029 and U+0085 inside a string do not split the frame",
      input: line(
        `{"jsonrpc":"2.0","id":"1","result":{"schema_version":"${v}","status":"delivered","metadata":{"text":"a\u2028b\u2029c\u0085d"}}}`,
      ),
      frames: [ok1],
      rule: null,
    },
    {
      name: "valid-two-frames-one-chunk",
      description: "two frames in one write",
      input: Buffer.concat([line(R1), line(reply('"2"'))]),
      frames: [ok1, { kind: "success_reply", id: "2" }],
      rule: null,
    },
    {
      name: "valid-frame-at-size-limit",
      description: `stream.frame-too-large: exactly max_frame_bytes (${small}) bytes pass`,
      input: line(padTo(small)),
      frames: [ok1],
      rule: null,
      maxFrameBytes: small,
    },
    {
      name: "valid-frame-at-size-limit-with-cr",
      description: "the CR counts: max_frame_bytes - 1 bytes plus CR pass",
      input: b(`${padTo(small - 1)}\r\n`),
      frames: [ok1],
      rule: null,
      maxFrameBytes: small,
    },
    // frame layer
    {
      name: "invalid-frame-over-size-limit",
      description: "max_frame_bytes + 1 bytes fail",
      input: line(padTo(small + 1)),
      frames: [],
      rule: "stream.frame-too-large",
      maxFrameBytes: small,
    },
    {
      name: "invalid-frame-over-size-limit-with-cr",
      description: "max_frame_bytes bytes plus a CR fail (the CR counts)",
      input: b(`${padTo(small)}\r\n`),
      frames: [],
      rule: "stream.frame-too-large",
      maxFrameBytes: small,
    },
    {
      name: "invalid-no-lf-over-size-limit",
      description: "bytes without LF beyond the limit fail as soon as the extra byte arrives",
      input: b("x".repeat(small * 4)),
      frames: [],
      rule: "stream.frame-too-large",
      maxFrameBytes: small,
    },
    {
      name: "invalid-over-size-limit-after-a-frame",
      description: "a valid frame, then one that is too large",
      input: Buffer.concat([line(R1), line(padTo(small + 1))]),
      frames: [ok1],
      rule: "stream.frame-too-large",
      maxFrameBytes: small,
    },
    {
      name: "invalid-empty-line",
      description: "an empty line",
      input: b("\n"),
      frames: [],
      rule: "stream.empty-frame",
    },
    {
      name: "invalid-empty-line-after-frame",
      description: "a frame, then an empty line",
      input: Buffer.concat([line(R1), b("\n")]),
      frames: [ok1],
      rule: "stream.empty-frame",
    },
    {
      name: "invalid-lone-cr-line",
      description: "a line that is only a CR is empty once the CR is removed",
      input: b("\r\n"),
      frames: [],
      rule: "stream.empty-frame",
    },
    {
      name: "invalid-unterminated-frame",
      description: "the input ends inside a frame (no LF)",
      input: b(R1),
      frames: [],
      rule: "stream.unterminated-frame",
    },
    {
      name: "invalid-unterminated-after-frame",
      description: "a frame, then a partial one at EOF",
      input: Buffer.concat([line(R1), b('{"jsonrpc":"2.0"')]),
      frames: [ok1],
      rule: "stream.unterminated-frame",
    },
    // json layer (stream.json)
    {
      name: "invalid-log-line",
      description: "a log line on stdout is json.syntax, never skipped",
      input: line("INFO client ready"),
      frames: [],
      rule: "json.syntax",
    },
    {
      name: "invalid-banner-before-frame",
      description: "a start-up banner, then a valid frame: the banner ends the stream",
      input: Buffer.concat([line("client 1.0 starting"), line(R1)]),
      frames: [],
      rule: "json.syntax",
    },
    {
      name: "invalid-log-line-after-frame",
      description: "a frame, then a log line",
      input: Buffer.concat([line(R1), line("done.")]),
      frames: [ok1],
      rule: "json.syntax",
    },
    {
      name: "invalid-bom",
      description: "a frame starting with a UTF-8 BOM",
      input: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), line(R1)]),
      frames: [],
      rule: "json.bom",
    },
    {
      name: "invalid-utf8",
      description: "invalid UTF-8 inside a string",
      input: Buffer.concat([b(`{"jsonrpc":"2.0","id":"`), Buffer.from([0xff]), line(`","result":${resp}}`)]),
      frames: [],
      rule: "json.utf8",
    },
    {
      name: "invalid-duplicate-key",
      description: "a member named twice",
      input: line(`{"jsonrpc":"2.0","id":"1","id":"2","result":${resp}}`),
      frames: [],
      rule: "json.duplicate-key",
    },
    {
      name: "invalid-two-documents-one-line",
      description: "two JSON documents on one line",
      input: line(`${R1}${R1}`),
      frames: [],
      rule: "json.trailing-data",
    },
    {
      name: "invalid-lone-surrogate",
      description: "a lone surrogate escape",
      input: line(`{"jsonrpc":"2.0","id":"\\ud800","result":${resp}}`),
      frames: [],
      rule: "json.lone-surrogate",
    },
    {
      name: "invalid-nan",
      description: "NaN is not JSON",
      input: line(`{"jsonrpc":"2.0","id":NaN,"result":${resp}}`),
      frames: [],
      rule: "json.syntax",
    },
    // envelope layer
    {
      name: "invalid-batch",
      description: "a JSON-RPC batch (array)",
      input: line(`[${R1}]`),
      frames: [],
      rule: "stream.batch",
    },
    { name: "invalid-empty-batch", description: "an empty array", input: line("[]"), frames: [], rule: "stream.batch" },
    {
      name: "invalid-not-object-string",
      description: "a JSON string",
      input: line('"hello"'),
      frames: [],
      rule: "stream.not-object",
    },
    {
      name: "invalid-not-object-number",
      description: "a JSON number",
      input: line("7"),
      frames: [],
      rule: "stream.not-object",
    },
    {
      name: "invalid-not-object-null",
      description: "JSON null",
      input: line("null"),
      frames: [],
      rule: "stream.not-object",
    },
    {
      name: "invalid-jsonrpc-missing",
      description: "no jsonrpc member",
      input: line(`{"id":"1","result":${resp}}`),
      frames: [],
      rule: "stream.jsonrpc",
    },
    {
      name: "invalid-jsonrpc-1-0",
      description: 'jsonrpc "1.0"',
      input: line(`{"jsonrpc":"1.0","id":"1","result":${resp}}`),
      frames: [],
      rule: "stream.jsonrpc",
    },
    {
      name: "invalid-jsonrpc-number",
      description: "jsonrpc 2.0 as a number",
      input: line(`{"jsonrpc":2.0,"id":"1","result":${resp}}`),
      frames: [],
      rule: "stream.jsonrpc",
    },
    {
      name: "invalid-unknown-member",
      description: "a member no frame has",
      input: line(`{"jsonrpc":"2.0","id":"1","result":${resp},"extra":true}`),
      frames: [],
      rule: "stream.frame-kind",
    },
    {
      name: "invalid-result-and-error",
      description: "both result and error",
      input: line(`{"jsonrpc":"2.0","id":"1","result":${resp},"error":{"code":1,"message":"x"}}`),
      frames: [],
      rule: "stream.frame-kind",
    },
    {
      name: "invalid-neither-method-nor-reply",
      description: "only jsonrpc and id",
      input: line('{"jsonrpc":"2.0","id":"1"}'),
      frames: [],
      rule: "stream.frame-kind",
    },
    {
      name: "invalid-method-with-result",
      description: "method together with result",
      input: line(`{"jsonrpc":"2.0","id":"1","method":"x/y","result":${resp}}`),
      frames: [],
      rule: "stream.frame-kind",
    },
    {
      name: "invalid-reply-without-id",
      description: "a result without an id",
      input: line(`{"jsonrpc":"2.0","result":${resp}}`),
      frames: [],
      rule: "stream.frame-kind",
    },
    {
      name: "invalid-reply-with-params",
      description: "a reply with params",
      input: line(`{"jsonrpc":"2.0","id":"1","result":${resp},"params":{}}`),
      frames: [],
      rule: "stream.frame-kind",
    },
    {
      name: "invalid-id-null-error-reply",
      description: "an error reply with id null (the standard's parse-error reply) ends the stream",
      input: line('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'),
      frames: [],
      rule: "stream.id",
    },
    {
      name: "invalid-id-null-request",
      description: "a request with id null",
      input: line('{"jsonrpc":"2.0","id":null,"method":"continuation/list"}'),
      frames: [],
      rule: "stream.id",
    },
    { name: "invalid-id-fraction", description: "id 1.5", input: line(reply("1.5")), frames: [], rule: "stream.id" },
    {
      name: "invalid-id-exponent",
      description: "id 1e2 (an integer value, but not a plain integer)",
      input: line(reply("1e2")),
      frames: [],
      rule: "stream.id",
      lexeme: true,
    },
    {
      name: "invalid-id-one-point-zero",
      description: "id 1.0",
      input: line(reply("1.0")),
      frames: [],
      rule: "stream.id",
      lexeme: true,
    },
    {
      name: "invalid-id-minus-zero",
      description: "id -0",
      input: line(reply("-0")),
      frames: [],
      rule: "stream.id",
      lexeme: true,
    },
    { name: "invalid-id-negative", description: "id -1", input: line(reply("-1")), frames: [], rule: "stream.id" },
    {
      name: "invalid-id-too-large",
      description: "id 2^53",
      input: line(reply("9007199254740992")),
      frames: [],
      rule: "stream.id",
    },
    { name: "invalid-id-boolean", description: "id true", input: line(reply("true")), frames: [], rule: "stream.id" },
    { name: "invalid-id-object", description: "id {}", input: line(reply("{}")), frames: [], rule: "stream.id" },
    { name: "invalid-id-empty-string", description: 'id ""', input: line(reply('""')), frames: [], rule: "stream.id" },
    {
      name: "invalid-id-string-too-long",
      description: `an id string of ${idMax + 1} characters`,
      input: line(reply(`"${"a".repeat(idMax + 1)}"`)),
      frames: [],
      rule: "stream.id",
    },
    {
      name: "invalid-method-empty",
      description: 'method ""',
      input: line('{"jsonrpc":"2.0","id":"1","method":""}'),
      frames: [],
      rule: "stream.method",
    },
    {
      name: "invalid-method-number",
      description: "method 7",
      input: line('{"jsonrpc":"2.0","id":"1","method":7}'),
      frames: [],
      rule: "stream.method",
    },
    {
      name: "invalid-method-rpc-reserved",
      description: "a method starting with rpc.",
      input: line('{"jsonrpc":"2.0","method":"rpc.discover"}'),
      frames: [],
      rule: "stream.method",
    },
    {
      name: "invalid-method-too-long",
      description: "a method of 257 characters",
      input: line(`{"jsonrpc":"2.0","method":"${"m".repeat(257)}"}`),
      frames: [],
      rule: "stream.method",
    },
    {
      name: "invalid-params-array",
      description: "by-position params",
      input: line('{"jsonrpc":"2.0","id":"1","method":"continuation/list","params":["t"]}'),
      frames: [],
      rule: "stream.params",
    },
    {
      name: "invalid-params-null",
      description: "params null",
      input: line('{"jsonrpc":"2.0","method":"lifeloop/cancel","params":null}'),
      frames: [],
      rule: "stream.params",
    },
    {
      name: "invalid-error-not-object",
      description: 'error "x"',
      input: line('{"jsonrpc":"2.0","id":"1","error":"x"}'),
      frames: [],
      rule: "stream.error-object",
    },
    {
      name: "invalid-error-code-missing",
      description: "error without code",
      input: line('{"jsonrpc":"2.0","id":"1","error":{"message":"x"}}'),
      frames: [],
      rule: "stream.error-object",
    },
    {
      name: "invalid-error-code-fraction",
      description: "error code 1.5",
      input: line('{"jsonrpc":"2.0","id":"1","error":{"code":1.5,"message":"x"}}'),
      frames: [],
      rule: "stream.error-object",
    },
    {
      name: "invalid-error-code-exponent",
      description: "error code -3.26e4",
      input: line('{"jsonrpc":"2.0","id":"1","error":{"code":-3.26e4,"message":"x"}}'),
      frames: [],
      rule: "stream.error-object",
      lexeme: true,
    },
    {
      name: "invalid-error-message-missing",
      description: "error without message",
      input: line('{"jsonrpc":"2.0","id":"1","error":{"code":-32603}}'),
      frames: [],
      rule: "stream.error-object",
    },
    {
      name: "invalid-error-unknown-member",
      description: "error with an unknown member",
      input: line('{"jsonrpc":"2.0","id":"1","error":{"code":-32603,"message":"x","extra":1}}'),
      frames: [],
      rule: "stream.error-object",
    },
    {
      name: "invalid-violation-stops-the-stream",
      description: "frames after a violation are never yielded",
      input: Buffer.concat([line(R1), line("[]"), line(reply('"2"'))]),
      frames: [ok1],
      rule: "stream.batch",
    },
  ];
  return out;
}

/** Generate generated/vectors/stream/<name>.json and its index. */
export async function generateStreamVectors(model: Model): Promise<OutputFile[]> {
  const all = cases(model);
  const ruleIds = new Set<string>([
    ...model.tables.streamV2.framing_rules.map((r) => r.id),
    ...model.tables.documentRules.rules.map((r) => r.id),
  ]);
  const names = new Set<string>();
  for (const c of all) {
    if (names.has(c.name)) throw new Error(`stream-vectors target: duplicate case ${c.name}`);
    names.add(c.name);
    if (c.rule !== null && !ruleIds.has(c.rule))
      throw new Error(`stream-vectors target: case ${c.name} names unknown rule ${c.rule}`);
    if ((c.rule === null) !== c.name.startsWith("valid-"))
      throw new Error(`stream-vectors target: case ${c.name}: valid-* cases, and only they, end without a violation`);
  }
  const covered = new Set(all.map((c) => c.rule));
  for (const r of model.tables.streamV2.framing_rules) {
    const needs = r.layer === "frame" ? r.on_violation.startsWith("framing violation") : r.layer === "envelope";
    if (needs && !covered.has(r.id)) throw new Error(`stream-vectors target: framing rule ${r.id} has no vector`);
  }
  const maxFrame = model.tables.limits.limits.find((l) => l.name === "max_frame_bytes")?.value as number;
  const files: OutputFile[] = all.map((c) => ({
    path: `generated/vectors/stream/${c.name}.json`,
    content: stableJson(
      {
        id: `stream/${c.name}`,
        verdict: c.rule === null ? "valid" : "invalid",
        rule: c.rule,
        description: c.description,
        max_frame_bytes: c.maxFrameBytes ?? maxFrame,
        lexeme: c.lexeme ?? false,
        frames: c.frames,
        input_base64: c.input.toString("base64"),
      },
      `${BANNER} Source: codegen/targets/vectors/stream-vectors.ts (spec/tables/stream-v2.json).`,
    ),
  }));
  files.push({
    path: "generated/vectors/stream/index.json",
    content: stableJson(
      {
        format:
          "one file per case at generated/vectors/stream/<name>.json: {id, verdict, rule, description, max_frame_bytes, lexeme, frames, input_base64}. Feed the decoded input to a frame reader bounded by max_frame_bytes (whole, and one byte per push; then end of input), judge every frame; expect exactly `frames` in order (kind; id with its JSON type when the frame has one; method when it has one), then the violation `rule` (null: the input ends with none). `lexeme: true` marks a number-lexeme problem a JSON Schema validator cannot see.",
        vectors: all.map((c) => ({
          id: `stream/${c.name}`,
          path: `stream/${c.name}.json`,
          verdict: c.rule === null ? "valid" : "invalid",
          rule: c.rule,
        })),
      },
      BANNER,
    ),
  });
  return files;
}
