/**
 * The language-neutral fixture clients (test/fixtures/client-lang-neutral/) as the cross-language
 * matrix (tools/matrix) and the demo (demo/) drive them: where each one lives, how the Go one is
 * built, and the command-line arguments that select a behaviour.
 *
 * Every client takes the same flags (documented in each fixture's header):
 * - `--mark FILE`: create FILE at start-up, a spawn witness (proves the host started the client);
 * - `--behave B`: `echo` (default) | `fail:CLASS[:RETRY]` | `exit:N` | `hang` | `garbage` |
 *   `unknown-field` (see {@link Behaviour}).
 * The Go and Python clients are built on the SDK runners (sdk/go, sdk/python);
 * the Node and shell clients are hand-written.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { FailureClass, RetryClass } from "../../generated/ts/types.js";

/** Repository root (absolute). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Directory of the fixture clients. */
export const FIXTURE_CLIENTS_DIR = join(REPO_ROOT, "test", "fixtures", "client-lang-neutral");
/** Source directory of the Go echo client (its own module, `replace`d onto sdk/go). */
export const GO_ECHO_DIR = join(FIXTURE_CLIENTS_DIR, "go-echo");
/** Where the Go echo client is built (gitignored). */
export const GO_ECHO_BIN = join(REPO_ROOT, ".cache", "bin", "go-echo");
/** The command that builds {@link GO_ECHO_BIN}, as a newcomer would type it at the repository root. */
export const GO_BUILD_COMMAND =
  "(cd test/fixtures/client-lang-neutral/go-echo && go build -o ../../../../.cache/bin/go-echo .)";

/** The languages of the fixture clients, in the order tables show them. */
export const CLIENT_LANGS = ["go", "python", "node", "shell"] as const;
/** One fixture client language. */
export type ClientLang = (typeof CLIENT_LANGS)[number];

/**
 * One fixture client: `program` is absolute and run directly (no shell; Python and Node through
 * their shebang lines, so `python3` and `node` must be on PATH). `howToGet` is what makes the
 * program runnable when it is not (a build command or an install hint).
 */
export interface FixtureClient {
  readonly lang: ClientLang;
  readonly program: string;
  readonly howToGet: string;
}

/** The four fixture clients by language. */
export const FIXTURE_CLIENTS: { readonly [L in ClientLang]: FixtureClient } = {
  go: { lang: "go", program: GO_ECHO_BIN, howToGet: `build it: ${GO_BUILD_COMMAND}` },
  python: {
    lang: "python",
    program: join(FIXTURE_CLIENTS_DIR, "python-echo", "echo.py"),
    howToGet: "python3 (3.9+) must be on PATH",
  },
  node: { lang: "node", program: join(FIXTURE_CLIENTS_DIR, "node", "echo.mjs"), howToGet: "node must be on PATH" },
  shell: { lang: "shell", program: join(FIXTURE_CLIENTS_DIR, "shell", "echo.sh"), howToGet: "/bin/sh must exist" },
};

/**
 * A client behaviour (the `--behave` flag):
 * - `echo`: answer status delivered;
 * - `fail`: answer status failed with `failureClass` and `retryClass` (a client-declared failure);
 * - `exit`: crash after reading the request: exit `code` (1..255) without answering;
 * - `hang`: sleep 30 s after reading the request (the host's deadline must end it);
 * - `garbage`: write `this is not json` instead of a response;
 * - `unknown-field`: answer a response with the extra member `"surprise": true`.
 */
export type Behaviour =
  | { readonly kind: "echo" }
  | { readonly kind: "fail"; readonly failureClass: FailureClass; readonly retryClass: RetryClass }
  | { readonly kind: "exit"; readonly code: number }
  | { readonly kind: "hang" }
  | { readonly kind: "garbage" }
  | { readonly kind: "unknown-field" };

/** The `--behave` value of a behaviour, e.g. `fail:payload_rejected:do_not_retry`, `exit:3`. */
export function behaviourFlag(behaviour: Behaviour): string {
  switch (behaviour.kind) {
    case "fail":
      return `fail:${behaviour.failureClass}:${behaviour.retryClass}`;
    case "exit":
      return `exit:${behaviour.code}`;
    default:
      return behaviour.kind;
  }
}

