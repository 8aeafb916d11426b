/**
 * `conform --transport stream` against a v1-only client (test/fixtures/conform/v1-only-client.mjs, which does not
 * implement --stream): the run is not measured, and the reason says that the client wrote no frame
 * and asks whether it implements --stream, instead of a bare timeout or the client's crash.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_EXIT_CODES } from "../../generated/ts/spec.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { conform } from "./support.js";

describe("conform --transport stream with a client that writes no frame", () => {
  it("is not measured, and the reason asks whether the client implements --stream", async () => {
    const r = await conform([
      "--program",
      join(REPO_ROOT, "test", "fixtures", "conform", "v1-only-client.mjs"),
      "--transport",
      "stream",
      "--timeout-ms",
      "2000",
    ]);
    expect(r.code).toBe(CLI_EXIT_CODES.not_measured);
    const reason = JSON.stringify(r.summary);
    expect(reason).toContain("the client wrote no frame: does it implement --stream?");
    expect(reason).not.toContain("TypeError");
  }, 60_000);
});
