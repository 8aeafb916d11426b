/**
 * Target: `generated/docs/compat-rules.md`, the page of every change kind `lifeloop-callback diff`
 * reports (spec/tables/compat-rules.json) with its level, category, the roles it breaks and an
 * example, and of every table's declared evolution (spec/tables/table-evolution.json).
 *
 * The two tables are tooling facts, not protocol facts: the loader validates them like every table
 * but keeps them in Model.toolTables (codegen/model/tables.ts TOOLING_TABLES), out of the SDKs.
 */
import type { Model } from "../../model/model.js";
import { finalNewline, markdownBanner, type OutputFile } from "../../emit/output.js";
import { mdTable } from "../../emit/markdown.js";

interface CompatRuleRow {
  readonly id: string;
  readonly level: string;
  readonly category: string;
  readonly breaks: readonly string[];
  readonly summary: string;
  readonly example: string;
}

interface EvolutionRow {
  readonly table: string;
  readonly rows: readonly {
    at: string;
    key: string;
    growth: string;
    columns: Record<string, string>;
    other_columns: string;
  }[];
  readonly members: Record<string, string>;
}

/** A tooling table of the model (validated by the loader against its meta-schema). */
function toolTable(model: Model, stem: string): unknown {
  const table = model.toolTables.get(stem);
  if (!table) throw new Error(`compat-docs target: spec/tables/${stem}.json is not a tooling table of the model`);
  return table.doc;
}

/** Generate the compatibility rules page. */
export async function generateCompatDocs(model: Model): Promise<OutputFile[]> {
  const rules = (toolTable(model, "compat-rules") as { rules: CompatRuleRow[] }).rules;
  const evolution = (toolTable(model, "table-evolution") as { tables: EvolutionRow[] }).tables;
  const categories = ["wire", "source", "doc", "semantic"];
  const sections = categories.map((category) => {
    const rows = rules
      .filter((r) => r.category === category)
      .map((r) => [`\`${r.id}\``, r.level, r.breaks.length ? r.breaks.join(", ") : "—", r.summary, r.example]);
    return `## ${category}\n\n${mdTable(["rule", "level", "breaks", "meaning", "example (old → new)"], rows)}`;
  });
  const declared = evolution.map((t) => {
    const parts = t.rows.map((r) => {
      const columns = Object.entries(r.columns).map(([c, p]) => `\`${c}\` ${p}`);
      return `rows \`${r.at}\` keyed by \`${r.key}\` (${r.growth}); ${[...columns, `other columns ${r.other_columns}`].join(", ")}`;
    });
    const members = Object.entries(t.members).map(([m, p]) => `\`${m}\` ${p}`);
    return [
      `\`${t.table}\``,
      [...parts, ...(members.length ? [`members: ${members.join(", ")}`] : [])].join("; ") || "—",
    ];
  });
  const body = [
    "# Compatibility rules (`lifeloop-callback diff`)",
    "",
    "Rendered from `spec/tables/compat-rules.json` and `spec/tables/table-evolution.json`.",
    "",
    "A change **breaks senders** when a document valid under the old spec is rejected under the new one",
    "(new receivers reject what old senders send: not backward compatible), and **breaks receivers**",
    "when a document valid under the new spec is rejected under the old one (old receivers reject what",
    "new senders send: not forward compatible). Every object here is closed, so adding an optional",
    "field breaks receivers. Levels: `error` is breaking by that definition, `warning` is not decided",
    "(reported as possibly breaking both ways, never as compatible), `info` breaks nothing.",
    "",
    "Locations are `<file>#<JSON pointer>`; a table row is named by its key, a per-member rule ends",
    "with the member name. Allowlist entries (`spec/compat-allowlist.json`) match rule and location.",
    "",
    ...sections.flatMap((s) => [s, ""]),
    "## Declared table evolution",
    "",
    mdTable(["table", "declaration"], declared),
  ].join("\n");
  return [{ path: "generated/docs/compat-rules.md", content: finalNewline(markdownBanner() + body) }];
}
