/**
 * The v1 (one-shot) client runners of every binding judge the request they read with the same
 * parse-layer bounds (spec/wire-contract.md "Bytes and JSON": limits.max_values, limits.max_object_members):
 * the Go SDK (go-echo), the Python SDK (python-echo/echo.py) and the TypeScript runner
 * (node/runner-echo.mjs on `serve`, dist/), each a real process given one DispatchEnvelope on stdin.
 * A request over a bound is answered `failed`/`invalid_request` with the rule as the warning code,
 * the same in every binding; the shared at-limit vector is delivered by every one.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../generated/ts/spec.js";
import { REPO_ROOT, sdkRunnerClients } from "../support/fixture-clients.js";

const sdk = sdkRunnerClients("v1-runner-limits", "runner-echo.mjs");
const CLIENTS = sdk.clients;
beforeAll(sdk.build, 300_000);
afterAll(sdk.remove);

/** The document of a shared vector (generated/vectors). */
function vector(name: string): string {
  const v = JSON.parse(
    readFileSync(join(REPO_ROOT, "generated", "vectors", "dispatch-envelope", `${name}.json`), "utf8"),
  ) as { document_base64: string };
  return Buffer.from(v.document_base64, "base64").toString("utf8");
}

/** The at-limit envelope with `/request/metadata` replaced by `metadata` (JSON text). */
function withMetadata(metadata: string): string {
  const at = vector("valid-json-max-members-at-limit");
  const i = at.indexOf('"metadata":');
  return `${at.slice(0, i)}"metadata":${metadata}}}`;
}

/** Run one v1 client on `stdin`; its one stdout line, parsed. */
function answer(program: string, stdin: string): Promise<{ status: string; warnings?: { code: string }[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, [], { stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    const watchdog = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(watchdog);
      try {
        resolve(JSON.parse(out.trim()) as { status: string; warnings?: { code: string }[] });
      } catch {
        reject(new Error(`${program}: no JSON response on stdout: ${out.slice(0, 200)}`));
      }
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(stdin);
  });
}

/** "delivered", or "failed <warning code>". */
const verdict = (r: { status: string; warnings?: { code: string }[] }): string =>
  r.status === "failed" ? `failed ${r.warnings?.[0]?.code}` : r.status;

const CASES: readonly (readonly [string, () => string, string])[] = [
  ["limits.max_object_members members in an open map", () => vector("valid-json-max-members-at-limit"), "delivered"],
  [
    "one member past limits.max_object_members",
    () => vector("invalid-json-max-members-plus-1"),
    "failed json.max-members",
  ],
  // The envelope's own values and the array's: limits.max_values + 1 in all.
  [
    "one value past limits.max_values",
    () => withMetadata(`{"a":[${"0,".repeat(LIMITS.max_values - 1)}0]}`),
    "failed json.max-values",
  ],
];

describe.each(CLIENTS)("%s v1 runner: the parse-layer bounds of every binding", (_lang, program) => {
  for (const [name, document, expected] of CASES) {
    it(name, async () => {
      expect(verdict(await answer(program, document()))).toBe(expected);
    }, 120_000);
  }
});
