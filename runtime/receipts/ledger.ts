/**
 * The durable receipt ledger (spec/host-runtime.md §"Receipts: the ledger"): one SQLite file that
 * keeps, across processes, the three things an in-memory {@link ReceiptEmitter} forgets when its
 * process ends: the idempotency boundary (replay and conflict), the per-run `sequence` counters and
 * every emitted receipt, in the order written. The file format is the reference CLI's `--ledger`
 * (lifeloop-cli 0.8.0 and later), so either CLI can read and extend a ledger the other wrote:
 *
 * - `PRAGMA user_version` 2; tables `receipts(receipt_id PK, parent_receipt_id, body)` (append-only,
 *   listed in rowid order), `idempotency(client_id, adapter_id, idempotency_key, body)` keyed by the
 *   triple, `run_sequences(run_id PK, counter)`; `body` is the receipt as compact JSON;
 * - the trigger `receipts_single_wire_schema`: an insert whose `schema_version` differs from the
 *   newest stored receipt's is aborted by SQLite itself, whichever program holds the connection;
 * - version 1 (the same tables without the trigger) is readable and upgraded when opened for writing;
 *   any other version is refused; a ledger whose newest receipt has another wire version is refused
 *   for writing and stays readable; a file that is not a ledger (user_version 0 with anything in it,
 *   or version 1/2 without the ledger's tables and columns) is refused and left byte-for-byte as it was.
 *
 * Concurrency: WAL, a busy timeout ({@link LEDGER_BUSY_TIMEOUT_MS}) and `BEGIN IMMEDIATE` around every
 * read-compare-write, so writers in many processes queue for the write lock instead of failing, and
 * each sees the others' commits. Through a {@link ReceiptEmitter} the whole emission (replay check,
 * sequence, insert) is one transaction: a sequence number is never handed out twice nor lost to a
 * replay race. Every fault is a {@link ReceiptLedgerError}; a write either commits whole or not at all
 * (SQLite's journal), so a process killed at any moment leaves the file consistent.
 *
 * The SQLite binding (better-sqlite3, an optional dependency compiled on install where no prebuilt
 * binary fits) is loaded on the first {@link ReceiptLedger.open}, never by importing this module.
 */
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { WIRE_VERSION } from "../../generated/ts/spec/wire-version.js";
import type { FailureClass, LifecycleReceipt, RetryClass } from "../../generated/ts/types.js";
import { defaultRetryClass } from "../invoker/failure.js";
import {
  IdempotencyConflictError,
  replayContentEqual,
  type IdempotencyKey,
  type IdempotencyStore,
  type StoreOutcome,
} from "./idempotency.js";
import type { SequenceSource } from "./sequence.js";

/** The on-disk schema version this module writes (`PRAGMA user_version`). */
export const LEDGER_SCHEMA_VERSION = 2;
/** The earlier on-disk version (no wire-version trigger): read as is, upgraded to 2 when opened for writing. */
export const UNFENCED_LEDGER_SCHEMA_VERSION = 1;
/** How long a connection waits for another process's write lock before giving up (SQLite busy timeout), in ms. */
export const LEDGER_BUSY_TIMEOUT_MS = 5000;
/** Name of the trigger that keeps one wire version per ledger (the reference's name: both CLIs create it once). */
export const WIRE_GUARD_TRIGGER = "receipts_single_wire_schema";
/** The package to install when the SQLite binding is missing. */
export const LEDGER_BINDING = "better-sqlite3@12";

/**
 * Why a ledger could not be used:
 * - `binding_missing`: better-sqlite3 is not installed (or not built for this Node);
 * - `cannot_open`: the path cannot hold a ledger (missing directory, a directory, not writable, not a database,
 *   or a database that is not a receipt ledger: `user_version` 0 with objects in it, or a version 1/2 file
 *   without the ledger's tables and columns; such a file is refused before anything in it is changed);
 * - `unsupported_version`: `user_version` is neither 1 nor 2 (a newer or foreign file), never reinterpreted;
 * - `wire_version`: opened for writing, but its newest receipt has another wire version;
 * - `corrupt`: a stored receipt is not JSON;
 * - `storage`: SQLite failed during a read or write (disk full, I/O error, lock wait past the busy timeout).
 */
