/**
 * Schema documents of one side of a `lifeloop-callback diff`: every `schemas/**.json` of a project
 * tree ({@link schemaDocs}, tree mode), or one file plus the files its `$ref`s reach
 * ({@link loadSchemaFile}, `--schema` mode). Both build each document with {@link schemaDocument}:
 * base URI `$id`, else `file:///<path in the tree>`, so a relative `$ref` to a sibling resolves the
 * same way in both modes.
 *
 * Limits (`--schema`): each file at most {@link MAX_SCHEMA_BYTES} bytes, at most
 * {@link MAX_TREE_BYTES} bytes and {@link MAX_SCHEMA_FILES} files per side, read only from the
 * directory of the named file (and folders below it).
 * Errors: throws {@link TreeError} (exit 3) for a file that is not JSON, an unsupported `$schema`
 * or a side over its limits; a `$ref` whose file does not exist is left unresolved (the comparator
 * reports schema-ref-unresolved naming the URI and the path tried).
 */
import { basename, dirname, join, posix } from "node:path";
import { describeIoError } from "../process/io-error.js";
import { isObject, token } from "./json.js";
import { SchemaSide, stripFragment, type Dialect, type SchemaDocument, type SchemaNode } from "./schema/side.js";
import {
  describeFile,
  MAX_SCHEMA_BYTES,
  MAX_TREE_BYTES,
  pathsUnder,
  readBounded,
  TreeError,
  treeJson,
  type ProjectTree,
} from "./tree.js";

/** Most files one `--schema` side loads (the named file and the files its `$ref`s reach). */
export const MAX_SCHEMA_FILES = 4096;

const DIALECTS: Readonly<Record<string, Dialect>> = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "http://json-schema.org/draft-07/schema": "draft-07",
  "https://json-schema.org/draft-07/schema": "draft-07",
};

/** The dialect a document declares with `$schema` (trailing `#` ignored), else `fallback`; throws TreeError for a dialect not supported. */
export function dialectOf(json: unknown, fallback: Dialect, label: string): Dialect {
  if (!isObject(json) || typeof json.$schema !== "string") return fallback;
  const dialect = DIALECTS[json.$schema.replace(/#$/, "")];
  if (!dialect)
    throw new TreeError(`${label}: unsupported $schema ${json.$schema} (2020-12 and draft-07 are supported)`);
  return dialect;
}

/** The document of tree file `file`: base URI its `$id`, else `file:///<file>`; dialect by `$schema`, else `fallback`. */
export function schemaDocument(tree: ProjectTree, file: string, fallback: Dialect): SchemaDocument {
  const json = treeJson(tree, file);
  const uri = isObject(json) && typeof json.$id === "string" ? json.$id : `file:///${file}`;
  return { file, uri, json, dialect: dialectOf(json, fallback, describeFile(tree, file)) };
}

/** Every `schemas/**.json` document of a project tree (documents without `$schema` are 2020-12). */
export function schemaDocs(tree: ProjectTree): SchemaDocument[] {
  return pathsUnder(tree, "schemas/").map((file) => schemaDocument(tree, file, "2020-12"));
}

/** One `--schema` side: the named document (file `""`, so its locations read `#/...`) and every document its `$ref`s reached. */
export interface LoadedSchema {
  readonly root: SchemaDocument;
  readonly side: SchemaSide;
}

/** Every `$ref` string in a document, with the node holding it (instance data such as `enum` is skipped). */
function refsOf(doc: SchemaDocument): { ref: string; node: SchemaNode }[] {
  const out: { ref: string; node: SchemaNode }[] = [];
  const stack: { value: unknown; pointer: string }[] = [{ value: doc.json, pointer: "" }];
  while (stack.length > 0) {
    const { value, pointer } = stack.pop() as { value: unknown; pointer: string };
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], pointer: `${pointer}/${i}` });
      continue;
    }
    if (!isObject(value)) continue;
    if (typeof value.$ref === "string") out.push({ ref: value.$ref, node: { schema: value, doc, pointer } });
    for (const [k, v] of Object.entries(value)) {
      if (k !== "enum" && k !== "const" && k !== "examples" && k !== "default")
        stack.push({ value: v, pointer: `${pointer}/${token(k)}` });
    }
  }
  return out;
}

