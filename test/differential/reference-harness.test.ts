/**
 * Proves the differential oracle (tools/reference/) is wired: the Rust
 * harness is reachable, judges with the reference crate, and answers in
 * order. Needs the release binary:
 *   cargo build --release --manifest-path tools/reference/Cargo.toml
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";

import {
  judgeWithReference,
  REFERENCE_HARNESS_PATH,
  type ReferenceCase,
  type ReferenceVerdict,
} from "../support/reference-harness.js";

/**
 * The wire version the documents below carry: the reference crate's own (`--version` prints its
 * SCHEMA_VERSION), so these checks of the wiring hold between a bump of our wire version and the
 * re-pin of the crate (the differential suite is the one that insists both agree). When the harness
 * is not built, our version stands in and judgeWithReference reports how to build it.
 */
const VERSION: string = (() => {
  try {
    return execFileSync(REFERENCE_HARNESS_PATH, ["--version"], { encoding: "utf8", timeout: 60_000 }).trim();
  } catch {
    return WIRE_VERSION;
  }
})();

const REQUEST_MEMBERS =
  `"schema_version":${JSON.stringify(VERSION)},"event":"session.starting","event_id":"e",` +
  '"adapter_id":"codex","adapter_version":"0.1.0","integration_mode":"native_hook","invocation_id":"i"';

/** A valid CallbackRequest, optionally with extra members appended. */
function request(extra?: string): string {
  return `{${REQUEST_MEMBERS}${extra === undefined ? "" : `,${extra}`}}`;
}

function receipt(omit: readonly string[] = []): string {
  const members: ReadonlyArray<readonly [string, string]> = [
    ["schema_version", JSON.stringify(VERSION)],
    ["receipt_id", '"r"'],
    ["idempotency_key", "null"],
    ["client_id", '"c"'],
    ["adapter_id", '"codex"'],
    ["invocation_id", '"i"'],
    ["event", '"session.starting"'],
    ["event_id", '"e"'],
    ["sequence", "null"],
    ["parent_receipt_id", "null"],
    ["integration_mode", '"native_hook"'],
    ["status", '"observed"'],
    ["at_epoch_s", "1"],
    ["failure_class", "null"],
    ["retry_class", "null"],
  ];
  return `{${members
    .filter(([key]) => !omit.includes(key))
    .map(([key, value]) => `"${key}":${value}`)
    .join(",")}}`;
}

async function judgeOne(c: ReferenceCase): Promise<ReferenceVerdict> {
  const [verdict] = await judgeWithReference([c]);
  if (verdict === undefined) throw new Error("no verdict");
  return verdict;
}

