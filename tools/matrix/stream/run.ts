/**
 * Running the stream (v2) lifecycle matrix: build the Go fixture once into a scratch directory,
 * then run every (scenario × client) cell with bounded concurrency. Each cell gets its own
 * directory (record files), runs under a watchdog, and ends by closing every invoker it opened and
 * checking that every child it saw, and its process group, is gone. A cell that cannot run (no Go,
 * a missing program) fails with the reason; nothing is skipped.
 */
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { StreamInvoker } from "../../../runtime/stream/invoker.js";
import { REPO_ROOT } from "../../../test/support/fixture-clients.js";
import { buildGoStreamClient, STREAM_CLIENT_IDS, streamClients, type StreamClient } from "./clients.js";
import {
  envelope,
  NORMAL_TIMEOUT_MS,
  streamScenarios,
  type CellContext,
  type Opened,
  type StreamScenario,
} from "./scenarios.js";
import { pool } from "../shared.js";

/** Bound of one cell (ms): the watchdog that turns a hang into a failed cell. */
export const CELL_WATCHDOG_MS = 60_000;

/** The verdict of one cell: `reasons` is empty when it passed; `ms` its wall time. */
export interface StreamCell {
  readonly scenario: StreamScenario;
  readonly client: StreamClient;
  readonly reasons: readonly string[];
  readonly ms: number;
}

/** A whole run, cells in row-major order. */
export interface StreamMatrixResult {
  readonly scenarios: readonly StreamScenario[];
  readonly clients: readonly StreamClient[];
  readonly cells: readonly StreamCell[];
  readonly buildMs: number;
  readonly totalMs: number;
}

/** True when the process group `pgid` still has a member. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function withWatchdog(work: Promise<void>, ms: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const dog = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`watchdog: the cell did not finish within ${ms} ms`), ms);
  });
  try {
    return await Promise.race([work.then(() => null), dog]);
  } finally {
    clearTimeout(timer);
  }
}

/** Run one cell. Never throws. */
export async function runCell(scenario: StreamScenario, client: StreamClient, dir: string): Promise<StreamCell> {
  const started = performance.now();
  const reasons: string[] = [];
  const opened: Opened[] = [];
  const pids = new Set<number>();
  let files = 0;
  const ctx: CellContext = {
    client,
    open(plan, config = {}) {
      const record = join(dir, `record-${++files}`);
      const invoker = new StreamInvoker({
        program: client.program,
        args: client.args({ ...plan, record }),
        timeoutMs: config.timeoutMs ?? NORMAL_TIMEOUT_MS,
        ...(config.limits === undefined ? {} : { limits: config.limits }),
      });
      const o: Opened = {
        invoker,
        record,
        invoke(sent) {
          const result = invoker.invoke(sent);
          const pid = invoker.pid;
          if (pid !== null) pids.add(pid);
          return result;
        },
      };
      opened.push(o);
      return o;
    },
    event: envelope,
    check(ok, reason) {
      if (!ok) reasons.push(reason);
    },
    recorded(o) {
      try {
        return readFileSync(o.record, "utf8");
      } catch {
        return "";
      }
    },
  };
  try {
    const dog = await withWatchdog(
      scenario.run(ctx).catch((error: unknown) => {
        reasons.push(`the cell threw: ${(error as Error).message}`);
      }),
      CELL_WATCHDOG_MS,
    );
    if (dog !== null) reasons.push(dog);
  } finally {
    // Close everything (bounded by the shutdown sequence), then nothing of any child may remain.
    await Promise.all(opened.map((o) => o.invoker.close()));
    for (const pid of pids) if (groupAlive(pid)) reasons.push(`process group ${pid} is still running after close()`);
  }
  return { scenario, client, reasons, ms: performance.now() - started };
}

/** Options: `concurrency` cells at a time (default 2: the machine is shared); `onCell` hears each finished cell. */
export interface StreamMatrixOptions {
  readonly concurrency?: number;
  readonly onCell?: (cell: StreamCell) => void;
}

/** Run every cell. */
export async function runStreamMatrix(options: StreamMatrixOptions = {}): Promise<StreamMatrixResult> {
  const started = performance.now();
  const scratch = mkdtempSync(join(tmpdir(), "lifeloop-stream-matrix-"));
  try {
    const build = buildGoStreamClient(scratch);
    const all = streamClients(build.ok ? build.program : join(scratch, "go-echo"));
    const clients = STREAM_CLIENT_IDS.map((id) => all[id]);
    const blocked = new Map<string, string>();
    if (!build.ok) blocked.set("go", build.output);
    if (!existsSync(join(REPO_ROOT, "dist", "runtime", "index.js")))
      blocked.set("ts", "dist/ is not built; run npm run build");
    for (const client of clients) {
      if (blocked.has(client.id)) continue;
      try {
        accessSync(client.program, constants.X_OK);
      } catch {
        blocked.set(client.id, `${relative(REPO_ROOT, client.program)} is missing or not executable`);
      }
    }
    const scenarios = streamScenarios();
    const cells: StreamCell[] = [];
    const jobs = scenarios.flatMap((scenario, r) =>
      clients.map((client, c) => ({ scenario, client, index: r * clients.length + c })),
    );
    await pool(jobs, options.concurrency ?? 2, async ({ scenario, client, index }) => {
      const why = blocked.get(client.id);
      let cell: StreamCell;
      if (why !== undefined) {
        cell = { scenario, client, reasons: [why], ms: 0 };
      } else {
        const dir = join(scratch, `cell-${index}`);
        mkdirSync(dir);
        cell = await runCell(scenario, client, dir);
      }
      cells[index] = cell;
      options.onCell?.(cell);
    });
    return { scenarios, clients, cells, buildMs: build.ms, totalMs: performance.now() - started };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
