/**
 * The installed reference CLI (lifeloop-cli at spec/wire-version.json's `reference` version), a real
 * peer for the matrix, the ledger, hook and package suites; tools/setup/prepare.sh installs it.
 */
import { join } from "node:path";
import { REFERENCE_IMPLEMENTATION } from "../../generated/ts/spec.js";
import { REPO_ROOT } from "./fixture-clients.js";

/** The installed reference CLI, at spec/wire-version.json's `reference` version (tools/setup/prepare.sh puts it there). */
export const REFERENCE_CLI = join(REPO_ROOT, ".cache", "lifeloop-ref", "bin", "lifeloop");
/** The command that installs {@link REFERENCE_CLI}. */
export const REFERENCE_INSTALL_COMMAND = `cargo install ${REFERENCE_IMPLEMENTATION.crate} --version ${REFERENCE_IMPLEMENTATION.version} --locked --force --root .cache/lifeloop-ref`;
