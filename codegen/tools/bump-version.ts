/**
 * `npm run bump-version -- <new-version> --reason "<text>" [--root DIR] [--date YYYY-MM-DD]`
 *
 * Moves the wire version (spec/wire-version.json `current`) to `<new-version>`:
 * 1. spec/wire-version.json: `current` becomes the new version; the old one is appended to `retired`
 *    with `superseded_by` and its tombstone path (retired: no longer written by default), and goes to
 *    the front of `accepted` (still read, judged by its frozen snapshot spec/releases/<old>/;
 *    spec/wire-window.md); `accepted` keeps at most `window_size - 1` entries, the oldest beyond
 *    that are dropped (they stay retired). An accepted version must be backed by its snapshot, so
 *    the bump refuses when the old current would be accepted and spec/releases/<old>/ does not
 *    exist: take it first with `npm run snapshot-release`.
 * 2. spec/tombstones/<old>.md: a tombstone (superseded by, date, reason, and sections for the changes
 *    and the migration notes, to be filled in by hand before committing).
 * 3. Hand-written conformance fixtures (the shipped examples/conformance/): every
 *    `"schema_version": "<old>"` member (in `data`, or in the decoded bytes of `data_base64`) becomes
 *    the new version, except in fixtures whose `expect_rule` is schema-version-current and whose
 *    deliberately wrong version (at `expect_pointer`) is the old version itself: those are left alone
 *    and listed for review.
 * 4. Documents of the current version that ship or are shown to users: every `"schema_version": "<old>"`
 *    member of every JSON file under examples/ and of the JSON samples in spec/*.md, and the version
 *    named in package.json's `description`. README.md describes the toolkit as it is (history lives in
 *    spec/tombstones/), so every mention of the old version there becomes the new one.
 * 5. Regenerates generated/ (and the generated regions of spec/*.md) as `npm run generate` does, then
 *    the reference pages generated from code (generated/docs/reference/) as `npm run docs` does, in a
 *    process of their own (they import the freshly generated tables).
 *
 * Tests never carry the current version as a literal: they take it from generated/ts/spec.ts
 * `WIRE_VERSION` (or the Python/Go constants), so a bump needs no edit there. Afterwards the whole tree
 * is scanned for the old version: each file that still names it is printed either as kept on purpose
 * (with the reason, {@link KEPT_ON_PURPOSE}) or as prose to review by hand.
 *
 * Exit codes: 0 done, 2 usage, 3 invalid sources or a refused version (malformed, already current or
 * retired, tombstone already present, no release snapshot of the old current).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SDK_GENERATED } from "../emit/check.js";
import { runGenerate } from "../main.js";

/** The wire version pattern of spec/meta/wire-version.schema.json. */
const VERSION_PATTERN = /^lifeloop\.v[0-9]+(\.[0-9]+)*$/;
/** Shipped example inputs (README's examples; in the npm package). */
const EXAMPLES_DIR = "examples";
/** Shipped conformance fixtures (the reference's fixture format); the corpus (generated/conformance/) is regenerated instead. */
const EXAMPLES_CONFORMANCE_DIR = "examples/conformance";
/** The rule whose fixtures carry a deliberately wrong version. */
const VERSION_RULE = "schema-version-current";

/** Options of one bump. */
export interface BumpOptions {
  readonly root: string;
  readonly version: string;
  readonly reason: string;
  /** ISO date written into the tombstone (default: today, UTC). */
  readonly date: string;
}

/** What a bump did. */
export interface BumpResult {
  readonly previous: string;
  readonly touched: readonly string[];
  readonly leftAlone: readonly string[];
}

/** A file that still names the old version after a bump, and whether that is on purpose. */
export interface Mention {
  readonly path: string;
  /** Why the file keeps the old version (one of {@link KEPT_ON_PURPOSE}); undefined: review by hand. */
  readonly kept?: string;
}

/** Thrown for a bump that must not happen (exit 3). */
export class BumpError extends Error {
  override readonly name = "BumpError";
}

