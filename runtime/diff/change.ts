/**
 * The change records of `lifeloop-callback diff` and the rule registry they refer to
 * (spec/tables/compat-rules.json, validated against spec/meta/compat-rules.schema.json).
 *
 * A comparator only says *which* rule fired *where* ({@link RawChange}); level, category and the
 * roles it breaks are facts of the rule and come from the table ({@link Change}).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { packageRoot } from "../process/package-root.js";

/** A role whose documents stop being accepted: `senders` (old documents rejected by new receivers) or `receivers` (new documents rejected by old receivers). */
export type Role = "receivers" | "senders";
/** error: breaking by the acceptance-set definition; warning: not decided, possibly breaking; info: not breaking. */
export type Level = "error" | "warning" | "info";
/** wire: acceptance sets; semantic: spec tables and the version gate; source: generated names; doc: descriptions. */
export type Category = "wire" | "semantic" | "source" | "doc";

/** One row of spec/tables/compat-rules.json. */
export interface CompatRule {
  readonly id: string;
  readonly level: Level;
  readonly category: Category;
  readonly breaks: readonly Role[];
  readonly summary: string;
  readonly example: string;
}

/**
 * What a comparator found: the rule id, where (`<tree-relative file>#<JSON pointer>`; for table rows
 * the row's key replaces its index, for per-member rules the member name is the last token) and a
 * human detail. `detail` is never used for matching (the allowlist matches `rule` and `location`).
 */
export interface RawChange {
  readonly rule: string;
  readonly location: string;
  readonly detail: string;
}

/** A reported change: a raw change plus its rule's facts, and why it does not gate, when it does not. */
export interface Change extends RawChange {
  readonly level: Level;
  readonly category: Category;
  readonly breaks: readonly Role[];
  /** `allowlist` (an entry with `reason` matched) or `version-bump` (the wire version went up). */
  readonly allowed?: { readonly by: "allowlist" | "version-bump"; readonly reason: string };
}

/** The registry: rules by id, in table order. */
export type RuleRegistry = ReadonlyMap<string, CompatRule>;

let cached: RuleRegistry | undefined;

/**
 * Load spec/tables/compat-rules.json of this package, validated against its meta-schema.
 * Throws an Error naming the file when the table is invalid (a packaging bug, not user input).
 */
export function loadRuleRegistry(root: string = packageRoot()): RuleRegistry {
  if (cached && root === packageRoot()) return cached;
  const table = JSON.parse(readFileSync(join(root, "spec/tables/compat-rules.json"), "utf8")) as { rules: CompatRule[] };
  const meta = JSON.parse(readFileSync(join(root, "spec/meta/compat-rules.schema.json"), "utf8")) as object;
  const validate = new Ajv2020({ strict: true }).compile(meta);
  if (!validate(table)) throw new Error(`spec/tables/compat-rules.json does not match its meta-schema: ${JSON.stringify(validate.errors?.[0])}`);
  const registry = new Map(table.rules.map((r) => [r.id, r]));
  if (root === packageRoot()) cached = registry;
  return registry;
}

/** Attach the rule facts to raw changes; dedupes identical (rule, location) pairs, keeping the first. Throws on an unknown rule id (a bug). */
export function toChanges(raw: readonly RawChange[], registry: RuleRegistry): Change[] {
  const seen = new Set<string>();
  const out: Change[] = [];
  for (const change of raw) {
    const key = `${change.rule}\u0000${change.location}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const rule = registry.get(change.rule);
    if (!rule) throw new Error(`diff: rule ${change.rule} is not in spec/tables/compat-rules.json`);
    out.push({ ...change, level: rule.level, category: rule.category, breaks: rule.breaks });
  }
  return out;
}
