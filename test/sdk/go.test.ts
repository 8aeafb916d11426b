/**
 * The Go SDK (sdk/go, module lifeloop-callback.dev/lifeloop) as real processes:
 *
 * - `go test -count=1 ./...` in sdk/go (its linters, go vet and gofmt, run in `bash sdk/check.sh`) (the Go tests run every
 *   shared vector, the runner, and the continuation commands against the reference CLI at
 *   .cache/lifeloop-ref/bin/lifeloop);
 * - the go-echo fixture client (test/fixtures/client-lang-neutral/go-echo), built into .cache/bin;
 * - a differential check: the Go decoder (through test/sdk/go-oracle) and the TypeScript validator give
 *   the same verdict, rule id and JSON pointer on the conformance corpus, every shared vector,
 *   deterministic mutations and hand-written parse-layer edge cases;
 * - the generator's view-model check (sdk/go/templates/view-model.schema.json).
 *
 * Needs Go 1.22+ on PATH; a missing toolchain fails the suite with a message (never a skip).
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel } from "../../codegen/model/load.js";
import type { Model } from "../../codegen/model/model.js";
import { buildViewModel, checkGoViewModel } from "../../codegen/targets/go/index.js";
import { WIRE_DOCUMENTS, WIRE_VERSION, type WireObjectTypeName } from "../../generated/ts/spec.js";
import { parseWireDocument } from "../../runtime/wire/validate.js";
import { mutants } from "../differential/mutations.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { GO_ECHO_BIN, GO_ECHO_DIR } from "../support/fixture-clients.js";

const ROOT = REPO_ROOT;
const GO_MODULE = join(ROOT, "sdk", "go");
const ORACLE_DIR = join(ROOT, "test", "sdk", "go-oracle");
/** Mutations per wire document type for the differential check. */
const MUTATIONS_PER_TYPE = 500;
const SEED = 0x60de5d;

/** Run a command to completion (spawnSync reaps it); a missing program fails with a readable message. */
function run(
  command: string,
  args: readonly string[],
  cwd: string,
  input?: string | Buffer,
  timeoutMs = 600_000,
): SpawnSyncReturns<Buffer> {
  const result = spawnSync(command, args, { cwd, input, timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 });
  if (result.error) {
    throw new Error(
      `${command} ${args.join(" ")} (in ${cwd}) could not run: ${result.error.message}. The Go SDK checks need Go 1.22+ on PATH.`,
    );
  }
  return result;
}

function output(result: SpawnSyncReturns<Buffer>): string {
  return `exit ${String(result.status)} signal ${String(result.signal)}\n--- stdout\n${result.stdout.toString()}\n--- stderr\n${result.stderr.toString()}`;
}

describe("Go SDK: go test", () => {
  it("passes go test (shared vectors, strict JSON, round trips, runner, continuation commands)", () => {
    const r = run("go", ["test", "-count=1", "./..."], GO_MODULE);
    expect(r.status, output(r)).toBe(0);
    expect(r.stdout.toString()).toMatch(/^ok\s+lifeloop-callback\.dev\/lifeloop/m);
  });
});

const request = {
  schema_version: WIRE_VERSION,
  event: "frame.opening",
  event_id: "e1",
  adapter_id: "codex",
  adapter_version: "0.1.0",
  integration_mode: "native_hook",
  invocation_id: "i1",
  frame_context: { frame_id: "f1", frame_class: "top_level" },
};
const payload = {
  schema_version: WIRE_VERSION,
  payload_id: "p1",
  client_id: "ccd",
  payload_kind: "k",
  format: "text",
  content_encoding: "utf8",
  body: "hello",
  byte_size: 5,
  acceptable_placements: [{ placement: "pre_prompt_frame", requirement: "required" }],
};

describe("go-echo fixture client", () => {
  beforeAll(() => {
    const r = run("go", ["build", "-o", GO_ECHO_BIN, "."], GO_ECHO_DIR);
    if (r.status !== 0) throw new Error(`go build of go-echo failed\n${output(r)}`);
  });

  function echo(stdin: string): { status: number | null; response: Record<string, unknown>; stderr: string } {
    const r = run(GO_ECHO_BIN, [], ROOT, stdin, 30_000);
    const parsed = parseWireDocument("CallbackResponse", r.stdout);
    if (!parsed.ok)
      throw new Error(`go-echo wrote an invalid CallbackResponse: ${JSON.stringify(parsed.issues[0])}\n${output(r)}`);
    return {
      status: r.status,
      response: parsed.value as unknown as Record<string, unknown>,
      stderr: r.stderr.toString(),
    };
  }

  it("answers a dispatched event with delivered and echoes the event and ids", () => {
    const { status, response, stderr } = echo(
      JSON.stringify({ schema_version: WIRE_VERSION, request, payloads: [payload] }),
    );
    expect(status).toBe(0);
    expect(stderr).toBe("");
    expect(response).toEqual({
      schema_version: WIRE_VERSION,
      status: "delivered",
      failure_class: null,
      retry_class: null,
      metadata: {
        echo: "go-sdk",
        event: "frame.opening",
        event_id: "e1",
        invocation_id: "i1",
        adapter_id: "codex",
        payload_count: 1,
        payload_ids: ["p1"],
      },
    });
  });

  it.each([
    [
      "receipt.emitted",
      JSON.stringify({
        schema_version: WIRE_VERSION,
        request: { ...request, event: "receipt.emitted", frame_context: undefined },
      }),
      "receipt_emitted_rejected",
    ],
    ["an undecodable request", "{not json", "json.syntax"],
    [
      "an invalid request",
      JSON.stringify({ schema_version: WIRE_VERSION, request: { ...request, frame_context: null } }),
      "frame-event-requires-frame-context",
    ],
  ])("answers %s with failed/invalid_request and exits 0", (_name, stdin, warning) => {
    const { status, response, stderr } = echo(stdin);
    expect(status).toBe(0);
    expect(response).toMatchObject({
      status: "failed",
      failure_class: "invalid_request",
      retry_class: "do_not_retry",
      warnings: [{ code: warning }],
    });
    expect(stderr).toMatch(/^lifeloop: rejecting the request/);
  });
});

