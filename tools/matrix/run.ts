/**
 * Running the cross-language matrix: build the Go client once, then deliver every scenario through
 * every (host × client) column with bounded concurrency, and judge each cell. A cell that cannot
 * run (a missing binary, a failed build, a host that is not installed) fails with the command that
 * fixes it; nothing is skipped.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  buildGoClient,
  CLIENT_LANGS,
  clientArgs,
  clientUnavailable,
  FIXTURE_CLIENTS,
  type FixtureClient,
} from "../../test/support/fixture-clients.js";
import { HOST_IDS, referenceHost, typescriptHost, type Host, type HostId } from "./hosts.js";
import { judge, scenarios, type Scenario } from "./scenarios.js";
import { pool } from "./shared.js";

/** One column: a host driving a client. `label` is e.g. `ts·go`. */
export interface Column {
  readonly host: HostId;
  readonly client: FixtureClient;
  readonly label: string;
}

/** The columns: every host × every client, hosts outermost. */
export function columns(): Column[] {
  return HOST_IDS.flatMap((host) =>
    CLIENT_LANGS.map((lang) => ({ host, client: FIXTURE_CLIENTS[lang], label: `${host}·${lang}` })),
  );
}

/** The verdict of one cell: `reasons` is empty when it passed; `ms` its wall-clock time. */
export interface CellResult {
  readonly scenario: Scenario;
  readonly column: Column;
  readonly reasons: readonly string[];
  readonly ms: number;
}

/** The whole run: every cell in row-major order, the Go build time, and the total time (ms). */
export interface MatrixResult {
  readonly scenarios: readonly Scenario[];
  readonly columns: readonly Column[];
  readonly cells: readonly CellResult[];
  readonly buildMs: number;
  readonly totalMs: number;
}

/**
 * What the matrix needs before it runs: the Go client built (once), every client runnable, every
 * host installed. `blocked` maps `client:<lang>` / `host:<id>` to why it cannot run, with the
 * command that fixes it; empty when everything is there.
 */
export interface MatrixPrerequisites {
  readonly build: ReturnType<typeof buildGoClient>;
  readonly blocked: ReadonlyMap<string, string>;
}

/** Build the Go client and check every client and host (see {@link MatrixPrerequisites}). */
export function matrixPrerequisites(): MatrixPrerequisites {
  const build = buildGoClient();
  const blocked = new Map<string, string>();
  if (!build.ok)
    blocked.set("client:go", `go build failed: ${build.output.split("\n")[0] ?? ""}; ${FIXTURE_CLIENTS.go.howToGet}`);
  for (const lang of CLIENT_LANGS) {
    const why = clientUnavailable(FIXTURE_CLIENTS[lang]);
    if (why !== null && !blocked.has(`client:${lang}`)) blocked.set(`client:${lang}`, why);
  }
  const hosts = { ts: typescriptHost(), ref: referenceHost() };
  for (const id of HOST_IDS) {
    const why = hosts[id].unavailable();
    if (why !== null) blocked.set(`host:${id}`, why);
  }
  return { build, blocked };
}

/**
 * Options: `concurrency` cells at a time (default 4); `onCell` is told about each finished cell;
 * `prerequisites` as already checked by {@link matrixPrerequisites} (else checked here).
 */
export interface MatrixOptions {
  readonly concurrency?: number;
  readonly onCell?: (cell: CellResult) => void;
  readonly prerequisites?: MatrixPrerequisites;
}

/** Run every cell. Never throws for a cell: an unexpected error is that cell's reason. */
export async function runMatrix(options: MatrixOptions = {}): Promise<MatrixResult> {
  const started = performance.now();
  const { build, blocked } = options.prerequisites ?? matrixPrerequisites();
  const hosts: { readonly [H in HostId]: Host } = { ts: typescriptHost(), ref: referenceHost() };

  const rows = scenarios();
  const cols = columns();
  const marks = mkdtempSync(join(tmpdir(), "lifeloop-matrix-"));
  const cells: CellResult[] = [];
  const jobs = rows.flatMap((scenario, r) =>
    cols.map((column, c) => ({ scenario, column, index: r * cols.length + c })),
  );
  try {
    await pool(jobs, options.concurrency ?? 4, async ({ scenario, column, index }) => {
      const cellStarted = performance.now();
      const why = blocked.get(`host:${column.host}`) ?? blocked.get(`client:${column.client.lang}`);
      let reasons: string[];
      if (why !== undefined) {
        reasons = [why];
      } else {
        const mark = join(marks, `cell-${index}`);
        try {
          const observed = await hosts[column.host].deliver({
            envelope: scenario.envelope,
            ...(scenario.parentReceiptId === undefined ? {} : { parentReceiptId: scenario.parentReceiptId }),
            client: column.client,
            args: clientArgs(scenario.behaviour, mark),
            timeoutMs: scenario.timeoutMs,
          });
          reasons = judge(scenario, column.host, observed, existsSync(mark));
        } catch (error) {
          reasons = [`the host could not run: ${(error as Error).message}`];
        }
      }
      const cell: CellResult = { scenario, column, reasons, ms: performance.now() - cellStarted };
      cells[index] = cell;
      options.onCell?.(cell);
    });
  } finally {
    rmSync(marks, { recursive: true, force: true });
  }
  return { scenarios: rows, columns: cols, cells, buildMs: build.ms, totalMs: performance.now() - started };
}
