/**
 * The generator (codegen/main.ts) on scratch copies of the repository (`--root`): the drift check
 * catches a changed schema and shows the diff, broken sources (a bad wire-version window included)
 * stop generation with the file and JSON pointer at fault (exit 3), and generation is byte-deterministic.
 */
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRepo, runTs } from "../support/cli-process.js";

const copies: string[] = [];
function scratch(from?: string): string {
  const dir = copyRepo("lifeloop-codegen-", from);
  copies.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** Run the copy's own generator on the copy. */
function generate(root: string, ...args: string[]): ReturnType<typeof runTs> {
  return runTs("codegen/main.ts", [...args, "--root", root], { cwd: root });
}

/** Edit a JSON file of the copy in place; returns a function that restores it. */
function editJson(root: string, rel: string, edit: (doc: Record<string, unknown>) => void): () => void {
  const path = join(root, rel);
  const original = readFileSync(path, "utf8");
  const doc = JSON.parse(original) as Record<string, unknown>;
  edit(doc);
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
  return () => writeFileSync(path, original);
}

function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p).toString("base64"));
    }
  };
  walk(dir);
  return out;
}

describe("generate --check (drift)", () => {
  let root: string;
  beforeAll(() => {
    root = scratch();
  });

  it("passes on a clean copy", () => {
    const r = generate(root, "--check");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/files up to date/);
  });

  it("fails on a changed schema, naming each drifted file and showing a unified diff", () => {
    const restore = editJson(root, "schemas/warning.schema.json", (doc) => {
      ((doc.properties as Record<string, Record<string, unknown>>).code as Record<string, unknown>).maxLength = 256;
    });
    try {
      const r = generate(root, "--check");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("generated/ts/validators/Warning.cjs (changed)");
      expect(r.stderr).toContain("generated/docs/types/Warning.md (changed)");
      expect(r.stdout).toContain("--- generated/ts/validators/Warning.cjs");
      expect(r.stdout).toContain("+++ generated/ts/validators/Warning.cjs");
      expect(r.stdout).toMatch(/^@@ .* @@$/m);
      expect(r.stdout).toMatch(/^-.*512/m);
      expect(r.stdout).toMatch(/^\+.*256/m);
    } finally {
      restore();
    }
    expect(generate(root, "--check").code).toBe(0);
  });

  it("covers the conformance corpus: an invalid fixture without its rule is drift, not an input", () => {
    // The corpus (generated/conformance/) is generated output, never read back (codegen/targets/vectors/corpus.ts).
    const file = "generated/conformance/callback_request/invalid-json-bom-minimal.json";
    const restore = editJson(root, file, (doc) => {
      delete doc.expect_rule;
    });
    try {
      const r = generate(root, "--check");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${file} (changed)`);
      expect(r.stdout).toMatch(/^\+ {2}"expect_rule": "json.bom",$/m);
    } finally {
      restore();
    }
  });

  it("reports files no target produces as stale", () => {
    const stray = join(root, "generated", "stray.txt");
    writeFileSync(stray, "left behind\n");
    try {
      const r = generate(root, "--check");
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("stale (no target produces it): generated/stray.txt");
    } finally {
      rmSync(stray);
    }
  });
});

describe("invalid sources stop generation (exit 3, file and pointer named)", () => {
  let root: string;
  beforeAll(() => {
    root = scratch();
  });

  const cases: [string, string, (doc: Record<string, unknown>) => void, readonly string[]][] = [
    [
      "a table row violating its meta-schema",
      "spec/tables/limits.json",
      (doc) => {
        ((doc.limits as Record<string, unknown>[])[0] as Record<string, unknown>).value = "big";
      },
      ["spec/tables/limits.json at /limits/0/value", "spec/meta/limits.schema.json"],
    ],
    [
      "a rule naming an unknown field",
      "spec/tables/rules.json",
      (doc) => {
        (
          ((doc.rules as Record<string, unknown>[])[1] as { targets: Record<string, unknown>[] }).targets[0] as Record<
            string,
            unknown
          >
        ).field = "no_such_field";
      },
      ["spec/tables/rules.json at /rules/1/targets/0", "no field no_such_field"],
    ],
    [
      "an object that is not closed",
      "schemas/warning.schema.json",
      (doc) => {
        delete doc.additionalProperties;
      },
      ["schemas/warning.schema.json at /additionalProperties", "closed"],
    ],
    [
      "a string without maxLength",
      "schemas/warning.schema.json",
      (doc) => {
        delete ((doc.properties as Record<string, Record<string, unknown>>).code as Record<string, unknown>).maxLength;
      },
      ["schemas/warning.schema.json at /properties/code", "maxLength"],
    ],
  ];

  it.each(cases)("%s", (_name, file, edit, expected) => {
    const restore = editJson(root, file, edit);
    try {
      for (const args of [["--check"], []]) {
        const r = generate(root, ...args);
        expect(r.code, r.stderr).toBe(3);
        for (const text of expected) expect(r.stderr).toContain(text);
      }
    } finally {
      restore();
    }
  });
});

describe("a bad wire-version window stops generation (exit 3, file named; codegen/model/load.ts loadWindow)", () => {
  let root: string;
  /** spec/wire-version.json of the copy as committed. */
  let wire: { current: string; accepted: string[]; window_size: number };
  /** The newest accepted version and its snapshot folder (repository-relative). */
  let accepted: string;
  let snapshot: string;
  beforeAll(() => {
    root = scratch();
    wire = JSON.parse(readFileSync(join(root, "spec", "wire-version.json"), "utf8"));
    accepted = wire.accepted[0] as string;
    snapshot = `spec/releases/${accepted}`;
  });

  /** `generate --check` on the copy: exit 3 and every `expected` text on stderr. */
  function refused(expected: readonly string[]): void {
    const r = generate(root, "--check");
    expect(r.code, r.stderr).toBe(3);
    for (const text of expected) expect(r.stderr).toContain(text);
  }

  it("the committed window loads (the cases below start from it)", () => {
    expect(accepted, "spec/wire-version.json accepts an older version").toBeDefined();
    expect(generate(root, "--check").code).toBe(0);
  });

  it("an accepted version without a release snapshot", () => {
    const aside = join(root, "snapshot-aside");
    renameSync(join(root, snapshot), aside);
    try {
      refused(["spec/wire-version.json at /accepted/0", `${snapshot}/`, "snapshot-release"]);
    } finally {
      renameSync(aside, join(root, snapshot));
    }
  });

  it("a snapshot table that breaks the snapshot's meta-schema", () => {
    const restore = editJson(root, `${snapshot}/spec/tables/limits.json`, (doc) => {
      ((doc.limits as Record<string, unknown>[])[0] as Record<string, unknown>).value = "big";
    });
    try {
      refused([`${snapshot}/spec/tables/limits.json at /limits/0/value`]);
    } finally {
      restore();
    }
  });

  it("a snapshot table judged by the snapshot's own meta-schema, not today's", () => {
    // Today's meta-schema still accepts the unchanged table: only the snapshot's (tightened here) refuses it.
    const restore = editJson(root, `${snapshot}/spec/meta/limits.schema.json`, (doc) => {
      (doc.properties as Record<string, unknown>).only_in_this_snapshot = { type: "string" };
      doc.required = [...((doc.required as string[] | undefined) ?? []), "only_in_this_snapshot"];
    });
    try {
      refused([`${snapshot}/spec/tables/limits.json`, "only_in_this_snapshot"]);
    } finally {
      restore();
    }
  });

  it("the current version listed as accepted", () => {
    const restore = editJson(root, "spec/wire-version.json", (doc) => {
      doc.accepted = [wire.current];
    });
    try {
      refused(["spec/wire-version.json at /accepted/0", "current"]);
    } finally {
      restore();
    }
  });

  it("more accepted versions than window_size - 1", () => {
    const restore = editJson(root, "spec/wire-version.json", (doc) => {
      doc.window_size = wire.accepted.length;
    });
    try {
      refused(["spec/wire-version.json at /accepted", `do not fit a window of ${wire.accepted.length}`]);
    } finally {
      restore();
    }
  });
});

describe("determinism", () => {
  it("generates byte-identical trees from scratch, twice, in different locales and time zones", () => {
    const a = scratch();
    rmSync(join(a, "generated"), { recursive: true, force: true });
    const b = scratch(a);
    const first = runTs("codegen/main.ts", ["--root", a], {
      cwd: a,
      env: { TZ: "Pacific/Kiritimati", LANG: "tr_TR.UTF-8", LC_ALL: "tr_TR.UTF-8" },
    });
    const second = runTs("codegen/main.ts", ["--root", b], { cwd: a, env: { TZ: "UTC", LANG: "C", LC_ALL: "C" } });
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    const ta = tree(join(a, "generated"));
    const tb = tree(join(b, "generated"));
    expect([...ta.keys()]).toEqual([...tb.keys()]);
    expect([...ta].filter(([k, v]) => tb.get(k) !== v).map(([k]) => k)).toEqual([]);
    const again = generate(a);
    expect(again.stdout).toMatch(/already up to date/);
    expect(generate(a, "--check").code).toBe(0);
  });
});
