/**
 * The fast accept path of the strict parser (runtime/wire/fast-parse.ts) never accepts what the
 * exact scanner rejects, and accepts with the very value (and the empty
 * nonIntegerNumberPointers) the scanner gives: on every shared vector, on every valid conformance
 * fixture and on deterministic mutants of those (the differential suite's generator: duplicate
 * keys, number lexemes, raw escapes, BOM, trailing data, truncation, pretty-printing, value
 * edits), and on hand-made cases aimed at each shortcut it takes. The exact scanner is run as
 * parseStrictJsonStepwise, which never takes the fast path.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadModel } from "../../codegen/model/load.js";
import {
  INTEGER_PATHS,
  LIMITS,
  RULE_PLANS,
  WIRE_DOCUMENTS,
  WIRE_VERSION,
  type WireObjectTypeName,
} from "../../generated/ts/spec.js";
import { ACCEPT_CHECKS } from "../../generated/ts/accept-checks.js";
import { acceptsSerialized, FAST_PARSE_SLICED_MAX_BYTES, fastParse } from "../../runtime/wire/fast-parse.js";
import { snapshotText } from "../../runtime/wire/serialize.js";
import { validateParsed } from "../../runtime/wire/validate.js";
import { parseStrictJson, type StrictJsonLimits } from "../../runtime/wire/json/parse.js";
import { parseStrictJsonSliced, parseStrictJsonStepwise } from "../../runtime/wire/json/sliced.js";
import { DEFAULT_DOCUMENT_LIMITS } from "../../runtime/wire/validate.js";
import { mutants } from "../differential/mutations.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { fixtureDocument, memberEdits, ruleStepValues, validFixtureDocuments } from "../support/wire-corpus.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The fast path on `bytes` (undefined: declined, or not decodable / BOM, which the fast path never sees). */
function fast(
  bytes: Uint8Array,
  limits: StrictJsonLimits,
  paths: readonly string[] | undefined,
): { value: unknown } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return undefined;
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return undefined;
  }
  return fastParse(
    text,
    bytes.length,
    limits.maxDepth,
    limits.maxValues ?? Number.POSITIVE_INFINITY,
    limits.maxMembers ?? Number.POSITIVE_INFINITY,
    paths,
  );
}

/** Assert the fast path agrees with the exact scanner; returns whether the fast path accepted. */
function agrees(
  bytes: Uint8Array,
  paths: readonly string[] | undefined,
  limits: StrictJsonLimits = DEFAULT_DOCUMENT_LIMITS,
): boolean {
  const got = fast(bytes, limits, paths);
  if (got === undefined) return false;
  const exact = parseStrictJsonStepwise(
    bytes,
    limits,
    paths === undefined ? {} : { nonIntegerPaths: paths },
    () => undefined,
    Number.MAX_SAFE_INTEGER,
  );
  const shown = new TextDecoder().decode(bytes.slice(0, 300));
  expect(exact.ok, `fast path accepted what the scanner rejects (${exact.ok ? "" : exact.issue.rule}): ${shown}`).toBe(
    true,
  );
  if (!exact.ok) return true;
  expect(exact.nonIntegerNumberPointers, shown).toStrictEqual([]);
  expect(got.value).toStrictEqual(exact.value);
  return true;
}

const VECTORS = join(REPO_ROOT, "generated", "vectors");
const index = JSON.parse(readFileSync(join(VECTORS, "index.json"), "utf8")) as { vectors: { path: string }[] };
const vectors = index.vectors.map(
  (v) =>
    JSON.parse(readFileSync(join(VECTORS, v.path), "utf8")) as {
      id: string;
      type: WireObjectTypeName;
      expect: string;
      document_base64: string;
      rule?: string;
    },
);

