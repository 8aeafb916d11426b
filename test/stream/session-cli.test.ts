/**
 * `lifeloop-callback session` as a real process (built dist/), both transports on the same JSON
 * Lines file (spec/host-runtime.md §"CLI: lifeloop-callback session"), and the TypeScript client
 * runner's own duties as a process: v1 mode, and exit within limits.stream_client_exit_ms of stdin
 * EOF and of SIGTERM in v2 mode (even with a timer keeping its event loop alive).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../generated/ts/spec.js";
import { validateValue } from "../../runtime/wire/validate.js";
import { CLI } from "../support/cli-process.js";
import { spawnChild } from "../support/spawn-child.js";
import { envelope, RAW_CLIENT, scratch, SESSION_EVENTS, TS_RUNNER } from "./support.js";

const tmp = scratch();
afterAll(() => tmp.cleanup());

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A watchdog, not a bound: a session that hangs fails instead of holding the suite. */
const WATCHDOG_MS = 120_000;

function run(program: string, args: readonly string[], input = "", env?: NodeJS.ProcessEnv): Promise<Run> {
  return spawnChild({
    command: program,
    args,
    input,
    ...(env === undefined ? {} : { env }),
    watchdogMs: WATCHDOG_MS,
  }).then(({ code, signal, stdout, stderr }) => ({ code, signal, stdout, stderr }));
}

const session = (args: readonly string[], input = ""): Promise<Run> =>
  run(process.execPath, [CLI, "session", ...args], input);

function sessionFile(name: string, lines: readonly string[]): string {
  const file = join(tmp.dir, name);
  writeFileSync(file, lines.map((l) => `${l}\n`).join(""));
  return file;
}

const whole = SESSION_EVENTS.map((event, i) => JSON.stringify(envelope(event, i + 1)));

