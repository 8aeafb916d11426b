/**
 * `validate --all` (runtime/wire/all-issues.ts): on every fixture of our corpus, the first
 * issue it reports is exactly the issue the default first-issue path reports (so --all only adds),
 * a valid document gives [], and a document with several independent faults gets all of them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LIMITS, WIRE_DOCUMENTS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { allIssues } from "../../runtime/wire/all-issues.js";
import { parseWireDocument } from "../../runtime/wire/validate.js";
import { REPO_ROOT, runCli } from "../support/cli-process.js";

const CORPUS = join(REPO_ROOT, "generated", "conformance");

describe("validate --all", () => {
  it("starts with the default path's issue on every corpus fixture, and is [] exactly when that is", () => {
    let compared = 0;
    for (const doc of WIRE_DOCUMENTS) {
      const dir = join(CORPUS, doc.fixtureKind);
      for (const name of readdirSync(dir)) {
        const fixture = JSON.parse(readFileSync(join(dir, name), "utf8")) as { data?: unknown; data_base64?: string };
        const bytes =
          fixture.data_base64 !== undefined
            ? Buffer.from(fixture.data_base64, "base64")
            : Buffer.from(JSON.stringify(fixture.data));
        const first = parseWireDocument(doc.typeName, bytes);
        const all = allIssues(doc.typeName, bytes);
        if (first.ok) expect(all, name).toEqual([]);
        else {
          expect(all[0], name).toEqual(first.issues[0]);
        }
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it("reports every independent fault of one document, in layer order, from the CLI", () => {
    const envelope = {
      schema_version: WIRE_VERSION,
      request: {
        schema_version: WIRE_VERSION,
        event: "frame.opening",
        event_id: "e",
        adapter_id: "a",
        adapter_version: "1",
        integration_mode: "native_hook",
        invocation_id: "i",
        bogus: 1,
        extra: 2,
      },
    };
    const r = runCli(["validate", "--all", "dispatch-envelope", "-"], { input: JSON.stringify(envelope) });
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { rule: string; pointer: string }[]).map((i) => [i.rule, i.pointer])).toEqual([
      ["schema.additional-properties", "/request/bogus"],
      ["schema.additional-properties", "/request/extra"],
    ]);
    const rules = {
      ...envelope,
      request: { ...envelope.request, bogus: undefined, extra: undefined, event_id: "", adapter_id: "" },
    };
    const r2 = runCli(["validate", "--all", "dispatch-envelope", "-"], { input: JSON.stringify(rules) });
    expect((JSON.parse(r2.stdout) as { rule: string; pointer: string }[]).map((i) => [i.rule, i.pointer])).toEqual([
      ["non-empty-identifier", "/request/event_id"],
      ["non-empty-identifier", "/request/adapter_id"],
      ["frame-event-requires-frame-context", "/request/frame_context"],
    ]);
  });

  it("prints at most limits.max_reported_issues issues, the first ones, and says on stderr how many there were", () => {
    const max = LIMITS.max_reported_issues;
    const unknown = Object.fromEntries(Array.from({ length: max + 500 }, (_, i) => [`u${i}`, 0]));
    const envelope = {
      schema_version: WIRE_VERSION,
      request: {
        schema_version: WIRE_VERSION,
        event: "session.starting",
        event_id: "e",
        adapter_id: "a",
        adapter_version: "1",
        integration_mode: "native_hook",
        invocation_id: "i",
        ...unknown,
      },
    };
    const r = runCli(["validate", "--all", "dispatch-envelope", "-"], { input: JSON.stringify(envelope) });
    expect(r.code).toBe(1);
    const printed = JSON.parse(r.stdout) as { rule: string; pointer: string }[];
    expect(printed).toHaveLength(max);
    expect(printed[0]).toMatchObject({ rule: "schema.additional-properties", pointer: "/request/u0" });
    expect(printed[max - 1]?.pointer).toBe(`/request/u${max - 1}`);
    expect(r.stderr).toContain(`${max + 500} issues found; the first ${max} are printed (limits.max_reported_issues)`);
  });
});
