/**
 * The settle bound holds for every document within the limits, and one invocation judging a huge
 * document does not stall the others (issue "Reliability", item 1): huge responses from real child
 * processes and huge in-memory envelopes, each next to a hanging client whose own deadline must
 * still be kept. Before the fix a 15.7 MB response of 5.2 million empty objects settled after
 * ~1.9 s against a bound of 1.1 s and held every other invocation of the process.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import { InProcessInvoker } from "../../runtime/invoker/in-process.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import type { InvocationResult } from "../../runtime/invoker/types.js";
import { envelope, tempDir } from "./support.js";

const tmp = tempDir("settle-huge");
afterAll(() => tmp.cleanup());

const HEAD = `{"schema_version":"${WIRE_VERSION}","status":"delivered","failure_class":null,"retry_class":null,"metadata":`;

/** Response documents at (or beyond) the limits, written to files a shell client cats. */
const RESPONSES = {
  /** The review's document: 15.7 MB, 5.2 million empty objects (far more than limits.max_values). */
  emptyObjects: `${HEAD}{"a":[${"{},".repeat(5_200_000)}{}]}}`,
  /** Exactly limits.max_values values, all empty objects (the costliest valid shape per byte). */
  maxValues: `${HEAD}{"a":[${"{},".repeat(LIMITS.max_values - 8)}{}]}}`,
  /** The most members one object may have (limits.max_object_members), and one more. */
  maxMembers: `${HEAD}{${Array.from({ length: LIMITS.max_object_members }, (_, i) => `"k${i}":0`).join(",")}}}`,
  overMembers: `${HEAD}{${Array.from({ length: LIMITS.max_object_members + 1 }, (_, i) => `"k${i}":0`).join(",")}}}`,
  /** One string as long as the byte limit allows. */
  maxString: `${HEAD}{"a":"${"x".repeat(LIMITS.max_response_bytes - HEAD.length - 12)}"}}`,
  /** One string of escapes as long as the byte limit allows (the sliced parser decodes it in pieces). */
  maxEscapes: `${HEAD}{"a":"${"\\n".repeat((LIMITS.max_response_bytes - HEAD.length - 12) >> 1)}"}}`,
};

function responseFile(name: keyof typeof RESPONSES): string {
  const path = join(tmp.dir, `${name}.json`);
  writeFileSync(path, RESPONSES[name]);
  return path;
}

/** A client that reads the request, then writes `file` to stdout. */
function catClient(file: string, timeoutMs: number): SubprocessInvoker {
  return new SubprocessInvoker({ program: "/bin/sh", args: ["-c", `cat >/dev/null; exec cat '${file}'`], timeoutMs });
}

/** A client that never answers. */
function hangingClient(timeoutMs: number): SubprocessInvoker {
  return new SubprocessInvoker({ program: "/bin/sh", args: ["-c", "exec sleep 30"], timeoutMs });
}

/** Run `big` next to a hanging client; assert both settle bounds; return the big result and the longest event-loop block seen (ms). */
async function withHangingNeighbour(
  big: () => Promise<InvocationResult>,
  bigTimeoutMs: number,
): Promise<{ result: InvocationResult }> {
  const hangMs = 200;
  const [result, neighbour] = await Promise.all([big(), hangingClient(hangMs).invoke(envelope())]);
  expect(result.elapsedMs).toBeLessThanOrEqual(bigTimeoutMs + LIMITS.settle_margin_ms);
  expect(neighbour.ok ? "ok" : neighbour.failure.variant).toBe("timeout");
  expect(neighbour.elapsedMs, "the hanging neighbour was held past its own settle bound").toBeLessThanOrEqual(
    hangMs + LIMITS.settle_margin_ms,
  );
  return { result };
}

describe("huge responses within (and beyond) the limits keep the settle bound", () => {
  it("5.2 million empty objects (15.7 MB) → parse_response json.max-values, within the bound; the neighbour is not held", async () => {
    const file = responseFile("emptyObjects");
    const timeoutMs = 10_000;
    const { result } = await withHangingNeighbour(() => catClient(file, timeoutMs).invoke(envelope()), timeoutMs);
    expect(result.ok ? "ok" : `${result.failure.variant}: ${result.failure.detail}`).toMatch(/^parse_response/);
    if (!result.ok) expect(result.failure.issues?.[0]?.rule).toBe("json.max-values");
  });

  it("one member past limits.max_object_members → parse_response json.max-members at the first member past it, within the bound", async () => {
    const file = responseFile("overMembers");
    const timeoutMs = 10_000;
    const { result } = await withHangingNeighbour(() => catClient(file, timeoutMs).invoke(envelope()), timeoutMs);
    expect(result.ok ? "ok" : result.failure.variant).toBe("parse_response");
    if (!result.ok)
      expect([result.failure.issues?.[0]?.rule, result.failure.issues?.[0]?.pointer]).toEqual([
        "json.max-members",
        `/metadata/k${LIMITS.max_object_members}`,
      ]);
  });

  for (const name of ["maxValues", "maxMembers", "maxString", "maxEscapes"] as const) {
    it(`a valid response at the limits (${name}, ${(RESPONSES[name].length / 1e6).toFixed(1)} MB) → ok within the bound; the neighbour is not held`, async () => {
      const file = responseFile(name);
      const timeoutMs = 10_000;
      const { result } = await withHangingNeighbour(() => catClient(file, timeoutMs).invoke(envelope()), timeoutMs);
      expect(result.ok ? "ok" : `${result.failure.variant}: ${result.failure.detail}`).toBe("ok");
      // The value is exactly what the bytes say (long strings are built from pieces).
      if (result.ok) expect(JSON.stringify(result.response)).toBe(JSON.stringify(JSON.parse(RESPONSES[name])));
    });
  }
});

