/**
 * The sliced parser's windowed scan of a large input (runtime/wire/json/sliced.ts, WindowedParse;
 * spec/host-runtime.md §"Bounds"): the text of a document above 1 MiB is never built whole, and
 * every verdict, value, pointer, message and byte offset is the one the synchronous parser gives
 * for the whole text.
 */
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import { mulberry32 } from "../support/prng.js";
import {
  parseStrictJson,
  type StrictJsonLimits,
  type StrictParseOptions,
  type StrictParseResult,
} from "../../runtime/wire/json/parse.js";
import { observeScanInputs, parseStrictJsonSliced, parseStrictJsonWindowed } from "../../runtime/wire/json/sliced.js";

const MiB = 1 << 20;
const BIG: StrictJsonLimits = { maxBytes: 16 * MiB, maxDepth: 64, maxValues: 131072 };
/** The sliced parser's pieces (DECODE_PIECE_BYTES) and the most a window adds to one (WINDOW_MARGIN_UNITS). */
const PIECE_UNITS = MiB;
const MARGIN_UNITS = 1 << 16;

/** The lengths (UTF-16 code units) of the texts the scanner is handed while `run` runs. */
async function scanInputs<T>(run: () => Promise<T>): Promise<{ value: T; inputs: number[] }> {
  const inputs: number[] = [];
  observeScanInputs((units) => inputs.push(units));
  try {
    return { value: await run(), inputs };
  } finally {
    observeScanInputs(null);
  }
}

