/**
 * Conformance corpus, field families: unknown members at every nesting level, null versus absent for
 * every field, every enum value and its near-misses, and strings, integers and arrays at their bounds
 * with number lexemes (built by corpus.ts).
 */
import type { Field, Model } from "../../model/model.js";
import {
  concretePointer,
  editDocument,
  enumNameOf,
  enumValuesOf,
  sampleValue,
  slug,
  stringOfCodePoints,
  type JsonObject,
  type JsonValue,
} from "../../model/samples.js";
import {
  UNKNOWN_MEMBER,
  ruleSlug,
  whereSlug,
  concat,
  type RootCorpus,
  fieldsOf,
  describeWhere,
} from "./corpus-base.js";

/** The first occurrence in the root of every object type, in depth-first field order. */
function firstOccurrences(model: Model, rootType: string): { pattern: string; typeName: string }[] {
  const seen = new Set<string>();
  const out: { pattern: string; typeName: string }[] = [];
  for (const o of model.occurrences.get(rootType) ?? []) {
    if (seen.has(o.typeName)) continue;
    seen.add(o.typeName);
    out.push({ pattern: o.pattern, typeName: o.typeName });
  }
  return out;
}

/** Unknown members at every nesting level, and anything inside open maps. */
export function addUnknownFieldCases(c: RootCorpus): void {
  for (const o of c.model.occurrences.get(c.rootType) ?? []) {
    const pointer = `${concretePointer(o.pattern)}/${UNKNOWN_MEMBER}`;
    c.add({
      stem: `invalid-schema-additional-properties-${whereSlug(concretePointer(o.pattern))}`,
      expect: "invalid",
      rule: "schema.additional-properties",
      pointer,
      description: `an unknown member in the ${o.typeName} at ${o.pattern === "" ? "the root" : concretePointer(o.pattern)} (every wire object is closed)`,
      data: c.edit(o.pattern, [UNKNOWN_MEMBER], (obj) => {
        obj[UNKNOWN_MEMBER] = 1;
      }),
    });
    for (const f of fieldsOf(c.model, o.typeName)) {
      if (f.shape.kind !== "open_object") continue;
      c.add({
        stem: `valid-schema-additional-properties-open-map-${whereSlug(`${concretePointer(o.pattern)}/${f.name}`)}`,
        expect: "valid",
        description: `the open map ${concretePointer(o.pattern)}/${f.name} takes any members and any JSON values`,
        data: c.edit(o.pattern, [f.name], (obj) => {
          obj[f.name] = {
            [UNKNOWN_MEMBER]: 1,
            schema_version: "anything",
            nested: { list: [1, "two", null, false, { deep: [] }] },
            "": "empty key",
            "with/slash~tilde": -1,
          };
        }),
      });
    }
  }
}

