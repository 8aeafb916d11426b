/**
 * runtime/cli/output.ts: the CLI's standard output gathers lines and writes them in one piece
 * (issue 30: a `session` printed one synchronous write per event). Witnesses: a real Writable that
 * records each write it receives, and the built CLI writing a session's lines through a pipe.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it, onTestFinished } from "vitest";
import { BufferedOutput, OUTPUT_FLUSH_BYTES } from "../../runtime/cli/output.js";
import { CLI, REPO_ROOT } from "../support/cli-process.js";
import { callbackRequest, dispatchEnvelope, frameContext } from "../support/dispatch.js";

/** A Writable that records every write and can refuse (ask for 'drain') until released. */
class Recorder extends Writable {
  readonly writes: Buffer[] = [];
  private release: (() => void) | null = null;
  hold = false;
  onWrite: (() => void) | null = null;

  constructor(highWaterMark = 16 * 1024) {
    super({ highWaterMark });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.writes.push(Buffer.from(chunk));
    this.onWrite?.();
    if (this.hold) this.release = () => callback();
    else callback();
  }

  /** Complete the held write (the stream then emits 'drain'). */
  releaseHeld(): void {
    this.hold = false;
    this.release?.();
    this.release = null;
  }
}

describe("cli: buffered standard output", () => {
  it("keeps text and bytes in order and writes them in one piece at flush", () => {
    const sink = new Recorder();
    const out = new BufferedOutput(sink);
    for (let i = 0; i < 1000; i++) out.write(`line ${i}\n`);
    out.write(Uint8Array.from([0xff, 0x00, 0x0a]));
    out.write("after the bytes\n");
    expect(sink.writes).toHaveLength(0);
    out.flush();
    expect(sink.writes).toHaveLength(1);
    const expected = Buffer.concat([
      Buffer.from(Array.from({ length: 1000 }, (_, i) => `line ${i}\n`).join("")),
      Buffer.from([0xff, 0x00, 0x0a]),
      Buffer.from("after the bytes\n"),
    ]);
    expect(sink.writes[0]?.equals(expected)).toBe(true);
  });

  it("writes as soon as OUTPUT_FLUSH_BYTES have gathered, and on its own after a short delay", async () => {
    const sink = new Recorder();
    const out = new BufferedOutput(sink);
    const line = `${"x".repeat(1023)}\n`;
    for (let i = 0; i < OUTPUT_FLUSH_BYTES / 1024; i++) out.write(line);
    expect(sink.writes).toHaveLength(1);
    const written = new Promise<void>((resolve) => {
      sink.onWrite = resolve;
    });
    out.write("late\n");
    await written; // the delay's timer wrote it; no flush was called
    expect(sink.writes.at(-1)?.toString()).toBe("late\n");
  });

  it("waits for 'drain' when the stream asks to, then writes what gathered meanwhile in one piece", async () => {
    const sink = new Recorder(1); // a held write keeps it above its mark: write() returns false
    sink.hold = true;
    const out = new BufferedOutput(sink);
    out.write("first\n");
    out.flush();
    out.write("second\n");
    out.write("third\n");
    out.flush(); // the stream is above its mark: nothing is written yet
    expect(sink.writes.map(String)).toEqual(["first\n"]);
    const drained = new Promise<void>((resolve) => {
      sink.onWrite = resolve;
    });
    sink.releaseHeld();
    await drained;
    expect(sink.writes.map(String)).toEqual(["first\n", "second\nthird\n"]);
  });

  it("the built CLI's session prints every line, in order, through a pipe", () => {
    // afterAll inside a test never ran (every run left this directory behind): onTestFinished does.
    const dir = mkdtempSync(join(tmpdir(), "lifeloop-buffered-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "session.jsonl");
    const count = 100; // about 150 KB of output: more than OUTPUT_FLUSH_BYTES
    const lines = Array.from({ length: count }, (_, i) =>
      JSON.stringify(
        dispatchEnvelope(
          callbackRequest("frame.opening", {
            event_id: `evt-${i}`,
            invocation_id: `inv-${i}`,
            harness_session_id: "s",
            frame_context: frameContext(`f-${i}`),
          }),
        ),
      ),
    );
    writeFileSync(file, `${lines.join("\n")}\n`);
    const program = join(REPO_ROOT, "test", "fixtures", "client-lang-neutral", "shell", "echo.sh");
    const r = spawnSync(process.execPath, [CLI, "session", "--program", program, "--timeout-ms", "30000", file], {
      encoding: "utf8",
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(r.status, r.stderr).toBe(0);
    const out = r.stdout.trimEnd().split("\n");
    expect(out).toHaveLength(count + 1);
    expect(out.slice(0, count).map((l) => (JSON.parse(l) as { event_id: string }).event_id)).toEqual(
      lines.map((_, i) => `evt-${i}`),
    );
    expect(JSON.parse(out[count] as string)).toMatchObject({ summary: { events: count, delivered: count, failed: 0 } });
  });
});