describe("a large document is scanned one window at a time, never flattened", () => {
  const head = `{"schema_version":${JSON.stringify(WIRE_VERSION)},"status":"delivered","metadata":{"a":"`;
  const room = 16 * MiB - head.length - 3;
  const euro = `${"x".repeat(MiB - 3)}€`.repeat(Math.floor(room / MiB));
  const shapes: Record<string, string> = {
    // The bench's costliest decode: before, its 16 M two-byte code units were copied into one text in one step.
    "16 MiB string, one € per MiB": `${head}${euro}${"x".repeat(room - Buffer.byteLength(euro))}"}}`,
    "16 MiB ASCII string": `${head}${"x".repeat(room)}"}}`,
    "8 MiB of small members with é in their names": `{${Array.from({ length: 100_000 }, (_, i) => `"é${i}":"${"ü".repeat(38)}"`).join(",")}}`,
  };

  for (const [name, text] of Object.entries(shapes)) {
    it(`${name}: no text handed to the scanner is longer than a piece and the margin, and the result is the whole text's`, async () => {
      const input = Buffer.from(text);
      expect(input.length).toBeGreaterThan(4 * MiB);
      const { value: sliced, inputs } = await scanInputs(() => parseStrictJsonSliced(input, BIG));
      expect(inputs.length).toBeGreaterThan(input.length / (PIECE_UNITS * 4));
      expect(Math.max(...inputs)).toBeLessThanOrEqual(PIECE_UNITS + MARGIN_UNITS);
      // Together the windows cover the text (each but the first repeats the tail of the one before).
      expect(inputs.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(text.length);
      expect(sliced).toEqual(parseStrictJson(input, BIG));
    });
  }

  it("two windowed parses at once keep their own windows, and one past its deadline stops", async () => {
    const a = Buffer.from(`{"a":[${'"é€😀",'.repeat(200_000)}{"k€":1.5}]}`);
    const b = Buffer.from(`[${'{"ü":"x"},'.repeat(200_000)}{"ü":"x","ü":0}]`); // a duplicate member at the end
    const many: StrictJsonLimits = { maxBytes: 16 * MiB, maxDepth: 64 };
    const [ra, rb] = await Promise.all([parseStrictJsonSliced(a, many), parseStrictJsonSliced(b, many)]);
    expect(ra).toEqual(parseStrictJson(a, many));
    expect(ra).toMatchObject({ ok: true });
    expect(rb).toEqual(parseStrictJson(b, many));
    expect(rb).toMatchObject({ ok: false, issue: { rule: "json.duplicate-key" } });
    expect(
      await parseStrictJsonSliced(
        Buffer.from(shapes["16 MiB string, one € per MiB"] as string),
        BIG,
        {},
        { deadlineAt: performance.now() + 5 },
      ),
    ).toBe("deadline");
  });

  it("a token longer than the margin across a window's end, or data after a value that ends before the last window: the flat text is judged, with the same result", async () => {
    const pad = `"${"é".repeat(MiB / 2)}"`;
    const long = 1.5 * MiB; // longer than a window: it crosses a window's end
    for (const text of [
      `[${pad},${" ".repeat(long)}1]`, // whitespace
      `[${pad},{"${"n".repeat(long)}":1}]`, // a member name
      `[${pad},${"1".repeat(long)}]`, // a number (json.number-range)
      `[${pad}]${" ".repeat(2 * MiB)}x`, // data after the value, past the whitespace
    ]) {
      const input = Buffer.from(text);
      const { value: sliced, inputs } = await scanInputs(() => parseStrictJsonSliced(input, BIG));
      expect(sliced).toEqual(parseStrictJson(input, BIG));
      expect(Math.max(...inputs)).toBe(text.length); // the flat text, as before
    }
  });

  it("a value that ends before the last window, then only whitespace: judged by the windows (no second, flat parse), with the same result", async () => {
    const pad = `"${"é".repeat(MiB / 2)}"`;
    for (const text of [
      `[${pad}]${" ".repeat(2 * MiB)}`,
      `[${pad}]${" \t\r\n".repeat(MiB)}`,
      `${"1".repeat(300)}${" ".repeat(3 * MiB)}`,
    ]) {
      const input = Buffer.from(text);
      const { value: sliced, inputs } = await scanInputs(() => parseStrictJsonSliced(input, BIG));
      expect(sliced).toEqual(parseStrictJson(input, BIG));
      expect(Math.max(...inputs)).toBeLessThanOrEqual(PIECE_UNITS + MARGIN_UNITS);
    }
    // Small pieces: a root number or literal cut at a window's end is completed, not taken, by what follows it.
    const small: StrictJsonLimits = { maxBytes: MiB, maxDepth: 6 };
    for (const text of ["[1,2,3]", "12345", "-1.5e3", "true", '"abc"', "{}"]) {
      for (const tail of [" ".repeat(100), `${" ".repeat(100)}x`, `5${" ".repeat(100)}`, "\u00a0".repeat(40)]) {
        for (let shift = 0; shift < 40; shift++) {
          const input = Buffer.from(`${" ".repeat(shift % 8)}${text}${tail}`);
          const got = parseStrictJsonWindowed(input, small, {}, 16 + shift);
          expect(got.result).toEqual(parseStrictJson(input, small));
          if (/^[ ]*$/.test(tail)) expect(got.redo).toBe(false); // the tail is checked, not parsed again
        }
      }
    }
  });
});

/** A random document of short tokens with characters of every UTF-8 length, escapes and every kind of value; sometimes broken. */
function randomDocument(rnd: () => number): string {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)] as T;
  const chars = ["a", "é", "€", "😀", "\\n", "\\u00e9", "\\ud83d\\ude00", '\\"', " ", "~", "/"];
  const str = (): string => {
    const n = rnd() < 0.15 ? 40 + Math.floor(rnd() * 120) : Math.floor(rnd() * 12);
    let s = '"';
    for (let i = 0; i < n; i++) s += pick(chars);
    return `${s}"`;
  };
  const ws = (): string => pick(["", "", " ", "\n  ", "\t"]);
  const value = (d: number): string => {
    const r = rnd();
    if (d > 4 || r < 0.45)
      return r < 0.2 ? str() : pick(["0", "-0", "12", "3.25", "1e5", "-2.5E-3", "1e308", "true", "false", "null"]);
    const n = Math.floor(rnd() * 5);
    if (r < 0.7) return `[${ws()}${Array.from({ length: n }, () => value(d + 1)).join(`${ws()},${ws()}`)}${ws()}]`;
    return `{${ws()}${Array.from({ length: n }, (_, i) => `${str().slice(0, -1)}${i}"${ws()}:${ws()}${value(d + 1)}`).join(`,${ws()}`)}${ws()}}`;
  };
  const text = value(0);
  if (rnd() < 0.6) return text;
  const at = Math.floor(rnd() * text.length);
  const r = rnd();
  if (r < 0.3) return text.slice(0, at); // cut short: unterminated strings, containers, literals
  if (r < 0.8)
    return (
      text.slice(0, at) +
      pick(["x", "\u0001", "]", "}", ",", "\\ud800", "1e999", '"', "€", "\\q", '"0":1,"0"']) +
      text.slice(at)
    );
  return text + pick([" x", "]", "  "]);
}