interface Case {
  readonly id: string;
  readonly typeName: WireObjectTypeName;
  readonly bytes: Uint8Array;
}

const enc = new TextEncoder();

function corpusCases(): Case[] {
  const out: Case[] = [];
  for (const d of WIRE_DOCUMENTS) {
    const dir = join(ROOT, "generated", "conformance", d.fixtureKind);
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .sort()) {
      const fixture = JSON.parse(readFileSync(join(dir, name), "utf8")) as { data?: unknown; data_base64?: string };
      const bytes =
        fixture.data_base64 !== undefined
          ? Buffer.from(fixture.data_base64, "base64")
          : enc.encode(JSON.stringify(fixture.data));
      out.push({ id: `corpus:${d.fixtureKind}/${name}`, typeName: d.typeName, bytes });
    }
  }
  return out;
}

function vectorCases(): Case[] {
  const dir = join(ROOT, "generated", "vectors");
  const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as {
    vectors: { path: string; type: WireObjectTypeName }[];
  };
  return index.vectors.map((v) => {
    const file = JSON.parse(readFileSync(join(dir, v.path), "utf8")) as { document_base64: string };
    return { id: `vector:${v.path}`, typeName: v.type, bytes: Buffer.from(file.document_base64, "base64") };
  });
}

function mutationCases(model: Model, corpus: readonly Case[]): Case[] {
  const out: Case[] = [];
  WIRE_DOCUMENTS.forEach((d, i) => {
    const bases = corpus
      .filter(
        (c) => c.typeName === d.typeName && c.bytes.length <= 16 * 1024 && parseWireDocument(d.typeName, c.bytes).ok,
      )
      .map((c) => JSON.parse(Buffer.from(c.bytes).toString("utf8")) as never);
    for (const m of mutants(model, d.typeName, d.fixtureKind, bases, MUTATIONS_PER_TYPE, SEED + i)) {
      out.push({ id: `mutation:${m.id} [${m.ops.join("; ")}]`, typeName: d.typeName, bytes: m.bytes });
    }
  });
  return out;
}

