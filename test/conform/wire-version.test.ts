/**
 * `lifeloop-callback conform --wire-version V` (spec/wire-window.md, "Who speaks which version"):
 * the scenarios' requests are written in V and judged by V's rules (a refusal vector V accepts is
 * left out), and every answer must be in V, except to a request whose version cannot be read,
 * which a client answers in its own current version. Checked on the scenarios themselves and with
 * real processes: the conform fixture client (answers in the request's version) passes every
 * scenario in both transports at lifeloop.v0.3, and lifeloop-cli 0.5.0's fake client (a v0.3
 * client) passes the event scenarios at v0.3 and fails them at current, its answers named.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { WIRE_WINDOW } from "../../generated/ts/window.js";
import { buildScenarios } from "../../runtime/conform/scenarios.js";
import { SCENARIO_TRANSPORTS } from "../../runtime/conform/types.js";
import { parseStrictJson } from "../../runtime/wire/json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS, parseWireDocument } from "../../runtime/wire/validate.js";
import { closedWindow, DEFAULT_WIRE_WINDOW } from "../../runtime/wire/window.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { conform, failing, failureDetails, nodeClient } from "./support.js";

/** lifeloop-cli 0.5.0's version: an older version of the window. */
const V03 = "lifeloop.v0.3";
const VECTORS = join(REPO_ROOT, "generated", "vectors");
const REFERENCE_CLIENT = join(REPO_ROOT, ".cache", "lifeloop-ref-0.5.0", "bin", "lifeloop-fake-ccd-client");
const INSTALL =
  "cargo install lifeloop-cli --version 0.5.0 --locked --root .cache/lifeloop-ref-0.5.0 (or bash tools/setup/prepare.sh)";

/** Every `schema_version` string in a parsed value. */
function versionsIn(value: unknown): string[] {
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k === "schema_version" && typeof v === "string" ? [v] : versionsIn(v),
  );
}

describe("conform scenarios in an older version", () => {
  it("V03 is an accepted version of this build's window", () => {
    expect(WIRE_WINDOW).toContain(V03);
    expect(V03).not.toBe(WIRE_VERSION);
  });

  for (const transport of SCENARIO_TRANSPORTS) {
    it(`${transport}: the same scenario ids; requests in V03; answers judged in V03 unless the request cannot be read`, () => {
      const current = buildScenarios(VECTORS, transport);
      const older = buildScenarios(VECTORS, transport, V03);
      expect(older.map((s) => s.id)).toEqual(current.map((s) => s.id));
      for (const s of older) {
        expect(s.wireVersion).toBe(V03);
        if (s.input.kind === "stream") {
          expect(s.answerWindow).toEqual([V03]);
          continue;
        }
        const parsed = parseStrictJson(s.input.bytes, DEFAULT_DOCUMENT_LIMITS);
        if (!parsed.ok) {
          expect(s.answerWindow, s.id).toBe(DEFAULT_WIRE_WINDOW);
          continue;
        }
        const versions = versionsIn(parsed.value);
        if (s.id === "refuse-wrong-wire-version") {
          expect(WIRE_WINDOW).not.toContain((parsed.value as { schema_version: string }).schema_version);
          expect(s.answerWindow).toBe(DEFAULT_WIRE_WINDOW);
          continue;
        }
        // Every document the scenario sends speaks V03 (none is left in current).
        expect(
          versions.filter((v) => v === WIRE_VERSION),
          s.id,
        ).toEqual([]);
        if (s.expect === "refuse" && !versions.includes(V03)) expect(s.answerWindow, s.id).toBe(DEFAULT_WIRE_WINDOW);
        else expect(s.answerWindow, s.id).toEqual([V03]);
        const judged = parseWireDocument("DispatchEnvelope", s.input.bytes, undefined, closedWindow(V03));
        if (s.expect === "answer") expect(judged.ok, s.id).toBe(true);
        // A refusal is one V03 refuses, under a rule the scenario cites.
        if (s.expect === "refuse" && s.id.startsWith("refuse-rule.")) {
          expect(judged.ok, s.id).toBe(false);
          if (!judged.ok) expect(s.rule_ids, s.id).toContain(judged.issues[0]?.rule);
        }
      }
    });
  }
});

describe("conform --wire-version against real clients", () => {
  it("the conform fixture client (answers in the request's version) passes every scenario at lifeloop.v0.3, both transports", async () => {
    const r = await conform([...nodeClient(), "--transport", "both", "--wire-version", V03]);
    expect(r.lines[0]).toMatchObject({ header: { wire_version: V03 } });
    expect(failing(r), failureDetails(r)).toEqual([]);
    expect(r.records.length).toBeGreaterThan(0);
    expect(r.code).toBe(0);
  }, 600_000);

  it("lifeloop-cli 0.5.0's fake client: its v0.3 answers pass the event scenarios at v0.3 and fail them at current", async () => {
    if (!existsSync(REFERENCE_CLIENT))
      throw new Error(
        `lifeloop-cli 0.5.0's test client is missing at ${REFERENCE_CLIENT}; install it with: ${INSTALL}`,
      );
    const [older, current] = await Promise.all([
      conform(["--program", REFERENCE_CLIENT, "--wire-version", V03]),
      conform(["--program", REFERENCE_CLIENT]),
    ]);
    const events = (r: typeof older) => r.records.filter((x) => x.scenario.startsWith("event."));
    expect(events(older).length).toBeGreaterThan(0);
    expect(
      events(older).filter((x) => x.verdict !== "pass"),
      failureDetails(older),
    ).toEqual([]);
    expect(events(current).length).toBe(events(older).length);
    for (const x of events(current)) {
      expect(x.verdict, x.scenario).toBe("fail");
      expect(x.detail).toContain("schema-version-current");
      expect(x.detail).toContain(`\`${V03}\``);
    }
  }, 600_000);
});
