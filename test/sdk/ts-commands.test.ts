/**
 * The TypeScript client's v1 command helpers (runtime/client/commands.ts, ClientCommands over the
 * CLI transport) against real processes: the built CLI (dist/) and a wrapper script standing in
 * for it.
 *
 * - A put the CLI refuses before reading its blob (over the store's limit) is the CLI's structured
 *   error, blob_too_large, as in the Go and Python helpers: the EPIPE of the blob's write must not
 *   crash the client (issue 25).
 * - The timeout holds when the CLI is a wrapper whose child holds the pipes: the helper kills the
 *   process group and settles at the deadline, not at the pipes' EOF (issue 25).
 * - The runner's default command deadline is limits.client_command_timeout_ms (issue 26), as in the
 *   Go and Python SDKs.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { PassThrough, Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { ClientCommands, CommandError, type CommandTransport } from "../../runtime/client/commands.js";
import { type ClientContext, failureResponse, serve } from "../../runtime/client/runner.js";
import { BIN, REPO_ROOT } from "../support/cli-process.js";

const TMP = mkdtempSync(join(tmpdir(), "lifeloop-ts-commands-"));
const started: number[] = [];
afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone, as it should be
    }
  }
  rmSync(TMP, { recursive: true, force: true });
});

/** Whether `pid` runs (a zombie nobody reaped yet does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

describe("ClientCommands over the CLI (v1)", () => {
  it("a blob over the store's limit is the CLI's blob_too_large, not a crash on EPIPE", async () => {
    const previous = process.env.LIFELOOP_CONTINUATION_ROOT;
    process.env.LIFELOOP_CONTINUATION_ROOT = join(TMP, "store");
    try {
      const commands = new ClientCommands({ kind: "cli", cli: BIN, timeoutMs: 60_000 });
      // 17 MiB: over the default limit (max_request_bytes, 16 MiB); the CLI refuses before reading it.
      const blob = Buffer.alloc(LIMITS.max_request_bytes + 1024 * 1024);
      const error = await commands.continuation.put?.({ thread: "t", key: "k" }, blob).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CommandError);
      expect((error as CommandError).errorName).toBe("blob_too_large");
    } finally {
      if (previous === undefined) delete process.env.LIFELOOP_CONTINUATION_ROOT;
      else process.env.LIFELOOP_CONTINUATION_ROOT = previous;
    }
  }, 120_000);

  it("enforces the timeout when the CLI is a wrapper whose child holds the pipes: the group is killed", async () => {
    const pidFile = join(TMP, "child.pid");
    const wrapper = join(TMP, "wrapper-cli");
    writeFileSync(wrapper, `#!/bin/sh\nsleep 30 &\necho $! > ${pidFile}\nwait\n`);
    chmodSync(wrapper, 0o755);
    const commands = new ClientCommands({ kind: "cli", cli: wrapper, timeoutMs: 1_000 });
    const at = performance.now();
    const error = await commands.continuation.list?.({ thread: "t" }).then(
      () => null,
      (e: unknown) => e,
    );
    const took = performance.now() - at;
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    started.push(pid);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).message).toContain("did not finish within 1000 ms");
    // 1 s asked; the settle margin of a loaded machine on top (the child would hold it for 30 s).
    expect(took).toBeLessThan(1_000 + 4 * LIMITS.settle_margin_ms);
    const deadline = performance.now() + 5_000;
    while (running(pid) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(running(pid), `the wrapper's child ${pid} still runs`).toBe(false);
  }, 120_000);
});

describe("over the stream, a get result's blob_base64 is decoded strictly (hostile review D4)", () => {
  // The host side of the exchange is a canned reply: what a broken or hostile host could send.
  const over = (result: Record<string, unknown>): ClientCommands =>
    new ClientCommands({ kind: "stream", request: async () => ({ kind: "success_reply", id: 1, result }) });
  const meta = { client_id: "c", ttl_s: 60, written_at_epoch_s: 1 };

  it("canonical padded base64 is the blob", async () => {
    const got = await over({ ...meta, blob_base64: "aGVsbG8=" }).continuation.get?.({ thread: "t", key: "k" });
    expect(got?.blob?.toString("utf8")).toBe("hello");
    expect(got?.result).toEqual(meta);
  });

  it.each([
    ["not base64", "!!!!"],
    ["base64url", "-_-_"],
    ["missing padding", "aGVsbG8"],
    ["whitespace", "aGVs bG8="],
    ["a second padding", "aGVsbG8=="],
    ["stray bits", "aGVsbG9="],
  ])("%s is a CommandError (invalid_request), not lenient bytes", async (_name, text) => {
    await expect(
      over({ ...meta, blob_base64: text }).continuation.get?.({ thread: "t", key: "k" }),
    ).rejects.toMatchObject({ name: "CommandError", errorName: "invalid_request" });
  });

  it("a missing blob_base64 is a CommandError, not a null blob", async () => {
    await expect(over(meta).continuation.get?.({ thread: "t", key: "k" })).rejects.toBeInstanceOf(CommandError);
  });
});

describe("the client runner's default command deadline", () => {
  it("is limits.client_command_timeout_ms of spec/tables/limits.json when commandTimeoutMs is not given", async () => {
    const table = JSON.parse(readFileSync(join(REPO_ROOT, "spec", "tables", "limits.json"), "utf8")) as {
      limits: { name: string; value: number }[];
    };
    const limit = table.limits.find((l) => l.name === "client_command_timeout_ms");
    expect(limit?.value).toBe(30_000);
    let seen: ClientContext | undefined;
    const stdout = new PassThrough();
    const status = await serve(
      (_request, _payloads, context) => {
        seen = context;
        return failureResponse("internal_error", "probe", "the test only looks at the context", WIRE_VERSION);
      },
      {
        argv: [],
        stdin: Readable.from([readFileSync(join(REPO_ROOT, "examples", "dispatch-envelope.json"))]),
        stdout,
        stderr: new PassThrough(),
        exit: false,
      },
    );
    expect(status).toBe(0);
    // The transport is private to ClientCommands; its deadline is what a v1 command would get.
    const transport = (seen?.commands as unknown as { transport: CommandTransport } | undefined)?.transport;
    expect(transport).toMatchObject({ kind: "cli", timeoutMs: limit?.value });
  });
});
