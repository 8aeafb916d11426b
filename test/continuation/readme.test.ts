/**
 * The README's continuation example (`<!-- example: sh continuation -->`) runs as written against
 * our built CLI (`npx lifeloop-callback` stands for dist/runtime/cli/main.js in a clone): the blob
 * put is the blob read back, and each command prints what its comment shows. The stream example
 * (`continuation-stream`) too: its TypeScript client (importing the built package) stores and reads
 * back through `session --transport stream`, and `continuation get` reads the entry it wrote.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installCliShim, readmeExample, withInstalledCli } from "../package/readme-examples.js";
import { REPO_ROOT } from "../support/cli-process.js";
import { CLI, removeDir, scratch } from "./support.js";

describe("README: the continuation example", () => {
  const dir = scratch("cont-readme-");
  afterAll(() => removeDir(dir));
  // The README's lines run the CLI by its installed name: a shim for the built CLI, first on PATH.
  const PATH = `${installCliShim(join(dir, ".bin"), CLI)}:${process.env.PATH ?? ""}`;

  it("stores and reads back a continuation through our CLI", () => {
    const code = withInstalledCli(readmeExample(REPO_ROOT, "continuation").code);
    const r = spawnSync("bash", ["-c", code], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH, HOME: dir },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    const out = r.stdout.split("\n");
    const stamp = /"written_at_epoch_s":(\d+)/.exec(out[0] ?? "")?.[1];
    expect(out[0]).toBe(`{"status":"ok","written_at_epoch_s":${stamp}}`);
    expect(out[1]?.startsWith("step 3 of 7")).toBe(true); // no newline after the blob: the next output follows it
    expect(out[1]).toBe(
      `step 3 of 7{"keys":[{"client_id":"my-client","key":"renewal-state","ttl_s":3600,"written_at_epoch_s":${stamp}}],"thread":"run-42"}`,
    );
    expect(out.slice(2)).toEqual(["exit 3", '{"dropped_count":1,"status":"ok"}', ""]);
    expect(r.stderr).toBe(
      `{"client_id":"my-client","ttl_s":3600,"written_at_epoch_s":${stamp}}\n{"error":"not_found"}\n`,
    );
  });

  it("stream mode: a TypeScript client stores and reads back through the host; the CLI reads the entry", () => {
    const code = withInstalledCli(readmeExample(REPO_ROOT, "continuation-stream").code)
      .replace('from "lifeloop-callback"', `from ${JSON.stringify(join(REPO_ROOT, "dist", "runtime", "index.js"))}`)
      .replace("EX=node_modules/lifeloop-callback/examples", `EX=${JSON.stringify(join(REPO_ROOT, "examples"))}`);
    const r = spawnSync("bash", ["-c", code], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH, HOME: dir },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const [event, summary, blob] = r.stdout.split("\n");
    expect(JSON.parse(event as string)).toMatchObject({
      event_id: "evt-1",
      failure: null,
      response: { status: "delivered", metadata: { stored: "seen frame.opening" } },
    });
    expect(JSON.parse(summary as string)).toMatchObject({
      summary: { transport: "stream", events: 1, delivered: 1, failed: 0, spawns: 1 },
    });
    expect(blob).toBe("seen frame.opening"); // the blob, byte for byte, nothing appended
    expect(r.stderr).toMatch(/^\{"client_id":"unknown","ttl_s":null,"written_at_epoch_s":\d+\}\n$/);
  });
});