export type ReceiptLedgerFault =
  | "binding_missing"
  | "cannot_open"
  | "unsupported_version"
  | "wire_version"
  | "corrupt"
  | "storage";

/**
 * A receipt ledger fault: `fault` says which (see {@link ReceiptLedgerFault}), `path` the ledger file,
 * `sqliteCode` SQLite's code when it reported one (e.g. `SQLITE_FULL`). The message says what to do.
 * `failure_class` is `internal_error` with its default retry class (the receipt could not be kept;
 * the reference maps its ledger storage faults the same way). The CLI exits 3 for it (hook: 1).
 */
export class ReceiptLedgerError extends Error {
  readonly failure_class: FailureClass = "internal_error";
  readonly retry_class: RetryClass = defaultRetryClass("internal_error");

  constructor(
    readonly fault: ReceiptLedgerFault,
    readonly path: string,
    message: string,
    readonly sqliteCode: string | null = null,
  ) {
    super(message);
    this.name = "ReceiptLedgerError";
  }
}

/** How to open a ledger. */
export interface ReceiptLedgerOptions {
  /** Open without writing anything (no creation, no upgrade, no wire check): `list` and `get` only. Default false. */
  readonly readOnly?: boolean;
  /** The wire version written receipts carry (default: this package's WIRE_VERSION). */
  readonly wireVersion?: string;
  /** Busy timeout in ms (default {@link LEDGER_BUSY_TIMEOUT_MS}). */
  readonly busyTimeoutMs?: number;
}

// The small part of better-sqlite3's API used here (the package ships no types of its own).
interface Statement {
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
  run(...params: unknown[]): unknown;
}
interface Transaction<T> {
  (): T;
  /** BEGIN DEFERRED: a read transaction (one snapshot) until the first write. */
  deferred(): T;
  immediate(): T;
}
interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  transaction<T>(fn: () => T): Transaction<T>;
  close(): void;
  readonly inTransaction: boolean;
}
type DatabaseConstructor = new (
  path: string,
  options: { readonly?: boolean; fileMustExist?: boolean; timeout?: number },
) => Database;

let binding: DatabaseConstructor | null = null;

/** better-sqlite3, loaded on first use; a missing or unbuilt package is a `binding_missing` fault naming what to install. */
function loadBinding(path: string): DatabaseConstructor {
  if (binding !== null) return binding;
  try {
    binding = createRequire(import.meta.url)("better-sqlite3") as DatabaseConstructor;
    return binding;
  } catch (error) {
    const why = (error as Error).message.split("\n")[0];
    throw new ReceiptLedgerError(
      "binding_missing",
      path,
      `the receipt ledger needs the SQLite binding better-sqlite3, which cannot be loaded (${why}): install it with npm install ${LEDGER_BINDING} (where no prebuilt binary fits, it compiles: python3, make and a C++ compiler are needed)`,
    );
  }
}

// The schema. Column names, the trigger's name and its rule are the shared file format; the trigger
// compares with the newest row (by rowid), as every insert is checked, so the last one says whose
// ledger it is.
const WIRE_GUARD_SQL = `CREATE TRIGGER IF NOT EXISTS ${WIRE_GUARD_TRIGGER}
  BEFORE INSERT ON receipts
  WHEN EXISTS (SELECT 1 FROM receipts)
   AND json_extract(NEW.body, '$.schema_version') IS NOT
       (SELECT json_extract(body, '$.schema_version') FROM receipts ORDER BY rowid DESC LIMIT 1)
  BEGIN
    SELECT RAISE(ABORT, 'this receipt has another wire schema_version than the ledger''s newest receipt; start a new --ledger');
  END;`;

// Plain CREATE TABLE: the tables are only made in a file that holds nothing (checkEmpty), so one that
// exists already is an error, never silently reused.
const TABLES_SQL = `
  CREATE TABLE receipts (receipt_id TEXT PRIMARY KEY, parent_receipt_id TEXT, body TEXT NOT NULL);
  CREATE TABLE idempotency (
    client_id TEXT NOT NULL, adapter_id TEXT NOT NULL, idempotency_key TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (client_id, adapter_id, idempotency_key)
  );
  CREATE TABLE run_sequences (run_id TEXT PRIMARY KEY, counter INTEGER NOT NULL);`;

