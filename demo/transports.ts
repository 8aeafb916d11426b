/**
 * The demo's side-by-side of the two cross-language transports: the same session
 * (demo/session.ts sessionEnvelopes) through each stream-capable client, once with the
 * SubprocessInvoker (v1: one process per event) and once with the StreamInvoker (v2: one process,
 * JSON-RPC over stdio), with spawns, delivered events and wall time per transport.
 *
 * To add a client, add a row to {@link TRANSPORT_CLIENTS}: `v1` / `stream` say which transports it
 * serves.
 */
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { SubprocessInvoker } from "../runtime/invoker/subprocess.js";
import type { CallbackInvoker } from "../runtime/invoker/types.js";
import { StreamInvoker } from "../runtime/stream/invoker.js";
import { FIXTURE_CLIENTS, FIXTURE_CLIENTS_DIR, REPO_ROOT } from "../test/support/fixture-clients.js";
import { renderTable, type Cell, type Painter } from "../test/support/text-table.js";
import { sessionEnvelopes, SESSION_TIMEOUT_MS, type SessionIds } from "./session.js";

/** One client of the comparison. */
export interface TransportClient {
  readonly title: string;
  readonly program: string;
  readonly args: readonly string[];
  /** Serves subprocess v1. */
  readonly v1: boolean;
  /** Serves stream v2 (`--stream`). */
  readonly stream: boolean;
}

/** The clients compared, in table order. */
export const TRANSPORT_CLIENTS: readonly TransportClient[] = [
  {
    title: "TypeScript runner (serve)",
    program: join(FIXTURE_CLIENTS_DIR, "node", "runner-echo.mjs"),
    args: [],
    v1: true,
    stream: true,
  },
  {
    title: "raw NDJSON client",
    program: join(FIXTURE_CLIENTS_DIR, "stream-raw", "raw-client.mjs"),
    args: [],
    v1: false,
    stream: true,
  },
  { title: "Go SDK client", program: FIXTURE_CLIENTS.go.program, args: [], v1: true, stream: true },
  { title: "Python SDK client", program: FIXTURE_CLIENTS.python.program, args: [], v1: true, stream: true },
];

/** One run of the session over one transport. */
export interface TransportRow {
  readonly client: TransportClient;
  readonly transport: "subprocess" | "stream";
  readonly delivered: number;
  readonly events: number;
  readonly spawns: number;
  readonly ms: number;
  readonly problems: readonly string[];
}

async function runOne(
  client: TransportClient,
  transport: "subprocess" | "stream",
  ids: SessionIds,
): Promise<TransportRow> {
  const envelopes = sessionEnvelopes(ids);
  const config = { program: client.program, args: client.args, timeoutMs: SESSION_TIMEOUT_MS };
  const invoker: CallbackInvoker = transport === "stream" ? new StreamInvoker(config) : new SubprocessInvoker(config);
  const problems: string[] = [];
  let delivered = 0;
  const t0 = performance.now();
  try {
    for (const envelope of envelopes) {
      const result = await invoker.invoke(envelope);
      if (result.ok && result.response.status === "delivered") delivered++;
      else
        problems.push(
          result.ok
            ? `${envelope.request.event}: answered ${result.response.status}`
            : `${envelope.request.event}: ${result.failure.variant}: ${result.failure.detail}`,
        );
    }
  } finally {
    if (invoker instanceof StreamInvoker) await invoker.close();
  }
  const ms = performance.now() - t0;
  const spawns = invoker instanceof StreamInvoker ? invoker.stats.spawns : envelopes.length;
  return { client, transport, delivered, events: envelopes.length, spawns, ms, problems };
}

/** Run the session through every available client over every transport it serves. */
export async function compareTransports(tag: string): Promise<TransportRow[]> {
  const rows: TransportRow[] = [];
  for (const [i, client] of TRANSPORT_CLIENTS.entries()) {
    if (!existsSync(client.program)) continue;
    for (const transport of ["subprocess", "stream"] as const) {
      if (transport === "subprocess" ? !client.v1 : !client.stream) continue;
      const ids: SessionIds = {
        tag: `${tag}-${i}-${transport}`,
        harness_session_id: `sess-${tag}-${i}`,
        harness_run_id: `run-${tag}-${i}-${transport}`,
        frame_id: `frame-${tag}-${i}`,
      };
      rows.push(await runOne(client, transport, ids));
    }
  }
  return rows;
}

/** The comparison as a table (client, transport, delivered, spawns, total ms, ms per event) and the problems under it. */
export function transportTable(rows: readonly TransportRow[], painter: Painter): string[] {
  const cells = rows.map(
    (r) =>
      [
        r.client.title,
        r.transport === "stream" ? "stream v2" : "subprocess v1",
        { text: `${r.delivered}/${r.events}`, tone: r.delivered === r.events ? "ok" : "bad" },
        String(r.spawns),
        String(Math.round(r.ms)),
        (r.ms / r.events).toFixed(1),
      ] satisfies Cell[],
  );
  const notes = TRANSPORT_CLIENTS.filter((c) => !c.stream).map(
    (c) => `  (${c.title}: stream mode not served yet; ${relative(REPO_ROOT, c.program)})`,
  );
  return [
    ...renderTable(["client", "transport", "delivered", "spawns", "ms", "ms/event"], cells, painter, "  "),
    ...rows.flatMap((r) => r.problems.map((p) => `  ✗ ${r.client.title} over ${r.transport}: ${p}`)),
    ...notes,
  ];
}
