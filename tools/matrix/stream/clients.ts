/**
 * The clients of the stream (v2) lifecycle matrix, one column each, all driven by our TypeScript
 * {@link StreamInvoker}:
 *
 * - `go`, `python`: the fixture clients built on the Go and Python SDK stream runners
 *   (test/fixtures/client-lang-neutral/go-echo, python-echo). What they do for one event is chosen
 *   by the event itself (`request.metadata.matrix_action`), carried out by the SDK runner, the
 *   handler or a tap on the wire; flags: `--mark FILE` (one line per start), `--record FILE` (every
 *   byte the host sent), `--ignore-eof`.
 * - `ts`: test/fixtures/client-lang-neutral/node/stream-actions.mjs on the package's TypeScript
 *   client runner (`serve`, from dist/: run `npm run build` first), with the same actions and flags;
 * - `raw`: the hand-written NDJSON client (test/fixtures/client-lang-neutral/stream-raw), no
 *   lifeloop-callback code at all; one behaviour per process (`--behave B`), `--log FILE` (every
 *   frame received), `--frame-bytes N`.
 *
 * A scenario says what it wants in both forms ({@link ClientPlan}); the column turns it into
 * arguments. The Go client is built into a per-run directory (never into the shared .cache/bin).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { CallbackResponse } from "../../../generated/ts/types.js";
import { FIXTURE_CLIENTS_DIR, GO_ECHO_DIR } from "../../../test/support/fixture-clients.js";

/** The columns, in the order the table shows them. */
export const STREAM_CLIENT_IDS = ["go", "python", "ts", "raw"] as const;
/** One column. */
export type StreamClientId = (typeof STREAM_CLIENT_IDS)[number];

/**
 * What a scenario needs from the client process: `raw` is the raw client's behaviour (`--behave`),
 * `frameBytes` its `--frame-bytes`; `ignoreEof` asks the SDK fixtures to hide stdin EOF (the raw
 * client's counterpart is its behaviour). `record` is the file that witnesses the frames received.
 */
export interface ClientPlan {
  readonly raw?: string;
  readonly frameBytes?: number;
  readonly ignoreEof?: boolean;
  readonly record: string;
}

/** One column: the program, its arguments for a plan, and how it reports a reverse request's outcome. */
export interface StreamClient {
  readonly id: StreamClientId;
  readonly title: string;
  readonly program: string;
  args(plan: ClientPlan): string[];
  /** The host's error name the client saw for its client → host request (from its response's metadata), or null. */
  reverseError(response: CallbackResponse): string | null;
}

const SDK_REVERSE = (response: CallbackResponse): string | null => {
  const value = response.metadata?.put_error;
  return typeof value === "string" && value !== "" ? value : null;
};

function sdkArgs(plan: ClientPlan): string[] {
  return ["--record", plan.record, ...(plan.ignoreEof === true ? ["--ignore-eof"] : [])];
}

/** The columns; `goProgram` is the Go fixture built for this run. */
export function streamClients(goProgram: string): { readonly [C in StreamClientId]: StreamClient } {
  return {
    go: {
      id: "go",
      title: "go-echo on the Go SDK stream runner (ServeStream)",
      program: goProgram,
      args: sdkArgs,
      reverseError: SDK_REVERSE,
    },
    python: {
      id: "python",
      title: "python-echo on the Python SDK stream runner (serve_stream)",
      program: join(FIXTURE_CLIENTS_DIR, "python-echo", "echo.py"),
      args: sdkArgs,
      reverseError: SDK_REVERSE,
    },
    ts: {
      id: "ts",
      title: "node/stream-actions.mjs on the TypeScript client runner (serve, dist/)",
      program: join(FIXTURE_CLIENTS_DIR, "node", "stream-actions.mjs"),
      args: sdkArgs,
      reverseError: SDK_REVERSE,
    },
    raw: {
      id: "raw",
      title: "stream-raw/raw-client.mjs, hand-written NDJSON (no SDK)",
      program: join(FIXTURE_CLIENTS_DIR, "stream-raw", "raw-client.mjs"),
      args: (plan) => [
        "--behave",
        plan.raw ?? "echo",
        "--log",
        plan.record,
        ...(plan.frameBytes === undefined ? [] : ["--frame-bytes", String(plan.frameBytes)]),
      ],
      reverseError: (response) => {
        const reverse = response.metadata?.reverse as { error_name?: unknown } | undefined;
        return typeof reverse?.error_name === "string" ? reverse.error_name : null;
      },
    },
  };
}

/** Outcome of {@link buildGoStreamClient}. */
export type GoBuild =
  | { readonly ok: true; readonly program: string; readonly ms: number }
  | { readonly ok: false; readonly output: string; readonly ms: number };

/** Build the Go fixture into `dir` (stdlib only; the SDK is a replaced local module). Never throws. */
export function buildGoStreamClient(dir: string, timeoutMs = 300_000): GoBuild {
  const started = performance.now();
  const program = join(dir, "go-echo");
  const run = spawnSync("go", ["build", "-o", program, "."], {
    cwd: GO_ECHO_DIR,
    encoding: "utf8",
    timeout: timeoutMs,
  });
  const ms = performance.now() - started;
  if (run.error !== undefined)
    return { ok: false, ms, output: `go build could not run (${run.error.message}); install Go 1.22+` };
  if (run.status !== 0)
    return { ok: false, ms, output: `go build of test/fixtures/client-lang-neutral/go-echo failed:\n${run.stderr}` };
  return { ok: true, program, ms };
}
