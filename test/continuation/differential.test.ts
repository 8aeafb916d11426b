/**
 * Differential suite (CONTINUATION-001): every scenario of scenarios.ts runs on both CLIs, ours
 * (`lifeloop-callback continuation`) and the reference `lifeloop continuation` 0.5.0, each on its own
 * fresh store. Per step, the exit code, stdout (JSON, or the blob's exact bytes for get) and the JSON
 * lines of stderr must be equal after normalizing only what the spec allows to differ: timestamps,
 * the free-text `detail` / `reason` / diagnostic `error` words, plain-text usage messages, and list
 * order. After each scenario the two stores must hold the same files, modes and bytes (our lock files
 * aside). Steps marked as documented differences assert each side's exit code instead.
 *
 * Cross-reading: one store, commands alternating between the CLIs; each reads what the other wrote.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_DIFFERENCES } from "../../generated/ts/spec.js";
import {
  limited,
  removeDir,
  requireReference,
  runSide,
  scratch,
  snapshot,
  storeEnv,
  type Run,
  type Side,
  type TreeItem,
} from "./support.js";
import { SCENARIOS, type Scenario, type Step } from "./scenarios.js";

/** Normalize one stderr/stdout JSON value: timestamps and free text become placeholders; list keys sorted. */
function normalizeJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeJson);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k === "written_at_epoch_s" && typeof v === "number") out[k] = "<epoch>";
    else if ((k === "detail" || k === "reason") && typeof v === "string" && !("diagnostic" in value)) out[k] = "<text>";
    else if (k === "path" && typeof v === "string") out[k] = v.split("/").slice(-2).join("/");
    else if (k === "error" && typeof v === "string" && "diagnostic" in value) {
      try {
        out[k] = normalizeJson(JSON.parse(v));
      } catch {
        out[k] = "<text>";
      }
    } else out[k] = normalizeJson(v);
  }
  if (Array.isArray(out.keys)) out.keys = [...(out.keys as { key: string }[])].sort((a, b) => (a.key < b.key ? -1 : 1));
  return out;
}

/** The raw text of JSON numbers matters (u64): compare the text with timestamps blanked too. */
function jsonLines(text: string): unknown[] {
  const lines = text.split("\n").filter((l) => l !== "");
  const out: unknown[] = [];
  for (const line of lines) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || typeof parsed !== "object") {
      if (out[out.length - 1] !== "<plain text>") out.push("<plain text>");
    } else
      out.push({
        json: normalizeJson(parsed),
        bigNumbers: line.replace(/"written_at_epoch_s":\d+/g, "").match(/\d{16,}/g) ?? [],
      });
  }
  return out;
}

interface Observation {
  readonly code: number | null;
  readonly stdout: unknown;
  readonly stderr: unknown[];
}

function observe(step: Extract<Step, { args: readonly string[] }>, run: Run): Observation {
  const blobOut = step.args[0] === "get" && run.code === 0;
  // list diagnostics come in directory order from the reference, by key from us (continuation-list-order).
  const stderr =
    step.args[0] === "list"
      ? jsonLines(run.stderr).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
      : jsonLines(run.stderr);
  return {
    code: run.code,
    stdout: blobOut ? run.stdout.toString("base64") : jsonLines(run.stdout.toString("utf8")),
    stderr,
  };
}

function plant(root: string, step: Step): void {
  if ("plant" in step) {
    mkdirSync(dirname(join(root, step.plant)), { recursive: true, mode: 0o700 });
    writeFileSync(join(root, step.plant), step.bytes, { mode: 0o600 });
  } else if ("mkdir" in step) mkdirSync(join(root, step.mkdir), { recursive: true, mode: 0o700 });
}

/**
 * A store snapshot comparable across the CLIs: our lock files left out, timestamps in metas blanked,
 * and expired entries left out (the reference keeps them, we remove them: continuation-expired-removed;
 * the TTL suite asserts that ours are gone).
 */
function comparableTree(dir: string): unknown[] {
  return snapshot(dir)
    .filter((i: TreeItem) => !/(^|\/)\.[^/]*\.lock$/.test(i.path) && !(i.bytes && isExpiredEntry(i.bytes)))
    .map((i) => ({
      path: i.path,
      kind: i.kind,
      mode: i.mode.toString(8),
      bytes: i.bytes ? blankMeta(i.bytes) : undefined,
    }));
}