describe("huge in-memory envelopes keep the settle bound", () => {
  /** The review's request: an envelope whose metadata has 1.2 million members. */
  function manyKeys(count: number): DispatchEnvelope {
    const metadata: Record<string, number> = {};
    for (let i = 0; i < count; i++) metadata[`k${i}`] = i;
    return envelope({ metadata });
  }

  // V8 lists an object's own keys in one native call that cannot be sliced (Object.keys, for-in,
  // JSON.stringify all do): measured here, about 0.7 µs per member for 1.2 million members. So the
  // bound for a caller's in-memory object beyond the limits is the settle bound plus that one
  // enumeration (spec/host-runtime.md, "Time and memory of judging a document"); the enumeration
  // is timed on the same object in this process, so what is asserted is that the host adds nothing
  // of its own beyond it (walking 1.2 million members instead of stopping at limits.max_values
  // would add about a second).
  it("1.2 million members with timeoutMs 1 → refused within 1 ms + settle_margin_ms + the key enumeration (subprocess)", async () => {
    const env = manyKeys(1_200_000);
    const metadata = env.request.metadata as Record<string, unknown>;
    const hangMs = 200;
    const [result, neighbour] = await Promise.all([
      new SubprocessInvoker({ program: "/bin/sh", args: ["-c", "cat >/dev/null; exit 0"], timeoutMs: 1 }).invoke(env),
      hangingClient(hangMs).invoke(envelope()),
    ]);
    const started = performance.now();
    Object.keys(metadata);
    // Twice one enumeration: the one inside invoke() and the collection of its 1.2 M-entry array
    // (two runs of the same enumeration differ by up to ~15 % on an idle machine, more under load).
    const allowanceMs = 2 * (performance.now() - started);
    expect(result.ok ? "ok" : result.failure.variant).toMatch(/^(timeout|invalid_request)$/);
    expect(result.elapsedMs).toBeLessThanOrEqual(1 + LIMITS.settle_margin_ms + allowanceMs);
    expect(neighbour.ok ? "ok" : neighbour.failure.variant).toBe("timeout");
    expect(neighbour.elapsedMs).toBeLessThanOrEqual(hangMs + LIMITS.settle_margin_ms + allowanceMs);
  });

  it("an envelope one member past limits.max_object_members → invalid_request json.max-members, refused before spawning", async () => {
    const marker = join(tmp.dir, "spawned-over-members");
    const result = await new SubprocessInvoker({
      program: "/bin/sh",
      args: ["-c", `touch '${marker}'; cat >/dev/null`],
      timeoutMs: 30_000,
    }).invoke(manyKeys(LIMITS.max_object_members + 1));
    expect(result.ok ? "ok" : result.failure.variant).toBe("invalid_request");
    if (!result.ok)
      expect([result.failure.issues?.[0]?.rule, result.failure.issues?.[0]?.pointer]).toEqual([
        "json.max-members",
        `/request/metadata/k${LIMITS.max_object_members}`,
      ]);
    expect(existsSync(marker), "the client was spawned").toBe(false);
  });

  it("a valid envelope of limits.max_object_members members is delivered in slices; the neighbour is not held", async () => {
    const env = manyKeys(LIMITS.max_object_members);
    const timeoutMs = 30_000; // generous: the bound asserted here is the neighbour's
    const { result } = await withHangingNeighbour(
      () =>
        new SubprocessInvoker({
          program: "/bin/sh",
          args: ["-c", `cat >/dev/null; printf '%s' '{"schema_version":"${WIRE_VERSION}","status":"delivered"}'`],
          timeoutMs,
        }).invoke(env),
      timeoutMs,
    );
    expect(result.ok ? "ok" : `${result.failure.variant}: ${result.failure.detail}`).toBe("ok");
  });

  it("in-process: a handler's response with limits.max_object_members + 1 members in one object → invalid_response json.max-members", async () => {
    const metadata: Record<string, number> = {};
    for (let i = 0; i <= LIMITS.max_object_members; i++) metadata[`k${i}`] = i;
    const result = await new InProcessInvoker({
      handler: () => ({ schema_version: WIRE_VERSION, status: "delivered" as const, metadata }),
      timeoutMs: 10_000,
    }).invoke(envelope());
    expect(result.ok ? "ok" : result.failure.variant).toBe("invalid_response");
    if (!result.ok)
      expect([result.failure.issues?.[0]?.rule, result.failure.issues?.[0]?.pointer]).toEqual([
        "json.max-members",
        `/metadata/k${LIMITS.max_object_members}`,
      ]);
  });

  it("in-process: a handler's response with 5 million values → invalid_response json.max-values, without stalling the neighbour", async () => {
    const huge = {
      schema_version: WIRE_VERSION,
      status: "delivered" as const,
      metadata: { a: new Array(5_000_000).fill(0) },
    };
    const { result } = await withHangingNeighbour(
      () => new InProcessInvoker({ handler: () => huge, timeoutMs: 2_000 }).invoke(envelope()),
      2_000,
    );
    expect(result.ok ? "ok" : result.failure.variant).toBe("invalid_response");
    if (!result.ok) expect(result.failure.issues?.[0]?.rule).toBe("json.max-values");
  });
});