/** The members of spec/wire-version.json a bump reads or writes (spec/meta/wire-version.schema.json); the others are kept as they are. */
interface WireVersionFile {
  $schema?: string;
  current: string;
  accepted: string[];
  window_size: number;
  reference: { crate: string; version: string };
  retired: { version: string; superseded_by: string; tombstone: string }[];
}

/** The tombstone page of a retired version (our own template). */
export function tombstone(previous: string, next: string, date: string, reason: string): string {
  return [
    `# Wire version \`${previous}\` (retired)`,
    "",
    "| | |",
    "|---|---|",
    `| Superseded by | \`${next}\` |`,
    `| Retired on | ${date} |`,
    `| Reason | ${reason.replace(/\|/g, "\\|").replace(/\n/g, " ")} |`,
    "",
    `Readers still accept \`schema_version: "${previous}"\` while it is in the wire-version window`,
    `(\`accepted\` in spec/wire-version.json, judged by the frozen snapshot spec/releases/${previous}/;`,
    "spec/wire-window.md); once a later bump drops it from the window, a peer that still writes it is",
    "rejected with rule `schema-version-current`.",
    "",
    "## What changed",
    "",
    "_To be written: the fields, rules and tables that differ between the two versions._",
    "",
    "## Migration notes",
    "",
    `_To be written: what a client or host that speaks \`${previous}\` changes to speak \`${next}\`._`,
    "",
  ].join("\n");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Replace every `"schema_version": "<from>"` member (any JSON whitespace around the colon). */
export function rewriteVersionMembers(text: string, from: string, to: string): string {
  const pattern = new RegExp(`("schema_version"[ \\t\\r\\n]*:[ \\t\\r\\n]*)"${escapeRegExp(from)}"`, "g");
  return text.replace(pattern, (_m, head: string) => `${head}${JSON.stringify(to)}`);
}

function valueAt(doc: unknown, pointer: string): unknown {
  let node = doc;
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** Every file under `dir` whose name ends with one of `suffixes` (default: JSON), sorted, recursively. */
function listJson(dir: string, suffixes: readonly string[] = [".json"]): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listJson(path, suffixes));
    else if (suffixes.some((s) => name.endsWith(s))) out.push(path);
  }
  return out;
}

/**
 * Spec pages whose prose shows a command's output at the current version (the diff gate's worked
 * example): every mention follows the version, as in the README.
 */
const SPEC_PAGES_IN_FULL: readonly string[] = ["spec/compat-gate.md"];

/** Rewrite one fixture file's text; returns null when it is left alone (the deliberately wrong version is the old one). */
function rewriteFixture(text: string, from: string, to: string): string | null {
  const fixture = JSON.parse(text) as Record<string, unknown>;
  const base64 = typeof fixture.data_base64 === "string" ? fixture.data_base64 : undefined;
  const document = base64 !== undefined ? Buffer.from(base64, "base64").toString("latin1") : undefined;
  if (fixture.expect_rule === VERSION_RULE) {
    if (typeof fixture.expect_pointer !== "string") return null;
    let wrong: unknown;
    try {
      wrong = valueAt(
        document !== undefined ? JSON.parse(Buffer.from(document, "latin1").toString("utf8")) : fixture.data,
        fixture.expect_pointer,
      );
    } catch {
      return null;
    }
    if (wrong === from) return null;
  }
  if (document === undefined) return rewriteVersionMembers(text, from, to);
  const rewritten = Buffer.from(rewriteVersionMembers(document, from, to), "latin1").toString("base64");
  return text.replace(`"data_base64": ${JSON.stringify(base64)}`, `"data_base64": ${JSON.stringify(rewritten)}`);
}

/**
 * Files that name wire versions on purpose and are never rewritten by a bump: a pattern over the
 * repository-relative path, and why. A file matched here that names the old version after a bump is
 * printed as kept; any other is printed for review by hand.
 */
