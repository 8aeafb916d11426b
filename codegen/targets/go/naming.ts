/** Go naming and literals: identifiers from wire names, string literals, comment wrapping. */
import type { Model } from "../../model/model.js";
import { wrapWords } from "../../emit/text.js";

/** Go initialisms used when turning wire names into identifiers. */
export const INITIALISMS: Readonly<Record<string, string>> = {
  id: "ID",
  ids: "IDs",
  ttl: "TTL",
  json: "JSON",
  utf8: "UTF8",
  url: "URL",
  uri: "URI",
  http: "HTTP",
  cli: "CLI",
  bom: "BOM",
  lf: "LF",
  cr: "CR",
  jsonrpc: "JSONRPC",
};

/** `event_id` → `EventID`, `session.starting` → `SessionStarting`, `max-bytes` → `MaxBytes`. */
export function goName(wire: string): string {
  return wire
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => INITIALISMS[part.toLowerCase()] ?? part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

export const GO_KEYWORDS = new Set(
  "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var".split(
    " ",
  ),
);

/** lowerCamel Go name for parameters: `--thread` → `thread`, `--client-id` → `clientID` (`--type` → `typeValue`). */
export function paramName(wire: string): string {
  const pascal = goName(wire);
  const lead = /^[A-Z]+(?![a-z])/.exec(pascal)?.[0] ?? pascal.charAt(0);
  const name = lead.toLowerCase() + pascal.slice(lead.length);
  return GO_KEYWORDS.has(name) || ["ctx", "blob", "opts", "args", "result", "out", "err", "r", "c"].includes(name)
    ? `${name}Value`
    : name;
}

/** A Go interpreted string literal (JSON string syntax is valid Go for every string in our sources). */
export function goString(value: string): string {
  return JSON.stringify(value);
}

export function singular(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/ses$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word) && !/ss$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Split prose into comment lines of at most `width` characters (words are never broken). */
export function wrap(text: string, width = 96): string[] {
  return wrapWords(text, width, false);
}

export function enumStringsVar(enumName: string): string {
  return `enumStrings${enumName}`;
}

export function enumConst(model: Model, enumName: string, value: string): string {
  const e = model.enums.find((x) => x.name === enumName);
  if (!e?.values.includes(value)) throw new Error(`go target: ${JSON.stringify(value)} is not a ${enumName} value`);
  return `${enumName}${goName(value)}`;
}

/** Go constant of a failure variant of spec/tables/subprocess-failure-mapping.json, e.g. `FailureVariantHandlerThrew`. */
export function failureVariantConst(variant: string): string {
  return `FailureVariant${goName(variant)}`;
}
