/**
 * The pending-event table's placeholder under the empty id (runtime/rpc/peer.ts)
 * against real client processes: a reply with id "" is a framing violation (spec/stream-protocol.md
 * rule `stream.id`) that settles nothing as a reply; duplicate, unknown-id and late replies with
 * many events in flight settle only their own event; a timeout sweep and close() with events
 * pending settle each of them once; stats.discardedFrames counts exactly the frames that settled
 * nothing.
 *
 * The client (node, built-ins only) follows a plan: it holds every event request until `hold` of
 * them are pending, then writes the plan's frames (`$N` is the id of the N-th held request) in one
 * write. Ordering uses that barrier and the settled promises, never sleeps.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SLICED_FRAME_BYTES } from "../../runtime/rpc/frame.js";
import { checkNothingLeftAfterEach, envelope, scratch, Sessions } from "../stream/support.js";

const sessions = new Sessions();
const scratches = checkNothingLeftAfterEach(sessions);

const FAST = { stream_close_grace_ms: 1000, stream_term_grace_ms: 500 } as const;

/**
 * A frame of the plan: `reply` answers the held request `of` (0-based) with `id` (default: its own id)
 * and metadata `tag`; `raw` is written as it is. `onCancel`: replies written when a lifeloop/cancel
 * arrives, to the cancelled id (a late reply).
 */
type PlanFrame = { reply: number; id?: unknown; tag: string } | { raw: string };

function planClient(
  hold: number,
  frames: PlanFrame[],
  options: { lateOnCancel?: boolean; repeat?: boolean } = {},
): string {
  const s = scratch();
  scratches.push(s.cleanup);
  const file = join(s.dir, "plan-client.mjs");
  writeFileSync(
    file,
    `const plan = ${JSON.stringify(frames)}; const hold = ${hold}; const late = ${options.lateOnCancel === true}; const repeat = ${options.repeat === true};
let held = []; let buf = "";
const reply = (req, id, tag) => JSON.stringify({ jsonrpc: "2.0", id, result: { schema_version: req.params.schema_version, status: "delivered", metadata: { event_id: req.params.request.event_id, tag } } }) + "\\n";
const byId = new Map();
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buf += chunk;
  for (let lf = buf.indexOf("\\n"); lf !== -1; lf = buf.indexOf("\\n")) {
    const frame = JSON.parse(buf.slice(0, lf));
    buf = buf.slice(lf + 1);
    if (typeof frame.method === "string" && frame.method.startsWith("event/")) { held.push(frame); byId.set(frame.id, frame); }
    if (late && frame.method === "lifeloop/cancel") process.stdout.write(reply(byId.get(frame.params.id), frame.params.id, "late"));
    if (held.length === hold) {
      let out = "";
      for (const f of plan) out += "raw" in f ? f.raw + "\\n" : reply(held[f.reply], "id" in f ? f.id : held[f.reply].id, f.tag);
      process.stdout.write(out);
      held = repeat ? [] : held.concat([null]);
    }
  }
});
process.stdin.on("end", () => process.exit(0));
`,
  );
  return file;
}

function tagOf(r: Awaited<ReturnType<ReturnType<Sessions["open"]>["invoke"]>>): string {
  return r.ok
    ? `${String(r.response.metadata?.event_id)}:${String(r.response.metadata?.tag)}`
    : `failed ${r.failure.variant}`;
}

