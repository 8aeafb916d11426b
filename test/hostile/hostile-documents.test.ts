/**
 * Hostile-document suite (issue "Reliability"): worst-case shapes at the limits (millions of tiny
 * values, the maximum depth, the maximum string, the maximum number of members, escape-heavy and
 * duplicate-at-the-end documents) judged by every parser entry point of every binding, each in its
 * own process:
 * - TypeScript: parseWireDocument and parseWireDocumentSliced (test/fixtures/hostile/ts-judge.ts);
 * - Go: ValidateDocument and the typed decoder (test/fixtures/hostile/go-judge);
 * - Python: check and decode (test/fixtures/hostile/py_judge.py).
 * Asserted: the verdict (rule and pointer, the same in every binding, by construction), and bounded
 * memory: the process's peak RSS above its own start-up peak stays under 10x the document plus a
 * fixed allowance (see ALLOWANCE: within limits.max_values, under 10x the 16 MiB byte limit). Time and
 * peak memory as figures: `npm run bench -- wire-parsers` (its worst-case documents table).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS, WIRE_VERSION } from "../../generated/ts/spec.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { spawnChild } from "../support/spawn-child.js";
import { tempDir } from "../invoker/support.js";

const tmp = tempDir("hostile");
afterAll(() => tmp.cleanup());

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "hostile");
const GO_JUDGE = join(tmp.dir, "go-judge");
/**
 * Memory a binding may use beyond 10x the document, bytes: runtime growth and GC headroom, plus
 * what limits.max_values values can cost beyond their bytes. The worst shape per byte is the
 * object with the most members (a 3 MB document; about 300 bytes per member in V8, where each name
 * becomes an internalized string and a dictionary entry, and the duplicate check keeps a set).
 */
const ALLOWANCE = (48 << 20) + 320 * LIMITS.max_values;

const HEAD = `{"schema_version":"${WIRE_VERSION}","status":"delivered","failure_class":null,"retry_class":null,"metadata":`;
/** Values of HEAD's document besides what `metadata` holds: the root, four members, the open map. */
const HEAD_VALUES = 6;

interface Shape {
  readonly name: string;
  readonly text: () => string;
  /** "valid" or "<rule> <pointer>". */
  readonly expect: string;
}

const keys = (n: number): string => Array.from({ length: n }, (_, i) => `"k${i}":0`).join(",");

const SHAPES: readonly Shape[] = [
  {
    name: "limits.max_values empty objects",
    text: () => `${HEAD}{"a":[${"{},".repeat(LIMITS.max_values - HEAD_VALUES - 2)}{}]}}`,
    expect: "valid",
  },
  {
    name: "one value past limits.max_values",
    text: () => `${HEAD}{"a":[${"0,".repeat(LIMITS.max_values - HEAD_VALUES - 1)}0]}}`,
    expect: `json.max-values /metadata/a/${LIMITS.max_values - HEAD_VALUES - 1}`,
  },
  {
    name: "5.2 million empty objects (15.6 MB)",
    text: () => `${HEAD}{"a":[${"{},".repeat(5_200_000)}{}]}}`,
    expect: `json.max-values /metadata/a/${LIMITS.max_values - HEAD_VALUES - 1}`,
  },
  {
    name: "the most members in one object (limits.max_object_members)",
    text: () => `${HEAD}{${keys(LIMITS.max_object_members)}}}`,
    expect: "valid",
  },
  {
    name: "one member past limits.max_object_members",
    text: () => `${HEAD}{${keys(LIMITS.max_object_members + 1)}}}`,
    expect: `json.max-members /metadata/k${LIMITS.max_object_members}`,
  },
  {
    name: "limits.max_values members in one object",
    text: () => `${HEAD}{${keys(LIMITS.max_values - HEAD_VALUES)}}}`,
    expect: `json.max-members /metadata/k${LIMITS.max_object_members}`,
  },
  {
    name: "a duplicate member at the end of the largest object",
    text: () => `${HEAD}{${keys(LIMITS.max_object_members - 1)},"k0":1}}`,
    expect: "json.duplicate-key /metadata/k0",
  },
  // Every name of the text counts, a repeated one too, and the count comes before the comparison.
  {
    name: "a duplicate as the member past limits.max_object_members",
    text: () => `${HEAD}{${keys(LIMITS.max_object_members)},"k0":1}}`,
    expect: "json.max-members /metadata/k0",
  },
  {
    name: "nesting at limits.max_depth",
    text: () => `${HEAD}{"a":${"[".repeat(LIMITS.max_depth - 2)}${"]".repeat(LIMITS.max_depth - 2)}}}`,
    expect: "valid",
  },
  {
    name: "nesting one past limits.max_depth",
    text: () => `${HEAD}{"a":${"[".repeat(LIMITS.max_depth - 1)}${"]".repeat(LIMITS.max_depth - 1)}}}`,
    expect: `json.max-depth /metadata/a${"/0".repeat(LIMITS.max_depth - 2)}`,
  },
  {
    name: "16 MB of '['",
    text: () => "[".repeat(LIMITS.max_response_bytes),
    expect: `json.max-depth ${"/0".repeat(LIMITS.max_depth)}`,
  },
  {
    name: "the longest string",
    text: () => `${HEAD}{"a":"${"x".repeat(LIMITS.max_response_bytes - HEAD.length - 9)}"}}`,
    expect: "valid",
  },
  {
    name: "the longest string of escapes",
    text: () => `${HEAD}{"a":"${"\\n".repeat((LIMITS.max_response_bytes - HEAD.length - 9) >> 1)}"}}`,
    expect: "valid",
  },
  {
    name: "the longest string of astral characters",
    text: () => `${HEAD}{"a":"${"\u{1F600}".repeat((LIMITS.max_response_bytes - HEAD.length - 9) >> 2)}"}}`,
    expect: "valid",
  },
  {
    name: "one byte past the byte limit",
    text: () => `${HEAD}{"a":"${"x".repeat(LIMITS.max_response_bytes - HEAD.length - 8)}"}}`,
    expect: "json.max-bytes ",
  },
  {
    name: "long fractional numbers",
    text: () => `${HEAD}{"a":[${"1.2345678901234567e-300,".repeat(100_000)}0]}}`,
    expect: "valid",
  },
];

