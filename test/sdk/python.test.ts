/**
 * The Python SDK (sdk/python, package `lifeloop_callback`) under its own tools, run as
 * real processes so `npm test` covers it:
 *   (its linters, `mypy --strict` and `ruff check`, run in `bash sdk/check.sh`, outside the test runner);
 *   - its pytest suite (sdk/python/tests: shared vectors, codec, parse layer, runner subprocesses,
 *     client-initiated commands against the reference CLI);
 *   - a differential run: the TypeScript validator (the oracle) judges every shared vector plus
 *     thousands of deterministic mutants, and the Python SDK must return the same verdict, rule id and
 *     JSON pointer for each.
 *
 * Python: $LIFELOOP_PYTHON, else .cache/venv/bin/python (made by tools/setup/prepare.sh), else python3.
 * It needs the pinned tools: `python3 -m pip install mypy==1.19.1 ruff==0.17.6 pytest==9.2.0`
 * (mypy 2.x cannot check the Python 3.9 target the package promises).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadModel } from "../../codegen/model/load.js";
import { parseWireDocument } from "../../runtime/wire/validate.js";
import type { WireObjectTypeName } from "../../generated/ts/spec.js";
import { mulberry32, mutants } from "../differential/mutations.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TESTS_DIR = join(ROOT, "sdk/python/tests");
const VENV_PYTHON = join(ROOT, ".cache/venv/bin/python");
const PYTHON = process.env.LIFELOOP_PYTHON ?? (existsSync(VENV_PYTHON) ? VENV_PYTHON : "python3");
const PINS = "mypy==1.19.1 ruff==0.17.6 pytest==9.2.0";
/** Mutants per wire document type in the differential run. */
const MUTANTS_PER_TYPE = 600;
const SEED = 0x5eed_0004;

interface Ran {
  readonly status: number | null;
  readonly output: string;
}

/** Run `python -m <args>` to completion (bounded by `timeoutMs`; the child is killed and reaped on timeout). */
function python(args: readonly string[], cwd: string, timeoutMs: number): Ran {
  const done = spawnSync(PYTHON, ["-m", ...args], {
    cwd,
    encoding: "utf8",
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (done.error) throw new Error(`cannot run ${PYTHON} -m ${args.join(" ")}: ${done.error.message}`);
  return { status: done.status, output: `${done.stdout}${done.stderr}` };
}

/** Fail with the install command when a tool module is missing. */
function requireTool(module: string): void {
  const ran = python([module, "--version"], ROOT, 60_000);
  if (ran.status !== 0) {
    throw new Error(
      `${module} is not installed for ${PYTHON}; install the pinned tools: ${PYTHON} -m pip install ${PINS}\n${ran.output}`,
    );
  }
}

const scratch = mkdtempSync(join(tmpdir(), "lifeloop-pysdk-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("Python SDK (sdk/python)", () => {
  it("passes its pytest suite (vectors, codec, runner, commands)", () => {
    requireTool("pytest");
    const ran = python(["pytest", "-q", TESTS_DIR], ROOT, 600_000);
    expect(ran.status, ran.output).toBe(0);
    expect(ran.output).toMatch(/\d+ passed/);
    expect(ran.output).not.toMatch(/skipped|xfail/);
  }, 620_000);

  it("agrees with the TypeScript validator on every vector and on mutated documents", () => {
    const model = loadModel(ROOT);
    const index = JSON.parse(readFileSync(join(ROOT, "generated/vectors/index.json"), "utf8")) as {
      vectors: { path: string }[];
    };
    const lines: string[] = [];
    const add = (id: string, type: string, bytes: Uint8Array): void => {
      const verdict = parseWireDocument(type as WireObjectTypeName, bytes);
      const first = verdict.ok ? null : verdict.issues[0];
      lines.push(
        JSON.stringify({
          id,
          type,
          b64: Buffer.from(bytes).toString("base64"),
          ok: verdict.ok,
          rule: first?.rule ?? null,
          pointer: first?.pointer ?? null,
        }),
      );
    };
    const bases = new Map<string, unknown[]>();
    const raw: { type: string; bytes: Uint8Array }[] = [];
    for (const entry of index.vectors) {
      const v = JSON.parse(readFileSync(join(ROOT, "generated/vectors", entry.path), "utf8")) as {
        id: string;
        type: string;
        expect: string;
        document_base64: string;
      };
      const bytes = new Uint8Array(Buffer.from(v.document_base64, "base64"));
      add(`vector:${v.id}`, v.type, bytes);
      raw.push({ type: v.type, bytes });
      if (v.expect === "valid" && bytes.length <= 64 * 1024)
        bases.set(v.type, [...(bases.get(v.type) ?? []), JSON.parse(Buffer.from(bytes).toString("utf8"))]);
    }
    model.roots.forEach((root, i) => {
      const docs = bases.get(root.typeName) ?? [];
      expect(docs.length, `valid vectors of ${root.typeName}`).toBeGreaterThan(0);
      for (const m of mutants(model, root.typeName, root.fixtureKind, docs as never[], MUTANTS_PER_TYPE, SEED + i))
        add(`mutant:${m.id}`, root.typeName, m.bytes);
    });
    // Byte-level edits the value-level mutants do not reach: insert, delete, overwrite, splice.
    const rnd = mulberry32(SEED);
    const pieces = [
      '"',
      "\\",
      "\\u",
      "\\ud800",
      "\\udc00",
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      "1.0",
      "-0",
      "1e400",
      " ",
      "\u00a0",
      "null",
      "NaN",
      '"a":1,',
      "01",
      "\u0001",
      "😀",
      "'",
      "//",
      "\ufeff",
      '"0":1,',
      '"__proto__":1,',
    ];
    for (let n = 0; n < 3000; n++) {
      const base = raw[Math.floor(rnd() * raw.length)] as { type: string; bytes: Uint8Array };
      let b = Buffer.from(base.bytes);
      for (let e = 0; e < 1 + Math.floor(rnd() * 3); e++) {
        const at = Math.floor(rnd() * (b.length + 1));
        const op = rnd();
        if (op < 0.4)
          b = Buffer.concat([
            b.subarray(0, at),
            Buffer.from(pieces[Math.floor(rnd() * pieces.length)] as string),
            b.subarray(at),
          ]);
        else if (op < 0.7)
          b = Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + Math.floor(rnd() * 8)))]);
        else if (op < 0.8 && at < b.length) b[at] = Math.floor(rnd() * 256);
        else b = Buffer.concat([b.subarray(0, at), b.subarray(at, at + Math.floor(rnd() * 30)), b.subarray(at)]);
      }
      add(`bytes:${n}`, base.type, new Uint8Array(b));
    }
    const corpus = join(scratch, "corpus.jsonl");
    writeFileSync(corpus, `${lines.join("\n")}\n`);
    const done = spawnSync(PYTHON, [join(TESTS_DIR, "differential.py"), corpus], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(done.status, `${done.stdout}${done.stderr}`).toBe(0);
    const result = JSON.parse(done.stdout) as { total: number; mismatch_count: number; mismatches: unknown[] };
    expect(result.total).toBe(lines.length);
    expect(result.mismatches, JSON.stringify(result.mismatches, null, 2)).toEqual([]);
    expect(result.mismatch_count).toBe(0);
    expect(lines.length).toBeGreaterThan(5000);
  }, 320_000);
});
