/**
 * Client for the differential oracle in `tools/reference/`: a small Rust
 * binary that judges Lifeloop wire documents with the reference
 * implementation (`lifeloop-cli`, pinned in `tools/reference/Cargo.toml`).
 *
 * The binary speaks JSON Lines: one case per stdin line, one verdict per
 * stdout line, in order. See `tools/reference/src/main.rs` for the protocol.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

/** Command that builds the harness, run from the repository root. */
export const REFERENCE_HARNESS_BUILD_COMMAND = "cargo build --release --manifest-path tools/reference/Cargo.toml";

/** Absolute path of the release binary of the reference harness. */
export const REFERENCE_HARNESS_PATH: string = resolve(
  HERE,
  "..",
  "..",
  "tools",
  "reference",
  "target",
  "release",
  process.platform === "win32" ? "lifeloop-reference-harness.exe" : "lifeloop-reference-harness",
);

export interface ReferenceCase {
  readonly id: string;
  /** e.g. "callback_request"; run the binary with `--list-kinds` for the full list. */
  readonly kind: string;
  /** The document as text; sent to the reference as its UTF-8 bytes. */
  readonly text?: string;
  /** The document as raw bytes (for documents that are not valid UTF-8). */
  readonly bytes?: Uint8Array;
}

export interface ReferenceVerdict {
  readonly id: string;
  readonly accepted: boolean;
  /** "deserialize" | "validate" | "harness" | "render"; absent when accepted. */
  readonly stage?: string;
  /** The reference's error text; absent when accepted. */
  readonly error?: string;
  /**
   * Structured result of kinds that produce one (kind `render`): when accepted,
   * `{hook_event_name, body, text}`; when the renderer refused, its RenderError
   * `{kind, detail}`. Absent for the judging kinds.
   */
  readonly output?: unknown;
}

export interface JudgeOptions {
  /** Whole-batch timeout in milliseconds (default 120000). */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const STDERR_LIMIT = 64 * 1024;
/** Lines are coalesced into writes of about this many characters. */
const WRITE_CHUNK = 64 * 1024;

// A lone UTF-16 surrogate has no UTF-8 encoding, so such a `text` names no
// byte document at all.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function encodeCase(c: ReferenceCase, index: number): string {
  if (typeof c.id !== "string" || typeof c.kind !== "string") {
    throw new TypeError(`reference case #${index}: id and kind must be strings`);
  }
  const hasText = c.text !== undefined;
  const hasBytes = c.bytes !== undefined;
  if (hasText === hasBytes) {
    throw new TypeError(`reference case #${index} (id ${JSON.stringify(c.id)}): give exactly one of text or bytes`);
  }
  if (c.text !== undefined) {
    if (LONE_SURROGATE.test(c.text)) {
      throw new TypeError(
        `reference case #${index} (id ${JSON.stringify(c.id)}): text contains a lone UTF-16 ` +
          "surrogate and therefore has no UTF-8 bytes; pass the intended document via bytes " +
          "(or write the surrogate as a JSON \\u escape inside the document)",
      );
    }
    return `${JSON.stringify({ id: c.id, kind: c.kind, text: c.text })}\n`;
  }
  const bytes = c.bytes as Uint8Array;
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
  return `${JSON.stringify({ id: c.id, kind: c.kind, bytes_hex: hex })}\n`;
}

function parseVerdict(line: string): ReferenceVerdict {
  const raw: unknown = JSON.parse(line);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new Error("verdict is not a JSON object");
  }
  const o = raw as Record<string, unknown>;
  if (typeof o.id !== "string" || typeof o.accepted !== "boolean") {
    throw new Error("verdict lacks a string id or a boolean accepted");
  }
  const output = "output" in o ? { output: o.output } : {};
  if (o.accepted) {
    return { id: o.id, accepted: true, ...output };
  }
  if (typeof o.stage !== "string" || typeof o.error !== "string") {
    throw new Error("rejecting verdict lacks a string stage or error");
  }
  return { id: o.id, accepted: false, stage: o.stage, error: o.error, ...output };
}

/**
 * Spawn the harness once, stream all cases through it and return the
 * verdicts in input order.
 *
 * Throws if the binary has not been built; rejects if the harness exits
 * abnormally, answers a different number of lines than it was asked, answers
 * out of order, or does not finish within the timeout (the child is killed).
 * The child process is always reaped before the returned promise settles.
 */