/** Null vs absent for every field of every object type at its first occurrence in the root. */
export function addPresenceCases(c: RootCorpus, owned: ReadonlySet<string>): void {
  for (const o of firstOccurrences(c.model, c.rootType)) {
    if (!owned.has(o.typeName)) continue;
    const at = concretePointer(o.pattern);
    for (const f of fieldsOf(c.model, o.typeName)) {
      const pointer = `${at}/${f.name}`;
      const tag = whereSlug(pointer);
      const where = describeWhere(c.rootType, o.pattern, f.name);
      const absent = (obj: JsonObject): void => {
        delete obj[f.name];
      };
      const nul = (obj: JsonObject): void => {
        obj[f.name] = null;
      };
      switch (f.presence) {
        case "required":
          c.add({
            stem: `invalid-schema-required-${tag}-absent`,
            expect: "invalid",
            rule: "schema.required",
            pointer,
            description: `${where} (required) is absent`,
            data: c.edit(o.pattern, [f.name], absent),
          });
          c.add({
            stem: `invalid-schema-type-${tag}-null`,
            expect: "invalid",
            rule: "schema.type",
            pointer,
            description: `${where} (required, not nullable) is null`,
            data: c.edit(o.pattern, [f.name], nul),
          });
          break;
        case "required_nullable":
          c.add({
            stem: `invalid-schema-required-${tag}-absent`,
            expect: "invalid",
            rule: "schema.required",
            pointer,
            description: `${where} (required even when null) is absent`,
            data: c.edit(o.pattern, [f.name], absent),
          });
          c.add({
            stem: `valid-schema-type-${tag}-null`,
            expect: "valid",
            description: `${where} (required, nullable) is null`,
            data: c.edit(o.pattern, [f.name], nul),
          });
          break;
        case "optional":
        case "optional_emit_null":
          c.add({
            stem: `valid-schema-type-${tag}-null`,
            expect: "valid",
            description: `${where} (${f.presence}) is null: null means none`,
            data: c.edit(o.pattern, [f.name], nul),
          });
          c.add({
            stem: `valid-schema-required-${tag}-absent`,
            expect: "valid",
            description: `${where} (${f.presence}) is absent`,
            data: c.edit(o.pattern, [f.name], absent),
          });
          break;
        case "collection":
          c.add({
            stem: `invalid-schema-type-${tag}-null`,
            expect: "invalid",
            rule: "schema.type",
            pointer,
            description: `${where} (a collection) is null: absent means empty, null is rejected`,
            data: c.edit(o.pattern, [f.name], nul),
          });
          c.add({
            stem: `valid-schema-required-${tag}-absent`,
            expect: "valid",
            description: `${where} (a collection) is absent, which means empty`,
            data: c.edit(o.pattern, [f.name], absent),
          });
          c.add({
            stem: `valid-schema-type-${tag}-empty`,
            expect: "valid",
            description: `${where} (a collection) is empty`,
            data: c.edit(o.pattern, [f.name], (obj) => {
              obj[f.name] = f.shape.kind === "array" ? [] : {};
            }),
          });
          break;
      }
    }
  }
}

/** Enum values: every value of each enum at its representative field; near-misses at every enum field of the root. */
export function addEnumCases(
  c: RootCorpus,
  enumHomes: ReadonlyMap<string, { rootType: string; pattern: string; field: string }>,
): void {
  for (const o of firstOccurrences(c.model, c.rootType)) {
    const at = concretePointer(o.pattern);
    for (const f of fieldsOf(c.model, o.typeName)) {
      const enumName = enumNameOf(f.shape);
      if (enumName === null) continue;
      const values = enumValuesOf(c.model, enumName);
      const pointer = `${at}/${f.name}`;
      const tag = whereSlug(pointer);
      const where = describeWhere(c.rootType, o.pattern, f.name);
      const first = values[0] as string;
      for (const [name, value] of [
        ["upper-case", first.toUpperCase()],
        ["trailing-space", `${first} `],
        ["leading-space", ` ${first}`],
        ["title-case", first.charAt(0).toUpperCase() + first.slice(1)],
      ] as const) {
        c.add({
          stem: `invalid-schema-enum-${tag}-${name}`,
          expect: "invalid",
          rule: "schema.enum",
          pointer,
          description: `${where} is ${JSON.stringify(value)}, a near-miss of the ${enumName} value ${first}`,
          data: c.edit(o.pattern, [f.name], (obj) => {
            obj[f.name] = value;
          }),
        });
      }
      const home = enumHomes.get(enumName);
      const isHome =
        home !== undefined && home.rootType === c.rootType && home.pattern === o.pattern && home.field === f.name;
      // Every value at the enum's home field; elsewhere one value (the last one that breaks no rule).
      const chosen = isHome ? values : [...values].reverse().slice(0, 1);
      for (const v of chosen) {
        const edited = editDocument(c.model, c.rootType, c.base, o.pattern, [f.name], (obj) => {
          obj[f.name] = v;
        });
        if (edited.conflicts.length > 0) continue;
        c.add({
          stem: `valid-schema-enum-${tag}-${slug(v)}`,
          expect: "valid",
          description: `${where} is the ${enumName} value ${v}`,
          data: edited.doc,
        });
      }
    }
  }
}