export const KEPT_ON_PURPOSE: readonly { readonly pattern: RegExp; readonly why: string }[] = [
  { pattern: /^spec\/releases\//, why: "frozen release snapshots (codegen/tools/snapshot-release.ts), never edited" },
  { pattern: /^spec\/tombstones\//, why: "the history of retired versions" },
  { pattern: /^spec\/wire-version\.json$/, why: "its retired list names every old version" },
  { pattern: /^test\/diff\/fixtures\//, why: "diff-gate fixtures: old/new trees pinned at fixed versions" },
  { pattern: /^spec\/tables\/compat-rules\.json$/, why: "its examples of version moves name fixed versions" },
  {
    pattern: /^spec\/tables\/conformance-checks\.json$|^spec\/conformance-runner\.md$/,
    why: "`since` is the version a check was introduced at",
  },
  {
    pattern:
      /^codegen\/targets\/vectors\/corpus-base\.ts$|^generated\/(conformance|vectors)\/.*-schema-version-(trailing-space|upper-case)\.json$/,
    why: "corpus-base.ts WRONG_VERSIONS: near-misses of a fixed version, invalid whatever the current one is",
  },
  {
    pattern: /^sdk\/go\/window_test\.go$/,
    why: "written for one pair of window versions (what differs between them); skips itself once the window moves on",
  },
  { pattern: /^generated\//, why: "regenerated from the spec tables above (their `since` and example columns)" },
  ...SDK_GENERATED.map((pattern) => ({
    pattern,
    why: "generated files of the SDKs (sdk/), regenerated from the spec tables above like generated/",
  })),
];

/** Folders never scanned for mentions: VCS data, installed packages, build output, caches. */
const NOT_SCANNED = new Set([
  ".git",
  "node_modules",
  "dist",
  ".cache",
  "target",
  "__pycache__",
  ".venv",
  "build",
  ".mypy_cache",
  ".ruff_cache",
  ".pytest_cache",
]);
/** Text files scanned for mentions (sources, tables, prose, shell). */
const SCANNED_FILE = /\.(md|json|jsonl|ts|mts|mjs|js|go|py|hbs|rs|sh|toml|yml|yaml|txt)$/;

/**
 * Every file of the tree (outside {@link NOT_SCANNED}) that still names `previous`, sorted, each
 * marked kept (with the reason) when a {@link KEPT_ON_PURPOSE} pattern matches its path.
 */
export function versionMentions(root: string, previous: string): Mention[] {
  const out: Mention[] = [];
  const scan = (dir: string): void => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      if (NOT_SCANNED.has(name)) continue;
      const rel = dir === "" ? name : `${dir}/${name}`;
      const stats = statSync(join(root, rel));
      if (stats.isDirectory()) scan(rel);
      else if (stats.isFile() && SCANNED_FILE.test(name) && readFileSync(join(root, rel), "utf8").includes(previous)) {
        const kept = KEPT_ON_PURPOSE.find((k) => k.pattern.test(rel));
        out.push(kept ? { path: rel, kept: kept.why } : { path: rel });
      }
    }
  };
  scan("");
  return out;
}

/** The spec's prose pages (spec/*.md, not the frozen or historical folders below it): their JSON samples are documents of the current version. */
function specPages(root: string): string[] {
  const specDir = join(root, "spec");
  return existsSync(specDir)
    ? readdirSync(specDir)
        .sort()
        .filter((name) => name.endsWith(".md"))
        .map((name) => `spec/${name}`)
    : [];
}

/** Replace every mention of the version `from` (not a longer version that starts with it, such as `<from>.1`). */
export function rewriteVersionMentions(text: string, from: string, to: string): string {
  return text.replace(new RegExp(`${escapeRegExp(from)}(?!\\.?[0-9])`, "g"), to);
}

/** Rewrite the version named in package.json's `description` (the npm page says which wire it speaks). */
function rewritePackageDescription(text: string, from: string, to: string): string {
  const pkg = JSON.parse(text) as { description?: unknown };
  if (typeof pkg.description !== "string" || !pkg.description.includes(from)) return text;
  const description = pkg.description.split(from).join(to);
  return text.replace(JSON.stringify(pkg.description), JSON.stringify(description));
}

/**
 * The `accepted` list after a bump from `previous`: `previous` first, then the versions accepted
 * before, cut to `windowSize - 1` entries (the window holds current too).
 */
export function acceptedAfterBump(previous: string, accepted: readonly string[], windowSize: number): string[] {
  return [previous, ...accepted.filter((v) => v !== previous)].slice(0, Math.max(0, windowSize - 1));
}

/**
 * Perform the bump (without regenerating). Throws {@link BumpError} before writing anything when the
 * version is refused (malformed, current, retired, tombstone present, no snapshot of the old current
 * while the window would accept it).
 */
export function bumpSources(options: BumpOptions): BumpResult {
  const { root, version, reason, date } = options;
  if (!VERSION_PATTERN.test(version))
    throw new BumpError(`${version} is not a wire version (lifeloop.v<major>[.<minor>...])`);
  if (reason.trim().length === 0) throw new BumpError("--reason must say why the version changes");
  const file = join(root, "spec", "wire-version.json");
  const wire = JSON.parse(readFileSync(file, "utf8")) as WireVersionFile;
  const previous = wire.current;
  if (version === previous) throw new BumpError(`${version} is already the current wire version`);
  if (wire.retired.some((r) => r.version === version))
    throw new BumpError(`${version} was retired; a retired version never comes back`);
  const tombstonePath = `spec/tombstones/${previous}.md`;
  if (existsSync(join(root, tombstonePath))) throw new BumpError(`${tombstonePath} already exists`);
  const accepted = acceptedAfterBump(previous, wire.accepted, wire.window_size);
  // The snapshot's own wire-version.json is what the model loader looks for (codegen/model/load.ts loadWindow).
  if (accepted.includes(previous) && !existsSync(join(root, "spec", "releases", previous, "spec", "wire-version.json")))
    throw new BumpError(
      `${previous} stays readable in the wire-version window but has no release snapshot at spec/releases/${previous}/: run \`npm run snapshot-release\` first (an accepted version is judged by its snapshot)`,
    );
  const touched: string[] = [];
  const leftAlone: string[] = [];
  const next: WireVersionFile = {
    ...wire,
    current: version,
    accepted,
    retired: [...wire.retired, { version: previous, superseded_by: version, tombstone: tombstonePath }],
  };
  writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
  touched.push("spec/wire-version.json");
  writeFileSync(join(root, tombstonePath), tombstone(previous, version, date, reason));
  touched.push(tombstonePath);
  for (const path of listJson(join(root, EXAMPLES_CONFORMANCE_DIR))) {
    const rel = relative(root, path).split(sep).join("/");
    const text = readFileSync(path, "utf8");
    const rewritten = rewriteFixture(text, previous, version);
    if (rewritten === null) {
      if (text.includes(previous)) leftAlone.push(rel);
      continue;
    }
    if (rewritten !== text) {
      writeFileSync(path, rewritten);
      touched.push(rel);
    }
  }
  const rewrite = (rel: string, edit: (text: string) => string): void => {
    const path = join(root, rel);
    if (!existsSync(path)) return;
    const text = readFileSync(path, "utf8");
    const rewritten = edit(text);
    if (rewritten === text) return;
    writeFileSync(path, rewritten);
    touched.push(rel);
  };
  // JSON and JSON Lines (examples/session.jsonl: one envelope per line).
  for (const path of listJson(join(root, EXAMPLES_DIR), [".json", ".jsonl"])) {
    const rel = relative(root, path).split(sep).join("/");
    if (!rel.startsWith(`${EXAMPLES_CONFORMANCE_DIR}/`))
      rewrite(rel, (text) => rewriteVersionMembers(text, previous, version));
  }
  for (const rel of specPages(root))
    rewrite(rel, (text) =>
      SPEC_PAGES_IN_FULL.includes(rel)
        ? rewriteVersionMentions(text, previous, version)
        : rewriteVersionMembers(text, previous, version),
    );
  rewrite("README.md", (text) => rewriteVersionMentions(text, previous, version));
  rewrite("package.json", (text) => rewritePackageDescription(text, previous, version));
  return { previous, touched, leftAlone };
}

/** Parse argv (after the script name). Returns an error message on a usage error. */
export function parseBumpArgs(argv: readonly string[], defaultRoot: string): BumpOptions | string {
  let version: string | undefined;
  let reason: string | undefined;
  let root = defaultRoot;
  let date = new Date().toISOString().slice(0, 10);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = argv[i + 1];
    if (arg === "--reason" || arg === "--root" || arg === "--date") {
      if (value === undefined) return `${arg} needs a value`;
      i++;
      if (arg === "--reason") reason = value;
      else if (arg === "--root") root = resolve(value);
      else if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return "--date takes YYYY-MM-DD";
      else date = value;
    } else if (arg.startsWith("-")) return `unknown flag ${arg}`;
    else if (version === undefined) version = arg;
    else return `unexpected argument ${arg}`;
  }
  if (version === undefined) return "the new version is required";
  if (reason === undefined) return "--reason is required";
  return { root, version, reason, date };
}

/** `npm run docs` of the tree at `root` (its own script, in a new process: it imports the generated tables); returns its exit code. */
function referenceDocs(root: string, io: { out: (t: string) => void; err: (t: string) => void }): number {
  const run = spawnSync(process.execPath, ["--import", "tsx", join(root, "codegen", "tools", "reference-docs.ts")], {
    cwd: root,
    encoding: "utf8",
    timeout: 600_000,
  });
  io.out(run.stdout ?? "");
  if (run.status !== 0)
    io.err(
      `bump-version: npm run docs failed (exit ${run.status ?? run.signal}): ${run.stderr ?? ""}${run.error ? String(run.error) : ""}\n`,
    );
  return run.status === 0 ? 0 : 1;
}

/** Bump and regenerate; returns the exit code. */
export async function runBump(
  options: BumpOptions,
  io: { out: (t: string) => void; err: (t: string) => void },
): Promise<number> {
  let result: BumpResult;
  try {
    result = bumpSources(options);
  } catch (error) {
    if (error instanceof BumpError) {
      io.err(`bump-version: ${error.message}\n`);
      return 3;
    }
    throw error;
  }
  io.out(`bump-version: ${result.previous} -> ${options.version}\n`);
  for (const path of result.touched) io.out(`  wrote ${path}\n`);
  for (const path of result.leftAlone)
    io.out(`  left alone (its deliberately wrong version is ${result.previous}; review it): ${path}\n`);
  let code = await runGenerate({ root: options.root, check: false }, io);
  if (code === 0) code = referenceDocs(options.root, io);
  // Scanned after regeneration, so generated/ shows only what its sources still say.
  const mentions = versionMentions(options.root, result.previous);
  const kept = mentions.filter((m) => m.kept !== undefined);
  const review = mentions.filter((m) => m.kept === undefined).map((m) => m.path);
  for (const reason of [...new Set(kept.map((m) => m.kept))]) {
    io.out(
      `  kept on purpose (${reason}): ${kept
        .filter((m) => m.kept === reason)
        .map((m) => m.path)
        .join(", ")}\n`,
    );
  }
  if (review.length > 0) io.out(`still mentions ${result.previous} (review by hand): ${review.join(", ")}\n`);
  io.out(`Fill in the migration notes of spec/tombstones/${result.previous}.md before committing.\n`);
  return code;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
  const parsed = parseBumpArgs(process.argv.slice(2), repoRoot);
  if (typeof parsed === "string") {
    process.stderr.write(
      `bump-version: ${parsed}\nusage: npm run bump-version -- <new-version> --reason "<text>" [--root DIR] [--date YYYY-MM-DD]\n`,
    );
    process.exitCode = 2;
  } else {
    process.exitCode = await runBump(parsed, {
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
    });
  }
}
