import { describe, expect, it } from "vitest";
import { constants } from "node:buffer";
import { DOCUMENT_RULES } from "../../generated/ts/spec.js";
import { mulberry32 } from "../support/prng.js";
import {
  escapePointerToken,
  MAX_RECORDED_NON_INTEGER,
  PARSE_RULES,
  parseStrictJson,
  type ParseIssue,
  type StrictJsonLimits,
} from "../../runtime/wire/json/parse.js";
import { parseStrictJsonSliced, parseStrictJsonStepwise } from "../../runtime/wire/json/sliced.js";

const LIMITS: StrictJsonLimits = { maxBytes: 1 << 20, maxDepth: 64 };
const MAX_STRING_LENGTH = constants.MAX_STRING_LENGTH;
const enc = new TextEncoder();

function bytesOf(text: string): Uint8Array {
  return enc.encode(text);
}

/** A small document parsed between the steps of a stepwise parse: paused scans must keep their own state. */
const INTERLEAVED = bytesOf('{"x":[1,{"y":"z"}],"w":null}');

/**
 * Every case runs through both ways of the strict parser: the synchronous one (scan + JSON.parse)
 * and the sliced one's build mode, paused after every value with another parse run in each pause.
 * They must agree exactly (value, own members, pointers, issue).
 */
function parse(text: string | Uint8Array, limits: StrictJsonLimits = LIMITS) {
  const input = typeof text === "string" ? bytesOf(text) : text;
  const sync = parseStrictJson(input, limits);
  // Inputs of megabytes are compared in test/hostile and by the sliced invokers' suites.
  if (input.length > 4 << 20) return sync;
  // A Buffer (what pipes and frames give) is decoded by its own native slice, a plain Uint8Array by
  // the TextDecoder: the same outcome for every input, invalid UTF-8 and the BOM included.
  const fromBuffer = parseStrictJson(Buffer.from(input.buffer, input.byteOffset, input.length), limits);
  expect(fromBuffer.ok).toBe(sync.ok);
  if (sync.ok && fromBuffer.ok) {
    expect(sameOwnShape(fromBuffer.value, sync.value)).toBe(true);
    expect(fromBuffer.nonIntegerNumberPointers).toEqual(sync.nonIntegerNumberPointers);
  } else expect(fromBuffer).toEqual(sync);
  const stepwise = parseStrictJsonStepwise(
    input,
    limits,
    {},
    () => {
      const other = parseStrictJson(INTERLEAVED, LIMITS);
      if (!other.ok) throw new Error("the interleaved parse failed");
    },
    input.length > 4096 ? 97 : 1,
  );
  expect(stepwise.ok).toBe(sync.ok);
  if (sync.ok && stepwise.ok) {
    expect(sameOwnShape(stepwise.value, sync.value)).toBe(true);
    expect(stepwise.nonIntegerNumberPointers).toEqual(sync.nonIntegerNumberPointers);
  } else expect(stepwise).toEqual(sync);
  return sync;
}

/** Same structure, own members (`__proto__` included, in order), prototypes and scalars (-0 too); iterative (deep documents). */
function sameOwnShape(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop() as [unknown, unknown];
    if (x === null || typeof x !== "object" || y === null || typeof y !== "object") {
      if (!Object.is(x, y)) return false;
      continue;
    }
    if (Array.isArray(x) !== Array.isArray(y) || Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return false;
    const kx = Object.getOwnPropertyNames(x);
    const ky = Object.getOwnPropertyNames(y);
    if (kx.length !== ky.length || kx.some((k, i) => k !== ky[i])) return false;
    for (const k of kx)
      if (k !== "length" || !Array.isArray(x))
        stack.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
  }
  return true;
}

function ok(
  text: string | Uint8Array,
  limits: StrictJsonLimits = LIMITS,
): { value: unknown; nonInt: readonly string[] } {
  const r = parse(text, limits);
  if (!r.ok)
    throw new Error(`expected ok for ${JSON.stringify(String(text)).slice(0, 80)}, got ${JSON.stringify(r.issue)}`);
  return { value: r.value, nonInt: r.nonIntegerNumberPointers };
}

function issue(text: string | Uint8Array, limits: StrictJsonLimits = LIMITS): ParseIssue {
  const r = parse(text, limits);
  if (r.ok) throw new Error(`expected an issue for ${JSON.stringify(String(text)).slice(0, 80)}, got ok`);
  return r.issue;
}

function expectIssue(
  text: string | Uint8Array,
  rule: string,
  extra: { pointer?: string; offset?: number } = {},
  limits: StrictJsonLimits = LIMITS,
): ParseIssue {
  const got = issue(text, limits);
  expect(got.rule, `${String(text).slice(0, 60)} -> ${got.message}`).toBe(rule);
  if (extra.pointer !== undefined) expect(got.pointer).toBe(extra.pointer);
  if (extra.offset !== undefined) expect(got.offset).toBe(extra.offset);
  expect(got.message.length).toBeGreaterThan(10);
  expect(got.message.length).toBeLessThan(400);
  return got;
}