/** Strings, integers and arrays at their bounds (one representative field each per root), plus number lexemes. */
export function addBoundaryCases(c: RootCorpus): void {
  const { model } = c;
  const occ = firstOccurrences(model, c.rootType);
  const versionFields = new Set(
    (model.rulePlans.get(c.rootType) ?? []).filter((s) => s.check === "equals_wire_version").map((s) => s.field),
  );
  const nonEmpty = new Set(
    (model.rulePlans.get(c.rootType) ?? [])
      .filter((s) => s.check === "non_empty_string")
      .map((s) => `${s.at}/${s.field}`),
  );
  // Representative string: the first bounded identifier-sized string (not the version).
  let str: { pattern: string; field: Field; maxLength: number } | undefined;
  let emptyOk: { pattern: string; field: Field } | undefined;
  let integer: { pattern: string; field: Field } | undefined;
  for (const o of occ) {
    for (const f of fieldsOf(model, o.typeName)) {
      if (f.shape.kind === "string" && !versionFields.has(f.name)) {
        if (!str && f.shape.maxLength <= 4096) str = { pattern: o.pattern, field: f, maxLength: f.shape.maxLength };
        if (
          !emptyOk &&
          !nonEmpty.has(`${o.pattern}/${f.name}`) &&
          !(model.rulePlans.get(c.rootType) ?? []).some(
            (s) => s.at === o.pattern && (s.fields?.includes(f.name) || s.field === f.name),
          )
        ) {
          emptyOk = { pattern: o.pattern, field: f };
        }
      }
      if (!integer && f.shape.kind === "integer") integer = { pattern: o.pattern, field: f };
    }
  }
  if (str) {
    const { pattern, field, maxLength } = str;
    const pointer = `${concretePointer(pattern)}/${field.name}`;
    const tag = whereSlug(pointer);
    const where = describeWhere(c.rootType, pattern, field.name);
    const set = (value: string) => (obj: JsonObject) => {
      obj[field.name] = value;
    };
    c.add({
      stem: `valid-schema-max-length-${tag}-at-limit`,
      expect: "valid",
      description: `${where} is exactly ${maxLength} code points, the last one astral (${maxLength + 1} UTF-16 code units)`,
      data: c.edit(pattern, [field.name], set(stringOfCodePoints(maxLength))),
    });
    c.add({
      stem: `valid-schema-max-length-${tag}-at-limit-all-astral`,
      expect: "valid",
      description: `${where} is ${maxLength} astral code points (${2 * maxLength} UTF-16 code units, ${4 * maxLength} UTF-8 bytes)`,
      data: c.edit(pattern, [field.name], set("\u{1F600}".repeat(maxLength))),
    });
    c.add({
      stem: `invalid-schema-max-length-${tag}-plus-1`,
      expect: "invalid",
      rule: "schema.max-length",
      pointer,
      description: `${where} is ${maxLength + 1} code points, one over its maxLength`,
      data: c.edit(pattern, [field.name], set(stringOfCodePoints(maxLength + 1))),
    });
    c.add({
      stem: `invalid-schema-max-length-${tag}-plus-1-all-astral`,
      expect: "invalid",
      rule: "schema.max-length",
      pointer,
      description: `${where} is ${maxLength + 1} astral code points`,
      data: c.edit(pattern, [field.name], set("\u{1F600}".repeat(maxLength + 1))),
    });
    c.add({
      stem: `invalid-schema-type-${tag}-number`,
      expect: "invalid",
      rule: "schema.type",
      pointer,
      description: `${where} is a number, not a string`,
      data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = 7)),
    });
    c.add({
      stem: `valid-schema-type-${tag}-unicode`,
      expect: "valid",
      description: `${where} holds escapes and non-ASCII text`,
      data: c.edit(pattern, [field.name], set('tab\there "quoted" \\ é 中文 \u{1F600} \u0000 end')),
    });
    // Lone surrogates and invalid UTF-8 inside the same string.
    c.add({
      stem: `invalid-json-lone-surrogate-${tag}-high`,
      expect: "invalid",
      rule: "json.lone-surrogate",
      pointer,
      description: `${where} escapes a lone high surrogate \\ud800`,
      bytes: c.rawString(pattern, field.name, '"a\\ud800b"'),
    });
    c.add({
      stem: `invalid-json-lone-surrogate-${tag}-low`,
      expect: "invalid",
      rule: "json.lone-surrogate",
      pointer,
      description: `${where} escapes a lone low surrogate \\udc00`,
      bytes: c.rawString(pattern, field.name, '"a\\udc00b"'),
    });
    c.add({
      stem: `invalid-json-lone-surrogate-${tag}-reversed-pair`,
      expect: "invalid",
      rule: "json.lone-surrogate",
      pointer,
      description: `${where} escapes a surrogate pair in the wrong order (\\ude00\\ud83d)`,
      bytes: c.rawString(pattern, field.name, '"\\ude00\\ud83d"'),
    });
    c.add({
      stem: `valid-json-lone-surrogate-${tag}-escaped-pair`,
      expect: "valid",
      description: `${where} escapes a proper surrogate pair \\ud83d\\ude00`,
      bytes: c.rawString(pattern, field.name, '"\\ud83d\\ude00"'),
    });
    c.add({
      stem: `invalid-json-utf8-${tag}-byte-ff`,
      expect: "invalid",
      rule: "json.utf8",
      pointer: "",
      description: `${where} contains the byte FF (never valid in UTF-8)`,
      bytes: c.rawString(pattern, field.name, concat('"a', new Uint8Array([0xff]), 'b"')),
    });
    c.add({
      stem: `invalid-json-utf8-${tag}-encoded-surrogate`,
      expect: "invalid",
      rule: "json.utf8",
      pointer: "",
      description: `${where} contains ED A0 80 (a UTF-16 surrogate encoded as UTF-8)`,
      bytes: c.rawString(pattern, field.name, concat('"a', new Uint8Array([0xed, 0xa0, 0x80]), 'b"')),
    });
    c.add({
      stem: `invalid-json-utf8-${tag}-overlong`,
      expect: "invalid",
      rule: "json.utf8",
      pointer: "",
      description: `${where} contains C0 AF (an overlong encoding of /)`,
      bytes: c.rawString(pattern, field.name, concat('"a', new Uint8Array([0xc0, 0xaf]), 'b"')),
    });
    c.add({
      stem: `invalid-json-utf8-${tag}-truncated`,
      expect: "invalid",
      rule: "json.utf8",
      pointer: "",
      description: `${where} contains E2 82 without its last byte`,
      bytes: c.rawString(pattern, field.name, concat('"a', new Uint8Array([0xe2, 0x82]), '"')),
    });
    c.add({
      stem: `valid-json-utf8-${tag}-multibyte`,
      expect: "valid",
      description: `${where} holds raw 2-, 3- and 4-byte UTF-8 sequences`,
      bytes: c.rawString(pattern, field.name, '"é€\u{1F600}"'),
    });
    c.add({
      stem: `invalid-json-syntax-${tag}-raw-control-character`,
      expect: "invalid",
      rule: "json.syntax",
      description: `${where} holds a raw tab character (control characters must be escaped)`,
      bytes: c.rawString(pattern, field.name, '"a\tb"'),
    });
    c.add({
      stem: `invalid-json-syntax-${tag}-bad-escape`,
      expect: "invalid",
      rule: "json.syntax",
      description: `${where} holds the invalid escape \\x41`,
      bytes: c.rawString(pattern, field.name, '"a\\x41"'),
    });
  }
  if (emptyOk) {
    const { pattern, field } = emptyOk;
    c.add({
      stem: `valid-schema-max-length-${whereSlug(`${concretePointer(pattern)}/${field.name}`)}-empty`,
      expect: "valid",
      description: `${describeWhere(c.rootType, pattern, field.name)} (no non-empty rule) is the empty string`,
      data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = "")),
    });
  }
  if (integer) {
    const { pattern, field } = integer;
    const pointer = `${concretePointer(pattern)}/${field.name}`;
    const tag = whereSlug(pointer);
    const where = describeWhere(c.rootType, pattern, field.name);
    const lexeme = (name: string, text: string, expect: "valid" | "invalid", rule: string, why: string): void =>
      c.add({
        stem: `${expect}-${ruleSlug(rule)}-${tag}-${name}`,
        expect,
        ...(expect === "invalid" ? { rule, pointer } : {}),
        description: `${where} written as ${text}: ${why}`,
        bytes: c.numberLexeme(pattern, field.name, text),
      });
    lexeme(
      "max-safe-integer",
      "9007199254740991",
      "valid",
      "schema.maximum",
      "2^53 - 1, the largest integer on the wire",
    );
    lexeme("zero", "0", "valid", "schema.minimum", "the minimum");
    lexeme("integer", "42", "valid", "schema.type", "a plain integer lexeme");
    lexeme("two-pow-53", "9007199254740992", "invalid", "schema.maximum", "2^53, one over the maximum");
    lexeme(
      "u64-max",
      "18446744073709551615",
      "invalid",
      "schema.maximum",
      "2^64 - 1 (accepted by the reference's u64; above our 2^53 - 1 bound)",
    );
    lexeme("two-pow-64", "18446744073709551616", "invalid", "schema.maximum", "2^64, beyond any 64-bit integer");
    lexeme("minus-one", "-1", "invalid", "schema.minimum", "negative");
    lexeme("one-point-zero", "1.0", "invalid", "schema.type", "a fraction, even .0, is not an integer lexeme");
    lexeme("minus-zero", "-0", "invalid", "schema.type", "minus zero is not an integer lexeme");
    lexeme("exponent", "1e2", "invalid", "schema.type", "an exponent is not an integer lexeme");
    lexeme("exponent-upper", "1E2", "invalid", "schema.type", "an exponent is not an integer lexeme");
    lexeme("fraction", "1.5", "invalid", "schema.type", "not an integer");
    lexeme("huge-exponent", "1e400", "invalid", "json.number-range", "overflows an IEEE-754 double");
    lexeme("leading-zero", "01", "invalid", "json.syntax", "leading zeros are not JSON");
    lexeme("plus-sign", "+1", "invalid", "json.syntax", "a plus sign is not JSON");
    c.add({
      stem: `invalid-schema-type-${tag}-string`,
      expect: "invalid",
      rule: "schema.type",
      pointer,
      description: `${where} is the string "1"`,
      data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = "1")),
    });
  }
  // Arrays: the array with the fewest maxItems (then the smallest items) at maxItems and maxItems + 1.
  let best: { pattern: string; field: Field; maxItems: number; item: JsonValue; size: number } | undefined;
  for (const o of occ) {
    for (const f of fieldsOf(model, o.typeName)) {
      if (f.shape.kind !== "array") continue;
      const item = sampleValue(model, f.shape.items, f.name);
      const size = f.shape.maxItems * JSON.stringify(item).length;
      if (!best || size < best.size) best = { pattern: o.pattern, field: f, maxItems: f.shape.maxItems, item, size };
    }
  }
  if (best) {
    const { pattern, field, maxItems, item } = best;
    const pointer = `${concretePointer(pattern)}/${field.name}`;
    const tag = whereSlug(pointer);
    const where = describeWhere(c.rootType, pattern, field.name);
    c.add({
      stem: `valid-schema-max-items-${tag}-at-limit`,
      expect: "valid",
      description: `${where} lists exactly ${maxItems} entries (its maxItems)`,
      data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = Array.from({ length: maxItems }, () => item))),
    });
    c.add({
      stem: `invalid-schema-max-items-${tag}-plus-1`,
      expect: "invalid",
      rule: "schema.max-items",
      pointer,
      description: `${where} lists ${maxItems + 1} entries, one over its maxItems`,
      data: c.edit(
        pattern,
        [field.name],
        (obj) => (obj[field.name] = Array.from({ length: maxItems + 1 }, () => item)),
      ),
    });
    c.add({
      stem: `invalid-schema-type-${tag}-object`,
      expect: "invalid",
      rule: "schema.type",
      pointer,
      description: `${where} is an object, not an array`,
      data: c.edit(pattern, [field.name], (obj) => (obj[field.name] = {})),
    });
  }
}
