/**
 * `lifeloop-callback version [--json]` (also `--version`, `-V`): the package and wire versions.
 * Imports only the wire-version table module, so it starts as fast as the entry point itself.
 */
import { WIRE_VERSION } from "../../../generated/ts/spec/wire-version.js";
import { EXIT, jsonLine, parseFlags, UsageError, type CliIo } from "../io.js";
import { packageVersion } from "../../process/package-root.js";

/** Usage text of the version command. */
export const VERSION_USAGE =
  "usage: lifeloop-callback version [--json]   (also --version, -V)\n  Prints `lifeloop-callback <package version> (wire <wire version>)`; --json prints {package_version, wire_version}.";

/** Run `version` with its arguments; returns the exit code (0). @throws UsageError on a positional argument. */
export async function runVersion(args: readonly string[], io: CliIo): Promise<number> {
  const { switches, positionals } = parseFlags(args, { switches: ["--json"] });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const version = packageVersion();
  io.out(
    switches.has("--json")
      ? jsonLine({ package_version: version, wire_version: WIRE_VERSION })
      : `lifeloop-callback ${version} (wire ${WIRE_VERSION})\n`,
  );
  return EXIT.ok;
}
