/**
 * When the host dies, its running clients die with it (spec/host-runtime.md §"Host exit"): a host
 * process (built dist/, started here) begins an invocation of a client that sleeps in its own
 * process group, and then exits, is sent SIGTERM, or throws. The client's group must be gone.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../generated/ts/spec.js";
import { eventually, groupMembers, readPids, ROOT, shellClient, tempDir } from "./support.js";

const tmp = tempDir("host-exit");
afterAll(() => tmp.cleanup());
const INVOKER = join(ROOT, "dist", "runtime", "invoker", "subprocess.js");

/** How the host ends once the client is running. */
const ENDINGS = {
  "process.exit()": "process.exit(0);",
  "an uncaught exception": 'throw new Error("host crashed");',
  "SIGTERM with no listener of its own": "/* the test sends SIGTERM */",
} as const;

function hostScript(pidFile: string, ending: string): string {
  const { program, args } = shellClient("sleep", pidFile);
  return `
import { existsSync, readFileSync } from "node:fs";
import { SubprocessInvoker } from ${JSON.stringify(INVOKER)};
const invoker = new SubprocessInvoker({ program: ${JSON.stringify(program)}, args: ${JSON.stringify(args)}, timeoutMs: 60000 });
invoker.invoke({ schema_version: ${JSON.stringify(args[1])}, request: { schema_version: ${JSON.stringify(args[1])}, event: "session.started", event_id: "e", adapter_id: "a", adapter_version: "1", integration_mode: "native_hook", invocation_id: "i" } });
const wait = setInterval(() => {
  // The shell creates the file before it writes the pid: wait for the whole line.
  if (!existsSync(${JSON.stringify(pidFile)}) || !readFileSync(${JSON.stringify(pidFile)}, "utf8").endsWith("\\n")) return;
  clearInterval(wait);
  process.stdout.write("client running\\n");
  ${ending}
}, 10);
`;
}

describe("a dying host takes its clients along", () => {
  expect(existsSync(INVOKER), `build first: npm run build (missing ${INVOKER})`).toBe(true);
  let n = 0;
  for (const [name, ending] of Object.entries(ENDINGS)) {
    it(name, async () => {
      const pidFile = join(tmp.dir, `pids-${++n}`);
      const script = join(tmp.dir, `host-${n}.mjs`);
      writeFileSync(script, hostScript(pidFile, ending));
      const host = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      host.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      host.stdout.on("data", (d: Buffer) => {
        if (d.toString().includes("client running") && name.startsWith("SIGTERM")) host.kill("SIGTERM");
      });
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        host.on("exit", (c, s) => resolve([c, s])),
      );
      if (name.startsWith("SIGTERM")) expect(signal).toBe("SIGTERM");
      else if (name.startsWith("an uncaught")) expect(code, stderr).toBe(1);
      else expect(code, stderr).toBe(0);
      const [pgid] = readPids(pidFile);
      expect(pgid).toBeTypeOf("number");
      const gone = await eventually(
        () => groupMembers(pgid as number).length === 0,
        performance.now(),
        LIMITS.settle_margin_ms,
      );
      expect(gone, `group ${pgid} still has ${groupMembers(pgid as number).join(",")}`).toBe(true);
    });
  }
});