describe("cli: session", () => {
  for (const transport of ["subprocess", "stream"] as const) {
    it(`--transport ${transport}: one line per envelope in order, then the summary`, async () => {
      const file = sessionFile(`whole-${transport}.jsonl`, [...whole, JSON.stringify({ schema_version: "nope" })]);
      const r = await session(["--transport", transport, "--program", TS_RUNNER, "--timeout-ms", "10000", file]);
      expect(r.code, r.stderr).toBe(1);
      const lines = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.length).toBe(whole.length + 2);
      lines.slice(0, whole.length).forEach((line, i) => {
        expect(Object.keys(line)).toEqual(["event_id", "response", "failure", "receipt", "elapsed_ms"]);
        expect(line.event_id).toBe(`e${i + 1}`);
        expect(line.failure).toBeNull();
        expect((line.response as { metadata: { transport: string } }).metadata.transport).toBe(transport);
        expect(validateValue("LifecycleReceipt", line.receipt)).toEqual([]);
      });
      const invalid = lines[whole.length] as { event_id: unknown; failure: { variant: string } };
      expect([invalid.event_id, invalid.failure.variant]).toEqual([null, "invalid_request"]);
      expect(lines[whole.length + 1]).toMatchObject({
        summary: {
          transport,
          events: whole.length + 1,
          delivered: whole.length,
          failed: 1,
          spawns: transport === "stream" ? 1 : whole.length,
          discarded_frames: 0,
        },
      });
    });
  }

  it("a reused idempotency_key with different content is the event's state_conflict, never a crash; the session goes on", async () => {
    const keyed = [1, 2, 3].map((n) => {
      const env = envelope("session.started", n);
      return JSON.stringify({ ...env, request: { ...env.request, idempotency_key: "same-key" } });
    });
    for (const transport of ["subprocess", "stream"] as const) {
      const r = await session([
        "--transport",
        transport,
        "--program",
        TS_RUNNER,
        "--timeout-ms",
        "10000",
        sessionFile(`idem-${transport}.jsonl`, keyed),
      ]);
      expect(r.code, r.stderr).toBe(1);
      const lines = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.length).toBe(4);
      expect(validateValue("LifecycleReceipt", lines[0]?.receipt)).toEqual([]);
      for (const line of lines.slice(1, 3))
        expect(line).toMatchObject({ receipt: null, receipt_error: { failure_class: "state_conflict" } });
      expect(lines[3]).toMatchObject({ summary: { events: 3, delivered: 1, failed: 2 } });
    }
  });

  it("sequence numbers the receipts of one harness_run_id 1..N within the run, on both transports", async () => {
    const lines = [1, 2, 3].map((n) => {
      const env = envelope("session.started", n);
      return JSON.stringify({ ...env, request: { ...env.request, harness_run_id: "run-seq" } });
    });
    for (const transport of ["subprocess", "stream"] as const) {
      const r = await session([
        "--transport",
        transport,
        "--program",
        TS_RUNNER,
        "--timeout-ms",
        "10000",
        sessionFile(`seq-${transport}.jsonl`, lines),
      ]);
      expect(r.code, r.stderr).toBe(0);
      const receipts = r.stdout
        .trim()
        .split("\n")
        .slice(0, 3)
        .map((l) => (JSON.parse(l) as { receipt: { sequence: unknown } }).receipt.sequence);
      expect(receipts, transport).toEqual([1, 2, 3]);
    }
  });

  it("a subcall frame needs --parent-receipt-id: without it the line is invalid_request and nothing is spawned; with it every receipt names the parent", async () => {
    const env = envelope("frame.opened", 1);
    const subcall = JSON.stringify({
      ...env,
      request: { ...env.request, frame_context: { frame_id: "f2", frame_class: "subcall", parent_frame_id: "f1" } },
    });
    for (const transport of ["subprocess", "stream"] as const) {
      const file = sessionFile(`subcall-${transport}.jsonl`, [subcall]);
      const refused = await session(["--transport", transport, "--program", TS_RUNNER, "--timeout-ms", "10000", file]);
      expect(refused.code, refused.stderr).toBe(1);
      const [line, summary] = refused.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(line, transport).toMatchObject({ failure: { variant: "invalid_request" }, receipt: null });
      expect(String((line as { failure: { detail: string } }).failure.detail)).toContain(
        "subcall-requires-parent-receipt",
      );
      expect(summary, transport).toMatchObject({ summary: { failed: 1, spawns: 0 } });
      const parented = await session([
        "--transport",
        transport,
        "--program",
        TS_RUNNER,
        "--timeout-ms",
        "10000",
        "--parent-receipt-id",
        "rcpt-root",
        file,
      ]);
      expect(parented.code, parented.stderr).toBe(0);
      expect(JSON.parse(parented.stdout.split("\n")[0] as string)).toMatchObject({
        failure: null,
        receipt: { parent_receipt_id: "rcpt-root", status: "delivered" },
      });
    }
  });

  it("exit 0 when every envelope got a valid response; discarded frames are counted", async () => {
    const file = sessionFile("dup.jsonl", whole.slice(0, 3));
    const r = await session([
      "--transport",
      "stream",
      "--program",
      RAW_CLIENT,
      "--arg",
      "--behave",
      "--arg",
      "duplicate",
      "--timeout-ms",
      "10000",
      file,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout.trim().split("\n").pop() as string) as { summary: Record<string, unknown> };
    expect(summary.summary).toMatchObject({ events: 3, delivered: 3, failed: 0, spawns: 1, discarded_frames: 3 });
  });

  it("a line that is not JSON is exit 3 before anything is sent", async () => {
    const witness = join(tmp.dir, "never.jsonl");
    const file = sessionFile("bad.jsonl", [whole[0] as string, "not json", whole[1] as string]);
    const r = await session([
      "--transport",
      "stream",
      "--program",
      RAW_CLIENT,
      "--arg",
      "--log",
      "--arg",
      witness,
      "--timeout-ms",
      "5000",
      file,
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("line 2");
    expect(existsSync(witness), "the client was never started").toBe(false);
  });

  it("--transport stream with a client that writes no frame: the failure detail asks whether it implements --stream", async () => {
    const silent = join(tmp.dir, "silent-client.sh");
    writeFileSync(silent, "#!/bin/sh\nexec cat >/dev/null\n", { mode: 0o755 });
    const file = sessionFile("silent.jsonl", [whole[0] as string]);
    const r = await session(["--transport", "stream", "--program", silent, "--timeout-ms", "300", file]);
    expect(r.code, r.stderr).toBe(1);
    const first = JSON.parse(r.stdout.split("\n")[0] as string) as { failure: { variant: string; detail: string } };
    expect(first.failure.variant).toBe("timeout");
    expect(first.failure.detail).toContain("the client wrote no frame: does it implement --stream?");
  });

  it("a pretty-printed envelope is exit 3 with a hint that the input is JSON Lines", async () => {
    const file = join(tmp.dir, "pretty.json");
    writeFileSync(file, `${JSON.stringify(envelope("session.started", 1), null, 2)}\n`);
    const r = await session(["--transport", "subprocess", "--program", TS_RUNNER, "--timeout-ms", "5000", file]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("line 1 is not one JSON document");
    expect(r.stderr).toContain("JSON Lines: one DispatchEnvelope per line, e.g. jq -c . FILE");
  });

  it("usage errors are exit 2: unknown transport, relative program, missing timeout", async () => {
    const file = sessionFile("one.jsonl", [whole[0] as string]);
    for (const args of [
      ["--transport", "carrier-pigeon", "--program", RAW_CLIENT, "--timeout-ms", "1000", file],
      ["--program", "raw-client.mjs", "--timeout-ms", "1000", file],
      ["--program", RAW_CLIENT, file],
    ]) {
      const r = await session(args);
      expect(r.code, args.join(" ")).toBe(2);
    }
  });

  it("reads standard input with -", async () => {
    const r = await session(
      ["--transport", "stream", "--program", RAW_CLIENT, "--timeout-ms", "10000", "-"],
      `${whole.slice(0, 2).join("\n")}\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n").length).toBe(3);
  });
});

describe("TypeScript client runner as a process", () => {
  it("v1: one envelope on stdin, one CallbackResponse on stdout, exit 0", async () => {
    const r = await run(TS_RUNNER, [], JSON.stringify(envelope("session.started", 1)));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: "delivered",
      metadata: { transport: "subprocess", event_id: "e1" },
    });
  });

  it("v1: host commands spawn the default host CLI, lifeloop-callback on PATH (the group is this toolkit's extension): put, then get the same bytes back", async () => {
    const store = scratch();
    try {
      // The only lifeloop-callback on PATH is a wrapper around the built CLI; LIFELOOP_CLI is unset.
      const bin = join(store.dir, "bin");
      mkdirSync(bin);
      writeFileSync(
        join(bin, "lifeloop-callback"),
        `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
        { mode: 0o755 },
      );
      const { LIFELOOP_CLI: _unset, ...inherited } = process.env;
      const env = {
        ...inherited,
        PATH: `${bin}:${process.env.PATH ?? ""}`,
        LIFELOOP_CONTINUATION_ROOT: join(store.dir, "store"),
      };
      const r = await run(TS_RUNNER, ["--behave", "put-get"], JSON.stringify(envelope("session.started", 7)), env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ metadata: { transport: "subprocess", roundtrip: "blob of e7" } });
    } finally {
      store.cleanup();
    }
  });

  for (const how of ["EOF", "SIGTERM"] as const) {
    it(`v2: exits within limits.stream_client_exit_ms of ${how}, even with a timer running`, async () => {
      const child = spawn(TS_RUNNER, ["--behave", "timer", "--stream"], { stdio: ["pipe", "pipe", "pipe"] });
      const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
        child.on("exit", (code) => resolve({ code, at: performance.now() })),
      );
      // Barrier: the runner is serving once it has answered one request.
      const answered = new Promise<string>((resolve) =>
        child.stdout.once("data", (d: Buffer) => resolve(d.toString())),
      );
      child.stdin.write(
        `{"jsonrpc":"2.0","id":"1","method":"event/session.started","params":${JSON.stringify(envelope("session.started", 1))}}\n`,
      );
      expect(JSON.parse(await answered)).toMatchObject({ jsonrpc: "2.0", id: "1", result: { status: "delivered" } });
      const t0 = performance.now();
      if (how === "EOF") child.stdin.end();
      else child.kill("SIGTERM");
      const { code, at } = await exited;
      expect(code).toBe(0);
      expect(at - t0).toBeLessThan(LIMITS.stream_client_exit_ms);
    });
  }

  it("v2: unknown methods get -32601, notifications no reply, a bad host frame ends the runner with exit 1", async () => {
    const r = await run(
      TS_RUNNER,
      ["--stream"],
      ['{"jsonrpc":"2.0","id":5,"method":"nope/x"}', '{"jsonrpc":"2.0","method":"client/hello"}', "[]"]
        .map((l) => `${l}\n`)
        .join(""),
    );
    expect(r.code).toBe(1);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      { jsonrpc: "2.0", id: 5, error: { code: -32601, message: "unknown method nope/x", data: { method: "nope/x" } } },
    ]);
    expect(r.stderr).toContain("stream.batch");
  });
});
