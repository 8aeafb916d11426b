/**
 * Demo step 2: make the Go and Python fixture clients ready and prove each one answers. The Go
 * client is built with `go build` into .cache/bin; the Python client runs from source through
 * `python3` (its shebang). Each then answers one probe event (supervisor.tick) through our
 * SubprocessInvoker; the probe makes no receipt.
 */
import { spawnSync } from "node:child_process";
import { callbackRequest, dispatchEnvelope } from "../test/support/dispatch.js";
import { buildGoClient, clientArgs, FIXTURE_CLIENTS, type ClientLang } from "../test/support/fixture-clients.js";
import { SubprocessInvoker } from "../runtime/invoker/subprocess.js";
import { SESSION_TIMEOUT_MS } from "./session.js";

/** A client that is ready: what was done to get it ready (`setup`), and its probe round trip. */
export interface ReadyClient {
  readonly lang: ClientLang;
  readonly setup: string;
  readonly probe: string;
}

/** A client could not be made ready; the message says what to install or run. */
export class ClientSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClientSetupError";
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function pythonVersion(): string {
  const run = spawnSync("python3", ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (run.error !== undefined || run.status !== 0)
    throw new ClientSetupError("python3 is not on PATH; the Python client needs Python 3.9 or newer");
  const version = `${run.stdout}${run.stderr}`.trim();
  const match = /^Python (\d+)\.(\d+)/.exec(version);
  if (match === null || Number(match[1]) < 3 || (Number(match[1]) === 3 && Number(match[2]) < 9)) {
    throw new ClientSetupError(
      `${version || "an unknown python3"} is too old; the Python client needs Python 3.9 or newer`,
    );
  }
  return version;
}

async function probe(lang: ClientLang): Promise<string> {
  const client = FIXTURE_CLIENTS[lang];
  const envelope = dispatchEnvelope(
    callbackRequest("supervisor.tick", { event_id: `evt-probe-${lang}`, invocation_id: `inv-probe-${lang}` }),
  );
  const result = await new SubprocessInvoker({
    program: client.program,
    args: clientArgs({ kind: "echo" }),
    timeoutMs: SESSION_TIMEOUT_MS,
  }).invoke(envelope);
  if (!result.ok)
    throw new ClientSetupError(
      `the ${lang} client did not answer a probe: ${result.failure.variant}: ${result.failure.detail}`,
    );
  return `answered a probe with ${result.response.status} in ${Math.round(result.elapsedMs)} ms`;
}

/** Build the Go client and check the Python one; throws {@link ClientSetupError} with the fix. */
export async function prepareClients(): Promise<ReadyClient[]> {
  const build = buildGoClient();
  if (!build.ok) throw new ClientSetupError(`cannot build the Go client: ${build.output}`);
  const go: ReadyClient = {
    lang: "go",
    setup: `built .cache/bin/go-echo with go build (${seconds(build.ms)})`,
    probe: await probe("go"),
  };
  const python: ReadyClient = {
    lang: "python",
    setup: `${pythonVersion()} runs python-echo/echo.py from source`,
    probe: await probe("python"),
  };
  return [go, python];
}
