/**
 * The change records of `lifeloop-callback diff` and the rule registry they refer to
 * (spec/tables/compat-rules.json, generated into generated/ts/tooling.ts: rule ids are a union type,
 * so a misspelt id fails tsc).
 *
 * A comparator only says *which* rule fired *where* ({@link RawChange}); level, category and the
 * roles it breaks are facts of the rule and come from the table ({@link Change}).
 */
import {
  COMPAT_RULES,
  type Category,
  type CompatRule,
  type CompatRuleId,
  type Level,
  type Role,
} from "../../generated/ts/tooling.js";

export type { Category, CompatRule, CompatRuleId, Level, Role };

/**
 * What a comparator found: the rule id, where (`<tree-relative file>#<JSON pointer>`; for table rows
 * the row's key replaces its index, for per-member rules the member name is the last token) and a
 * human detail. `detail` is never used for matching (the allowlist matches `rule` and `location`).
 */
export interface RawChange {
  readonly rule: CompatRuleId;
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

/** The registry of spec/tables/compat-rules.json (generated/ts/tooling.ts COMPAT_RULES). */
const REGISTRY: RuleRegistry = new Map(COMPAT_RULES.map((r) => [r.id, r]));

/** The rule registry: every row of spec/tables/compat-rules.json by id, in table order (the generated constant; never read at run time). */
export function loadRuleRegistry(): RuleRegistry {
  return REGISTRY;
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