describe("the windowed scan against the whole text's parse, with every cut of small pieces", () => {
  const limits: StrictJsonLimits = { maxBytes: MiB, maxDepth: 6, maxValues: 200 };

  /** Each document is shifted by 0 .. piece - 1 leading spaces, so the pieces' cuts fall at every byte of it. */
  function crossCheck(
    texts: readonly (string | Uint8Array)[],
    pieces: readonly number[],
    docLimits: StrictJsonLimits,
    options: StrictParseOptions = {},
  ): { runs: number; windowed: number; mismatches: string[] } {
    const mismatches: string[] = [];
    let runs = 0;
    let windowed = 0;
    texts.forEach((text, n) => {
      const body = typeof text === "string" ? Buffer.from(text) : Buffer.from(text);
      for (const piece of pieces) {
        for (let shift = 0; shift < piece; shift++) {
          const input = Buffer.concat([Buffer.alloc(shift, 0x20), body]);
          const want: StrictParseResult = parseStrictJson(input, docLimits, options);
          // Every other run pauses after each value too (resumes across window moves and inside strings).
          const got = parseStrictJsonWindowed(
            input,
            docLimits,
            options,
            piece,
            (shift & 1) === 1 ? 1 : Number.POSITIVE_INFINITY,
          );
          runs++;
          if (!got.redo) windowed++;
          if (!isDeepStrictEqual(got.result, want) && mismatches.length < 5)
            mismatches.push(
              `#${n} piece ${piece} shift ${shift}: ${JSON.stringify(got.result).slice(0, 300)} != ${JSON.stringify(want).slice(0, 300)}`,
            );
        }
      }
    });
    return { runs, windowed, mismatches };
  }

  it("random documents with multi-byte characters: the same verdict, value, pointer, message and offset", () => {
    const rnd = mulberry32(8);
    const texts = Array.from({ length: 100 }, () => randomDocument(rnd));
    const { runs, windowed, mismatches } = crossCheck(texts, [16, 23, 64], limits);
    expect(mismatches).toEqual([]);
    // Most are judged by the windows themselves (the rest: a token or an issue at a window's end).
    expect(windowed / runs).toBeGreaterThan(0.5);
  });

  it("strings across many windows: built from the windows' slices, and their issues described from the window they opened in", () => {
    const long = "é€😀a\\n".repeat(40);
    const texts = [
      `{"a":"${long}"}`,
      `{"a":"${long}`, // unterminated: "opened at byte" and the preview of a quote several windows back
      `{"a":"${long}\\u12`,
      `{"a":"${long}\\ud800"}`,
      `{"a":"${long}\u0001"}`,
      `["${long}","${long}x"]`,
      `{"${long}":{"${long}":[1,"${long}"]},"${long}":0}`, // a duplicate member name
      `{"b":{"c":[0,{"d":"${long}"},1.5e999]}}`, // the pointer after the window moved: member names kept
    ];
    const { mismatches } = crossCheck(texts, [16, 40], { maxBytes: MiB, maxDepth: 6 });
    expect(mismatches).toEqual([]);
    // Non-integer numbers recorded only at given paths: matched against member names of earlier windows.
    const recorded = [`{"b€":{"c${long}":[0.5,{"d":1e3}]},"e":[${`"${long}",`.repeat(3)}2.5]}`];
    const paths = { nonIntegerPaths: [`/b€/c${long.replaceAll("\\n", "\n")}/*`, "/b€/*/*/d", "/e/*"] };
    const checked = crossCheck(recorded, [16, 40], { maxBytes: MiB, maxDepth: 6 }, paths);
    expect(checked.mismatches).toEqual([]);
    expect(parseStrictJson(Buffer.from(recorded[0] as string), { maxBytes: MiB, maxDepth: 6 }, paths)).toMatchObject({
      ok: true,
      nonIntegerNumberPointers: [expect.stringMatching(/^\/b€\/c[\s\S]*\/0$/), "/e/3"],
    });
  });

  it("the parse-layer vectors (generated/vectors, json.* rules) and the valid ones", () => {
    const index = JSON.parse(readFileSync("generated/vectors/index.json", "utf8")) as {
      vectors: { path: string; rule: string | null; expect: string }[];
    };
    const chosen = index.vectors.filter(
      (v, i) => String(v.rule).startsWith("json.") || (v.expect === "valid" && i % 8 === 0),
    );
    const docs = chosen
      .map((v) =>
        Buffer.from(
          (JSON.parse(readFileSync(`generated/vectors/${v.path}`, "utf8")) as { document_base64: string })
            .document_base64,
          "base64",
        ),
      )
      .filter((doc) => doc.length <= 8192);
    expect(docs.length).toBeGreaterThan(50);
    // Two shifts per piece size (not every one: the vectors are many and some are kilobytes).
    const mismatches: string[] = [];
    for (const doc of docs) {
      for (const [piece, shift] of [
        [16, 0],
        [16, 7],
        [61, 3],
      ] as const) {
        const input = Buffer.concat([Buffer.alloc(shift, 0x20), doc]);
        const want = parseStrictJson(input, BIG);
        const got = parseStrictJsonWindowed(input, BIG, {}, piece);
        if (!isDeepStrictEqual(got.result, want) && mismatches.length < 5)
          mismatches.push(`${doc.toString("utf8").slice(0, 80)}: ${JSON.stringify(got.result).slice(0, 200)}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