function hex(h: string): Uint8Array {
  const clean = h.replace(/\s+/g, "");
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function concat(...parts: (string | Uint8Array)[]): Uint8Array {
  const arrays = parts.map((p) => (typeof p === "string" ? bytesOf(p) : p));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

describe("PARSE_RULES and escapePointerToken", () => {
  it("exposes the stable rule ids", () => {
    // Every parse-layer row of spec/tables/document-rules.json, in table order, and nothing else.
    expect(Object.values(PARSE_RULES)).toEqual(DOCUMENT_RULES.filter((r) => r.layer === "json").map((r) => r.id));
    expect(Object.isFrozen(PARSE_RULES)).toBe(true);
  });

  it("escapes ~ and / per RFC 6901", () => {
    expect(escapePointerToken("plain")).toBe("plain");
    expect(escapePointerToken("")).toBe("");
    expect(escapePointerToken("a/b")).toBe("a~1b");
    expect(escapePointerToken("a~b")).toBe("a~0b");
    expect(escapePointerToken("~1")).toBe("~01");
    expect(escapePointerToken("/~/~")).toBe("~1~0~1~0");
  });
});

describe("valid documents", () => {
  it("accepts every JSON value kind at the top level", () => {
    expect(ok("{}").value).toEqual({});
    expect(ok("[]").value).toEqual([]);
    expect(ok('"s"').value).toBe("s");
    expect(ok('""').value).toBe("");
    expect(ok("0").value).toBe(0);
    expect(ok("-12").value).toBe(-12);
    expect(ok("3.25").value).toBe(3.25);
    expect(ok("1E+2").value).toBe(100);
    expect(ok("true").value).toBe(true);
    expect(ok("false").value).toBe(false);
    expect(ok("null").value).toBe(null);
  });

  it("accepts JSON whitespace everywhere it is allowed, including trailing", () => {
    expect(ok(' \t\r\n{ "a" : [ 1 , 2 ] , "b" : { } }\n').value).toEqual({ a: [1, 2], b: {} });
    expect(ok("{}\n\n").value).toEqual({});
    expect(ok("[ ]\t \r\n").value).toEqual([]);
    expect(ok("  7  ").value).toBe(7);
  });

  it("accepts all valid escapes and raw non-ASCII, including astral characters", () => {
    expect(ok(String.raw`"\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \uFFFF"`).value).toBe(
      '" \\ / \b \f \n \r \t A é \uffff',
    );
    expect(ok('"😀 é 中"').value).toBe("😀 é 中");
    expect(ok('{"😀":"🎉"}').value).toEqual({ "😀": "🎉" });
    expect(ok(String.raw`"\ud83d\ude00"`).value).toBe("😀");
    expect(ok(String.raw`"\uD83D\uDE00x"`).value).toBe("😀x");
    expect(ok('"\u007f\u0080"').value).toBe("\u007f\u0080");
  });

  it("small arrays (the sliced parser copies them to exact size when they close) keep their slot: root, element, member, __proto__", () => {
    for (const text of [
      "[1]",
      '[[],[1],[[2,3]],[{"a":[4]}]]',
      '{"a":[1,2],"__proto__":[3],"b":{"c":[[5]]}}',
      `[${"[".repeat(40)}7${"]".repeat(40)}]`,
      `{"x":[${Array.from({ length: 17 }, (_, i) => i).join(",")}]}`,
    ]) {
      expect(ok(text).value).toEqual(JSON.parse(text));
    }
    const proto = ok('{"__proto__":[3]}').value as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(proto, "__proto__")?.value).toEqual([3]);
  });

  it("makes __proto__ an own property without touching the prototype", () => {
    const { value } = ok('{"__proto__":{"polluted":true},"a":1}');
    const obj = value as Record<string, unknown>;
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(Object.hasOwn(obj, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("accepts objects with many distinct members (set-based duplicate detection)", () => {
    const members = Array.from({ length: 200 }, (_, i) => `"k${i}":${i}`).join(",");
    const { value } = ok(`{${members}}`);
    expect(Object.keys(value as object)).toHaveLength(200);
  });

  it("does not confuse members of different objects", () => {
    expect(ok('{"a":{"a":1},"b":[{"a":1},{"a":2}]}').value).toEqual({ a: { a: 1 }, b: [{ a: 1 }, { a: 2 }] });
    // A nested object's names do not leak into its parent.
    expect(ok('{"a":{"b":1},"b":2}').value).toEqual({ a: { b: 1 }, b: 2 });
    // Same length, different content.
    expect(ok('{"ab":1,"ba":2,"aa":3,"a\\u0062c":4,"abd":5}').value).toEqual({ ab: 1, ba: 2, aa: 3, abc: 4, abd: 5 });
  });
});

describe("json.max-bytes", () => {
  it("accepts input exactly at the limit and rejects one byte more", () => {
    expect(ok("[1,2]", { maxBytes: 5, maxDepth: 4 }).value).toEqual([1, 2]);
    const got = expectIssue("[1,22]", "json.max-bytes", { pointer: "" }, { maxBytes: 5, maxDepth: 4 });
    expect(got.message).toContain("6 bytes");
    expect(got.message).toContain("5");
  });

  it("counts bytes, not characters", () => {
    // "é" is 2 bytes: 4 bytes total.
    expect(ok('"é"', { maxBytes: 4, maxDepth: 1 }).value).toBe("é");
    expectIssue('"é"', "json.max-bytes", {}, { maxBytes: 3, maxDepth: 1 });
  });

  it("is checked before the BOM, UTF-8 and syntax", () => {
    expectIssue(hex("EF BB BF 7B 7D"), "json.max-bytes", {}, { maxBytes: 4, maxDepth: 4 });
    expectIssue(hex("FF FF FF FF FF"), "json.max-bytes", {}, { maxBytes: 4, maxDepth: 4 });
    expectIssue("not json at all", "json.max-bytes", {}, { maxBytes: 4, maxDepth: 4 });
    expectIssue("", "json.syntax", {}, { maxBytes: 0, maxDepth: 4 });
  });
});

describe("json.bom", () => {
  it("rejects a leading UTF-8 BOM", () => {
    expectIssue(concat(hex("EF BB BF"), "{}"), "json.bom", { offset: 0, pointer: "" });
    expectIssue(hex("EF BB BF"), "json.bom", { offset: 0 });
    // BOM wins over later UTF-8 problems.
    expectIssue(concat(hex("EF BB BF"), '"', hex("C0 AF"), '"'), "json.bom");
  });

  it("treats U+FEFF elsewhere according to its position", () => {
    // Inside a string it is just a character.
    expect(ok('"\uFEFF"').value).toBe("\uFEFF");
    // Between tokens it is non-JSON whitespace.
    expectIssue("[1,\uFEFF2]", "json.syntax", { offset: 3 });
  });
});

describe("json.utf8", () => {
  const cases: [string, string, number][] = [
    ["overlong 2-byte '/'", '"  C0 AF  "', 1],
    ["overlong 3-byte", '"  E0 80 AF  "', 1],
    ["overlong 4-byte", '"  F0 80 80 AF  "', 1],
    ["truncated 3-byte sequence", '"  E2 82  "', 1],
    ["truncated at end of input", '"  E2 82', 1],
    ["lone continuation byte", '"  80  "', 1],
    ["encoded surrogate ED A0 80", '"  ED A0 80  "', 1],
    ["byte FF", '"a  FF  "', 2],
    ["above U+10FFFF", '"  F4 90 80 80  "', 1],
    ["F5 lead byte", '"  F5 80 80 80  "', 1],
  ];
  for (const [name, spec, offset] of cases) {
    it(`rejects ${name}`, () => {
      // spec: ASCII text segments and hex byte runs separated by double spaces.
      const parts = spec.split("  ").map((part, i) => (i % 2 === 1 ? hex(part) : part));
      const got = expectIssue(concat(...parts), "json.utf8", { offset, pointer: "" });
      expect(got.message).toContain(`byte ${offset}`);
    });
  }

  it("reports the offset of the first bad byte after valid multi-byte text", () => {
    // "é" = 2 bytes, "😀" = 4 bytes: bad byte at 1 + 2 + 4 = 7.
    expectIssue(concat('"é😀', hex("80"), '"'), "json.utf8", { offset: 7 });
  });

  it("rejects invalid UTF-8 even outside strings and even when JSON would also be wrong", () => {
    expectIssue(concat("[1,", hex("C3"), "]"), "json.utf8", { offset: 3 });
  });
});

describe("json.syntax", () => {
  const invalid: [string, string][] = [
    ["empty input", ""],
    ["whitespace only", " \n\t\r "],
    ["NaN", "NaN"],
    ["NaN in array", "[NaN]"],
    ["Infinity", "Infinity"],
    ["-Infinity", "[-Infinity]"],
    ["leading zero", "01"],
    ["leading zero negative", "-01"],
    ["leading zero in array", "[00]"],
    ["plus sign", "+1"],
    ["bare fraction", ".5"],
    ["trailing dot", "1."],
    ["trailing dot before exponent", "1.e5"],
    ["empty exponent", "1e"],
    ["exponent sign only", "1e+"],
    ["lone minus", "-"],
    ["minus then letter", "-a"],
    ["hex number", "[0x10]"],
    ["single-quoted string", "'a'"],
    ["single-quoted key", "{'a':1}"],
    ["unquoted key", "{a:1}"],
    ["line comment", "[1 // c\n]"],
    ["line comment inside", "[1, // c\n2]"],
    ["block comment", "/* c */ 1"],
    ["hash comment", "{# c\n}"],
    ["trailing comma in array", "[1,2,]"],
    ["trailing comma in object", '{"a":1,}'],
    ["leading comma", "[,1]"],
    ["double comma", "[1,,2]"],
    ["missing comma", "[1 2]"],
    ["missing colon", '{"a" 1}'],
    ["missing value", '{"a":}'],
    ["colon in array", "[1:2]"],
    ["unescaped newline in string", '"a\nb"'],
    ["unescaped tab in string", '"a\tb"'],
    ["unescaped NUL in string", '"a\u0000b"'],
    ["unescaped U+001F in string", '"\u001f"'],
    ["control char in key", '{"a\u0001":1}'],
    ["invalid escape \\x", String.raw`"\x41"`],
    ["invalid escape \\'", String.raw`"\'"`],
    ["invalid escape \\a", String.raw`"\a"`],
    ["invalid escape \\U", String.raw`"\U0041"`],
    ["short \\u escape", String.raw`"\u12"`],
    ["non-hex \\u escape", String.raw`"\u12G4"`],
    ["escaped raw newline", '"\\\n"'],
    ["vertical tab whitespace", "[1,\u000b2]"],
    ["form feed whitespace", "\u000c1"],
    ["NBSP whitespace", "{\u00a0}"],
    ["line separator whitespace", "[1\u2028]"],
    ["unterminated string", '"abc'],
    ["unterminated string after escape", '"abc\\'],
    ["unterminated \\u escape", '"\\u00'],
    ["unterminated array", "[1,2"],
    ["unterminated array after comma", "[1,"],
    ["unterminated object", '{"a":1'],
    ["unterminated object after key", '{"a"'],
    ["unterminated object after colon", '{"a":'],
    ["lone open brace", "{"],
    ["lone close bracket", "]"],
    ["mismatched close", "[1}"],
    ["mismatched close object", '{"a":1]'],
    ["truncated true", "tru"],
    ["misspelled literal", "nul"],
    ["capitalised literal", "True"],
    ["undefined", "undefined"],
  ];
  for (const [name, text] of invalid) {
    it(`rejects ${name}`, () => {
      expectIssue(text, "json.syntax");
    });
  }

  it("reports byte offsets and pointers", () => {
    expectIssue("[1,2,]", "json.syntax", { offset: 5, pointer: "" });
    expectIssue('{"a":[1,{"b":01}]}', "json.syntax", { offset: 13, pointer: "/a/1/b" });
    expectIssue('{"a":"x\ny"}', "json.syntax", { offset: 7, pointer: "/a" });
    expectIssue('{"a":1 "b":2}', "json.syntax", { offset: 7, pointer: "" });
    expectIssue('{"x":{"a\\q":1}}', "json.syntax", { offset: 8, pointer: "/x" });
    expectIssue("[[1,2],[3,", "json.syntax", { offset: 10, pointer: "/1/1" });
    // Offsets are in bytes even after multi-byte characters: "é" is 2 bytes, "😀" is 4.
    expectIssue('["é😀",+1]', "json.syntax", { offset: 10, pointer: "/1" });
  });

  it("writes helpful, bounded messages with an escaped preview", () => {
    const a = issue("[1,2,]");
    expect(a.message).toMatch(/trailing comma/);
    expect(a.message).toContain("byte 5");
    expect(a.message).toContain('near "]"');

    const b = issue('{"a":"x\ny" ' + "z".repeat(10_000) + "}");
    expect(b.message).toMatch(/control character U\+000A/);
    expect(b.message).toContain("byte 7");
    expect(b.message).toContain('near "\\ny\\" zzz');
    expect(b.message.length).toBeLessThan(200);

    expect(issue("").message).toMatch(/empty/);
    expect(issue("   ").message).toMatch(/whitespace-only/);
    expect(issue("NaN").message).toMatch(/NaN/);
    expect(issue("01").message).toMatch(/leading zero/);
    expect(issue("+1").message).toMatch(/'\+'/);
    expect(issue(".5").message).toMatch(/digit before '\.'/);
    expect(issue("1.").message).toMatch(/after the decimal point/);
    expect(issue("'a'").message).toMatch(/single-quoted/);
    expect(issue("[1 // c\n]").message).toMatch(/comments/);
    expect(issue("[1,\u000b2]").message).toMatch(/non-JSON whitespace U\+000B/);
    expect(issue(String.raw`"\x41"`).message).toMatch(/invalid escape/);
    expect(issue('"abc').message).toMatch(/unterminated string/);
    expect(issue("[1,2").message).toMatch(/unterminated array/);
    expect(issue('{"a":1').message).toMatch(/unterminated object/);
  });

  it("previews at most ~32 bytes and escapes control bytes", () => {
    const got = issue("[1,2 " + "hello world\n{" + "x".repeat(1000) + "]");
    expect(got.message).toContain('near "hello world\\n{xxxxxxxxxxxxxxxxxxx..."');
    const preview = /near "(.*)"/.exec(got.message)?.[1] ?? "";
    expect(preview.length).toBeLessThanOrEqual(40);
  });
});

describe("json.trailing-data", () => {
  const cases: [string, number][] = [
    ["{} {}", 3],
    ["{}{}", 2],
    ["1 2", 2],
    ['"a""b"', 3],
    ["[]]", 2],
    ["{}}", 2],
    ["null,", 4],
    ['{"a":1}\nINFO done', 8],
    ["true false", 5],
    ["0x10", 1],
    ["[1] // comment", 4],
  ];
  for (const [text, offset] of cases) {
    it(`rejects ${JSON.stringify(text)}`, () => {
      const got = expectIssue(text, "json.trailing-data", { offset, pointer: "" });
      expect(got.message).toContain(`byte ${offset}`);
      expect(got.message).toContain("near");
    });
  }

  it("previews the trailing bytes, bounded", () => {
    const got = issue('{"a":1}\n' + "log line ".repeat(1000));
    expect(got.message).toContain('near "log line log line log line log l..."');
    expect(got.message.length).toBeLessThan(200);
  });

  it("accepts trailing JSON whitespace only", () => {
    expect(ok("{}\n\n").value).toEqual({});
    expect(ok("{} \t\r\n").value).toEqual({});
    const nbsp = expectIssue("{}\u00a0", "json.syntax", { offset: 2 });
    expect(nbsp.message).toContain('near "\\u00A0"');
  });

  it("reports syntax problems inside the first value before trailing data", () => {
    expectIssue("[1,] {}", "json.syntax");
  });
});

describe("json.duplicate-key", () => {
  it("rejects a repeated member name with the member's pointer", () => {
    const got = expectIssue('{"a":1,"a":2}', "json.duplicate-key", { pointer: "/a", offset: 7 });
    expect(got.message).toContain('"a"');
    expect(got.message).toContain("byte 7");
  });

  it("compares names after unescaping", () => {
    expectIssue(String.raw`{"a":1,"\u0061":2}`, "json.duplicate-key", { pointer: "/a", offset: 7 });
    expectIssue(String.raw`{"\u0061":1,"a":2}`, "json.duplicate-key", { pointer: "/a" });
    expectIssue(String.raw`{"\u0061":1,"\u0061":2}`, "json.duplicate-key", { pointer: "/a" });
    expectIssue(String.raw`{"a/b":1,"a\/b":2}`, "json.duplicate-key", { pointer: "/a~1b" });
    expectIssue(String.raw`{"😀":1,"\ud83d\ude00":2}`, "json.duplicate-key", { pointer: "/😀" });
    expectIssue(String.raw`{"\n":1,"\u000a":2}`, "json.duplicate-key", { pointer: "/\n" });
  });

  it("points at nested duplicates and escapes ~ and / in the pointer", () => {
    expectIssue('{"x":{"y":[{"k":1},{"k":1,"k":2}]}}', "json.duplicate-key", { pointer: "/x/y/1/k" });
    expectIssue('{"a~b":{"c/d":{"e":1,"e":2}}}', "json.duplicate-key", { pointer: "/a~0b/c~1d/e" });
    expectIssue('{"a":{"b":1},"a":2}', "json.duplicate-key", { pointer: "/a", offset: 13 });
    expectIssue('{"":1,"":2}', "json.duplicate-key", { pointer: "/" });
  });

  it("detects duplicates in large objects", () => {
    const members = Array.from({ length: 100 }, (_, i) => `"k${i}":${i}`);
    expectIssue(`{${members.join(",")},"k42":0}`, "json.duplicate-key", { pointer: "/k42" });
    expectIssue(`{${members.join(",")},"k\\u0034\\u0032":0}`, "json.duplicate-key", { pointer: "/k42" });
    expectIssue(`{${members.slice(0, 20).join(",")},"k19":0}`, "json.duplicate-key", { pointer: "/k19" });
  });

  it("bounds long member names in the message", () => {
    const key = "k".repeat(5000);
    const got = expectIssue(`{"${key}":1,"${key}":2}`, "json.duplicate-key");
    expect(got.message.length).toBeLessThan(200);
  });

  it("is reported in input order relative to other problems", () => {
    expectIssue('{"a":1,"a":2,}', "json.duplicate-key");
    expectIssue('{"a":1,,"a":2}', "json.syntax");
  });
});

describe("json.max-depth", () => {
  it("accepts depth exactly at the limit and rejects one more", () => {
    const at = "[".repeat(5) + "]".repeat(5);
    expect(ok(at, { maxBytes: 100, maxDepth: 5 }).value).toEqual([[[[[]]]]]);
    expectIssue(
      "[".repeat(6) + "]".repeat(6),
      "json.max-depth",
      { pointer: "/0/0/0/0/0", offset: 5 },
      { maxBytes: 100, maxDepth: 5 },
    );
  });

  it("counts objects and arrays alike and reports the pointer of the offending container", () => {
    const lim = { maxBytes: 1000, maxDepth: 3 };
    expect(ok('{"a":[{"b":1}]}', lim).value).toEqual({ a: [{ b: 1 }] });
    expectIssue('{"a":[{"b":{}}]}', "json.max-depth", { pointer: "/a/0/b", offset: 11 }, lim);
    expectIssue('{"x":1,"a/b":[0,{"c":[]}]}', "json.max-depth", { pointer: "/a~1b/1/c" }, lim);
  });

  it("treats scalars as depth 0", () => {
    expect(ok("1", { maxBytes: 10, maxDepth: 0 }).value).toBe(1);
    expectIssue("[]", "json.max-depth", { pointer: "", offset: 0 }, { maxBytes: 10, maxDepth: 0 });
  });

  it("returns quickly for 10 MB of '[' without recursing", () => {
    const input = new Uint8Array(10 * 1024 * 1024).fill(0x5b);
    const t0 = performance.now();
    const got = expectIssue(input, "json.max-depth", { offset: 64 }, { maxBytes: input.length, maxDepth: 64 });
    expect(got.pointer).toBe("/0".repeat(64));
    expect(performance.now() - t0).toBeLessThan(10_000); // a hang guard (no recursion, no quadratic scan), not a speed goal
  });

  it("does not throw on very deep input even with a huge limit", () => {
    const input = new Uint8Array(1024 * 1024).fill(0x5b);
    const got = issue(input, { maxBytes: input.length, maxDepth: Number.MAX_SAFE_INTEGER });
    expect(got.rule).toBe("json.syntax");
    const n = 200_000;
    const deep = "[".repeat(n) + "]".repeat(n);
    const r = parse(deep, { maxBytes: deep.length, maxDepth: n });
    expect(r.ok).toBe(true);
  });
});

describe("json.max-members", () => {
  const lim = (maxMembers: number): StrictJsonLimits => ({ maxBytes: 1 << 22, maxDepth: 64, maxMembers });
  const members = (n: number, name = (i: number) => `k${i}`): string =>
    Array.from({ length: n }, (_, i) => `${JSON.stringify(name(i))}:0`).join(",");

  it("accepts an object of exactly maxMembers members and reports the first member past it (pointer, offset of its name)", () => {
    expect(ok('{"a":0,"b":0}', lim(2)).value).toEqual({ a: 0, b: 0 });
    expectIssue('{"a":0,"b":0,"c":0}', "json.max-members", { pointer: "/c", offset: 13 }, lim(2));
    expect(issue('{"a":0,"b":0,"c":0}', lim(2)).message).toMatch(
      /member number 3 at byte 13 exceeds the limit of 2 members per object/,
    );
  });

  it("counts per object (nested objects each have their own count), never array elements", () => {
    expect(ok('{"a":{"x":1,"y":2},"b":[1,2,3,4,5]}', lim(2)).value).toEqual({ a: { x: 1, y: 2 }, b: [1, 2, 3, 4, 5] });
    expectIssue('{"a":{"x":1,"y":2,"z/~":3}}', "json.max-members", { pointer: "/a/z~1~0", offset: 18 }, lim(2));
    expectIssue('[{"a":0},{"a":0,"b":0,"\\u0063":0}]', "json.max-members", { pointer: "/1/c" }, lim(2));
  });

  it("counts every name of the text, a repeated one too: a duplicate past the limit is json.max-members, one within it json.duplicate-key", () => {
    expectIssue('{"a":0,"b":0,"a":1}', "json.max-members", { pointer: "/a", offset: 13 }, lim(2));
    expectIssue('{"a":0,"b":0,"a":1}', "json.duplicate-key", { pointer: "/a", offset: 13 }, lim(3));
  });

  it("a problem inside the name past the limit comes first (the name is scanned, then counted)", () => {
    expectIssue('{"a":0,"b":0,"\\ud800":0}', "json.lone-surrogate", {}, lim(2));
  });

  it("absent: no bound", () => {
    expect(Object.keys(ok(`{${members(5000)}}`, LIMITS).value as object)).toHaveLength(5000);
  });

  it("limits.max_object_members + 1 members: refused by the synchronous, sliced and windowed (over 1 MiB) parsers alike", async () => {
    const limits: StrictJsonLimits = { maxBytes: 16 << 20, maxDepth: 64, maxValues: 131072, maxMembers: 32768 };
    for (const name of [(i: number) => `k${i}`, (i: number) => `${"n".repeat(40)}${i}`]) {
      const over = bytesOf(`{"m":{${members(32769, name)}}}`);
      const at = bytesOf(`{"m":{${members(32768, name)}}}`);
      const sync = parseStrictJson(over, limits);
      expect(sync.ok ? "ok" : `${sync.issue.rule} ${sync.issue.pointer}`).toBe(`json.max-members /m/${name(32768)}`);
      expect(await parseStrictJsonSliced(over, limits)).toEqual(sync);
      const fine = await parseStrictJsonSliced(at, limits);
      expect(fine !== "deadline" && fine.ok && Object.keys((fine.value as { m: object }).m).length).toBe(32768);
      expect(parseStrictJson(at, limits).ok).toBe(true);
    }
  });
});

describe("json.lone-surrogate", () => {
  it("rejects lone high surrogates", () => {
    expectIssue(String.raw`"\ud800"`, "json.lone-surrogate", { offset: 1, pointer: "" });
    expectIssue(String.raw`"\uDBFFx"`, "json.lone-surrogate");
    expectIssue(String.raw`"\ud83d\u0041"`, "json.lone-surrogate");
    expectIssue(String.raw`"\ud83d\ud83d\ude00"`, "json.lone-surrogate", { offset: 1 });
    expectIssue(String.raw`"\ud83d\n"`, "json.lone-surrogate");
    // Unterminated too, but the lone surrogate comes first in input order.
    expectIssue(String.raw`"\ud83d` + '\\"', "json.lone-surrogate", { offset: 1 });
    expectIssue(String.raw`"\ud83d"`, "json.lone-surrogate");
  });

  it("rejects lone low surrogates", () => {
    expectIssue(String.raw`"\udc00"`, "json.lone-surrogate", { offset: 1 });
    expectIssue(String.raw`"\ude00\ud83d"`, "json.lone-surrogate", { offset: 1 });
    expectIssue(String.raw`["ok","a\uDFFF"]`, "json.lone-surrogate", { offset: 8, pointer: "/1" });
  });

  it("rejects lone surrogates in member names, pointing at the object", () => {
    expectIssue(String.raw`{"x":{"\ud800":1}}`, "json.lone-surrogate", { pointer: "/x", offset: 7 });
  });

  it("accepts a valid escaped pair and raw astral characters", () => {
    expect(ok(String.raw`"\ud83d\ude00"`).value).toBe("😀");
    expect(ok(String.raw`"\uDBFF\uDFFF"`).value).toBe("\u{10FFFF}");
    expect(ok('"😀"').value).toBe("😀");
    expect(ok('["\u{10FFFF}","\u{10000}"]').value).toEqual(["\u{10FFFF}", "\u{10000}"]);
  });

  it("gives a byte offset after multi-byte text", () => {
    // '[' + '"😀' (1 + 4 bytes) puts the backslash at byte 6.
    expectIssue(String.raw`["😀\udc00"]`, "json.lone-surrogate", { offset: 6, pointer: "/0" });
  });
});

describe("json.number-range", () => {
  it("rejects numbers that overflow a double", () => {
    expectIssue("1e400", "json.number-range", { offset: 0, pointer: "" });
    expectIssue("-1e400", "json.number-range", { offset: 0 });
    expectIssue('{"a":[0,1.8e308]}', "json.number-range", { pointer: "/a/1", offset: 8 });
    expectIssue("1" + "0".repeat(400), "json.number-range");
    expectIssue("-" + "9".repeat(309) + ".5", "json.number-range");
    expectIssue("1E+309", "json.number-range");
  });

  it("bounds the lexeme in the message", () => {
    const got = issue("9".repeat(5000));
    expect(got.rule).toBe("json.number-range");
    expect(got.message.length).toBeLessThan(200);
  });

  it("accepts large finite numbers and underflow", () => {
    expect(ok("1.7976931348623157e308").value).toBe(Number.MAX_VALUE);
    expect(ok("-1.7976931348623157e308").value).toBe(-Number.MAX_VALUE);
    expect(ok("1e308").value).toBe(1e308);
    expect(ok("1e-400").value).toBe(0);
    expect(ok("9".repeat(300)).value).toBe(Number("9".repeat(300)));
  });

  it("is reported in input order", () => {
    expectIssue(String.raw`[1e400,"\ud800"]`, "json.number-range");
    expectIssue(String.raw`["\ud800",1e400]`, "json.lone-surrogate");
  });
});

describe("nonIntegerNumberPointers", () => {
  it("lists numbers with a fraction or exponent, and negative zero", () => {
    const { nonInt } = ok('{"a":1.0,"b":1,"c":[1,2.5,-0,3e2,-0.0,-0e1,0,-1,1E0],"d":-7}');
    expect(nonInt).toEqual(["/a", "/c/1", "/c/2", "/c/3", "/c/4", "/c/5", "/c/8"]);
  });

  it("handles top-level numbers", () => {
    expect(ok("1.5").nonInt).toEqual([""]);
    expect(ok("-0").nonInt).toEqual([""]);
    expect(ok("0").nonInt).toEqual([]);
    expect(ok("12").nonInt).toEqual([]);
    expect(ok('"1.5"').nonInt).toEqual([]);
  });

  it("escapes member names and uses decimal array indexes", () => {
    const { nonInt } = ok('{"a/b":{"~c":[0,0,[1,1.5]]},"":2e0,"x~1":{"y":[[],{"z":0.1}]}}');
    expect(nonInt).toEqual(["/a~1b/~0c/2/1", "/", "/x~01/y/1/z"]);
  });

  it("uses unescaped names in the pointer", () => {
    expect(ok(String.raw`{"\u0061\/":1.5}`).nonInt).toEqual(["/a~1"]);
  });

  it("tracks indexes across many elements and sibling containers", () => {
    const arr = Array.from({ length: 30 }, (_, i) => (i % 10 === 3 ? `${i}.5` : String(i))).join(",");
    const { nonInt } = ok(`[[${arr}],{"k":[${arr}]},${arr}]`);
    expect(nonInt).toEqual(["/0/3", "/0/13", "/0/23", "/1/k/3", "/1/k/13", "/1/k/23", "/5", "/15", "/25"]);
  });
});

describe("property: round-trips JSON.stringify output", () => {
  const prng = mulberry32;

  const CHAR_POOL = [
    "a",
    "b",
    "z",
    "A",
    " ",
    "~",
    "/",
    "\\",
    '"',
    "\n",
    "\t",
    "\u0000",
    "\u001f",
    "\u007f",
    "é",
    "中",
    "\u2028",
    "\uFEFF",
    "😀",
    "\u{10FFFF}",
    "'",
    "{",
    "]",
    ",",
    ":",
  ];

  function genString(rnd: () => number): string {
    const n = Math.floor(rnd() * 8);
    let s = "";
    for (let i = 0; i < n; i++) s += CHAR_POOL[Math.floor(rnd() * CHAR_POOL.length)];
    return s;
  }

  function genNumber(rnd: () => number): number {
    switch (Math.floor(rnd() * 6)) {
      case 0:
        return Math.floor(rnd() * 1000) - 500;
      case 1:
        return (rnd() - 0.5) * 1e6;
      case 2:
        return (rnd() - 0.5) * 10 ** Math.floor(rnd() * 600 - 300);
      case 3:
        return Number.MAX_SAFE_INTEGER - Math.floor(rnd() * 10);
      case 4:
        return rnd() < 0.5 ? Number.MAX_VALUE : Number.MIN_VALUE;
      default:
        return Math.round(rnd() * 100) / 4;
    }
  }

  function genValue(rnd: () => number, depth: number): unknown {
    const r = rnd();
    if (depth > 5 || r < 0.45) {
      const k = Math.floor(rnd() * 5);
      if (k === 0) return null;
      if (k === 1) return rnd() < 0.5;
      if (k === 2) return genNumber(rnd);
      return genString(rnd);
    }
    const n = Math.floor(rnd() * 6);
    if (r < 0.7) return Array.from({ length: n }, () => genValue(rnd, depth + 1));
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) obj[genString(rnd)] = genValue(rnd, depth + 1);
    if (rnd() < 0.05)
      Object.defineProperty(obj, "__proto__", { value: 1, enumerable: true, writable: true, configurable: true });
    return obj;
  }

  /** Expected non-integer pointers, from the lexemes JSON.stringify writes. */
  function expectedNonInt(v: unknown, ptr: string, out: string[]): void {
    if (typeof v === "number") {
      const lexeme = JSON.stringify(v);
      if (/[.eE]/.test(lexeme) || lexeme === "-0") out.push(ptr);
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => {
        expectedNonInt(x, `${ptr}/${i}`, out);
      });
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) expectedNonInt(x, `${ptr}/${escapePointerToken(k)}`, out);
    }
  }

  it("parses 500 random values back to equal values", () => {
    const rnd = prng(0x5eed1234);
    for (let n = 0; n < 500; n++) {
      const v = genValue(rnd, 0);
      const text = rnd() < 0.3 ? JSON.stringify(v, null, rnd() < 0.5 ? 2 : "\t") : JSON.stringify(v);
      const r = parseStrictJson(enc.encode(text), { maxBytes: 1 << 20, maxDepth: 16 });
      if (!r.ok) throw new Error(`case ${n}: ${r.issue.message} for ${text.slice(0, 200)}`);
      expect(r.value).toStrictEqual(v);
      const want: string[] = [];
      expectedNonInt(v, "", want);
      expect(r.nonIntegerNumberPointers).toEqual(want);
    }
  });
});

describe("nonIntegerPaths option", () => {
  const text = '{"a":[1.5,2,-0],"b":{"n":1e2,"m":[{"k":0.5}]},"a~b":3.0}';
  it("records only numbers at the given patterns (* = any index)", () => {
    const r = parseStrictJson(enc.encode(text), LIMITS, { nonIntegerPaths: ["/a/*", "/b/m/*/k"] });
    expect(r.ok && r.nonIntegerNumberPointers).toEqual(["/a/0", "/a/2", "/b/m/0/k"]);
  });
  it("records nothing for an empty pattern list, and matches member names exactly", () => {
    const none = parseStrictJson(enc.encode(text), LIMITS, { nonIntegerPaths: [] });
    expect(none.ok && none.nonIntegerNumberPointers).toEqual([]);
    const exact = parseStrictJson(enc.encode(text), LIMITS, { nonIntegerPaths: ["/b/nn", "/b/n/x", "/a~b"] });
    expect(exact.ok && exact.nonIntegerNumberPointers).toEqual(["/a~0b"]);
  });
  it("matches escaped member names after unescaping", () => {
    const r = parseStrictJson(enc.encode('{"\\u0062yte_size":1.0}'), LIMITS, { nonIntegerPaths: ["/byte_size"] });
    expect(r.ok && r.nonIntegerNumberPointers).toEqual(["/byte_size"]);
  });
  it("records at most MAX_RECORDED_NON_INTEGER pointers without patterns", () => {
    const many = `[${new Array(MAX_RECORDED_NON_INTEGER + 10).fill("0.5").join(",")}]`;
    const r = parseStrictJson(enc.encode(many), { maxBytes: 1 << 20, maxDepth: 4 });
    expect(r.ok && r.nonIntegerNumberPointers.length).toBe(MAX_RECORDED_NON_INTEGER);
  });
});

describe("long strings (the sliced parser scans and decodes them in pieces of 2^18 code units)", () => {
  const PIECE = 1 << 18;
  const BIG: StrictJsonLimits = { maxBytes: 16 << 20, maxDepth: 64 };
  // Fillers of every alignment, so that piece ends fall inside plain runs, before and after escapes
  // and right at a surrogate-pair escape or a raw astral character.
  const fillers = [0, 1, 5, 6, 7, 11].map((shift) => "x".repeat(shift));
  const bodies: Record<string, (f: string) => string> = {
    "plain only": (f) => `${f}${"z".repeat(PIECE * 3 + 1)}`,
    "escapes only": (f) => `${f}${"\\n".repeat(PIECE + 3)}`,
    "escaped surrogate pairs": (f) => `${f}${"\\ud83d\\ude00".repeat((PIECE >> 2) + 7)}`,
    "raw astral characters": (f) => `${f}${"😀".repeat(PIECE + 1)}\\t`,
    "plain run, then escapes": (f) => `${"y".repeat(PIECE * 2 + 3)}${f}\\"${"\\u0041".repeat(PIECE >> 2)}`,
    "mixed": (f) => `${f}${'ab\\"c\\u00e9\\ud83d\\ude00é'.repeat(PIECE >> 3)}`,
  };
  for (const [name, body] of Object.entries(bodies)) {
    it(`builds the same value as the synchronous parser: ${name}`, () => {
      for (const f of fillers) {
        const text = body(f);
        const expected = JSON.parse(`"${text}"`) as string;
        expect(ok(`"${text}"`, BIG).value).toBe(expected);
        expect(ok(`{"a":[1,"${text}",{"b":"${text}"}],"c":true}`, BIG).value).toEqual({
          a: [1, expected, { b: expected }],
          c: true,
        });
      }
    });
  }

  it("reports an issue in a later piece exactly as the synchronous parser does", () => {
    for (const f of fillers) {
      const long = `${f}${"\\n".repeat(PIECE + 5)}`;
      expectIssue(`{"a":"${long}\\ud800x"}`, "json.lone-surrogate", { pointer: "/a" });
      expectIssue(`["${long}\\udc00"]`, "json.lone-surrogate", { pointer: "/0" });
      expectIssue(`["${long}\\q"]`, "json.syntax", { pointer: "/0" });
      expectIssue(`["${long}\u0001"]`, "json.syntax", { pointer: "/0" });
      expectIssue(`["${long}`, "json.syntax", { pointer: "/0" });
      expectIssue(`["${long}\\u12`, "json.syntax");
      expectIssue(`["${long}"}`, "json.syntax");
      expectIssue(`{"a":"${long}","a":1}`, "json.duplicate-key", { pointer: "/a" });
    }
  });
});

describe("large inputs (the sliced parser decodes inputs above 1 MiB in slices)", () => {
  const BIG: StrictJsonLimits = { maxBytes: 16 << 20, maxDepth: 64 };
  const MiB = 1 << 20;
  // Multi-byte characters of every length, with fillers shifting where the 1 MiB pieces are cut.
  const texts = [0, 1, 2, 3].map((shift) => `{"${"k".repeat(shift)}":"${"é€😀a".repeat((3 * MiB) / 10)}","n":[1,"ß"]}`);
  texts.push(`["${"x".repeat(2 * MiB)}","${"€".repeat(MiB)}"]`, `[${'"\\u00e9",'.repeat(MiB / 4)}0]`);

  it("decodes and builds exactly what the synchronous parser does (ASCII and not, pieces cut at character boundaries)", async () => {
    for (const text of texts) {
      const input = bytesOf(text);
      expect(input.length).toBeGreaterThan(2 * MiB);
      const sync = parseStrictJson(input, BIG);
      const sliced = await parseStrictJsonSliced(input, BIG);
      expect(sync.ok).toBe(true);
      expect(sliced).toEqual(sync);
    }
  });

  it("refuses a large input with a BOM, invalid UTF-8 or too many bytes as the synchronous parser does", async () => {
    const body = bytesOf(`["${"é".repeat(MiB)}"]`);
    const bad = new Uint8Array(body);
    bad[MiB + 7] = 0xff;
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...body]);
    for (const [input, limits] of [
      [bad, BIG],
      [bom, BIG],
      [body, { maxBytes: MiB, maxDepth: 64 }],
    ] as const) {
      const sync = parseStrictJson(input, limits);
      expect(sync.ok).toBe(false);
      expect(await parseStrictJsonSliced(input, limits)).toEqual(sync);
    }
  });
});