/** The ledger's tables and the columns this module reads and writes in each (checked on every open of an existing ledger). */
const LEDGER_COLUMNS: readonly (readonly [string, readonly string[]])[] = [
  ["receipts", ["receipt_id", "parent_receipt_id", "body"]],
  ["idempotency", ["client_id", "adapter_id", "idempotency_key", "body"]],
  ["run_sequences", ["run_id", "counter"]],
];

function sqliteCodeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : null;
}

/** What SQLite's code means for the person running the command. */
function adviceFor(code: string | null): string {
  if (code === null) return "";
  if (code.startsWith("SQLITE_FULL"))
    return ": the disk (or the file size limit) is full; free space, or give --ledger a path on another file system";
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
    return `: another process held the ledger's write lock longer than the busy timeout; retry`;
  if (code.startsWith("SQLITE_READONLY"))
    return ": the file or its directory is not writable; give --ledger a path this user can write";
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB")
    return ": the file is not a usable SQLite database; give --ledger another path";
  if (code.startsWith("SQLITE_IOERR")) return ": an I/O error; check the file system (or the file size limit)";
  if (code.startsWith("SQLITE_CANTOPEN"))
    return ": it cannot be created or opened for reading and writing; give --ledger a path in a directory this user can write";
  return "";
}

/** A SQLite error as a `storage` fault; any other error (ours, a conflict, the caller's) unchanged. */
function storageError(path: string, doing: string, error: unknown): unknown {
  const code = sqliteCodeOf(error);
  if (code === null) return error;
  return new ReceiptLedgerError(
    "storage",
    path,
    `cannot ${doing} the receipt ledger ${path}: ${(error as Error).message}${adviceFor(code)}`,
    code,
  );
}

/** Why `path` cannot be opened, checked before SQLite tries (its own message is only "unable to open database file"). */
function pathProblem(path: string, readOnly: boolean): string | null {
  let stat: ReturnType<typeof statSync> | undefined;
  try {
    stat = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") return "a component of the path is not a directory";
    if (code !== "ENOENT") return `${(error as Error).message}`;
  }
  if (stat === undefined) {
    if (readOnly) return "there is no such file";
    const dir = dirname(resolve(path));
    if (!existsSync(dir))
      return `its directory ${dir} does not exist (the ledger file is created, its directory is not)`;
    return null;
  }
  if (stat.isDirectory()) return "it is a directory: name a file (e.g. receipts.sqlite) inside it";
  if (!stat.isFile()) return "it is not a regular file";
  return null;
}

/** Deep JSON equality of two stored bodies (key order and whitespace aside). */
function sameJson(a: string, b: string): boolean {
  if (a === b) return true;
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v === null || typeof v !== "object") return v;
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
    );
  };
  try {
    return JSON.stringify(sort(JSON.parse(a))) === JSON.stringify(sort(JSON.parse(b)));
  } catch {
    return false;
  }
}

/**
 * A receipt ledger file. Plug it into a {@link ReceiptEmitter} as both its store and its sequencer
 * (`new ReceiptEmitter({ store: ledger, sequencer: ledger })`): each emission then runs in one
 * IMMEDIATE transaction ({@link ReceiptLedger.transaction}), and every receipt it makes is recorded.
 * Synchronous, like SQLite; one instance per process (or per thread), closed with {@link close}.
 */
export class ReceiptLedger implements IdempotencyStore, SequenceSource {
  private readonly statements = new Map<string, Statement>();

  private constructor(
    /** The ledger file, as given. */
    readonly path: string,
    private readonly db: Database,
    /** The wire version receipts written through this handle must carry. */
    readonly wireVersion: string,
    /** Opened with `readOnly`: every write throws. */
    readonly readOnly: boolean,
  ) {}

