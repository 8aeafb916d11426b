/**
 * `--wire-version V`, shared by `validate`, `invoke`, `session`, `hook` and `conform`
 * (spec/wire-window.md, "Who speaks which version").
 */
import { WIRE_WINDOW } from "../../generated/ts/spec/wire-version.js";
import { UsageError } from "./io.js";

/** The flag's name. */
export const WIRE_VERSION_FLAG = "--wire-version";

/** One line for a command's usage text. */
export const WIRE_VERSION_USAGE = `${WIRE_VERSION_FLAG} V  the wire version to speak (one of ${WIRE_WINDOW.join(", ")}; default ${WIRE_WINDOW[0]})`;

/**
 * The version given with `--wire-version` among the parsed flag `values`, or undefined when the flag
 * is absent. Throws {@link UsageError} (exit 2) for a version this build does not read, naming the ones it does.
 */
export function wireVersionFlag(values: ReadonlyMap<string, string>): string | undefined {
  const version = values.get(WIRE_VERSION_FLAG);
  if (version === undefined) return undefined;
  if (!(WIRE_WINDOW as readonly string[]).includes(version))
    throw new UsageError(
      `${WIRE_VERSION_FLAG} ${JSON.stringify(version)} is not a version this build reads (${WIRE_WINDOW.join(", ")})`,
    );
  return version;
}
