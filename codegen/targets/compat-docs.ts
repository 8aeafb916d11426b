/**
 * Target: `generated/docs/compat-rules.md`, the page of every change kind `lifeloop-callback diff`
 * reports (spec/tables/compat-rules.json) with its level, category, the roles it breaks and an
 * example, and of every table's declared evolution (spec/tables/table-evolution.json).
 *
 * The two tables are tooling facts, not protocol facts, so they are not part of the model the SDK
 * targets dump; this target reads and validates them itself (like docs.ts reads spec/*.md) and
 * throws ModelError (generate exits 3) when one does not match its meta-schema.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ModelError } from "../model/load.js";
import type { Model } from "../model/model.js";
import { finalNewline, markdownBanner, type OutputFile } from "../emit/output.js";
import { mdTable } from "../emit/markdown.js";

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
  readonly rows: readonly { at: string; key: string; growth: string; columns: Record<string, string>; other_columns: string }[];
  readonly members: Record<string, string>;
}

/** Read spec/tables/<stem>.json, validated against spec/meta/<stem>.schema.json. */
export function readToolTable(root: string, stem: string): unknown {
  const file = `spec/tables/${stem}.json`;
  const read = (rel: string): unknown => {
    try {
      return JSON.parse(readFileSync(join(root, rel), "utf8")) as unknown;
    } catch (error) {
      throw new ModelError(rel, "", `not readable JSON: ${(error as Error).message}`);
    }
  };
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(read(`spec/meta/${stem}.schema.json`) as object);
  const doc = read(file);
  if (!validate(doc)) {
    const first = validate.errors?.[0];
    throw new ModelError(file, first?.instancePath ?? "", `does not match spec/meta/${stem}.schema.json: ${first?.message ?? "invalid"}`);
  }
  return doc;
}

/** Generate the compatibility rules page. */
export async function generateCompatDocs(model: Model): Promise<OutputFile[]> {
  const rules = (readToolTable(model.root, "compat-rules") as { rules: CompatRuleRow[] }).rules;
  const evolution = (readToolTable(model.root, "table-evolution") as { tables: EvolutionRow[] }).tables;
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
    return [`\`${t.table}\``, [...parts, ...(members.length ? [`members: ${members.join(", ")}`] : [])].join("; ") || "—"];
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
