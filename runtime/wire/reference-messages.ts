/**
 * Maps a fragment of the reference crate's error text (a conformance fixture's `expect_error`) to our
 * rule id, through the `reference_messages` columns of spec/tables/rules.json and
 * spec/tables/document-rules.json.
 */
import { DOCUMENT_RULES } from "../../generated/ts/spec/document-rules.js";
import { RULES } from "../../generated/ts/spec/plans.js";

/**
 * The rule id whose reference messages occur in `expectError`, or null when none or several match
 * (then only the verdict can be compared).
 */
export function ruleForReferenceMessage(expectError: string): string | null {
  const matches = new Set<string>();
  for (const rule of [...RULES, ...DOCUMENT_RULES]) {
    if (rule.reference_messages.some((fragment: string) => expectError.includes(fragment))) matches.add(rule.id);
  }
  return matches.size === 1 ? ([...matches][0] as string) : null;
}