export async function judgeWithReference(
  cases: readonly ReferenceCase[],
  options?: JudgeOptions,
): Promise<ReferenceVerdict[]> {
  if (!existsSync(REFERENCE_HARNESS_PATH)) {
    throw new Error(
      `reference harness binary not found at ${REFERENCE_HARNESS_PATH}; ` +
        `build it from the repository root with: ${REFERENCE_HARNESS_BUILD_COMMAND}`,
    );
  }
  const timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new RangeError(`timeoutMs must be a positive number, got ${String(timeoutMs)}`);
  }
  // Encode everything up front so that bad input fails before spawning.
  const lines = cases.map(encodeCase);

  const child = spawn(REFERENCE_HARNESS_PATH, [], {
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
  });

  const verdicts: ReferenceVerdict[] = [];
  let failure: Error | undefined;
  const fail = (err: Error): void => {
    if (failure === undefined) {
      failure = err;
    }
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
    }
  };

  // ---- stdout: one verdict per line -------------------------------------
  let pending = "";
  const takeLine = (line: string): void => {
    const index = verdicts.length;
    let verdict: ReferenceVerdict;
    try {
      verdict = parseVerdict(line);
    } catch (err) {
      fail(new Error(`reference harness answered an unreadable line #${index}: ${String(err)}: ${line.slice(0, 200)}`));
      return;
    }
    const expected = cases[index];
    if (expected === undefined) {
      fail(new Error(`reference harness answered more lines than the ${cases.length} it was asked`));
      return;
    }
    if (verdict.id !== expected.id) {
      fail(
        new Error(
          `reference harness answered out of order: line #${index} has id ` +
            `${JSON.stringify(verdict.id)}, expected ${JSON.stringify(expected.id)}`,
        ),
      );
      return;
    }
    verdicts.push(verdict);
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline !== -1 && failure === undefined) {
      takeLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
    }
  });

  // ---- stderr: keep a bounded tail for diagnostics ----------------------
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_LIMIT);
  });

  // ---- lifecycle --------------------------------------------------------
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveClose) => {
    child.on("close", (code, signal) => resolveClose({ code, signal }));
  });
  child.on("error", (err) => fail(new Error(`reference harness process error: ${err.message}`)));
  // EPIPE and friends surface through the exit status / line count instead.
  child.stdin.on("error", () => undefined);

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    fail(new Error(`reference harness timed out after ${timeoutMs} ms (${verdicts.length}/${cases.length} verdicts)`));
  }, timeoutMs);

  // ---- stdin: write concurrently with reading, honouring backpressure ----
  const stdinGone = new Promise<void>((resolveGone) => {
    child.stdin.once("close", () => resolveGone());
    child.stdin.once("error", () => resolveGone());
  });
  const writeAll = async (): Promise<void> => {
    let chunk = "";
    const flushChunk = async (): Promise<void> => {
      if (chunk === "") return;
      const ok = child.stdin.write(chunk);
      chunk = "";
      if (!ok) {
        await Promise.race([new Promise<void>((r) => child.stdin.once("drain", () => r())), stdinGone]);
      }
    };
    for (const line of lines) {
      if (failure !== undefined || child.stdin.destroyed) return;
      chunk += line;
      if (chunk.length >= WRITE_CHUNK) {
        await flushChunk();
      }
    }
    if (failure !== undefined || child.stdin.destroyed) return;
    await flushChunk();
    child.stdin.end();
  };
  const writing = writeAll().catch((err: unknown) => {
    fail(new Error(`writing to the reference harness failed: ${String(err)}`));
  });

  const { code, signal } = await closed;
  clearTimeout(timer);
  await writing;

  if (failure === undefined && pending !== "") {
    takeLine(pending);
  }
  const stderrNote = stderr.trim() === "" ? "" : `\nharness stderr:\n${stderr.trim()}`;
  if (failure !== undefined) {
    throw timedOut ? failure : new Error(`${failure.message}${stderrNote}`);
  }
  if (code !== 0) {
    throw new Error(
      `reference harness exited with ${code === null ? `signal ${String(signal)}` : `code ${code}`} ` +
        `after ${verdicts.length}/${cases.length} verdicts${stderrNote}`,
    );
  }
  if (verdicts.length !== cases.length) {
    throw new Error(`reference harness answered ${verdicts.length} lines for ${cases.length} cases${stderrNote}`);
  }
  return verdicts;
}