describe("a text longer than the longest JavaScript string (a byte limit raised above it)", () => {
  it("is refused by json.max-bytes by both parsers, never judged as a partial or empty text", async () => {
    // `{}` then spaces: a valid document of MAX_STRING_LENGTH + 1 bytes, which no string can hold.
    // Before: the sliced parser's decode step threw, the scheduler counted it as finished and the
    // empty text was judged (json.syntax "empty document at byte 0"); the synchronous one threw.
    const input = Buffer.alloc(MAX_STRING_LENGTH + 1, 0x20);
    input.write("{}", 0);
    const limits: StrictJsonLimits = { maxBytes: 2 ** 30, maxDepth: 64 };
    const sliced = await parseStrictJsonSliced(input, limits);
    const sync = parseStrictJson(input, limits);
    expect(sliced).toEqual(sync);
    expect(sync.ok ? "ok" : sync.issue.rule).toBe(PARSE_RULES.maxBytes);
    if (!sync.ok) expect(sync.issue.message).toMatch(/longest string/);
  });
});

describe("a Buffer input (decoded by Buffer#toString) gives the TextDecoder's outcome", () => {
  // Documents around every UTF-8 edge: refused forms (overlong, surrogates encoded in UTF-8, above U+10FFFF,
  // truncated, stray continuation, the leading BOM) and valid text the decoders must keep as it is
  // (U+FFFD itself, noncharacters, U+FEFF after byte 0, astral characters, U+2028).
  const hex = (h: string) => Uint8Array.from(h.match(/../g)?.map((b) => parseInt(b, 16)) ?? []);
  const quoted = (inner: string) => hex(`22${inner}22`);
  const DOCS: Uint8Array[] = [
    quoted("c0af"),
    quoted("e080af"),
    quoted("f08080af"),
    quoted("eda080"),
    quoted("edbfbf"),
    quoted("eda0bdedb880"),
    quoted("f4908080"),
    quoted("f5808080"),
    quoted("ff"),
    quoted("80"),
    quoted("e282"),
    hex("efbbbf7b7d"),
    hex("efbbbf"),
    quoted("efbfbd"),
    quoted("efbfbf"),
    quoted("efbfbe"),
    quoted("efb790"),
    quoted("f48fbfbf"),
    quoted("f09f9880"),
    quoted("e280a8"),
    hex("5b22efbbbf225d"),
    hex("2022efbbbf2220"),
    bytesOf('{"a":"é","b":[1,2.5,"\\ud800"]}'),
    bytesOf(""),
  ];
  const expectSame = (buffer: Buffer, plain: Uint8Array, what: string) => {
    const a = parseStrictJson(buffer, LIMITS);
    const b = parseStrictJson(plain, LIMITS);
    expect(a.ok, what).toBe(b.ok);
    if (a.ok && b.ok) expect(sameOwnShape(a.value, b.value), what).toBe(true);
    else expect(a, what).toEqual(b);
    // And the value is the TextDecoder's text of exactly these bytes (nothing of the bytes around the view).
    if (a.ok)
      expect(JSON.stringify(a.value), what).toBe(
        JSON.stringify(JSON.parse(new TextDecoder("utf-8", { ignoreBOM: true }).decode(plain))),
      );
  };

  it("a view at byteOffset ≠ 0 of a larger ArrayBuffer, a pooled small Buffer and a subarray of a chunk: the bytes of the view only", () => {
    for (const doc of DOCS) {
      const what = Buffer.from(doc).toString("hex");
      const plain = Uint8Array.from(doc);
      // A view with bytes around it that would change the outcome if read: a quote, invalid UTF-8, a continuation byte.
      const big = new ArrayBuffer(doc.length + 14);
      const whole = new Uint8Array(big);
      whole.set([0x22, 0xff, 0x80, 0x7b, 0x5c, 0xed, 0xa0], 0);
      whole.set(doc, 7);
      whole.set([0x80, 0x22, 0xc0, 0x5d, 0x5c, 0x00, 0xef], 7 + doc.length);
      expectSame(Buffer.from(big, 7, doc.length), plain, `view of ${what}`);
      const pooled = Buffer.from(doc);
      expectSame(pooled, plain, `pooled ${what} (byteOffset ${pooled.byteOffset})`);
      const chunk = Buffer.concat([Buffer.from('{"x":1}\n'), Buffer.from(doc), Buffer.from("\n\xff")]);
      expectSame(chunk.subarray(8, 8 + doc.length), plain, `subarray of ${what}`);
    }
  });
});