  /**
   * Open the ledger at `path`. For writing (the default) the file is created when missing (its
   * directory must exist), checked (an empty file, or a ledger whose newest receipt has
   * `options.wireVersion`; anything else is refused unchanged), then set to WAL and given the schema
   * (or upgraded from version 1) in one transaction. Read-only opens an existing version 1 or 2
   * ledger as it is. @throws ReceiptLedgerError (binding_missing, cannot_open, unsupported_version, wire_version, storage)
   */
  static open(path: string, options: ReceiptLedgerOptions = {}): ReceiptLedger {
    const readOnly = options.readOnly ?? false;
    const wireVersion = options.wireVersion ?? WIRE_VERSION;
    const timeout = options.busyTimeoutMs ?? LEDGER_BUSY_TIMEOUT_MS;
    const problem = pathProblem(path, readOnly);
    if (problem !== null)
      throw new ReceiptLedgerError("cannot_open", path, `cannot open the receipt ledger ${path}: ${problem}`);
    const Sqlite = loadBinding(path);
    let db: Database;
    try {
      db = new Sqlite(path, { readonly: readOnly, fileMustExist: readOnly, timeout });
    } catch (error) {
      const code = sqliteCodeOf(error);
      throw new ReceiptLedgerError(
        "cannot_open",
        path,
        `cannot open the receipt ledger ${path}: ${(error as Error).message}${adviceFor(code)}`,
        code,
      );
    }
    const ledger = new ReceiptLedger(path, db, wireVersion, readOnly);
    try {
      ledger.prepareSchema();
      return ledger;
    } catch (error) {
      db.close();
      if (error instanceof ReceiptLedgerError) throw error;
      const code = sqliteCodeOf(error);
      throw new ReceiptLedgerError(
        code === "SQLITE_NOTADB" ? "cannot_open" : "storage",
        path,
        `cannot open the receipt ledger ${path}: ${(error as Error).message}${adviceFor(code)}`,
        code,
      );
    }
  }