function isExpiredEntry(bytes: Buffer): boolean {
  try {
    const meta = JSON.parse(bytes.subarray(4, 4 + bytes.readUInt32BE(0)).toString("utf8")) as {
      written_at_epoch_s: number;
      ttl_s: number | null;
    };
    if (typeof meta.ttl_s !== "number") return false;
    const expiry = BigInt(meta.written_at_epoch_s) + BigInt(Math.round(meta.ttl_s));
    return expiry > (1n << 64n) - 1n || expiry <= BigInt(Math.floor(Date.now() / 1000));
  } catch {
    return false;
  }
}

function blankMeta(bytes: Buffer): string {
  if (bytes.length < 4) return bytes.toString("base64");
  const metaEnd = 4 + bytes.readUInt32BE(0);
  if (metaEnd > bytes.length) return bytes.toString("base64");
  const meta = bytes
    .subarray(4, metaEnd)
    .toString("utf8")
    .replace(/"written_at_epoch_s":\d+/, '"written_at_epoch_s":0');
  return `${meta}|${bytes.subarray(metaEnd).toString("base64")}`;
}

interface ScenarioOutcome {
  readonly compared: number;
  readonly differences: number;
  readonly mismatches: string[];
}

async function runScenario(s: Scenario): Promise<ScenarioOutcome> {
  const dirs: Record<Side, string> = { ours: scratch("cont-ours-"), reference: scratch("cont-ref-") };
  try {
    const envOf = (side: Side): Record<string, string> =>
      storeEnv(s.env ? s.env(dirs[side]) : { LIFELOOP_CONTINUATION_ROOT: join(dirs[side], "store") });
    const rootOf = (side: Side): string => (s.rootOf ? s.rootOf(dirs[side]) : join(dirs[side], "store"));
    const mismatches: string[] = [];
    let compared = 0;
    let differences = 0;
    for (const [index, step] of s.steps.entries()) {
      if (!("args" in step)) {
        plant(rootOf("ours"), step);
        plant(rootOf("reference"), step);
        continue;
      }
      const [ours, reference] = await Promise.all(
        (["ours", "reference"] as const).map((side) =>
          runSide(side, step.args, { input: step.input ?? "", env: { ...envOf(side), ...step.env }, cwd: dirs[side] }),
        ),
      );
      const label = `${s.name} #${index} continuation ${step.args.join(" ").slice(0, 120)}`;
      if (step.difference) {
        differences++;
        if (ours?.code !== step.difference.ours || reference?.code !== step.difference.reference) {
          mismatches.push(
            `${label}: difference ${step.difference.id}: ours exit ${ours?.code}, reference exit ${reference?.code}`,
          );
        }
        continue;
      }
      compared++;
      const a = observe(step, ours as Run);
      const b = observe(step, reference as Run);
      if (JSON.stringify(a) !== JSON.stringify(b))
        mismatches.push(`${label}:\n  ours      ${JSON.stringify(a)}\n  reference ${JSON.stringify(b)}`);
    }
    if (!s.treesMayDiffer) {
      const [ta, tb] = [comparableTree(dirs.ours), comparableTree(dirs.reference)];
      if (JSON.stringify(ta) !== JSON.stringify(tb))
        mismatches.push(
          `${s.name}: the stores differ:\n  ours      ${JSON.stringify(ta).slice(0, 2000)}\n  reference ${JSON.stringify(tb).slice(0, 2000)}`,
        );
    }
    return { compared, differences, mismatches };
  } finally {
    removeDir(dirs.ours);
    removeDir(dirs.reference);
  }
}

describe("continuation: differential against the reference CLI", () => {
  const outcomes = new Map<string, ScenarioOutcome>();
  beforeAll(async () => {
    requireReference();
    const results = await limited(
      3,
      SCENARIOS.map((s) => () => runScenario(s)),
    );
    SCENARIOS.forEach((s, i) => {
      outcomes.set(s.name, results[i] as ScenarioOutcome);
    });
  }, 600_000); // about 15 s on a quiet 2-core machine; a shared, loaded one needs far more

  it.each(SCENARIOS.map((s) => [s.name]))("%s", (name) => {
    const outcome = outcomes.get(name);
    expect(outcome).toBeDefined();
    expect(outcome?.mismatches.join("\n\n") ?? "").toBe("");
  });

  it("every documented difference is in spec/tables/reference-differences.json", () => {
    const ids = new Set<string>(REFERENCE_DIFFERENCES.map((d) => d.id));
    const used = SCENARIOS.flatMap((s) =>
      s.steps.flatMap((st) => ("difference" in st && st.difference ? [st.difference.id] : [])),
    );
    expect(used.filter((id) => !ids.has(id))).toEqual([]);
  });
});