describe("the pending-event placeholder (empty id) against real clients", () => {
  it('a reply with id "" while events are pending is a framing violation (stream.id): every pending event fails stream_framing, none is settled by it nor by the valid reply after it', async () => {
    const client = planClient(3, [
      { reply: 0, id: "", tag: "empty" },
      { reply: 1, tag: "own" },
    ]);
    const inv = sessions.open({ program: process.execPath, args: [client], timeoutMs: 10_000, limits: FAST });
    const results = await Promise.all([1, 2, 3].map((n) => inv.invoke(envelope("session.started", n))));
    sessions.see(inv);
    for (const r of results) {
      expect(tagOf(r)).toBe("failed stream_framing");
      if (!r.ok) expect(r.failure.detail).toContain("stream.id");
    }
    expect(inv.stats.discardedFrames).toBe(0);
  }, 30_000);

  it('the same for a reply with id "" large enough to be judged in slices (above SLICED_FRAME_BYTES): stream_framing stream.id, nothing settled by it', async () => {
    const client = planClient(2, [
      { reply: 0, id: "", tag: "x".repeat(SLICED_FRAME_BYTES + 1000) },
      { reply: 1, tag: "own" },
    ]);
    const inv = sessions.open({ program: process.execPath, args: [client], timeoutMs: 10_000, limits: FAST });
    const results = await Promise.all([1, 2].map((n) => inv.invoke(envelope("session.started", n))));
    sessions.see(inv);
    for (const r of results) {
      expect(tagOf(r)).toBe("failed stream_framing");
      if (!r.ok) expect(r.failure.detail).toContain("stream.id");
    }
    expect(inv.stats.discardedFrames).toBe(0);
  }, 30_000);

  it('20 events in flight: replies in reverse order, each duplicated, with unknown ids ("0", "41", "99", integer 5) in between: each event gets its own reply, every other frame is discarded and counted; then 20 more on the same stream', async () => {
    const frames: PlanFrame[] = [];
    for (let i = 19; i >= 0; i--) {
      frames.push({ reply: i, tag: "first" }, { reply: i, tag: "dup" });
      if (i === 10)
        frames.push(
          { reply: 0, id: "0", tag: "x" },
          { reply: 0, id: "41", tag: "x" },
          { reply: 0, id: "99", tag: "x" },
          { reply: 0, id: 5, tag: "x" },
        );
    }
    const inv = sessions.open({
      program: process.execPath,
      args: [planClient(20, frames, { repeat: true })],
      timeoutMs: 10_000,
      limits: FAST,
    });
    for (const round of [0, 1]) {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => inv.invoke(envelope("session.started", round * 20 + i + 1))),
      );
      sessions.see(inv);
      expect(results.map(tagOf)).toEqual(Array.from({ length: 20 }, (_, i) => `e${round * 20 + i + 1}:first`));
    }
    // Barrier: close() returns once the client's stdout reached EOF, so every frame has been judged.
    await inv.close();
    // Per round: 20 duplicates and 4 unknown ids (never a host id of either round: those are "1".."40").
    expect(inv.stats.discardedFrames).toBe(2 * 24);
    expect(inv.stats.spawns).toBe(1);
  }, 30_000);

  it("a timeout sweep with events pending: only the unanswered ones time out, each once; their late replies are discarded and counted; the answered ones are delivered", async () => {
    // 6 pending; the client answers the even ones at once and the odd ones only after their cancel (late).
    const frames: PlanFrame[] = [0, 2, 4].map((i) => ({ reply: i, tag: "own" }));
    const inv = sessions.open({
      program: process.execPath,
      args: [planClient(6, frames, { lateOnCancel: true })],
      timeoutMs: 800,
      limits: { ...FAST, stream_max_consecutive_timeouts: 10 },
    });
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => inv.invoke(envelope("session.started", n))));
    sessions.see(inv);
    expect(results.map(tagOf)).toEqual([
      "e1:own",
      "failed timeout",
      "e3:own",
      "failed timeout",
      "e5:own",
      "failed timeout",
    ]);
    await inv.close();
    expect(inv.stats.cancels).toBe(3);
    expect(inv.stats.discardedFrames).toBe(3);
  }, 30_000);

  it("close() with events pending fails each of them (stream_exit once the child exits on EOF), nothing settled by the placeholder", async () => {
    const inv = sessions.open({
      program: process.execPath,
      args: [planClient(99, [])],
      timeoutMs: 10_000,
      limits: FAST,
    });
    const pending = [1, 2, 3, 4, 5].map((n) => inv.invoke(envelope("session.started", n)));
    // Barrier: the child is running once the stream has spawned; close() then ends it with events pending.
    while (inv.pid === null) await new Promise((r) => setImmediate(r));
    sessions.see(inv);
    await inv.close();
    const results = await Promise.all(pending);
    // A written event fails stream_exit when the child exits on EOF; one whose envelope was still being
    // serialized in slices when close() came (the first, still cold, under load) fails stream_closed.
    for (const r of results) expect(r.ok ? "ok" : r.failure.variant).toMatch(/^(stream_exit|stream_closed)$/);
    expect(inv.stats.discardedFrames).toBe(0);
  }, 30_000);
});