describe("strict parser fast path", () => {
  it("agrees with the exact scanner on every shared vector (and accepts most valid ones)", () => {
    let accepted = 0;
    for (const v of vectors) {
      const bytes = new Uint8Array(Buffer.from(v.document_base64, "base64"));
      const ok = agrees(bytes, INTEGER_PATHS[v.type]);
      if (v.expect === "invalid" && v.rule?.startsWith("json.")) expect(ok, v.id).toBe(false);
      if (ok) accepted++;
      agrees(bytes, undefined);
    }
    expect(accepted).toBeGreaterThan(vectors.filter((v) => v.expect === "valid").length / 2);
  });

  it("agrees with the exact scanner on mutants of every valid conformance fixture", () => {
    const model = loadModel(REPO_ROOT);
    let total = 0;
    let accepted = 0;
    WIRE_DOCUMENTS.forEach((d, i) => {
      const dir = join(REPO_ROOT, "generated", "conformance", d.fixtureKind);
      const bases = readdirSync(dir)
        .filter((f) => f.startsWith("valid-") && f.endsWith(".json"))
        .map((f) => fixtureDocument(join(dir, f)) as never);
      for (const base of bases) agrees(encoder.encode(JSON.stringify(base)), INTEGER_PATHS[d.typeName]);
      for (const m of mutants(model, d.typeName, d.fixtureKind, bases, 300, 0x16f00d + i)) {
        if (agrees(m.bytes, INTEGER_PATHS[d.typeName])) accepted++;
        total++;
      }
    });
    expect(total).toBeGreaterThan(1000);
    expect(accepted).toBeGreaterThan(100);
  });

  it("acceptsSerialized proves only values validateParsed finds nothing in (fixtures, member edits, unknown members, mutants)", () => {
    const model = loadModel(REPO_ROOT);
    const values: readonly unknown[] = [
      null,
      "",
      [],
      [""],
      {},
      0,
      1.5,
      -1,
      2 ** 53,
      1000,
      true,
      "x".repeat(513),
      'a"b',
      "é",
      ...ruleStepValues(RULE_PLANS),
    ];
    let proved = 0;
    let total = 0;
    WIRE_DOCUMENTS.forEach((d, i) => {
      const bases = validFixtureDocuments(d.fixtureKind) as never[];
      const edits = bases
        .slice(0, 6)
        .flatMap((base) => memberEdits(base, values, (obj) => [{ ...obj, zz_unknown: 1 }]));
      // Every k-th edit, about 1,500 per type: every kind of edit is among them, and the suite stays fast.
      const every = Math.max(1, Math.floor(edits.length / 1500));
      const candidates: unknown[] = [...bases, ...edits.filter((_, k) => k % every === 0)];
      for (const m of mutants(model, d.typeName, d.fixtureKind, bases, 300, 0x5e71a + i)) {
        try {
          candidates.push(JSON.parse(Buffer.from(m.bytes).toString("utf8")));
        } catch {
          // not JSON: nothing the serializer could be given
        }
      }
      for (const value of candidates) {
        const snap = snapshotText(value, {
          maxBytes: LIMITS.max_request_bytes,
          maxDepth: LIMITS.max_depth,
          maxValues: LIMITS.max_values,
        });
        if (!snap.ok || snap.text === null) continue;
        total++;
        if (!acceptsSerialized(snap.value, snap.text, ACCEPT_CHECKS[d.typeName], LIMITS.max_depth)) continue;
        proved++;
        expect(validateParsed(d.typeName, snap.value, []), snap.text.slice(0, 200)).toEqual([]);
      }
      // Most valid fixtures are proved (the shortcut is taken; not for escapes, or numbers that may be written shorter).
      const provedBases = bases.filter((base) => {
        const snap = snapshotText(base, {
          maxBytes: LIMITS.max_request_bytes,
          maxDepth: LIMITS.max_depth,
          maxValues: LIMITS.max_values,
        });
        return (
          snap.ok &&
          snap.text !== null &&
          acceptsSerialized(snap.value, snap.text, ACCEPT_CHECKS[d.typeName], LIMITS.max_depth)
        );
      });
      expect(provedBases.length, d.typeName).toBeGreaterThan(bases.length / 2);
    });
    expect(total).toBeGreaterThan(1000);
    expect(proved).toBeGreaterThan(100);
  });

  const paths = INTEGER_PATHS.CallbackRequest;
  const request = {
    schema_version: WIRE_VERSION,
    event: "frame.opening",
    event_id: "ev-1",
    adapter_id: "codex",
    adapter_version: "0.1.0",
    integration_mode: "native_hook",
    invocation_id: "inv-1",
    frame_context: { frame_id: "f1", frame_class: "top_level" },
    payload_refs: [
      { payload_id: "p", payload_kind: "handover", content_digest: `sha256:${"0".repeat(64)}`, byte_size: 7 },
    ],
  };
  const text = JSON.stringify(request);
  const withMember = (member: string): string => `${text.slice(0, -1)},${member}}`;
  const withMetadata = (metadata: string): string => withMember(`"metadata":${metadata}`);
  // Each must be declined (the scanner reports an issue, or a non-integer lexeme at an integer path).
  const declined: readonly [string, string][] = [
    ["duplicate member", withMember('"event_id":"ev-2"')],
    ["duplicate hidden by colons in strings", withMetadata('{"a":"x:y","a":"::"}')],
    ["duplicate hidden by a colon after a quote in a string", withMetadata('{"a":"\\":","a":1}')],
    ["duplicate hidden by a colon after a space in a string", withMetadata('{"a":"x :","a":1}')],
    ["duplicate name with a colon", withMetadata('{"k:1":1,"k:1":2}')],
    ["duplicate with whitespace", `${text.slice(0, -1)} , "event_id" : "ev-2" }`],
    ["duplicate written with an escape", withMetadata('{"ab":1,"a\\u0062":2}')],
    ["escaped colon next to a duplicate", withMetadata('{"b":"\\u003a","b":1}')],
    ["duplicate __proto__", withMetadata('{"__proto__":1,"__proto__":2}')],
    ["lone surrogate", withMetadata('{"a":"\\ud800"}')],
    ["lone low surrogate in a name", withMetadata('{"\\uDC00":1}')],
    ["high escape before a raw pair", withMetadata('{"a":"\\ud83d😀"}')],
    ["raw pair before a low escape", withMetadata('{"a":"😀\\ude00"}')],
    ["two high escapes then a low one", withMetadata('{"a":"\\ud83d\\ud83d\\ude00"}')],
    ["1e400", withMetadata('{"a":1e400}')],
    ["1e400 in an array", withMetadata('{"a":[1,-1e400]}')],
    ["a 400-digit integer", withMetadata(`{"a":${"9".repeat(400)}}`)],
    ["-0 in an open map", withMetadata('{"a":-0}')],
    ["-0.0 in an array", withMetadata('{"a":[-0.0]}')],
    ["sequence 1.0", withMember('"sequence":1.0')],
    ["sequence 1e2", withMember('"sequence":1e2')],
    ["sequence 1E2 with spaces", `${text.slice(0, -1)},"sequence" :  1E2 }`],
    ["sequence -0", withMember('"sequence":-0')],
    ["byte_size 7.0 in an array element", text.replace('"byte_size":7', '"byte_size":7.0')],
    ["sequence written with an escape, 1.0", withMember('"sequ\\u0065nce":1.0')],
    ["depth past the limit", withMetadata(`{"a":${"[".repeat(63)}${"]".repeat(63)}}`)],
    ["BOM", `\ufeff${text}`],
    ["trailing data", `${text} x`],
    ["trailing comma", `${text.slice(0, -1)},}`],
    ["NaN", withMetadata('{"a":NaN}')],
    ["truncated", text.slice(0, -3)],
    // compact texts without escapes, which the fast path may prove by their length alone
    ["compact duplicate", withMetadata('{"a":1,"a":1}')],
    ["compact duplicate next to a shorter exponent", withMetadata('{"a":1e3,"b":[1,1,1,1,1],"b":1}')],
    ["byte_size 1200 as 12e2 (as long as 1200)", text.replace('"byte_size":7', '"byte_size":12e2')],
    ["byte_size 700 as 7e2", text.replace('"byte_size":7', '"byte_size":7e2')],
    // a number written shorter than String(x) must not pay for whitespace or a duplicate
    ["byte_size 1000 as 1e3 after a space (as long as 1000)", text.replace('"byte_size":7', '"byte_size": 1e3')],
    ["duplicate paid for by 1e12 and spaces", withMetadata('{"a":1e12,"b":1,"b":1   }')],
    // 2 ** 66 is 73786976294838210000 as String(x) (20 chars) but 7378697629483821e4 (18) parses to it too
    [
      "duplicate paid for by integers above 2^53 written shorter",
      withMetadata('{"a":[7378697629483821e4,7378697629483821e4,7378697629483821e4],"b":1,"b":1}'),
    ],
    [
      "duplicate paid for by 1.23456789e20 written as 123456789e12, and spaces",
      withMetadata('{"a":123456789e12,"b":1,"b":1   }'),
    ],
  ];
  it.each(declined)("declines: %s", (_name, doc) => {
    expect(fast(encoder.encode(doc), DEFAULT_DOCUMENT_LIMITS, paths)).toBeUndefined();
    agrees(encoder.encode(doc), paths);
    agrees(encoder.encode(doc), undefined);
  });

  const acceptedCases: readonly [string, string][] = [
    ["compact", text],
    ["pretty-printed", JSON.stringify(request, null, 2)],
    ["spaces before colons", text.replaceAll('":', '" :')],
    ["sequence 3", withMember('"sequence":3')],
    ["colons inside strings", withMetadata('{"a":"x:y","b":"caps:sha256:ab","c:d":"e"}')],
    ["a float in an open map", withMetadata('{"x":1.5,"y":[2e3,0.25],"z":-1.5}')],
    ["an escape that is not a surrogate", withMetadata('{"a":"\\u00e9\\n\\"","b":1}')],
    ["an escaped surrogate pair, in a value and a name", withMetadata('{"a":"\\ud83d\\ude00","\\uD83D\\uDE00":1}')],
    ["a paired surrogate written raw", withMetadata('{"a":"😀"}')],
    ["the string value sequence", withMetadata('{"k":"sequence","n":7}')],
    ["digits before dots inside strings", withMetadata('{"v":"0.9.1","w":"1e5"}')],
    // the request is level 1, metadata level 2: 62 arrays reach level 64 (limits.max_depth)
    ["depth at the limit", withMetadata(`{"a":${"[".repeat(62)}${"]".repeat(62)}}`)],
    ["__proto__ member", withMetadata('{"__proto__":{"a":1}}')],
    [
      "compact, with numbers, literals and empty containers",
      withMetadata('{"a":[],"b":{},"c":[true,false,null,-12,0,101,1200,1.5],"d":""}'),
    ],
  ];
  it.each(acceptedCases)("accepts: %s", (_name, doc) => {
    expect(agrees(encoder.encode(doc), paths)).toBe(true);
  });

  it("declines a float named like an integer field (it cannot see the path) and one anywhere when every number is recorded", () => {
    expect(agrees(encoder.encode(withMetadata('{"sequence":1.5}')), paths)).toBe(false);
    expect(agrees(encoder.encode(withMetadata('{"x":1.5}')), undefined)).toBe(false);
    // an integer path that ends in an array index: any fraction in an element declines
    expect(agrees(encoder.encode('{"a":[1,2.5]}'), ["/b/*"])).toBe(false);
    expect(agrees(encoder.encode('{"a":[1,2]}'), ["/b/*"])).toBe(true);
    // the scanner matches a trailing "*" to array indices and to a member named "*"
    expect(agrees(encoder.encode('{"a":{"*":1.5}}'), ["/a/*"])).toBe(false);
    expect(agrees(encoder.encode('{"*":1.5}'), ["/*"])).toBe(false);
  });

  it("declines duplicates and whitespace paid for by numbers written shorter than String(x) (property)", () => {
    // Integers from 1 to 1e21 in magnitude, each written with its shortest lexeme (digits then an
    // exponent when that is shorter), a duplicate member, and spaces so that the text is exactly
    // as long as the shortest text of its value: the length proof must not be fooled.
    const integer = fc.oneof(
      fc.integer({ min: 1, max: 2 ** 53 }),
      fc.double({ min: 2 ** 53, max: 1e21, noNaN: true }).map(Math.floor),
    );
    const shortest = (x: number): string => {
      const digits = String(x);
      const mantissa = digits.replace(/0+$/, "");
      const exponent = `${mantissa}e${digits.length - mantissa.length}`;
      return exponent.length < digits.length ? exponent : digits;
    };
    fc.assert(
      fc.property(fc.array(integer, { minLength: 1, maxLength: 8 }), fc.boolean(), (xs, negative) => {
        const lexemes = xs.map((x) => `${negative ? "-" : ""}${shortest(x)}`);
        const saved = xs.reduce(
          (sum, x, i) => sum + String(negative ? -x : x).length - (lexemes[i] as string).length,
          0,
        );
        fc.pre(saved >= 6);
        const doc = `{"a":[${lexemes.join(",")}],"b":1,"b":1${" ".repeat(saved - 6)}}`;
        expect(parseStrictJson(encoder.encode(doc), DEFAULT_DOCUMENT_LIMITS, { nonIntegerPaths: [] }).ok, doc).toBe(
          false,
        );
        agrees(encoder.encode(doc), []);
      }),
      { numRuns: 300 },
    );
  });

  it("honours the limits it is given", () => {
    // 17 values: the root, 7 request strings, frame_context and its 2 strings, payload_refs, its
    // object and 4 members... counted by the scanner: compare at the boundary it reports.
    const bytes = encoder.encode(withMetadata('{"a":[[1]]}'));
    const exact = (limits: StrictJsonLimits): boolean =>
      parseStrictJsonStepwise(bytes, limits, { nonIntegerPaths: paths }, () => undefined, Number.MAX_SAFE_INTEGER).ok;
    for (let maxDepth = 1; maxDepth <= 6; maxDepth++) {
      const limits = { ...DEFAULT_DOCUMENT_LIMITS, maxDepth };
      expect(fast(bytes, limits, paths) !== undefined, `maxDepth ${maxDepth}`).toBe(exact(limits));
    }
    for (let maxValues = 10; maxValues <= 30; maxValues++) {
      const limits = { ...DEFAULT_DOCUMENT_LIMITS, maxValues };
      expect(fast(bytes, limits, paths) !== undefined, `maxValues ${maxValues}`).toBe(exact(limits));
    }
  });

  it("declines an object of more than maxMembers entries, at every object (open maps, nested, with an accept check too)", () => {
    const obj = (n: number): string => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(",")}}`;
    // 20 is above the members of the request's own objects: only the open map's objects reach it.
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, maxMembers: 20 };
    for (const [doc, within] of [
      [withMetadata(obj(20)), true],
      [withMetadata(obj(21)), false],
      [withMetadata(`{"a":[${obj(20)}]}`), true],
      [withMetadata(`{"a":[{},${obj(21)}]}`), false],
    ] as const) {
      const bytes = encoder.encode(doc);
      expect(parseStrictJson(bytes, limits, { nonIntegerPaths: paths }).ok, doc.slice(-60)).toBe(within);
      expect(fast(bytes, limits, paths) !== undefined, doc.slice(-60)).toBe(within);
    }
    const at = encoder.encode(withMetadata(obj(LIMITS.max_object_members)));
    const over = encoder.encode(withMetadata(obj(LIMITS.max_object_members + 1)));
    expect(fast(at, DEFAULT_DOCUMENT_LIMITS, paths)).toBeDefined();
    expect(fast(over, DEFAULT_DOCUMENT_LIMITS, paths)).toBeUndefined();
    // With the type's accept check (the open map is walked by the generic walk).
    const bytes = encoder.encode(withMetadata(obj(21)));
    expect(
      fastParse(new TextDecoder().decode(bytes), bytes.length, 64, 131072, 20, paths, ACCEPT_CHECKS.CallbackRequest),
    ).toBeUndefined();
    expect(
      fastParse(new TextDecoder().decode(bytes), bytes.length, 64, 131072, 21, paths, ACCEPT_CHECKS.CallbackRequest)
        ?.accepted,
    ).toBe(true);
  });

  it("bounds the containers before JSON.parse builds them", () => {
    // Above 2 * maxValues - 1 bytes the text's '[' and '{' are counted first.
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, maxValues: 100 };
    const many = encoder.encode(`[${Array(150).fill("{}").join(",")}]`);
    expect(fast(many, limits, undefined)).toBeUndefined();
    expect(parseStrictJson(many, limits).ok).toBe(false);
    const strings = encoder.encode(`[${Array(60).fill('"xxxxxx"').join(",")}]`);
    expect(strings.length).toBeGreaterThan(2 * limits.maxValues);
    expect(agrees(strings, undefined, limits)).toBe(true);
  });

  it("is taken by the sliced parser only up to limits.fast_parse_sliced_max_bytes, with the same result", async () => {
    expect(FAST_PARSE_SLICED_MAX_BYTES).toBe(LIMITS.fast_parse_sliced_max_bytes);
    for (const doc of [
      text,
      withMetadata(`{"a":"${"x".repeat(FAST_PARSE_SLICED_MAX_BYTES)}"}`),
      withMember('"event_id":"ev-2"'),
    ]) {
      const bytes = encoder.encode(doc);
      const sliced = await parseStrictJsonSliced(bytes, DEFAULT_DOCUMENT_LIMITS, { nonIntegerPaths: paths });
      expect(sliced).toStrictEqual(parseStrictJson(bytes, DEFAULT_DOCUMENT_LIMITS, { nonIntegerPaths: paths }));
    }
  });
});
