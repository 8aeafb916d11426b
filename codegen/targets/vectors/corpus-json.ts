/**
 * Conformance corpus, document family: byte-level JSON cases of a whole document (BOM, syntax,
 * trailing data, duplicate keys, depth, number range), also inside open maps (built by corpus.ts).
 */
import type { Model } from "../../model/model.js";
import { concretePointer, slug } from "../../model/samples.js";
import { whereSlug, concat, replaceOnce, type RootCorpus, fieldsOf } from "./corpus-base.js";

/** Document-level byte cases: BOM, syntax, trailing data, duplicate keys, depth. */
export function addDocumentCases(c: RootCorpus): void {
  const { model } = c;
  const text = JSON.stringify(c.base);
  const firstKey = Object.keys(c.base)[0] as string;
  const maxDepth = model.tables.limits.limits.find((l) => l.name === "max_depth")?.value as number;
  c.add({
    stem: "invalid-json-bom-minimal",
    expect: "invalid",
    rule: "json.bom",
    pointer: "",
    description: "the minimal valid document preceded by a UTF-8 byte-order mark",
    bytes: concat(new Uint8Array([0xef, 0xbb, 0xbf]), text),
  });
  c.add({
    stem: "valid-json-bom-leading-whitespace",
    expect: "valid",
    description: "the minimal document preceded by whitespace (space, tab, CR, LF) instead of a BOM",
    bytes: concat(" \t\r\n", text),
  });
  c.add({
    stem: "invalid-json-syntax-trailing-comma",
    expect: "invalid",
    rule: "json.syntax",
    description: "a comma after the last member",
    bytes: concat(text.slice(0, -1), ",}"),
  });
  c.add({
    stem: "invalid-json-syntax-empty",
    expect: "invalid",
    rule: "json.syntax",
    pointer: "",
    description: "an empty document",
    bytes: new Uint8Array(0),
  });
  c.add({
    stem: "invalid-json-syntax-comment",
    expect: "invalid",
    rule: "json.syntax",
    description: "a comment before the document",
    bytes: concat("/* c */", text),
  });
  const secondKey = Object.keys(c.base)[1] as string;
  c.add({
    stem: "invalid-json-syntax-single-quotes",
    expect: "invalid",
    rule: "json.syntax",
    description: `the member name ${secondKey} in single quotes`,
    bytes: replaceOnce(text, `,${JSON.stringify(secondKey)}:`, `,'${secondKey}':`),
  });
  c.add({
    stem: "invalid-json-syntax-truncated",
    expect: "invalid",
    rule: "json.syntax",
    description: "the document without its closing brace",
    bytes: concat(text.slice(0, -1)),
  });
  c.add({
    stem: "valid-json-syntax-pretty",
    expect: "valid",
    description: "the minimal document pretty-printed with tabs and CRLF line ends",
    bytes: concat(JSON.stringify(c.base, null, "\t").replace(/\n/g, "\r\n")),
  });
  c.add({
    stem: "invalid-json-trailing-data-second-document",
    expect: "invalid",
    rule: "json.trailing-data",
    description: "a second JSON document after the first",
    bytes: concat(text, "\n{}"),
  });
  c.add({
    stem: "invalid-json-trailing-data-log-line",
    expect: "invalid",
    rule: "json.trailing-data",
    description: "a log line after the document",
    bytes: concat(text, "\ndone\n"),
  });
  c.add({
    stem: "invalid-json-trailing-data-nul",
    expect: "invalid",
    rule: "json.trailing-data",
    description: "a NUL byte after the document",
    bytes: concat(text, new Uint8Array([0])),
  });
  c.add({
    stem: "valid-json-trailing-data-whitespace",
    expect: "valid",
    description: "only whitespace after the document",
    bytes: concat(text, "\n\t \r\n"),
  });
  c.add({
    stem: `invalid-json-duplicate-key-${slug(firstKey)}`,
    expect: "invalid",
    rule: "json.duplicate-key",
    pointer: `/${firstKey}`,
    description: `the member ${firstKey} twice, with the same value`,
    bytes: concat(`{${JSON.stringify(firstKey)}:${JSON.stringify(c.base[firstKey])},`, text.slice(1)),
  });
  // Open maps: duplicates, depth, big numbers (the reference keeps the last duplicate of a map key and allows deeper nesting).
  const mapPattern = openMaps(model, c.rootType)[0];
  if (mapPattern !== undefined) {
    const mapPointer = concretePointer(mapPattern);
    const mapTag = whereSlug(mapPointer);
    c.add({
      stem: `invalid-json-duplicate-key-${mapTag}`,
      expect: "invalid",
      rule: "json.duplicate-key",
      pointer: `${mapPointer}/k`,
      description: `the open map ${mapPointer} names the key k twice`,
      bytes: c.rawInMap(mapPattern, '"k":2', '"k":1,'),
    });
    c.add({
      stem: `invalid-json-duplicate-key-${mapTag}-escaped`,
      expect: "invalid",
      rule: "json.duplicate-key",
      pointer: `${mapPointer}/k`,
      description: `the open map ${mapPointer} names k twice, once as the escape \\u006b`,
      bytes: c.rawInMap(mapPattern, '"\\u006b":2', '"k":1,'),
    });
    c.add({
      stem: `valid-json-duplicate-key-${mapTag}-case-differs`,
      expect: "valid",
      description: `the open map ${mapPointer} has keys k and K (distinct)`,
      bytes: c.rawInMap(mapPattern, '"K":2', '"k":1,'),
    });
    const mapDepth = mapPointer.split("/").length; // the map object's own nesting level
    const nest = (levels: number): string => `"deep":${"[".repeat(levels)}${"]".repeat(levels)}`;
    const over = maxDepth + 1 - mapDepth;
    c.add({
      stem: `valid-json-max-depth-${mapTag}-at-limit`,
      expect: "valid",
      description: `arrays nested inside ${mapPointer} to exactly ${maxDepth} levels (limits.max_depth)`,
      bytes: c.rawInMap(mapPattern, nest(over - 1)),
    });
    c.add({
      stem: `invalid-json-max-depth-${mapTag}-plus-1`,
      expect: "invalid",
      rule: "json.max-depth",
      pointer: `${mapPointer}/deep${"/0".repeat(over - 1)}`,
      description: `arrays nested inside ${mapPointer} to ${maxDepth + 1} levels, one over limits.max_depth`,
      bytes: c.rawInMap(mapPattern, nest(over)),
    });
    c.add({
      stem: `invalid-json-number-range-${mapTag}`,
      expect: "invalid",
      rule: "json.number-range",
      pointer: `${mapPointer}/big`,
      description: `the open map ${mapPointer} holds 1e400 (beyond an IEEE-754 double)`,
      bytes: c.rawInMap(mapPattern, '"big":1e400'),
    });
    c.add({
      stem: `valid-json-number-range-${mapTag}-large-float`,
      expect: "valid",
      description: `the open map ${mapPointer} holds 1.5e308 and 1.0 (any JSON number fits an open map)`,
      bytes: c.rawInMap(mapPattern, '"big":1.5e308,"f":1.0,"z":-0'),
    });
  }
}

/** Open-map pointer patterns of a root, shallowest first. */
function openMaps(model: Model, rootType: string): string[] {
  const out: string[] = [];
  for (const o of model.occurrences.get(rootType) ?? []) {
    for (const f of fieldsOf(model, o.typeName)) if (f.shape.kind === "open_object") out.push(`${o.pattern}/${f.name}`);
  }
  return out.sort((a, b) => a.split("/").length - b.split("/").length);
}