/** The client arguments selecting `behaviour`, with a spawn-witness `markFile` when given. */
export function clientArgs(behaviour: Behaviour, markFile?: string): string[] {
  const args = markFile === undefined ? [] : ["--mark", markFile];
  return [...args, "--behave", behaviourFlag(behaviour)];
}

/** Why `client` cannot be run right now (its program is missing or not executable), or null. */
export function clientUnavailable(client: FixtureClient): string | null {
  try {
    accessSync(client.program, constants.X_OK);
    return null;
  } catch {
    return `${relative(REPO_ROOT, client.program)} is missing or not executable; ${client.howToGet}`;
  }
}

/**
 * Build the Go echo client into `program` (a path of the caller's scratch directory, so test files
 * running at once never write the same binary). Throws with the tool's output when it fails.
 */
export function buildGoEchoAt(program: string, timeoutMs = 300_000): void {
  const built = spawnSync("go", ["build", "-o", program, "."], {
    cwd: GO_ECHO_DIR,
    encoding: "utf8",
    timeout: timeoutMs,
  });
  if (built.status !== 0) throw new Error(`go build of go-echo failed: ${built.error?.message ?? built.stderr}`);
}

/** The SDK echo clients of a suite that runs every binding's runner: `[language, program]` rows. */
export interface SdkRunnerClients {
  /** go (built by {@link SdkRunnerClients.build}), python (python-echo/echo.py), ts (the given fixture under node/). */
  readonly clients: readonly (readonly ["go" | "python" | "ts", string])[];
  /** Build go-echo into the suite's scratch folder; throw when that fails or dist/ (which the TS fixture runs) is not built. For beforeAll. */
  readonly build: () => void;
  /** Remove the scratch folder. For afterAll. */
  readonly remove: () => void;
}

/**
 * The clients of a suite that checks the Go SDK, the Python SDK and the TypeScript runner alike:
 * go-echo is built into a scratch folder of the suite's own (named after `suite`) so suites running
 * at once never write one binary; `tsFixture` is a file of test/fixtures/client-lang-neutral/node/.
 */
export function sdkRunnerClients(suite: string, tsFixture: string): SdkRunnerClients {
  const scratch = mkdtempSync(join(tmpdir(), `lifeloop-${suite}-`));
  const goProgram = join(scratch, "go-echo");
  return {
    clients: [
      ["go", goProgram],
      ["python", join(FIXTURE_CLIENTS_DIR, "python-echo", "echo.py")],
      ["ts", join(FIXTURE_CLIENTS_DIR, "node", tsFixture)],
    ],
    build: () => {
      buildGoEchoAt(goProgram);
      if (!existsSync(join(REPO_ROOT, "dist", "runtime", "index.js")))
        throw new Error("dist/ is not built: run npm run build");
    },
    remove: () => rmSync(scratch, { recursive: true, force: true }),
  };
}

/** Outcome of {@link buildGoClient}: `ms` is the wall-clock duration; `output` the tool's text on failure. */
export type BuildResult =
  | { readonly ok: true; readonly ms: number }
  | { readonly ok: false; readonly ms: number; readonly output: string };

/**
 * Build the Go echo client into {@link GO_ECHO_BIN} with `go build` (standard library only; the
 * generated SDK is a `replace`d local module, so nothing is downloaded). Bounded by `timeoutMs`
 * (default 300000: a first build on a fresh machine compiles the standard library). Never throws:
 * a missing `go` or a compile error is `{ok: false}` with the command to run by hand.
 */
export function buildGoClient(timeoutMs = 300_000): BuildResult {
  const started = performance.now();
  mkdirSync(dirname(GO_ECHO_BIN), { recursive: true });
  const run = spawnSync("go", ["build", "-o", GO_ECHO_BIN, "."], {
    cwd: GO_ECHO_DIR,
    encoding: "utf8",
    timeout: timeoutMs,
  });
  const ms = performance.now() - started;
  if (run.error !== undefined) {
    const missing = (run.error as NodeJS.ErrnoException).code === "ENOENT";
    return {
      ok: false,
      ms,
      output: missing
        ? "the Go toolchain (go 1.22+) is not on PATH; install it from https://go.dev/dl/"
        : run.error.message,
    };
  }
  if (run.status !== 0)
    return {
      ok: false,
      ms,
      output: `${GO_BUILD_COMMAND} exited ${String(run.status ?? run.signal)}:\n${run.stderr}${run.stdout}`.trimEnd(),
    };
  return { ok: true, ms };
}
