/**
 * The continuation store over the stream (spec/continuation-store.md §"Over the stream";
 * runtime/continuation/stream-handlers.ts), with real processes and a real store directory:
 *
 * - `lifeloop-callback session --transport stream` (built dist/) drives the Go, Python and TS
 *   stream runners (go-echo, python-echo, node/stream-actions.mjs, actions store-roundtrip and
 *   store-get-missing): in one session (one spawn) each puts a binary blob through the host and gets
 *   it back, and a get of a missing key comes back as the SDK's documented not_found error;
 * - what was written over the stream is read back byte for byte by our `continuation get` and by
 *   the reference's `lifeloop continuation get`, with the same metadata;
 * - the session resolves the store as the CLI does: every row of the table's root_resolution;
 * - v1 for comparison: the TS client's same helpers spawn the CLI `$LIFELOOP_CLI` names;
 * - every command error maps to its row of the stream error-code table (the host's own
 *   serveReverseRequest on real stores, in process).
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STREAM_V2 } from "../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import { storeFromEnvironment } from "../../runtime/continuation/root.js";
import { ContinuationStore } from "../../runtime/continuation/store.js";
import { continuationHandlers } from "../../runtime/continuation/stream-handlers.js";
import { CONTINUATION } from "../../runtime/continuation/table.js";
import { serveReverseRequest } from "../../runtime/stream/reverse.js";
import { FIXTURE_CLIENTS_DIR, GO_ECHO_DIR } from "../support/fixture-clients.js";
import { spawnChild } from "../support/spawn-child.js";
import { envelope } from "../stream/support.js";
import { CLI, REFERENCE_CLI, removeDir, requireReference, runSide, scratch, storeEnv } from "./support.js";

const tmp = scratch("lifeloop-continuation-stream-");
const GO_PROGRAM = join(tmp, "go-echo");
/** The clients, with the client id each one's store-roundtrip action writes and the error type its SDK documents for not_found. */
const CLIENTS = [
  {
    lang: "go",
    program: GO_PROGRAM,
    clientId: "go-echo",
    notFound: { error_type: "*lifeloop.HostError", is_not_found: true },
  },
  {
    lang: "python",
    program: join(FIXTURE_CLIENTS_DIR, "python-echo", "echo.py"),
    clientId: "python-echo",
    notFound: { error_type: "ContinuationNotFoundError" },
  },
  {
    lang: "ts",
    program: join(FIXTURE_CLIENTS_DIR, "node", "stream-actions.mjs"),
    clientId: "ts-runner",
    notFound: { error_type: "CommandError" },
  },
] as const;
const THREAD = "stream-store";

beforeAll(async () => {
  requireReference();
  // Built into this suite's scratch directory, not the shared .cache/bin (another suite may build it there).
  const built = await run("go", ["build", "-o", GO_PROGRAM, "."], { cwd: GO_ECHO_DIR, env: process.env });
  if (built.code !== 0) throw new Error(`go build of go-echo failed: ${built.stderr}`);
}, 300_000);
afterAll(() => removeDir(tmp));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A real process, killed at 60 s (a watchdog) and always reaped. */
function run(
  program: string,
  args: readonly string[],
  options: { readonly cwd?: string; readonly env: NodeJS.ProcessEnv; readonly input?: string },
): Promise<Run> {
  return spawnChild({
    command: program,
    args,
    cwd: options.cwd ?? tmp,
    env: options.env,
    input: options.input ?? "",
    watchdogMs: 60_000,
  }).then(({ code, stdout, stderr }) => ({ code, stdout, stderr }));
}

/** The blob store-roundtrip:KEY writes (the fixtures' storeBlob): every byte value 0..255, then KEY. */
function fixtureBlob(key: string): Buffer {
  return Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from(key, "ascii")]);
}

/** An envelope whose request asks the fixture for `action` (request.metadata.matrix_action). */
function withAction(n: number, action: string): DispatchEnvelope {
  const e = envelope("session.started", n);
  return { ...e, request: { ...e.request, metadata: { matrix_action: action } } };
}

interface SessionLine {
  readonly event_id: string;
  readonly response: { readonly metadata: Record<string, unknown> } | null;
  readonly failure: unknown;
}

