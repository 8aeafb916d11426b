/**
 * The wire-version window of a reader (spec/wire-window.md): which versions it accepts, and which
 * version judges a given document. The versions and each accepted version's reader come from
 * generated/ts/window.ts (spec/wire-version.json `current` and `accepted`, snapshots under
 * spec/releases/).
 */
import { OUTSIDE_WINDOW, WIRE_VERSION, WIRE_WINDOW } from "../../generated/ts/spec/wire-version.js";
import { ACCEPTED_READERS, type AcceptedReader } from "../../generated/ts/window.js";
import type { ValidationIssue } from "./issues.js";

/**
 * The versions a reader accepts, newest first, never empty, each a version of {@link WIRE_WINDOW}.
 * Build one with {@link wireWindow} or {@link closedWindow}; {@link DEFAULT_WIRE_WINDOW} is the whole window.
 */
export type WireWindow = readonly string[];

/** Every version this build reads: current, then the accepted older ones (spec/wire-version.json). */
export const DEFAULT_WIRE_WINDOW: WireWindow = Object.freeze([...WIRE_WINDOW]);

/** A window that names a version this build cannot read, or no version at all. */
export class WireWindowError extends RangeError {
  override readonly name = "WireWindowError";
}

/**
 * The window of `versions` (any order, repeats allowed), newest first.
 * Throws {@link WireWindowError} when `versions` is empty or names a version outside {@link WIRE_WINDOW}
 * (the message lists the versions this build reads).
 */
export function wireWindow(versions: readonly string[]): WireWindow {
  if (versions.length === 0) throw new WireWindowError("a wire-version window needs at least one version");
  for (const v of versions) {
    if (!(WIRE_WINDOW as readonly string[]).includes(v))
      throw new WireWindowError(
        `wire version ${JSON.stringify(v)} is not one this build reads (${windowList(DEFAULT_WIRE_WINDOW)})`,
      );
  }
  const window = Object.freeze(DEFAULT_WIRE_WINDOW.filter((v) => versions.includes(v)));
  CHECKED.add(window);
  return window;
}

/** The window closed to one version (what a host that speaks `version` reads). Throws as {@link wireWindow}. */
export function closedWindow(version: string): WireWindow {
  return wireWindow([version]);
}

/** `{window}` of the outside-window message: the versions newest first, each in backticks, joined by ", ". */
export function windowList(window: WireWindow): string {
  return window.map((v) => `\`${v}\``).join(", ");
}

/** The one issue of a document whose root `schema_version` (`found`) is outside `window` (at /schema_version). */
export function outsideWindowIssue(found: string, window: WireWindow): ValidationIssue {
  return {
    rule: OUTSIDE_WINDOW.rule,
    pointer: "/schema_version",
    // One pass with a callback: the peer's value is never read as a replacement pattern ($&) or a placeholder.
    message: OUTSIDE_WINDOW.message.replace(/\{(value|window)\}/g, (_whole, name: string) =>
      name === "value" ? found : windowList(window),
    ),
  };
}

/**
 * The version that judges a document (spec/wire-window.md, "Version selection"): its root
 * `schema_version` when that is a string in `window`; otherwise the newest version of `window`, with
 * `outside` set to the string found (null when the member is missing or not a string: the schema
 * layer reports that).
 */
export interface VersionSelection {
  readonly version: string;
  /** The generated reader of an accepted version; null for the current version. */
  readonly reader: AcceptedReader | null;
  readonly outside: string | null;
}

/** Windows known to name only versions this build reads (the default and every one built by {@link wireWindow}). */
const CHECKED = new WeakSet<WireWindow>([DEFAULT_WIRE_WINDOW]);

/**
 * Select the version of a parsed document `value` in `window` (see {@link VersionSelection}). Never
 * throws for any `value`; throws {@link WireWindowError} for a `window` that is empty or names a
 * version this build does not read (a caller's mistake, not bad input: build windows with
 * {@link wireWindow} or {@link closedWindow}).
 */
export function selectVersion(value: unknown, window: WireWindow): VersionSelection {
  if (!CHECKED.has(window)) checkWindow(window);
  const found = rootVersion(value);
  if (typeof found === "string" && window.includes(found)) return selection(found, null);
  return selection(window[0] ?? WIRE_VERSION, typeof found === "string" ? found : null);
}

function selection(version: string, outside: string | null): VersionSelection {
  const reader =
    version === WIRE_VERSION ? null : Object.hasOwn(ACCEPTED_READERS, version) ? ACCEPTED_READERS[version] : undefined;
  if (reader === undefined) throw new WireWindowError(`no reader for wire version ${JSON.stringify(version)}`);
  return { version, reader, outside };
}

/** Throws {@link WireWindowError} unless `window` is a non-empty array of versions this build reads. */
function checkWindow(window: WireWindow): void {
  if (!Array.isArray(window) || window.length === 0)
    throw new WireWindowError("a wire-version window needs at least one version (use wireWindow or closedWindow)");
  for (const v of window)
    if (!(WIRE_WINDOW as readonly string[]).includes(v))
      throw new WireWindowError(
        `wire version ${JSON.stringify(v)} is not one this build reads (${windowList(DEFAULT_WIRE_WINDOW)})`,
      );
}

/**
 * The version a client answers a request (a parsed DispatchEnvelope or CallbackRequest, valid or not)
 * in: the request's root `schema_version` when it is a version of `window`, else current
 * (spec/wire-window.md, "Clients answer in the request's version").
 */
export function answerVersion(request: unknown, window: WireWindow = DEFAULT_WIRE_WINDOW): string {
  const { version, outside } = selectVersion(request, window);
  // `version` is the request's own exactly when it named one of the window's (no refusal, a string).
  return outside === null && rootVersion(request) === version ? version : WIRE_VERSION;
}

/** The root `schema_version` member of a parsed document, or undefined. Never throws. */
function rootVersion(value: unknown): unknown {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as { readonly schema_version?: unknown }).schema_version
    : undefined;
}

/** The outside-window message as a pattern that captures `{value}`. */
const OUTSIDE_PATTERN = new RegExp(
  `^${OUTSIDE_WINDOW.message
    .split(/(\{value\}|\{window\})/)
    .map((part) =>
      part === "{value}" ? "(.*)" : part === "{window}" ? ".*" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("")}$`,
  "s",
);

/**
 * What a host adds to a refusal of a document in another version of the window than the one it
 * speaks (an outside-window issue whose version this build reads): how to speak that version, or that
 * a client answers in the request's version. "" for any other issue.
 * `role`: "document" for a document the host was given (its envelope), "answer" for a client's answer.
 */
export function versionHint(issue: ValidationIssue, role: "document" | "answer"): string {
  if (issue.rule !== OUTSIDE_WINDOW.rule || issue.pointer !== "/schema_version") return "";
  const found = OUTSIDE_PATTERN.exec(issue.message)?.[1];
  if (found === undefined || !DEFAULT_WIRE_WINDOW.includes(found)) return "";
  return role === "document"
    ? ` (a host speaks one version: --wire-version ${found}, or the wireVersion option, makes it speak ${found})`
    : ` (a client answers in the request's version; a host that speaks ${found}: --wire-version ${found})`;
}
