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
  return Object.freeze(DEFAULT_WIRE_WINDOW.filter((v) => versions.includes(v)));
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
    message: OUTSIDE_WINDOW.message.replace("{value}", found).replace("{window}", windowList(window)),
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

/** Select the version of a parsed document `value` in `window` (see {@link VersionSelection}). Never throws. */
export function selectVersion(value: unknown, window: WireWindow): VersionSelection {
  const found =
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as { readonly schema_version?: unknown }).schema_version
      : undefined;
  if (typeof found === "string" && window.includes(found)) return selection(found, null);
  return selection(window[0] ?? WIRE_VERSION, typeof found === "string" ? found : null);
}

function selection(version: string, outside: string | null): VersionSelection {
  return { version, reader: version === WIRE_VERSION ? null : (ACCEPTED_READERS[version] ?? null), outside };
}

/**
 * The version a client answers a request (a parsed DispatchEnvelope or CallbackRequest, valid or not)
 * in: the request's root `schema_version` when it is a version of `window`, else current
 * (spec/wire-window.md, "Clients answer in the request's version").
 */
export function answerVersion(request: unknown, window: WireWindow = DEFAULT_WIRE_WINDOW): string {
  const { version, outside } = selectVersion(request, window);
  return outside === null && window.includes(version) && isVersionOf(request, version) ? version : WIRE_VERSION;
}

function isVersionOf(value: unknown, version: string): boolean {
  return (
    value !== null &&
    typeof value === "object" &&
    (value as { readonly schema_version?: unknown }).schema_version === version
  );
}