/** Run a stream session of `actions` against `program` with exactly `env` (plus PATH); the lines and the summary. */
async function streamSession(
  name: string,
  program: string,
  actions: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<{ run: Run; lines: SessionLine[]; summary: Record<string, unknown> }> {
  const file = join(tmp, `${name}.jsonl`);
  writeFileSync(file, actions.map((a, i) => `${JSON.stringify(withAction(i + 1, a))}\n`).join(""));
  const r = await run(
    process.execPath,
    [CLI, "session", "--transport", "stream", "--program", program, "--timeout-ms", "30000", file],
    { env: storeEnv(env) },
  );
  const all = r.stdout
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    run: r,
    lines: all.slice(0, -1) as unknown as SessionLine[],
    summary: (all.at(-1)?.summary ?? {}) as Record<string, unknown>,
  };
}

describe("continuation/* over the stream: session --transport stream with the Go, Python and TS runners", () => {
  const store = join(tmp, "store");
  const env = { LIFELOOP_CONTINUATION_ROOT: store };
  const sessions = new Map<string, Awaited<ReturnType<typeof streamSession>>>();

  beforeAll(async () => {
    const done = await Promise.all(
      CLIENTS.map((c) =>
        streamSession(c.lang, c.program, [`store-roundtrip:${c.lang}-key`, `store-get-missing:${c.lang}-missing`], env),
      ),
    );
    for (const [i, c] of CLIENTS.entries()) sessions.set(c.lang, done[i] as Awaited<ReturnType<typeof streamSession>>);
  }, 120_000);

  for (const c of CLIENTS) {
    it(`${c.lang}: puts a binary blob and gets it back through the host in one session (one spawn)`, () => {
      const s = sessions.get(c.lang);
      expect(s?.run.code, s?.run.stderr).toBe(0);
      expect(s?.summary).toMatchObject({ transport: "stream", events: 2, delivered: 2, failed: 0, spawns: 1 });
      expect(s?.lines[0]?.response?.metadata.store).toEqual({
        put_error: "",
        get_error: "",
        same: true,
        client_id: c.clientId,
        ttl_s: 3600,
      });
    });

    it(`${c.lang}: a get of a missing key is the SDK's not_found error`, () => {
      const s = sessions.get(c.lang);
      expect(s?.lines[1]?.response?.metadata.store).toEqual({ get_error: "not_found", ...c.notFound });
    });

    it(`${c.lang}: the entry written over the stream reads back byte for byte with our CLI and the reference's`, async () => {
      const key = `${c.lang}-key`;
      const [ours, reference] = await Promise.all([
        runSide("ours", ["get", "--thread", THREAD, "--key", key], { env: storeEnv(env) }),
        runSide("reference", ["get", "--thread", THREAD, "--key", key], { env: storeEnv(env) }),
      ]);
      for (const r of [ours, reference]) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout.equals(fixtureBlob(key)), "the blob's bytes").toBe(true);
        expect(JSON.parse(r.stderr)).toMatchObject({ client_id: c.clientId, ttl_s: 3600 });
      }
      expect(reference.stderr).toBe(ours.stderr);
    });
  }

  it("the reference lists every key the three sessions wrote", async () => {
    const r = await runSide("reference", ["list", "--thread", THREAD], { env: storeEnv(env) });
    expect(r.code, r.stderr).toBe(0);
    const keys = (JSON.parse(r.stdout.toString("utf8")) as { keys: { key: string }[] }).keys.map((k) => k.key).sort();
    expect(keys).toEqual(CLIENTS.map((c) => `${c.lang}-key`).sort());
  });
});

describe("v1 for comparison: the same TS client action without --stream runs the CLI $LIFELOOP_CLI names", () => {
  it("session --transport subprocess, LIFELOOP_CLI = the reference lifeloop: the round trip goes through it, into the same store format", async () => {
    const store = join(tmp, "v1-store");
    const env = { LIFELOOP_CONTINUATION_ROOT: store, LIFELOOP_CLI: REFERENCE_CLI };
    const file = join(tmp, "v1.jsonl");
    writeFileSync(file, `${JSON.stringify(withAction(1, "store-roundtrip:v1-key"))}\n`);
    const r = await run(
      process.execPath,
      [CLI, "session", "--transport", "subprocess", "--program", CLIENTS[2].program, "--timeout-ms", "30000", file],
      { env: storeEnv(env) },
    );
    expect(r.code, r.stderr).toBe(0);
    const line = JSON.parse(r.stdout.split("\n")[0] as string) as SessionLine;
    expect(line.response?.metadata).toMatchObject({
      store: { put_error: "", get_error: "", same: true, client_id: "ts-runner", ttl_s: 3600 },
    });
    const ours = await runSide("ours", ["get", "--thread", THREAD, "--key", "v1-key"], { env: storeEnv(env) });
    expect(ours.stdout.equals(fixtureBlob("v1-key"))).toBe(true);
  }, 60_000);
});