describe("continuation: cross-reading between the CLIs on one store", () => {
  let dir = "";
  let env: Record<string, string> = {};
  beforeAll(() => {
    requireReference();
    dir = scratch("cont-cross-");
    env = storeEnv({ LIFELOOP_CONTINUATION_ROOT: join(dir, "store") });
  });
  afterAll(() => removeDir(dir));
  const run = (side: Side, args: readonly string[], input?: Uint8Array | string): Promise<Run> =>
    runSide(side, args, { env, cwd: dir, ...(input === undefined ? {} : { input }) });

  const blobs: [string, Buffer][] = [
    ["binary", Buffer.from([0x61, 0x00, 0x62, 0xff, 0x0a, 0xc3, 0x28])],
    ["empty", Buffer.alloc(0)],
    ["mib", Buffer.alloc(1024 * 1024, 0x5a)],
  ];
  for (const [writer, reader] of [
    ["ours", "reference"],
    ["reference", "ours"],
  ] as const) {
    it.each(blobs)(
      `${writer} writes a %s blob, ${reader} reads it byte for byte with the same meta and list`,
      async (name, blob) => {
        const put = await run(
          writer,
          ["put", "--thread", `x-${writer}`, "--key", name, "--client-id", "ccd", "--ttl-s", "600"],
          blob,
        );
        expect(put.code, put.stderr).toBe(0);
        const written = (JSON.parse(put.stdout.toString()) as { written_at_epoch_s: number }).written_at_epoch_s;
        const got = await run(reader, ["get", "--thread", `x-${writer}`, "--key", name]);
        expect(got.code, got.stderr).toBe(0);
        expect(got.stdout.equals(blob)).toBe(true);
        expect(got.stderr).toBe(`{"client_id":"ccd","ttl_s":600,"written_at_epoch_s":${written}}\n`);
        const [a, b] = await Promise.all([
          run(writer, ["list", "--thread", `x-${writer}`]),
          run(reader, ["list", "--thread", `x-${writer}`]),
        ]);
        expect(normalizeJson(JSON.parse(a.stdout.toString()))).toEqual(normalizeJson(JSON.parse(b.stdout.toString())));
      },
    );
  }

  it("each side's guarded drop and drop-thread remove what the other wrote, temp files included", async () => {
    expect((await run("ours", ["put", "--thread", "g", "--key", "k", "--client-id", "me"], "v")).code).toBe(0);
    const refused = await run("reference", ["drop", "--thread", "g", "--key", "k", "--require-client-id", "you"]);
    expect([refused.code, JSON.parse(refused.stderr)]).toEqual([
      3,
      { actual: "me", error: "client_id_mismatch", required: "you" },
    ]);
    expect((await run("reference", ["drop", "--thread", "g", "--key", "k", "--require-client-id", "me"])).code).toBe(0);
    expect((await run("ours", ["get", "--thread", "g", "--key", "k"])).stderr).toBe('{"error":"not_found"}\n');

    for (const k of ["a", "b", "c"])
      expect((await run("reference", ["put", "--thread", "r", "--key", k], k)).code).toBe(0);
    writeFileSync(join(dir, "store", "r", ".a.tmp.1-2-3"), "leftover");
    const ours = await run("ours", ["drop-thread", "--thread", "r"]);
    expect(ours.stdout.toString()).toBe('{"dropped_count":3,"status":"ok"}\n');
    expect(
      snapshot(join(dir, "store")).filter(
        (i) => i.path === "r" || i.path.startsWith("r/") || i.path.startsWith(".r.drop."),
      ),
    ).toEqual([]);

    for (const k of ["a", "b"]) expect((await run("ours", ["put", "--thread", "o", "--key", k], k)).code).toBe(0);
    const theirs = await run("reference", ["drop-thread", "--thread", "o"]);
    expect(theirs.stdout.toString()).toBe('{"dropped_count":2,"status":"ok"}\n');
    expect((await run("ours", ["list", "--thread", "o"])).stdout.toString()).toBe('{"keys":[],"thread":"o"}\n');
  });

  it("list --long of entries the reference wrote reports their blob sizes and expiry", async () => {
    const put = await run("reference", ["put", "--thread", "l", "--key", "k", "--ttl-s", "100"], "12345");
    const written = (JSON.parse(put.stdout.toString()) as { written_at_epoch_s: number }).written_at_epoch_s;
    const listed = await run("ours", ["list", "--thread", "l", "--long"]);
    expect(listed.stdout.toString()).toBe(
      `{"keys":[{"blob_bytes":5,"client_id":"unknown","expires_at_epoch_s":${written + 100},"key":"k","ttl_s":100,"written_at_epoch_s":${written}}],"thread":"l"}\n`,
    );
  });
});
