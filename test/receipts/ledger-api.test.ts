/**
 * ReceiptLedger in process (spec/host-runtime.md §"Receipts: the ledger"): the file format shared
 * with the reference's --ledger (tables, columns, user_version, the wire trigger, WAL), the emitter
 * on a ledger (sequences, replay, conflict, recording, one transaction per emission), versions 1
 * and others, another wire version, and every fault as a ReceiptLedgerError. Real files; the file is
 * inspected with better-sqlite3 directly.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { InvocationResult } from "../../runtime/invoker/types.js";
import { ReceiptEmitter } from "../../runtime/receipts/emitter.js";
import { IdempotencyConflictError } from "../../runtime/receipts/idempotency.js";
import {
  LEDGER_BUSY_TIMEOUT_MS,
  LEDGER_SCHEMA_VERSION,
  ReceiptLedger,
  ReceiptLedgerError,
  WIRE_GUARD_TRIGGER,
} from "../../runtime/receipts/ledger.js";
import { validateValue } from "../../runtime/wire/validate.js";
import { ageLedger, ledgerEnvelope, ledgerRequest, rawDb } from "./ledger-support.js";

const dir = mkdtempSync(join(tmpdir(), "lifeloop-ledger-api-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(dir, `l${++n}.sqlite`);

const delivered: InvocationResult = {
  ok: true,
  response: { schema_version: WIRE_VERSION, status: "delivered", failure_class: null, retry_class: null },
  stderrTail: "",
  elapsedMs: 0,
};
const ctx = (receiptId: string) => ({ client_id: "client-a", receipt_id: receiptId, at_epoch_s: 1_700_000_000 });

function emitter(ledger: ReceiptLedger): ReceiptEmitter {
  return new ReceiptEmitter({ store: ledger, sequencer: ledger });
}

function faultOf(fn: () => unknown): ReceiptLedgerError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ReceiptLedgerError);
    return error as ReceiptLedgerError;
  }
  throw new Error("expected a ReceiptLedgerError");
}

describe("receipt ledger: the file format", () => {
  it("a new ledger has the reference's tables, columns, user_version 2, the wire trigger and WAL", () => {
    const path = fresh();
    ReceiptLedger.open(path).close();
    const db = rawDb(path);
    try {
      expect(db.pragma("user_version", { simple: true })).toBe(LEDGER_SCHEMA_VERSION);
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      const columns = (table: string) =>
        db
          .prepare(`PRAGMA table_info(${table})`)
          .all()
          .map((c: { name: string; pk: number; notnull: number }) => [c.name, c.pk, c.notnull]);
      expect(columns("receipts")).toEqual([
        ["receipt_id", 1, 0],
        ["parent_receipt_id", 0, 0],
        ["body", 0, 1],
      ]);
      expect(columns("idempotency")).toEqual([
        ["client_id", 1, 1],
        ["adapter_id", 2, 1],
        ["idempotency_key", 3, 1],
        ["body", 0, 1],
      ]);
      expect(columns("run_sequences")).toEqual([
        ["run_id", 1, 0],
        ["counter", 0, 1],
      ]);
      expect(db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'").all()).toEqual([
        { name: WIRE_GUARD_TRIGGER, tbl_name: "receipts" },
      ]);
    } finally {
      db.close();
    }
  });

  it("the trigger refuses a receipt of another wire version, whoever inserts it", () => {
    const path = fresh();
    const ledger = ReceiptLedger.open(path);
    emitter(ledger).emit(ledgerEnvelope(ledgerRequest({ eventId: "e1", runId: "r" })), delivered, ctx("rcpt-1"));
    ledger.close();
    const db = rawDb(path, true);
    try {
      const body = JSON.stringify({ schema_version: "lifeloop.v0.0", receipt_id: "rcpt-old" });
      expect(() =>
        db
          .prepare("INSERT INTO receipts (receipt_id, parent_receipt_id, body) VALUES (?, NULL, ?)")
          .run("rcpt-old", body),
      ).toThrow(/start a new --ledger/);
      expect(db.prepare("SELECT count(*) AS n FROM receipts").get().n).toBe(1);
    } finally {
      db.close();
    }
  });
});

describe("receipt ledger: through a ReceiptEmitter", () => {
  it("sequences continue across handles (processes), replays return the stored receipt, conflicts throw and write nothing", () => {
    const path = fresh();
    const first = ReceiptLedger.open(path);
    const a = emitter(first).emitOutcome(
      ledgerEnvelope(ledgerRequest({ eventId: "e1", key: "k1", runId: "run" })),
      delivered,
      ctx("rcpt-1"),
    );
    first.close();
    const second = ReceiptLedger.open(path);
    const b = emitter(second).emitOutcome(
      ledgerEnvelope(ledgerRequest({ eventId: "e2", key: "k2", runId: "run" })),
      delivered,
      ctx("rcpt-2"),
    );
    const replay = emitter(second).emitOutcome(
      ledgerEnvelope(ledgerRequest({ eventId: "e1", key: "k1", runId: "run" })),
      delivered,
      ctx("rcpt-3"),
    );
    expect([a?.receipt.sequence, b?.receipt.sequence]).toEqual([1, 2]);
    expect(replay).toEqual({ receipt: a?.receipt, replayed: true });
    expect(() =>
      emitter(second).emit(
        ledgerEnvelope(ledgerRequest({ eventId: "other", key: "k1", runId: "run" })),
        delivered,
        ctx("rcpt-4"),
      ),
    ).toThrow(IdempotencyConflictError);
    const keyless = emitter(second).emit(
      ledgerEnvelope(ledgerRequest({ eventId: "e5", runId: "run" })),
      delivered,
      ctx("rcpt-5"),
    );
    expect(keyless?.sequence).toBe(3); // neither the replay nor the conflict took a number
    expect(second.list().map((r) => r.receipt_id)).toEqual(["rcpt-1", "rcpt-2", "rcpt-5"]);
    expect(second.get("k1", "client-a", "codex")).toEqual(a?.receipt);
    expect(second.get({ idempotency_key: "k9", client_id: "client-a", adapter_id: "codex" })).toBeUndefined();
    expect(second.current("run")).toBe(3);
    for (const r of second.list()) expect(validateValue("LifecycleReceipt", r)).toEqual([]);
    second.close();
  });

  it("a receipt without a run id has sequence null; a failure receipt is recorded without consuming its key", () => {
    const ledger = ReceiptLedger.open(fresh());
    const r = emitter(ledger).emit(ledgerEnvelope(ledgerRequest({ eventId: "e1" })), delivered, ctx("rcpt-1"));
    expect(r?.sequence).toBeNull();
    const failure: InvocationResult = {
      ok: false,
      failure: { variant: "timeout", failure_class: "timeout", retry_class: "safe_retry", detail: "late" },
      stderrTail: "",
      elapsedMs: 1,
    } as InvocationResult;
    emitter(ledger).emit(ledgerEnvelope(ledgerRequest({ eventId: "e2", key: "k2" })), failure, ctx("rcpt-2"));
    expect(ledger.list().map((x) => [x.receipt_id, x.status])).toEqual([
      ["rcpt-1", "delivered"],
      ["rcpt-2", "failed"],
    ]);
    expect(ledger.get("k2", "client-a", "codex")).toBeUndefined();
    ledger.close();
  });

  it("a receipt_id recorded with other content is a storage fault", () => {
    const ledger = ReceiptLedger.open(fresh());
    emitter(ledger).emit(ledgerEnvelope(ledgerRequest({ eventId: "e1" })), delivered, ctx("rcpt-same"));
    const fault = faultOf(() =>
      emitter(ledger).emit(ledgerEnvelope(ledgerRequest({ eventId: "e2" })), delivered, ctx("rcpt-same")),
    );
    expect(fault.fault).toBe("storage");
    expect(fault.message).toMatch(/already holds another receipt with receipt_id "rcpt-same"/);
    expect(ledger.list()).toHaveLength(1);
    ledger.close();
  });
});

describe("receipt ledger: versions", () => {
  function agedLedger(wire: string, userVersion: number): string {
    const path = fresh();
    const ledger = ReceiptLedger.open(path);
    emitter(ledger).emit(
      ledgerEnvelope(ledgerRequest({ eventId: "e1", key: "k1", runId: "run" })),
      delivered,
      ctx("rcpt-old"),
    );
    ledger.close();
    ageLedger(path, wire, userVersion);
    return path;
  }

  it("a version-1 ledger of this wire version is upgraded (trigger, user_version 2) when opened for writing, not when read", () => {
    const path = agedLedger(WIRE_VERSION, 1);
    ReceiptLedger.open(path, { readOnly: true }).close();
    expect(rawDb(path).pragma("user_version", { simple: true })).toBe(1);
    const ledger = ReceiptLedger.open(path);
    expect(
      emitter(ledger).emit(ledgerEnvelope(ledgerRequest({ eventId: "e2", runId: "run" })), delivered, ctx("rcpt-new"))
        ?.sequence,
    ).toBe(2);
    ledger.close();
    const db = rawDb(path);
    expect(db.pragma("user_version", { simple: true })).toBe(2);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all()).toEqual([
      { name: WIRE_GUARD_TRIGGER },
    ]);
    db.close();
  });

  it("a ledger of another wire version is refused for writing (left as it was) and still readable", () => {
    const path = agedLedger("lifeloop.v0.1", 1);
    const fault = faultOf(() => ReceiptLedger.open(path));
    expect(fault.fault).toBe("wire_version");
    expect(fault.message).toContain(`last written under wire lifeloop.v0.1 and this program writes ${WIRE_VERSION}`);
    expect(rawDb(path).pragma("user_version", { simple: true })).toBe(1);
    const reader = ReceiptLedger.open(path, { readOnly: true });
    expect(reader.list().map((r) => r.schema_version)).toEqual(["lifeloop.v0.1"]);
    expect(reader.get("k1", "client-a", "codex")?.receipt_id).toBe("rcpt-old");
    reader.close();
    // The same with --wire-version: a program writing lifeloop.v0.1 may extend it.
    const older = ReceiptLedger.open(path, { wireVersion: "lifeloop.v0.1" });
    older.close();
  });

  it("another user_version is refused, read or write, naming it", () => {
    const path = fresh();
    const raw = rawDb(path, true, true);
    raw.pragma("user_version = 999");
    raw.close();
    for (const readOnly of [false, true]) {
      const fault = faultOf(() => ReceiptLedger.open(path, { readOnly }));
      expect(fault.fault).toBe("unsupported_version");
      expect(fault.message).toMatch(/user_version\) is 999/);
    }
    const after = rawDb(path);
    expect(after.pragma("journal_mode", { simple: true })).toBe("delete"); // left as it was, not switched to WAL
    after.close();
  });
});

describe("receipt ledger: faults are ReceiptLedgerErrors", () => {
  it("paths that cannot hold a ledger: cannot_open, with the reason", () => {
    const file = join(dir, "plain-file");
    writeFileSync(file, "x");
    const notDb = join(dir, "not-a-db.sqlite");
    writeFileSync(notDb, "this is not a database, just some text that is long enough to have a header".repeat(3));
    mkdirSync(join(dir, "a-dir"));
    const cases: [string, RegExp][] = [
      [join(dir, "a-dir"), /is a directory/],
      [join(dir, "missing", "l.sqlite"), /its directory .* does not exist/],
      [join(file, "l.sqlite"), /not a directory/],
      [notDb, /not a database/],
    ];
    for (const [path, why] of cases) {
      const fault = faultOf(() => ReceiptLedger.open(path));
      expect(fault.fault, path).toBe("cannot_open");
      expect(fault.message, path).toMatch(why);
      expect(fault.failure_class).toBe("internal_error");
    }
    expect(faultOf(() => ReceiptLedger.open(join(dir, "absent.sqlite"), { readOnly: true })).message).toMatch(
      /no such file/,
    );
  });

  it("a corrupt stored receipt is a corrupt fault naming it, not a crash", () => {
    const path = fresh();
    const ledger = ReceiptLedger.open(path);
    emitter(ledger).emit(ledgerEnvelope(ledgerRequest({ eventId: "e1", key: "k1" })), delivered, ctx("rcpt-1"));
    ledger.close();
    const db = rawDb(path, true);
    db.exec("UPDATE idempotency SET body = '{not json'");
    db.close();
    const reader = ReceiptLedger.open(path, { readOnly: true });
    const fault = faultOf(() => reader.get("k1", "client-a", "codex"));
    expect(fault.fault).toBe("corrupt");
    expect(fault.message).toMatch(/idempotency row \(client_id "client-a", adapter_id "codex", idempotency_key "k1"\)/);
    reader.close();
  });

  it("a write lock held past the busy timeout is a storage fault (SQLITE_BUSY), and the write is not half done", () => {
    const path = fresh();
    ReceiptLedger.open(path).close();
    const holder = rawDb(path, true);
    holder.exec("BEGIN IMMEDIATE");
    const ledger = ReceiptLedger.open(path, { busyTimeoutMs: 50 });
    const fault = faultOf(() =>
      emitter(ledger).emit(
        ledgerEnvelope(ledgerRequest({ eventId: "e1", key: "k1", runId: "r" })),
        delivered,
        ctx("rcpt-1"),
      ),
    );
    expect(fault.fault).toBe("storage");
    expect(fault.sqliteCode).toMatch(/^SQLITE_BUSY/);
    holder.exec("ROLLBACK");
    holder.close();
    expect(ledger.list()).toEqual([]);
    expect(ledger.current("r")).toBe(0);
    ledger.close();
    expect(LEDGER_BUSY_TIMEOUT_MS).toBe(5000);
  });
});