describe("session --transport stream resolves the store as the continuation CLI does (every root_resolution row)", () => {
  for (const [i, row] of CONTINUATION.root_resolution.entries()) {
    it(`only $${row.environment} set: the entry lands under $${row.environment}${row.append.map((a) => `/${a}`).join("")}`, async () => {
      const base = join(tmp, `root-${i}`);
      const env = { [row.environment]: base };
      const s = await streamSession(`root-${i}`, GO_PROGRAM, ["store-roundtrip:rooted"], env);
      expect(s.run.code, s.run.stderr).toBe(0);
      expect(s.lines[0]?.response?.metadata.store).toMatchObject({ put_error: "", same: true });
      // Read back with the root spelled out: the session wrote where the table says.
      const got = await runSide("reference", ["get", "--thread", THREAD, "--key", "rooted"], {
        env: storeEnv({ LIFELOOP_CONTINUATION_ROOT: join(base, ...row.append) }),
      });
      expect(got.code, got.stderr).toBe(0);
      expect(got.stdout.equals(fixtureBlob("rooted"))).toBe(true);
    }, 60_000);
  }
});

describe("continuationHandlers: every command error is its stream error reply (served by the host's serveReverseRequest)", () => {
  const signal = new AbortController().signal;
  const codeOf = (name: string): number => STREAM_V2.error_codes.find((r) => r.name === name)?.code as number;
  const root = join(tmp, "handlers");
  const handlers = continuationHandlers(new ContinuationStore({ root, maxBlobBytes: 8 }), { maxFrameBytes: 4096 });
  const serve = (method: string, params: Record<string, unknown>) =>
    serveReverseRequest(method, 1, params, handlers, signal);
  const b64 = (text: string | Buffer): string => Buffer.from(text).toString("base64");

  it("put, get, list, drop, drop-thread answer the CLI's result members", async () => {
    const put = await serve("continuation/put", {
      thread: "t",
      key: "k",
      client_id: "c1",
      ttl_s: 60,
      blob_base64: b64("12345678"),
    });
    expect(put.ok).toBe(true);
    const written = put.ok
      ? (JSON.parse(put.resultJson.toString()) as { status: string; written_at_epoch_s: number })
      : null;
    expect(written).toMatchObject({ status: "ok", written_at_epoch_s: expect.any(Number) });
    const got = await serve("continuation/get", { thread: "t", key: "k" });
    expect(got.ok && JSON.parse(got.resultJson.toString())).toEqual({
      blob_base64: b64("12345678"),
      client_id: "c1",
      ttl_s: 60,
      written_at_epoch_s: written?.written_at_epoch_s,
    });
    const listed = await serve("continuation/list", { thread: "t" });
    expect(listed.ok && JSON.parse(listed.resultJson.toString())).toEqual({
      keys: [{ key: "k", client_id: "c1", ttl_s: 60, written_at_epoch_s: written?.written_at_epoch_s }],
      thread: "t",
    });
    const dropped = await serve("continuation/drop", { thread: "t", key: "k" });
    expect(dropped.ok && JSON.parse(dropped.resultJson.toString())).toEqual({ status: "ok" });
    await serve("continuation/put", { thread: "t", key: "k2", blob_base64: b64("") });
    const gone = await serve("continuation/drop-thread", { thread: "t" });
    expect(gone.ok && JSON.parse(gone.resultJson.toString())).toEqual({ dropped_count: 1, status: "ok" });
  });

  it("not_found, client_id_mismatch, blob_too_large, invalid_identifier: the table's code and the CLI's error members", async () => {
    const hidden = await serve("continuation/get", { thread: "t", key: ".hidden" });
    expect(hidden.ok ? null : hidden.error).toMatchObject({
      code: codeOf("invalid_identifier"),
      data: { error: "invalid_identifier", field: "key", detail: expect.any(String) },
    });
    const missing = await serve("continuation/get", { thread: "t", key: "nobody" });
    expect(missing.ok ? null : missing.error).toMatchObject({
      code: codeOf("not_found"),
      data: { error: "not_found" },
    });
    await serve("continuation/put", { thread: "g", key: "k", client_id: "owner", blob_base64: b64("x") });
    const mismatch = await serve("continuation/get", { thread: "g", key: "k", require_client_id: "intruder" });
    expect(mismatch.ok ? null : mismatch.error).toMatchObject({
      code: codeOf("client_id_mismatch"),
      data: { error: "client_id_mismatch", required: "intruder", actual: "owner" },
    });
    const tooLarge = await serve("continuation/put", { thread: "g", key: "big", blob_base64: b64("123456789") });
    expect(tooLarge.ok ? null : tooLarge.error).toMatchObject({
      code: codeOf("blob_too_large"),
      data: { error: "blob_too_large", max_bytes: 8 },
    });
  });

  it("storage_failure: a root that is a file; and a root no variable names (store from the environment)", async () => {
    const file = join(tmp, "not-a-directory");
    writeFileSync(file, "x");
    const onFile = continuationHandlers(new ContinuationStore({ root: file }));
    const r = await serveReverseRequest(
      "continuation/put",
      1,
      { thread: "t", key: "k", blob_base64: b64("x") },
      onFile,
      signal,
    );
    expect(r.ok ? null : r.error).toMatchObject({
      code: codeOf("storage_failure"),
      data: { error: "storage_failure", reason: expect.any(String) },
    });
    const nowhere = continuationHandlers(() => storeFromEnvironment({}));
    const n = await serveReverseRequest("continuation/list", 1, { thread: "t" }, nowhere, signal);
    expect(n.ok ? null : n.error).toMatchObject({
      code: codeOf("storage_failure"),
      data: { error: "storage_failure" },
    });
  });

  it("a get whose reply cannot fit in one frame is blob_too_large with the largest blob that fits; the entry stays", async () => {
    const big = new ContinuationStore({ root: join(tmp, "big") });
    await big.put("t", "k", Buffer.alloc(4000, 1));
    const small = continuationHandlers(big, { maxFrameBytes: 4096 });
    const r = await serveReverseRequest("continuation/get", 1, { thread: "t", key: "k" }, small, signal);
    const error = r.ok ? null : r.error;
    expect(error).toMatchObject({
      code: codeOf("blob_too_large"),
      data: { error: "blob_too_large", max_bytes: expect.any(Number) },
    });
    const fits = (error?.data as { max_bytes: number } | undefined)?.max_bytes ?? -1;
    await big.put("t", "fits", Buffer.alloc(fits, 1));
    const ok = await serveReverseRequest("continuation/get", 1, { thread: "t", key: "fits" }, small, signal);
    expect(ok.ok, "a blob of exactly max_bytes is served").toBe(true);
    if (ok.ok) expect(ok.resultJson.length + `{"jsonrpc":"2.0","id":1,"result":}`.length).toBeLessThanOrEqual(4096);
    expect((await big.get("t", "k")).blob.length).toBe(4000);
  });

  it("a ttl_s beyond the wire's integer range (written by the CLI) is internal_error, never rounded", async () => {
    const wide = new ContinuationStore({ root: join(tmp, "wide") });
    await wide.put("t", "k", Buffer.from("x"), { ttlS: 2n ** 60n });
    const r = await serveReverseRequest(
      "continuation/get",
      1,
      { thread: "t", key: "k" },
      continuationHandlers(wide),
      signal,
    );
    expect(r.ok ? null : r.error).toMatchObject({ code: codeOf("internal_error") });
    expect(r.ok ? "" : r.error.message).toContain("ttl_s");
  });

  it("list diagnostics go to onDiagnostic", async () => {
    const diag = join(tmp, "diag");
    const s = new ContinuationStore({ root: diag });
    await s.put("t", "good", Buffer.from("x"));
    mkdirSync(join(diag, "t"), { recursive: true });
    writeFileSync(join(diag, "t", "bad"), "not an entry");
    chmodSync(join(diag, "t", "bad"), 0o600);
    const seen: unknown[] = [];
    const r = await serveReverseRequest(
      "continuation/list",
      1,
      { thread: "t" },
      continuationHandlers(s, { onDiagnostic: (d) => seen.push(d) }),
      signal,
    );
    expect(r.ok && (JSON.parse(r.resultJson.toString()) as { keys: { key: string }[] }).keys.map((k) => k.key)).toEqual(
      ["good"],
    );
    expect(seen).toMatchObject([{ diagnostic: "list_skipped_entry", reason: "malformed_meta" }]);
  });
});
