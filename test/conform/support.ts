/**
 * Shared by the conform self-tests: `lifeloop-callback conform --format json` run as a real
 * process, its JSON Lines split into header, records and summary, and the helpers that name the
 * fixture client and the failing scenarios.
 */
import { join } from "node:path";
import { CLI, REPO_ROOT } from "../support/cli-process.js";
import { spawnChild } from "../support/spawn-child.js";

/** A parsed JSON report of one conform run and its exit code. */
export interface Report {
  readonly code: number | null;
  readonly lines: readonly Record<string, unknown>[];
  readonly records: readonly { scenario: string; verdict: string; detail: string; transport: string }[];
  readonly summary: Record<string, unknown>;
}

/** The conform fixture client (v1; its --stream half is stream-client.mjs). */
export const NODE_CLIENT = join(REPO_ROOT, "test", "fixtures", "conform", "client.mjs");

/** `--program node --arg client.mjs [--arg --break --arg MODE]`. */
export const nodeClient = (mode?: string): string[] => [
  "--program",
  process.execPath,
  "--arg",
  NODE_CLIENT,
  ...(mode ? ["--arg", "--break", "--arg", mode] : []),
];

/** `scenario:verdict` of every record that did not pass, sorted. */
export const failing = (r: Report): string[] =>
  r.records
    .filter((x) => x.verdict !== "pass")
    .map((x) => `${x.scenario}:${x.verdict}`)
    .sort();

/** Every record that did not pass, with its detail and time: the message of a failed assertion, so a CI log says why. */
export const failureDetails = (r: Report): string =>
  r.records
    .filter((x) => x.verdict !== "pass")
    .map((x) => `${x.scenario}: ${x.verdict} (${String((x as { elapsed_ms?: number }).elapsed_ms)} ms): ${x.detail}`)
    .join("; ");

/**
 * The per-exchange deadline (ms) of a self-test run that sets none: on a loaded 2-core CI machine a
 * Node fixture client's quick answer missed the CLI's default of 5 s, and 8 s, failing scenarios
 * unrelated to what a test checks. Only a scenario that hangs waits it out.
 */
export const SELF_TEST_TIMEOUT_MS = 20_000;

/**
 * Run `conform --format json ...args` (async, so several run side by side), with
 * `--timeout-ms SELF_TEST_TIMEOUT_MS` unless args set one, under a watchdog of `watchdogMs`, with
 * `env` added to this process's environment (the client inherits it, e.g. PYTHONPATH);
 * rejects when it prints no JSON report.
 */
export function conform(
  args: readonly string[],
  watchdogMs = 240_000,
  env: Readonly<Record<string, string>> = {},
): Promise<Report> {
  const deadline = args.includes("--timeout-ms") ? [] : ["--timeout-ms", String(SELF_TEST_TIMEOUT_MS)];
  return spawnChild({
    command: process.execPath,
    args: [CLI, "conform", "--format", "json", ...args, ...deadline],
    stdin: "ignore",
    env: { ...process.env, ...env },
    watchdogMs,
  }).then(({ code, stdout: out, stderr: err }) => {
    try {
      const lines = out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const records = lines.filter((l) => "scenario" in l) as unknown as Report["records"];
      const summary = (lines.find((l) => "summary" in l)?.summary ?? {}) as Record<string, unknown>;
      return { code, lines, records, summary };
    } catch (error) {
      throw new Error(`conform printed no JSON report (exit ${code}): ${out}\n${err}\n${String(error)}`);
    }
  });
}
