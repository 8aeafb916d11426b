/**
 * The documents of one side of a schema comparison and how a `$ref` resolves among them:
 * {@link SchemaSide}, {@link SchemaNode} (a schema at a pointer of a document) and the URI helpers.
 *
 * @module
 */
import { isObject, jsonEqual, token } from "../json.js";

/** A JSON Schema dialect this comparator understands. */
export type Dialect = "2020-12" | "draft-07";

/** One schema document of a side: its tree-relative file name (`""` for a lone document), its base URI and its JSON. */
export interface SchemaDocument {
  readonly file: string;
  readonly uri: string;
  readonly json: unknown;
  readonly dialect: Dialect;
}

/** Every schema document of one side, by base URI (a `$ref` resolves against these only). */
export class SchemaSide {
  private readonly byUri = new Map<string, SchemaDocument>();
  /** Embedded resources (a subschema with its own `$id`), by absolute URI: their document and pointer. */
  private readonly embedded = new Map<string, { readonly doc: SchemaDocument; readonly pointer: string }>();

  /** What a loader tried for a target URI it could not load (a file path and the reason), for the unresolved message. */
  private readonly tried = new Map<string, string>();

  /**
   * `aliases`: further base URIs naming a whole document (a `$ref` target found in the referencing
   * file's directory whose own `$id` differs); `tried`: target URI → what was tried for it.
   */
  constructor(
    docs: readonly SchemaDocument[],
    aliases: ReadonlyMap<string, SchemaDocument> = new Map(),
    tried: ReadonlyMap<string, string> = new Map(),
  ) {
    for (const doc of docs) this.byUri.set(stripFragment(doc.uri), doc);
    for (const [uri, doc] of aliases) if (!this.byUri.has(uri)) this.byUri.set(uri, doc);
    for (const doc of docs) this.indexEmbedded(doc);
    for (const [uri, note] of tried) this.tried.set(uri, note);
  }

  /** Why `ref` (at base URI `base`) does not resolve: the URI it names and what was tried for it. */
  unresolved(ref: string, base: string): string {
    let target: string;
    try {
      target = stripFragment(new URL(ref, base).href);
    } catch {
      return `cannot resolve ${ref}: not a URI reference (base ${base})`;
    }
    const note = this.tried.get(target);
    const loaded = this.byUri.has(target) || this.embedded.has(target);
    return `cannot resolve ${ref}: tried ${target}${loaded ? " (the document is loaded; the fragment names nothing there)" : note ? `, ${note}` : " (no loaded document has that URI)"}`;
  }

  /** Record every subschema below the root that has an `$id` (an embedded resource), iteratively. */
  private indexEmbedded(doc: SchemaDocument): void {
    const stack: { value: unknown; pointer: string; base: string }[] = [
      { value: doc.json, pointer: "", base: stripFragment(doc.uri) },
    ];
    while (stack.length > 0) {
      const { value, pointer, base } = stack.pop() as { value: unknown; pointer: string; base: string };
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) stack.push({ value: value[i], pointer: `${pointer}/${i}`, base });
        continue;
      }
      if (!isObject(value)) continue;
      let here = base;
      if (pointer !== "" && typeof value.$id === "string") {
        here = rebase(value.$id, base);
        if (!this.byUri.has(here) && !this.embedded.has(here)) this.embedded.set(here, { doc, pointer });
      }
      for (const [k, v] of Object.entries(value)) {
        // Instance data, not subschemas: an `$id` member there names nothing.
        if (k !== "enum" && k !== "const" && k !== "examples" && k !== "default")
          stack.push({ value: v, pointer: `${pointer}/${token(k)}`, base: here });
      }
    }
  }

  /**
   * The base URI a `$ref` at `node` resolves against: the document's, changed by every `$id` on the
   * way down to the node (embedded resources, JSON Schema 2020-12 §8.2.1).
   */
  baseOf(node: SchemaNode): string {
    let base = stripFragment(node.doc.uri);
    let value: unknown = node.doc.json;
    for (const raw of node.pointer === "" ? [] : node.pointer.slice(1).split("/")) {
      const name = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      value = Array.isArray(value) ? value[Number(name)] : isObject(value) ? value[name] : undefined;
      if (isObject(value) && typeof value.$id === "string") base = rebase(value.$id, base);
    }
    return base;
  }

  /** True when both sides hold the same documents (same base URIs, equal JSON). */
  sameAs(other: SchemaSide): boolean {
    if (this.byUri.size !== other.byUri.size) return false;
    for (const [uri, doc] of this.byUri) {
      const theirs = other.byUri.get(uri);
      if (!theirs || !jsonEqual(doc.json, theirs.json)) return false;
    }
    return true;
  }

  /** Resolve `ref` against `base`; null when the target is not among the documents. */
  resolve(ref: string, base: string): SchemaNode | null {
    let url: URL;
    try {
      url = new URL(ref, base);
    } catch {
      return null;
    }
    let fragment: string;
    try {
      fragment = decodeURIComponent(url.hash.slice(1));
    } catch {
      return null; // a malformed percent-escape names nothing
    }
    url.hash = "";
    const root = this.byUri.get(url.href);
    const resource = root ? { doc: root, pointer: "" } : this.embedded.get(url.href);
    if (!resource) return null;
    if (fragment !== "" && !fragment.startsWith("/")) return null; // plain-name anchors are not resolved
    let value: unknown = resource.doc.json;
    for (const raw of resource.pointer === "" ? [] : resource.pointer.slice(1).split("/")) {
      const name = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      value = Array.isArray(value) ? value[Number(name)] : (value as Record<string, unknown>)[name];
    }
    for (const raw of fragment === "" ? [] : fragment.slice(1).split("/")) {
      const name = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(value)) value = value[Number(name)];
      else if (isObject(value)) value = value[name];
      else return null;
      if (value === undefined) return null;
    }
    return { schema: value, doc: resource.doc, pointer: `${resource.pointer}${fragment}` };
  }
}

/** A schema at a place: the value, the document it lives in and its JSON pointer there. */
export interface SchemaNode {
  readonly schema: unknown;
  readonly doc: SchemaDocument;
  readonly pointer: string;
}

/** `$id` resolved against `base`, without a fragment; `base` itself when `$id` is not a URI reference. */
export function rebase(id: string, base: string): string {
  try {
    return stripFragment(new URL(id, base).href);
  } catch {
    return base;
  }
}

/** `uri` without its `#fragment`. */
export function stripFragment(uri: string): string {
  const i = uri.indexOf("#");
  return i < 0 ? uri : uri.slice(0, i);
}