/**
 * The side-relative path a `$ref` names, or why it names none: a relative reference is taken
 * against the referencing file's folder; an absolute one only when it lies under the folder of
 * the referencing document's base URI (its `$id`), by the remaining path.
 */
function siblingPath(ref: string, target: string, base: string, from: string): string | { why: string } {
  let relativePart: string;
  if (URL.canParse(ref)) {
    const folder = base.slice(0, base.lastIndexOf("/") + 1);
    if (!target.startsWith(folder)) return { why: `not under ${folder}, so no file of this side names it` };
    relativePart = target.slice(folder.length);
  } else {
    relativePart = stripFragment(ref);
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(relativePart);
  } catch {
    return { why: "a malformed percent-escape names no file" };
  }
  if (decoded === "") return { why: "it names no file" };
  const path = decoded.startsWith("/")
    ? posix.normalize(decoded.slice(1))
    : posix.normalize(posix.join(posix.dirname(from), decoded));
  if (path.startsWith("../") || path === "..") return { why: `${path} is outside the folder of the named file` };
  return path;
}

/**
 * Load `path` and, transitively, every file its `$ref`s name that no loaded document's URI already
 * answers: a `$ref` resolves against the document's `$id` first, and when no loaded document has
 * that URI, against the file's own folder (the target file is then also known by that URI).
 * Read only below `dirname(path)`, bounded (see the module comment); throws TreeError.
 */
export function loadSchemaFile(path: string, fallback: Dialect): LoadedSchema {
  const dir = dirname(path);
  const rootFile = basename(path);
  const files = new Map<string, Buffer>();
  const tree: ProjectTree = { label: dir, files, describe: (rel) => (rel === rootFile ? path : join(dir, rel)) };
  const budget = { bytes: MAX_TREE_BYTES };
  const read = (rel: string): void => {
    const bytes = readBounded(join(dir, rel), MAX_SCHEMA_BYTES, describeFile(tree, rel));
    budget.bytes -= bytes.length;
    if (budget.bytes < 0) throw new TreeError(`${dir}: the files $refs reach hold more than ${MAX_TREE_BYTES} bytes`);
    files.set(rel, bytes);
  };
  try {
    read(rootFile);
  } catch (error) {
    if (error instanceof TreeError) throw error;
    throw new TreeError(describeIoError(`read ${path}`, error));
  }
  const first = schemaDocument(tree, rootFile, fallback);
  const root: SchemaDocument = { ...first, file: "" };
  const docs: SchemaDocument[] = [root];
  const byFile = new Map<string, SchemaDocument>([[rootFile, root]]);
  const fileOf = new Map<SchemaDocument, string>([[root, rootFile]]);
  const aliases = new Map<string, SchemaDocument>();
  const tried = new Map<string, string>();
  let side = new SchemaSide(docs);
  for (let next = 0; next < docs.length; next++) {
    const doc = docs[next] as SchemaDocument;
    for (const { ref, node } of refsOf(doc)) {
      const base = side.baseOf(node);
      let target: string;
      try {
        target = stripFragment(new URL(ref, base).href);
      } catch {
        continue; // not a URI reference: the comparator reports it
      }
      if (tried.has(target) || side.resolve(target, base)) continue;
      const rel = siblingPath(ref, target, base, fileOf.get(doc) as string);
      if (typeof rel !== "string") {
        tried.set(target, rel.why);
        continue;
      }
      let loaded = byFile.get(rel);
      if (!loaded) {
        if (docs.length >= MAX_SCHEMA_FILES)
          throw new TreeError(`${dir}: $refs reach more than ${MAX_SCHEMA_FILES} files`);
        try {
          read(rel);
        } catch (error) {
          if (error instanceof TreeError) throw error;
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EISDIR")
            throw new TreeError(describeIoError(`read ${join(dir, rel)}`, error));
          tried.set(target, `then file ${join(dir, rel)} (${code === "ENOENT" ? "no such file" : code})`);
          side = new SchemaSide(docs, aliases, tried);
          continue;
        }
        loaded = schemaDocument(tree, rel, fallback);
        byFile.set(rel, loaded);
        fileOf.set(loaded, rel);
        docs.push(loaded);
      }
      if (stripFragment(loaded.uri) !== target) aliases.set(target, loaded);
      side = new SchemaSide(docs, aliases, tried);
    }
  }
  return { root, side: new SchemaSide(docs, aliases, tried) };
}