interface Judgement {
  readonly outcomes: readonly string[];
  readonly ms: number;
  readonly maxrssKb: number;
}

function run(program: string, args: readonly string[]): Promise<string> {
  return spawnChild({ command: program, args, cwd: REPO_ROOT, stdin: "ignore", watchdogMs: 120_000 }).then(
    ({ code, stdout, stderr }) => {
      if (code !== 0) throw new Error(`${program} ${args.join(" ")} exited ${code}: ${stderr.slice(0, 500)}`);
      return stdout;
    },
  );
}

/** The drivers: each judges one file with both entry points of its binding. */
const BINDINGS: Record<string, (file: string) => Promise<Judgement>> = {
  ts: async (file) => {
    const r = JSON.parse(
      await run(process.execPath, ["--import", "tsx", join(FIXTURES, "ts-judge.ts"), "CallbackResponse", file]),
    ) as { validate: string; sliced: string; ms: number; sliced_ms: number; maxrss_kb: number };
    return { outcomes: [r.validate, r.sliced], ms: Math.max(r.ms, r.sliced_ms), maxrssKb: r.maxrss_kb };
  },
  go: async (file) => {
    const r = JSON.parse(await run(GO_JUDGE, ["CallbackResponse", file])) as {
      validate: string;
      decode: string;
      ms: number;
      maxrss_kb: number;
    };
    return { outcomes: [r.validate, r.decode], ms: r.ms, maxrssKb: r.maxrss_kb };
  },
  python: async (file) => {
    const r = JSON.parse(
      await run("python3", [join(FIXTURES, "py_judge.py"), join(REPO_ROOT, "sdk", "python"), "CallbackResponse", file]),
    ) as { validate: string; decode: string; ms: number; maxrss_kb: number };
    return { outcomes: [r.validate, r.decode], ms: r.ms, maxrssKb: r.maxrss_kb };
  },
};

/** Peak RSS of each driver on a tiny document: its start-up baseline (KB). */
const baseline: Record<string, number> = {};

beforeAll(async () => {
  const built = spawnSync("go", ["build", "-o", GO_JUDGE, "."], {
    cwd: join(FIXTURES, "go-judge"),
    encoding: "utf8",
    timeout: 300_000,
  });
  if (built.status !== 0) throw new Error(`go build of the hostile-document driver failed: ${built.stderr}`);
  const tiny = join(tmp.dir, "tiny.json");
  writeFileSync(tiny, `${HEAD}{}}`);
  for (const [name, judge] of Object.entries(BINDINGS)) baseline[name] = (await judge(tiny)).maxrssKb;
}, 300_000);

describe("hostile documents: every binding, every entry point, the right verdict in bounded memory", () => {
  for (const [index, shape] of SHAPES.entries()) {
    it(shape.name, async () => {
      const file = join(tmp.dir, `shape-${index}.json`);
      const text = shape.text();
      writeFileSync(file, text);
      const size = Buffer.byteLength(text);
      // One binding at a time: their memory peaks are each measured alone.
      for (const [name, judge] of Object.entries(BINDINGS)) {
        const j = await judge(file);
        for (const outcome of j.outcomes) expect(outcome, `${name}: ${shape.name}`).toBe(shape.expect);
        const aboveKb = Math.max(0, j.maxrssKb - (baseline[name] as number));
        expect(aboveKb * 1024, `${name}: peak memory for ${shape.name} (${size} bytes)`).toBeLessThanOrEqual(
          10 * size + ALLOWANCE,
        );
      }
    }, 300_000);
  }
});