  private prepareSchema(): void {
    // Everything below is judged by reading only: a file that is not a ledger is refused before
    // anything (journal mode included) is changed, and left exactly as it was. The reads are one
    // read transaction (one snapshot): read one by one, the version could be read before another
    // process created the ledger and its tables after, and a new ledger be taken for a foreign file.
    const version = this.db
      .transaction((): number => {
        const v = this.userVersion();
        if (v !== 0 && v !== LEDGER_SCHEMA_VERSION && v !== UNFENCED_LEDGER_SCHEMA_VERSION) {
          throw this.unsupported(
            v,
            this.readOnly
              ? `${UNFENCED_LEDGER_SCHEMA_VERSION} or ${LEDGER_SCHEMA_VERSION}`
              : String(LEDGER_SCHEMA_VERSION),
          );
        }
        if (v === 0) {
          if (this.readOnly) throw this.unsupported(v, `${UNFENCED_LEDGER_SCHEMA_VERSION} or ${LEDGER_SCHEMA_VERSION}`);
          this.checkEmpty();
        } else {
          this.checkTables();
          if (!this.readOnly) this.checkWireVersion();
        }
        return v;
      })
      .deferred();
    if (this.readOnly) return;
    // WAL lets readers go on while one process writes; set once, it is kept in the file (and cannot
    // change inside a transaction, so it comes before the schema's).
    this.db.pragma("journal_mode = WAL");
    if (version === LEDGER_SCHEMA_VERSION) return;
    // Create (0) or upgrade (1) in one transaction under the write lock, judging the file again once
    // it is held: another process may have done it (or put something else there) meanwhile. The
    // version stamp commits with the tables, so 0 always means empty.
    this.transaction(() => {
      const now = this.userVersion();
      if (now === 0) {
        this.checkEmpty();
        this.db.exec(TABLES_SQL);
        this.db.exec(WIRE_GUARD_SQL);
      } else if (now === UNFENCED_LEDGER_SCHEMA_VERSION || now === LEDGER_SCHEMA_VERSION) {
        this.checkTables();
        // A refusal rolls back, leaving the older release its version-1 ledger.
        this.checkWireVersion();
        if (now === UNFENCED_LEDGER_SCHEMA_VERSION) this.db.exec(WIRE_GUARD_SQL);
      } else {
        throw this.unsupported(now, String(LEDGER_SCHEMA_VERSION));
      }
      this.db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION}`);
    });
  }

  /** A file of `user_version` 0 becomes a ledger only when it holds nothing (no table, index, view or trigger). */
  private checkEmpty(): void {
    const row = this.db.prepare("SELECT type, name FROM sqlite_master LIMIT 1").get();
    if (row === undefined) return;
    throw this.notALedger(
      `its user_version is 0 but it already holds the ${String(row.type)} ${JSON.stringify(String(row.name))}`,
    );
  }

  /** A version 1 or 2 file must have the ledger's tables with their columns (the shared file format). */
  private checkTables(): void {
    for (const [table, columns] of LEDGER_COLUMNS) {
      const have = new Set(
        this.db
          .prepare("SELECT name FROM pragma_table_info(?)")
          .all(table)
          .map((r) => String(r.name)),
      );
      if (have.size === 0) throw this.notALedger(`it has no ${table} table`);
      const missing = columns.find((c) => !have.has(c));
      if (missing !== undefined) throw this.notALedger(`its ${table} table has no ${missing} column`);
    }
  }

  private notALedger(why: string): ReceiptLedgerError {
    return new ReceiptLedgerError(
      "cannot_open",
      this.path,
      `cannot open the receipt ledger ${this.path}: not a receipt ledger (${why}); it was left unchanged: give --ledger a new path or an existing ledger`,
    );
  }

  private unsupported(version: number, expected: string): ReceiptLedgerError {
    return new ReceiptLedgerError(
      "unsupported_version",
      this.path,
      `cannot open the receipt ledger ${this.path}: its schema version (user_version) is ${version}, this program reads ${expected}; refusing to reinterpret it (a newer program's ledger, or not a receipt ledger)`,
    );
  }

  private userVersion(): number {
    return Number(this.db.pragma("user_version", { simple: true }));
  }

  private statement(sql: string): Statement {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** Refuse to write into a ledger whose newest receipt has another wire version (checked at open and in every recording transaction). */
  private checkWireVersion(): void {
    const row = this.statement("SELECT body FROM receipts ORDER BY rowid DESC LIMIT 1").get();
    if (row === undefined) return;
    let stored: unknown;
    try {
      stored = (JSON.parse(String(row.body)) as { schema_version?: unknown }).schema_version;
    } catch {
      stored = undefined;
    }
    if (typeof stored !== "string")
      throw new ReceiptLedgerError(
        "corrupt",
        this.path,
        `the receipt ledger ${this.path} is corrupt: its newest receipt has no schema_version`,
      );
    if (stored === this.wireVersion) return;
    throw new ReceiptLedgerError(
      "wire_version",
      this.path,
      `the receipt ledger ${this.path} was last written under wire ${stored} and this program writes ${this.wireVersion}: replay identity includes the wire version, so start a new --ledger for ${this.wireVersion} (the old one stays readable with receipt list --ledger)`,
    );
  }

  private writable(doing: string): void {
    if (this.readOnly)
      throw new ReceiptLedgerError(
        "storage",
        this.path,
        `cannot ${doing}: the receipt ledger ${this.path} was opened read-only`,
      );
  }

  /**
   * Run `body` in one IMMEDIATE transaction (the write lock taken first, waiting up to the busy
   * timeout), committed when it returns and rolled back when it throws (its error is rethrown, a
   * SQLite error as a `storage` ReceiptLedgerError). Nested calls join the outer transaction.
   */
  transaction<T>(body: () => T): T {
    this.writable("write");
    try {
      const tx = this.db.transaction(body);
      return this.db.inTransaction ? tx() : tx.immediate();
    } catch (error) {
      throw storageError(this.path, "write", error);
    }
  }

  /** The receipt recorded under `key` (client_id, adapter_id, idempotency_key), or undefined. @throws ReceiptLedgerError */
  get(key: IdempotencyKey): LifecycleReceipt | undefined;
  /** The receipt recorded under this idempotency key of `clientId` and `adapterId` (the CLI's `receipt get`), or undefined. */
  get(idempotencyKey: string, clientId: string, adapterId: string): LifecycleReceipt | undefined;
  get(key: IdempotencyKey | string, clientId?: string, adapterId?: string): LifecycleReceipt | undefined {
    const k: IdempotencyKey =
      typeof key === "string"
        ? { idempotency_key: key, client_id: clientId as string, adapter_id: adapterId as string }
        : key;
    let row: Record<string, unknown> | undefined;
    try {
      row = this.statement(
        "SELECT body FROM idempotency WHERE client_id = ? AND adapter_id = ? AND idempotency_key = ?",
      ).get(k.client_id, k.adapter_id, k.idempotency_key);
    } catch (error) {
      throw storageError(this.path, "read", error);
    }
    return row === undefined
      ? undefined
      : this.parse(
          String(row.body),
          `the idempotency row (client_id ${JSON.stringify(k.client_id)}, adapter_id ${JSON.stringify(k.adapter_id)}, idempotency_key ${JSON.stringify(k.idempotency_key)})`,
        );
  }

  /**
   * Record `receipt` under `key`, or replay the prior receipt when its content is equal
   * ({@link replayContentEqual}); different content throws IdempotencyConflictError and writes
   * nothing. A new receipt is also appended to the receipts table, in the same transaction.
   */
  put(key: IdempotencyKey, receipt: LifecycleReceipt): StoreOutcome {
    return this.transaction(() => {
      const prior = this.get(key);
      if (prior !== undefined) {
        if (replayContentEqual(prior, receipt)) return { kind: "replayed", prior } as const;
        throw new IdempotencyConflictError(key, prior, receipt);
      }
      const body = JSON.stringify(receipt);
      this.statement("INSERT INTO idempotency (client_id, adapter_id, idempotency_key, body) VALUES (?, ?, ?, ?)").run(
        key.client_id,
        key.adapter_id,
        key.idempotency_key,
        body,
      );
      this.recordBody(receipt, body);
      return { kind: "inserted" } as const;
    });
  }

  /**
   * Append `receipt` to the receipts table (a receipt recorded without an idempotency key: a keyless
   * request, or a host-side failure, which does not consume its key). The same receipt again is a
   * no-op; another receipt under a recorded receipt_id is a `storage` fault (ids are per emission).
   */
  record(receipt: LifecycleReceipt): void {
    this.transaction(() => this.recordBody(receipt, JSON.stringify(receipt)));
  }

  private recordBody(receipt: LifecycleReceipt, body: string): void {
    const prior = this.statement("SELECT body FROM receipts WHERE receipt_id = ?").get(receipt.receipt_id);
    if (prior !== undefined) {
      if (sameJson(String(prior.body), body)) return;
      throw new ReceiptLedgerError(
        "storage",
        this.path,
        `the receipt ledger ${this.path} already holds another receipt with receipt_id ${JSON.stringify(receipt.receipt_id)}: receipt ids must be new for each emission`,
      );
    }
    // Again under the write lock: a writer of another wire version may have got in since the open.
    this.checkWireVersion();
    this.statement("INSERT INTO receipts (receipt_id, parent_receipt_id, body) VALUES (?, ?, ?)").run(
      receipt.receipt_id,
      receipt.parent_receipt_id ?? null,
      body,
    );
  }

  /** The last sequence number handed out for `runId` (0 when none was). @throws ReceiptLedgerError */
  current(runId: string): number {
    try {
      const row = this.statement("SELECT counter FROM run_sequences WHERE run_id = ?").get(runId);
      return row === undefined ? 0 : Number(row.counter);
    } catch (error) {
      throw storageError(this.path, "read", error);
    }
  }

  /** Hand out the next sequence number of `runId` (the first is 1), durably. @throws ReceiptLedgerError */
  next(runId: string): number {
    return this.transaction(() => {
      const row = this.statement(
        "INSERT INTO run_sequences (run_id, counter) VALUES (?, 1) ON CONFLICT(run_id) DO UPDATE SET counter = counter + 1 RETURNING counter",
      ).get(runId);
      return Number((row as Record<string, unknown>).counter);
    });
  }

  /** Every recorded receipt, in the order written (rowid order). @throws ReceiptLedgerError (corrupt, storage) */
  list(): LifecycleReceipt[] {
    let rows: Record<string, unknown>[];
    try {
      rows = this.statement("SELECT receipt_id, body FROM receipts ORDER BY rowid").all();
    } catch (error) {
      throw storageError(this.path, "read", error);
    }
    return rows.map((row) => this.parse(String(row.body), `the receipt ${JSON.stringify(row.receipt_id)}`));
  }

  private parse(body: string, what: string): LifecycleReceipt {
    try {
      const value: unknown = JSON.parse(body);
      if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as LifecycleReceipt;
    } catch {
      // reported below
    }
    throw new ReceiptLedgerError(
      "corrupt",
      this.path,
      `the receipt ledger ${this.path} is corrupt: ${what} is not a JSON object`,
    );
  }

  /** Close the connection (idempotent). */
  close(): void {
    this.db.close();
  }
}