/** Parse-layer edge cases, each judged as a DispatchEnvelope (the parse layer comes first). */
function edgeCases(): Case[] {
  const valid = JSON.stringify({ schema_version: WIRE_VERSION, request });
  const body = valid.slice(1, -1);
  const texts = [
    "",
    " \n\t",
    "\u00a0{}",
    `{${body}}\u2028`,
    `{${body}} {}`,
    `{${body},"payloads":[]}\u0000`,
    `{${body},}`,
    `{${body}`,
    `{${body},"request":1}`,
    `{${body},"req\\u0075est":1}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"event":"x","event":"y"}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"event_id":"\\ud800"}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"event_id":"\\udc00x"}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"\\ud800":1}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":1e999}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":-1E+400}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":${"9".repeat(400)}}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":01}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":1.}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":.5}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":+1}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":-}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":NaN}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":-Infinity}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"sequence":tru}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"event_id":"a\tb"}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"event_id":"\\x41"}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"event_id":"\\u12"}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"event_id":"abc`,
    `{"schema_version":"${WIRE_VERSION}","request":{'event_id':"a"}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"event_id" "a"}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"event_id":}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"event_id":"a" /* c */}}`,
    `{"schema_version":"${WIRE_VERSION}","request":[1,]}`,
    `{"schema_version":"${WIRE_VERSION}","request":[1 2]}`,
    `{"schema_version":"${WIRE_VERSION}","request":[1,}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"metadata":${"[".repeat(62)}${"]".repeat(62)}}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"metadata":${"[".repeat(63)}${"]".repeat(63)}}}`,
    `{"schema_version":"${WIRE_VERSION}","request":{"metadata":{"a":${'{"b":'.repeat(70)}1${"}".repeat(70)}}}}`,
    `{${body},"zz":1,"10":2,"9":3,"01":4}`,
    `{${body},"payloads":[{"schema_version":"${WIRE_VERSION}"}],"zz":1}`,
    `{${body.replace('"invocation_id":"i1"', '"invocation_id":"i1","sequence":2.0,"metadata":{"x":1.0}')}}`,
    `{${body.replace('"invocation_id":"i1"', '"invocation_id":"i1","sequence":-0')}}`,
    `{${body.replace('"invocation_id":"i1"', '"invocation_id":"i1","sequence":9007199254740993')}}`,
    `{${body.replace('"event_id":"e1"', `"event_id":"${"\u{1F600}".repeat(512)}"`)}}`,
    `{${body.replace('"event_id":"e1"', `"event_id":"${"\u{1F600}".repeat(513)}"`)}}`,
    `{${body.replace('"event_id":"e1"', '"event_id":"\\ud83d\\ude00"')}}`,
  ];
  const out: Case[] = texts.map((t, i) => ({ id: `edge:${i}`, typeName: "DispatchEnvelope", bytes: enc.encode(t) }));
  const raw: [string, number[]][] = [
    ["bom", [0xef, 0xbb, 0xbf, ...enc.encode(valid)]],
    ["overlong", [...enc.encode(`{"schema_version":"`), 0xc0, 0xaf, ...enc.encode('"}')]],
    ["encoded-surrogate", [...enc.encode(`{"schema_version":"`), 0xed, 0xa0, 0x80, ...enc.encode('"}')]],
    ["truncated-utf8", [...enc.encode(`{"schema_version":"`), 0xe2, 0x82]],
    ["above-max-code-point", [...enc.encode(`{"schema_version":"`), 0xf4, 0x90, 0x80, 0x80, ...enc.encode('"}')]],
  ];
  for (const [name, bytes] of raw)
    out.push({ id: `edge:${name}`, typeName: "DispatchEnvelope", bytes: Uint8Array.from(bytes) });
  return out;
}

interface GoVerdict {
  readonly valid: boolean;
  readonly rule?: string;
  readonly pointer: string;
  readonly message?: string;
}

describe("Go decoder vs. TypeScript validator", () => {
  let oracleDir = "";
  let oracle = "";

  beforeAll(() => {
    oracleDir = mkdtempSync(join(tmpdir(), "go-oracle-"));
    oracle = join(oracleDir, "go-oracle");
    const r = run("go", ["build", "-o", oracle, "."], ORACLE_DIR);
    if (r.status !== 0) throw new Error(`go build of test/sdk/go-oracle failed\n${output(r)}`);
  });

  afterAll(() => {
    if (oracleDir) rmSync(oracleDir, { recursive: true, force: true });
  });

  it("agrees on verdict, rule id and pointer for the corpus, every vector, mutations and edge cases", () => {
    const model = loadModel(ROOT);
    const corpus = corpusCases();
    const cases = [...corpus, ...vectorCases(), ...mutationCases(model, corpus), ...edgeCases()];
    const input =
      cases
        .map((c) => JSON.stringify({ type: c.typeName, document_base64: Buffer.from(c.bytes).toString("base64") }))
        .join("\n") + "\n";
    const r = run(oracle, [], ROOT, input, 300_000);
    expect(r.status, output(r)).toBe(0);
    const verdicts = r.stdout
      .toString()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as GoVerdict);
    expect(verdicts.length).toBe(cases.length);
    const disagreements: string[] = [];
    let invalid = 0;
    cases.forEach((c, i) => {
      const go = verdicts[i] as GoVerdict;
      const ts = parseWireDocument(c.typeName, c.bytes);
      const tsView = ts.ok ? "valid" : `${ts.issues[0]?.rule} at ${JSON.stringify(ts.issues[0]?.pointer)}`;
      const goView = go.valid ? "valid" : `${go.rule} at ${JSON.stringify(go.pointer)}`;
      if (!ts.ok) invalid++;
      if (tsView !== goView)
        disagreements.push(
          `${c.id} (${c.typeName}): TypeScript ${tsView}, Go ${goView}${go.message ? ` (${go.message})` : ""}`,
        );
    });
    expect(disagreements.slice(0, 25), `${disagreements.length} of ${cases.length} documents disagree`).toEqual([]);
    expect(cases.length).toBeGreaterThan(2000);
    expect(invalid).toBeGreaterThan(cases.length / 4);
  });
});

describe("Go generator view model", () => {
  it("is validated against its closed schema before rendering", () => {
    const model = loadModel(ROOT);
    const view = buildViewModel(model);
    expect(() => checkGoViewModel(model, view)).not.toThrow();
    const misspelt = { ...view, comandGroups: view.commandGroups };
    expect(() => checkGoViewModel(model, misspelt)).toThrow(/view-model\.schema\.json/);
    const types = view.types as Record<string, unknown>[];
    const broken = { ...view, types: [{ ...types[0], fields: [] }, ...types.slice(1)] };
    expect(() => checkGoViewModel(model, broken)).toThrow(/view-model\.schema\.json/);
  });
});
