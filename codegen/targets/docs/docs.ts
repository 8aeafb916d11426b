/**
 * Target: reference docs under `generated/docs/` (one page per wire type, the enums, every table,
 * the rules and the limits), and the generated table regions of the normative prose in `spec/*.md`.
 *
 * A region in `spec/*.md` looks like:
 *   <!-- generated:begin NAME -->
 *   ...replaced by the table renderer NAME...
 *   <!-- generated:end NAME -->
 * Prose outside regions is written by hand and left untouched. An unknown NAME is an error.
 */
import { type Inputs, readAll } from "../../model/inputs.js";
import type { Model } from "../../model/model.js";
import { finalNewline, markdownBanner, type OutputFile } from "../../emit/output.js";
import { mdTable, tableRenderers, typePage } from "../../emit/markdown.js";

/** Tables rendered on rules.md rather than tables.md. */
const RULE_PAGE_TABLES = new Set(["rules", "document-rules"]);

const REGION = /<!-- generated:begin ([a-z0-9-]+) -->\n[\s\S]*?<!-- generated:end \1 -->/g;

/** Fill the generated regions of one prose file; throws on unknown or unbalanced regions. */
export function fillRegions(file: string, text: string, renderers: ReadonlyMap<string, () => string>): string {
  const begins = [...text.matchAll(/<!-- generated:begin ([a-z0-9-]+) -->/g)].map((m) => m[1]);
  const ends = [...text.matchAll(/<!-- generated:end ([a-z0-9-]+) -->/g)].map((m) => m[1]);
  if (begins.join() !== ends.join())
    throw new Error(`${file}: unbalanced generated regions (${begins.join()} vs ${ends.join()})`);
  return text.replace(REGION, (_match, name: string) => {
    const render = renderers.get(name);
    if (!render)
      throw new Error(`${file}: unknown generated region "${name}" (known: ${[...renderers.keys()].join(", ")})`);
    return `<!-- generated:begin ${name} -->\n${render()}\n<!-- generated:end ${name} -->`;
  });
}

/** Generate the docs and the prose regions of spec/*.md (read through `inputs`: the pages are this target's own input). */
export async function generateDocs(model: Model, inputs: Inputs): Promise<OutputFile[]> {
  const renderers = tableRenderers(model);
  const render = (name: string): string => (renderers.get(name) as () => string)();
  const out: OutputFile[] = [];
  const page = (path: string, body: string): void => {
    out.push({ path: `generated/docs/${path}`, content: finalNewline(markdownBanner() + body) });
  };

  for (const type of model.types) page(`types/${type.name}.md`, typePage(model, type));

  const defaults = new Map(model.tables.failureRetryDefaults.defaults.map((r) => [r.failure_class, r.retry_class]));
  const enumSections = model.enums.map((e) => {
    const rows = e.values.map((v) =>
      e.name === "FailureClass" ? [`\`${v}\``, `\`${defaults.get(v)}\``] : [`\`${v}\``],
    );
    const headers = e.name === "FailureClass" ? ["value", "default retry class"] : ["value"];
    const extra = e.name === "LifecycleEventKind" ? `\n\n${render("event-vocabulary")}` : "";
    return `## ${e.name}\n\n${e.description}\n\nSchema: [\`schemas/${e.file}\`](../../schemas/${e.file})\n\n${mdTable(headers, rows)}${extra}`;
  });
  page("enums.md", `# Enumerations (${model.wireVersion.current})\n\n${enumSections.join("\n\n")}`);

  const tableNames: [string, string][] = [
    ["wire-version", "Wire version"],
    ["transport-modes", "Transport modes"],
    ["subprocess-wire-framing", "Subprocess wire framing"],
    ["subprocess-failure-mapping", "Subprocess failure mapping"],
    ["failure-retry-defaults", "Failure class → default retry class"],
    ["event-vocabulary", "Event vocabulary"],
    ["receipt-emitted-guard", "receipt.emitted guard"],
    ["client-initiated-commands", "Client-initiated commands"],
    ["limits", "Limits"],
    ["cli-exit-codes", "CLI exit codes"],
    ["reference-differences", "Deliberate differences from the reference"],
    ["harness-hook-mapping", "Harness hook mapping"],
    ["harness-hook-events", "Harness hook events"],
    ["hook-command-events", "Hook command events"],
    ["stream-framing-rules", "Stream v2 framing rules"],
    ["stream-frames", "Stream v2 frames"],
    ["stream-methods", "Stream v2 methods"],
    ["stream-error-codes", "Stream v2 error codes"],
    ["stream-shutdown", "Stream v2 shutdown"],
  ];
  // Every other table (rules.md shows the rule tables), titled by its stem.
  for (const table of model.specTables) {
    if (!tableNames.some(([name]) => name === table.stem) && !RULE_PAGE_TABLES.has(table.stem)) {
      tableNames.push([table.stem, table.stem.charAt(0).toUpperCase() + table.stem.slice(1).replace(/-/g, " ")]);
    }
  }
  page(
    "tables.md",
    `# Spec tables\n\nRendered from \`spec/tables/*.json\`.\n\n${tableNames.map(([name, title]) => `## ${title}\n\n${render(name)}`).join("\n\n")}`,
  );
  page(
    "rules.md",
    `# Validation rules\n\nA document is judged in three layers, and the first issue is the primary one: the parse layer (\`json.*\`), the schema layer (\`schema.*\`), then the cross-field rules in table order.\n\n## Parse and schema layers\n\n${render("document-rules")}\n\n## Cross-field rules\n\n${render("rules")}`,
  );
  page(
    "limits.md",
    `# Limits\n\n## Documents and processes\n\n${render("limits")}\n\n## Field bounds\n\n${render("field-bounds")}`,
  );
  page(
    "README.md",
    [
      `# Reference docs (${model.wireVersion.current})`,
      "",
      "## Wire types",
      "",
      ...model.types.map(
        (t) => `- [${t.name}](types/${t.name}.md)${t.schema["x-wire-document"] === true ? " (wire document)" : ""}`,
      ),
      "",
      "## More",
      "",
      "- [Enumerations](enums.md)",
      "- [Spec tables](tables.md)",
      "- [Validation rules](rules.md)",
      "- [Limits](limits.md)",
      "- [Compatibility rules](compat-rules.md) (`lifeloop-callback diff`)",
      "- [CLI reference](reference/cli.md): every command, flag and exit code",
      "- [Host API](reference/host-api.md): every export of the npm package",
      "- [Conformance scenarios](reference/conformance-scenarios.md): what `conform` checks a client for",
      "- [Wire-version window](wire-window.md): what each accepted older version admits that current refuses, and the reverse",
    ].join("\n"),
  );

  for (const page of readAll(inputs, "spec", ".md"))
    out.push({ path: page.path, content: fillRegions(page.path, page.text, renderers) });
  return out;
}
