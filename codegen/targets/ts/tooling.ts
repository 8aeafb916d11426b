/**
 * Target: `generated/ts/tooling.ts`, the tooling facts of spec/tables/compat-rules.json as
 * TypeScript for `lifeloop-callback diff` (runtime/diff/): the {@link CompatRuleId} union (a
 * misspelt rule id fails tsc), the rule rows as a constant (no run-time read or validation of the
 * table; the loader validated it against spec/meta/compat-rules.schema.json), and the rules that
 * break only senders or only receivers (derived from the `breaks` column; the schema comparator
 * flips them under `not`).
 *
 * A function of the model only: the table is a tooling table (Model.toolTables), kept out of the SDKs.
 */
import type { Model } from "../../model/model.js";
import { finalNewline, slashBanner, type OutputFile } from "../../emit/output.js";

/** One row of the table, as the meta-schema requires it. */
interface CompatRuleRow {
  readonly id: string;
  readonly level: string;
  readonly category: string;
  readonly breaks: readonly string[];
  readonly summary: string;
  readonly example: string;
}

/** Generate generated/ts/tooling.ts. */
export async function generateTsTooling(model: Model): Promise<OutputFile[]> {
  const table = model.toolTables.get("compat-rules");
  if (!table) throw new Error("ts-tooling target: spec/tables/compat-rules.json is not a tooling table of the model");
  const rules = (table.doc as { rules: CompatRuleRow[] }).rules;
  const only = (role: string): string[] =>
    rules.filter((r) => r.breaks.length === 1 && r.breaks[0] === role).map((r) => r.id);
  const idList = (ids: readonly string[]): string => ids.map((id) => `  ${JSON.stringify(id)},`).join("\n");
  const rows = rules.map(
    (r) =>
      `  ${JSON.stringify({ id: r.id, level: r.level, category: r.category, breaks: r.breaks, summary: r.summary, example: r.example })},`,
  );
  const lines = [
    `${slashBanner()}// Tooling facts of spec/tables/compat-rules.json for \`lifeloop-callback diff\` (codegen/targets/ts/tooling.ts).`,
    "",
    "/** A role whose documents stop being accepted: `senders` (old documents rejected by new receivers) or `receivers` (new documents rejected by old receivers). */",
    'export type Role = "receivers" | "senders";',
    "/** error: breaking by the acceptance-set definition; warning: not decided, possibly breaking; info: not breaking. */",
    'export type Level = "error" | "warning" | "info";',
    "/** wire: acceptance sets; semantic: spec tables and the version gate; source: generated names; doc: descriptions. */",
    'export type Category = "wire" | "semantic" | "source" | "doc";',
    "",
    "/** Every rule id of spec/tables/compat-rules.json. */",
    `export type CompatRuleId =\n${rules.map((r) => `  | ${JSON.stringify(r.id)}`).join("\n")};`,
    "",
    "/** One row of spec/tables/compat-rules.json. */",
    "export interface CompatRule {",
    "  readonly id: CompatRuleId;",
    "  readonly level: Level;",
    "  readonly category: Category;",
    "  readonly breaks: readonly Role[];",
    "  readonly summary: string;",
    "  readonly example: string;",
    "}",
    "",
    "/** The rows of spec/tables/compat-rules.json, in table order. */",
    `export const COMPAT_RULES: readonly CompatRule[] = [\n${rows.join("\n")}\n];`,
    "",
    '/** Rules whose `breaks` is exactly ["senders"]. */',
    `export const SENDER_ONLY_RULES: ReadonlySet<CompatRuleId> = new Set<CompatRuleId>([\n${idList(only("senders"))}\n]);`,
    "",
    '/** Rules whose `breaks` is exactly ["receivers"]. */',
    `export const RECEIVER_ONLY_RULES: ReadonlySet<CompatRuleId> = new Set<CompatRuleId>([\n${idList(only("receivers"))}\n]);`,
  ];
  return [{ path: "generated/ts/tooling.ts", content: finalNewline(lines.join("\n")) }];
}
