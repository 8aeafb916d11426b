/**
 * The receipt ledger under many processes (spec/host-runtime.md §"Receipts: the ledger"), with the
 * built package (dist/, `npm run build`):
 * - concurrent writers: 16 processes that create the ledger at once, then, released together by a
 *   barrier, each emit receipts (a third of them under keys shared by all, which replay) into one
 *   run: no writer fails (no SQLITE_BUSY within the busy timeout), the stored sequences are exactly
 *   1..N, every key is recorded once;
 * - writers SIGKILLed at random moments: 104 writers, 8 at a time, each killed at a random delay
 *   after its first commit; afterwards `PRAGMA integrity_check` is ok, every stored receipt is whole
 *   and a valid LifecycleReceipt, every receipt a writer reported committed is there, sequences are
 *   distinct, each idempotency row has its receipt, and the next write succeeds.
 */
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateValue } from "../../runtime/wire/validate.js";
import { exited, lines, rawDb, startWriter, writerScript } from "./ledger-support.js";
import { ReceiptLedger } from "../../runtime/receipts/ledger.js";
import { randomInt } from "node:crypto";
import type { ChildProcess } from "node:child_process";

const dir = mkdtempSync(join(tmpdir(), "lifeloop-ledger-procs-"));
const script = writerScript(dir);
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

interface Stored {
  readonly receipt_id: string;
  readonly body: string;
}

function storedReceipts(path: string): Stored[] {
  const db = rawDb(path);
  try {
    return db.prepare("SELECT receipt_id, body FROM receipts ORDER BY rowid").all() as Stored[];
  } finally {
    db.close();
  }
}

describe("receipt ledger: concurrent writer processes", () => {
  it("16 writers released together: distinct sequences 1..N, no writer fails, shared keys replay", async () => {
    const ledger = join(dir, "concurrent.sqlite");
    // Not created beforehand: the 16 race on creating the file and its schema, then on writing.
    const go = join(dir, "go-concurrent");
    const WRITERS = 16;
    const EACH = 15;
    const SHARED = 4;
    const ready: Promise<void>[] = [];
    const outputs: string[][] = [];
    const ends: Promise<{ code: number | null; signal: NodeJS.Signals | null }>[] = [];
    for (let w = 0; w < WRITERS; w++) {
      const child = startWriter(script, {
        ledger,
        runId: "run-c",
        prefix: `w${w}`,
        count: EACH,
        goFile: go,
        sharedKeys: SHARED,
      });
      children.add(child);
      const out: string[] = [];
      outputs.push(out);
      let stderr = "";
      child.stderr?.on("data", (d) => {
        stderr += d;
      });
      ready.push(
        new Promise((done) =>
          lines(child, (line) => {
            out.push(line);
            if (line === "ready") done();
          }),
        ),
      );
      ends.push(
        exited(child).then((r) =>
          r.code === 0
            ? r
            : Promise.reject(new Error(`writer ${w} ended ${r.code ?? r.signal}: ${out.join(" | ")} ${stderr}`)),
        ),
      );
    }
    await Promise.all(ready); // every writer holds an open ledger: the barrier
    writeFileSync(go, "");
    await Promise.all(ends);

    const all = outputs.flat().filter((l) => l.startsWith("ok "));
    expect(outputs.flat().filter((l) => l.startsWith("error"))).toEqual([]);
    expect(all).toHaveLength(WRITERS * EACH);
    const fresh = all.filter((l) => l.endsWith(" false"));
    const stored = storedReceipts(ledger).map((s) => JSON.parse(s.body));
    // Every receipt that was not a replay is stored once; the shared keys once each.
    expect(stored).toHaveLength(fresh.length);
    expect(new Set(stored.map((r) => r.idempotency_key)).size).toBe(stored.length);
    expect(stored.filter((r) => String(r.idempotency_key).startsWith("key-shared-"))).toHaveLength(SHARED);
    const sequences = stored.map((r) => r.sequence as number).sort((a, b) => a - b);
    expect(sequences).toEqual(Array.from({ length: stored.length }, (_, i) => i + 1));
    // A replay reports the stored receipt's sequence.
    for (const line of all.filter((l) => l.endsWith(" true"))) {
      const [, id, seq] = line.split(" ");
      const original = stored.find((r) => r.receipt_id === id);
      expect(original?.sequence, line).toBe(Number(seq));
    }
  });
});

describe("receipt ledger: writers killed at random moments", () => {
  it("104 writers SIGKILLed mid-write leave a consistent ledger the next writer extends", async () => {
    const ledger = join(dir, "killed.sqlite");
    ReceiptLedger.open(ledger).close();
    const TOTAL = 104;
    const AT_ONCE = 8;
    const committed = new Set<string>();
    let killedWhileWriting = 0;
    let started = 0;

    const one = async (w: number): Promise<void> => {
      const child = startWriter(script, { ledger, runId: "run-k", prefix: `k${w}`, count: -1, sharedKeys: 5 });
      children.add(child);
      let timer: NodeJS.Timeout | undefined;
      let firstCommit = false;
      lines(child, (line) => {
        if (line.startsWith("ok ")) {
          committed.add(line.split(" ")[1] as string);
          if (!firstCommit) {
            firstCommit = true;
            // Killed at a random moment of its write loop: 0-25 ms after its first commit.
            timer = setTimeout(() => child.kill("SIGKILL"), randomInt(0, 26));
          }
        }
      });
      const end = await exited(child);
      clearTimeout(timer);
      children.delete(child);
      if (end.signal === "SIGKILL") killedWhileWriting++;
      else throw new Error(`writer ${w} ended on its own (${end.code}): it must be killed while writing`);
    };
    const lanes = Array.from({ length: AT_ONCE }, async () => {
      while (started < TOTAL) await one(started++);
    });
    await Promise.all(lanes);
    expect(killedWhileWriting).toBe(TOTAL);

    const db = rawDb(ledger);
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      const orphans = db
        .prepare(
          "SELECT count(*) AS n FROM idempotency i WHERE NOT EXISTS (SELECT 1 FROM receipts r WHERE json_extract(r.body, '$.receipt_id') = json_extract(i.body, '$.receipt_id'))",
        )
        .get().n;
      expect(orphans).toBe(0);
    } finally {
      db.close();
    }
    const stored = storedReceipts(ledger);
    const receipts = stored.map((s) => JSON.parse(s.body));
    for (const r of receipts) expect(validateValue("LifecycleReceipt", r), r.receipt_id).toEqual([]);
    const ids = new Set(receipts.map((r) => r.receipt_id));
    // Every receipt a writer reported (a replay reports the stored receipt's id) survived the kills.
    const missing = [...committed].filter((id) => !ids.has(id));
    expect(missing, "receipts reported committed but not stored").toEqual([]);
    expect(committed.size).toBeGreaterThanOrEqual(TOTAL); // every writer committed at least once
    const sequences = receipts.map((r) => r.sequence as number);
    expect(new Set(sequences).size).toBe(sequences.length);

    // The next write succeeds, numbered after every sequence handed out.
    const next = ReceiptLedger.open(ledger);
    const counter = next.current("run-k");
    expect(counter).toBeGreaterThanOrEqual(Math.max(...sequences));
    expect(next.next("run-k")).toBe(counter + 1);
    next.close();
  });
});