describe("reference harness (lifeloop-cli oracle)", () => {
  it("accepts a valid CallbackRequest", async () => {
    expect(await judgeOne({ id: "ok", kind: "callback_request", text: request() })).toEqual({
      id: "ok",
      accepted: true,
    });
  });

  it("rejects an unknown field at deserialize", async () => {
    const v = await judgeOne({ id: "u", kind: "callback_request", text: request('"surprise":1') });
    expect(v.accepted).toBe(false);
    expect(v.stage).toBe("deserialize");
    expect(v.error).toContain("unknown field `surprise`");
  });

  it("rejects an empty adapter_id at validate", async () => {
    const text = request().replace('"adapter_id":"codex"', '"adapter_id":""');
    const v = await judgeOne({ id: "empty", kind: "callback_request", text });
    expect(v).toMatchObject({ accepted: false, stage: "validate" });
    expect(v.error).toContain("request.adapter_id");
  });

  it("rejects a duplicate field at deserialize", async () => {
    const v = await judgeOne({ id: "dup", kind: "callback_request", text: request('"event_id":"again"') });
    expect(v).toMatchObject({ accepted: false, stage: "deserialize" });
    expect(v.error).toContain("duplicate field `event_id`");
  });

  it("rejects invalid UTF-8 delivered as raw bytes", async () => {
    const [before, after] = request().split('"e"') as [string, string];
    const bytes = Buffer.concat([
      Buffer.from(`${before}"`, "utf8"),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`"${after}`, "utf8"),
    ]);
    const v = await judgeOne({ id: "utf8", kind: "callback_request", bytes });
    expect(v).toMatchObject({ accepted: false, stage: "deserialize" });
    expect(v.error).toContain("invalid unicode code point");
  });

  it("treats sequence numbers as serde_json does", async () => {
    const verdicts = await judgeWithReference([
      { id: "1.0", kind: "callback_request", text: request('"sequence":1.0') },
      { id: "-0", kind: "callback_request", text: request('"sequence":-0') },
      { id: "2^53+1", kind: "callback_request", text: request('"sequence":9007199254740993') },
    ]);
    expect(verdicts[0]).toMatchObject({ accepted: false, stage: "deserialize" });
    expect(verdicts[0]?.error).toContain("floating point `1.0`, expected u64");
    // `-0` is read as the float -0.0, not as the integer 0, so it is rejected.
    expect(verdicts[1]).toMatchObject({ accepted: false, stage: "deserialize" });
    expect(verdicts[1]?.error).toContain("floating point `-0.0`, expected u64");
    // Integers beyond 2^53 are exact u64 values for the reference.
    expect(verdicts[2]).toEqual({ id: "2^53+1", accepted: true });
  });

  it("requires the required-nullable keys of a LifecycleReceipt", async () => {
    const verdicts = await judgeWithReference([
      { id: "complete", kind: "lifecycle_receipt", text: receipt() },
      { id: "no-sequence", kind: "lifecycle_receipt", text: receipt(["sequence"]) },
    ]);
    expect(verdicts[0]).toEqual({ id: "complete", accepted: true });
    expect(verdicts[1]).toMatchObject({ accepted: false, stage: "deserialize" });
    expect(verdicts[1]?.error).toContain("missing required-nullable field(s): sequence");
  });

  it("accepts a CallbackResponse with failure_class null or absent", async () => {
    const verdicts = await judgeWithReference([
      {
        id: "null",
        kind: "callback_response",
        text: `{"schema_version":${JSON.stringify(VERSION)},"status":"delivered","failure_class":null,"retry_class":null}`,
      },
      {
        id: "absent",
        kind: "callback_response",
        text: `{"schema_version":${JSON.stringify(VERSION)},"status":"delivered"}`,
      },
    ]);
    expect(verdicts).toEqual([
      { id: "null", accepted: true },
      { id: "absent", accepted: true },
    ]);
  });

  it("reports harness-stage problems without judging", async () => {
    const verdicts = await judgeWithReference([
      { id: "kind", kind: "no_such_kind", text: "{}" },
      { id: "after", kind: "warning", text: '{"code":"c","message":"m"}' },
    ]);
    expect(verdicts[0]).toMatchObject({ id: "kind", accepted: false, stage: "harness" });
    expect(verdicts[0]?.error).toContain("unknown kind `no_such_kind`");
    expect(verdicts[1]).toEqual({ id: "after", accepted: true });
  });

  it("rejects a case that carries no document before spawning", async () => {
    await expect(judgeWithReference([{ id: "none", kind: "warning" }])).rejects.toThrow(/exactly one of text or bytes/);
  });

  it("answers 1,000 cases, some large, in input order", async () => {
    const big = "x".repeat(256 * 1024);
    const cases: ReferenceCase[] = Array.from({ length: 1000 }, (_, i) => {
      const id = `case-${i}`;
      if (i % 100 === 7) {
        return { id, kind: "callback_request", text: request(`"metadata":{"blob":"${big}"}`) };
      }
      if (i % 3 === 0) {
        return { id, kind: "callback_request", text: request(`"sequence":${i}`) };
      }
      if (i % 3 === 1) {
        return { id, kind: "callback_request", text: request(`"sequence":-${i}`) };
      }
      return { id, kind: "callback_request", bytes: Buffer.from(request(`"sequence":${i}`), "utf8") };
    });
    const verdicts = await judgeWithReference(cases);
    expect(verdicts.map((v) => v.id)).toEqual(cases.map((c) => c.id));
    verdicts.forEach((v, i) => {
      const expected = i % 100 === 7 || i % 3 !== 1;
      expect(v.accepted, v.id).toBe(expected);
    });
  });
});
