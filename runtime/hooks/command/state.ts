/**
 * Per-harness-session state of the `hook` command (spec/hook-command.md, "State"): the frame a
 * UserPromptSubmit opened (so a Claude Code Stop, whose input has no turn id, ends the same frame)
 * and the number of consecutive Stop continuations (the loop bound). One small JSON file per
 * (adapter, session) under the state directory, named by a SHA-256 of the session id, written
 * atomically (temporary file + rename). Mode 0700 directory, 0600 files.
 */
import { createHash, randomUUID } from "node:crypto";
import {
  accessSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  type Stats,
  unlinkSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { readRegularFile } from "../../process/regular-file.js";
import { writeAllSync } from "../../process/write-all.js";

/**
 * Largest state file read, in bytes (spec/hook-command.md, "State"). A state file holds a frame id
 * and a count, well under 1 KiB; a larger file is not one of ours and is replaced like any other
 * unusable file, after at most this many bytes plus one were read.
 */
export const MAX_STATE_FILE_BYTES = 65_536;

/** What is remembered about one harness session. */
export interface HookSessionState {
  /** The open frame's id (set at frame.opening, cleared when a Stop ends the frame), or null. */
  readonly frame_id: string | null;
  /** Consecutive Stop continuations rendered in the current chain (0 when none). */
  readonly stop_continuations: number;
}

/** The state of a session nothing is known about. */
export const EMPTY_SESSION_STATE: HookSessionState = { frame_id: null, stop_continuations: 0 };

/** `$XDG_STATE_HOME/lifeloop-callback/hooks`, or `~/.local/state/lifeloop-callback/hooks` (XDG Base Directory). */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME?.startsWith("/") ? env.XDG_STATE_HOME : join(homedir(), ".local", "state");
  return join(base, "lifeloop-callback", "hooks");
}

function isState(value: unknown): value is HookSessionState {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return (
    (v.frame_id === null || typeof v.frame_id === "string") &&
    Number.isSafeInteger(v.stop_continuations) &&
    (v.stop_continuations as number) >= 0
  );
}

/** An errno-shaped error (as Node's SystemError: `code`, `path`, message `CODE: description, syscall 'path'`). */
function errnoError(code: string, description: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${description}, stat '${path}'`), { code, path, syscall: "stat" });
}

/**
 * Check, creating nothing, that `dir` is a directory this process may write and search, or that
 * `mkdir -p dir` would make one: its nearest existing ancestor is such a directory (spec/hook-command.md,
 * "State"). Throws an errno-shaped error whose `path` is the path in the way: ENOTDIR (a component
 * is not a directory), ENOENT (a symbolic link to a missing path, where mkdir stops), EACCES or
 * EROFS (from access(2)), or whatever stat(2) reported.
 */
export function checkDirectoryWritable(dir: string): void {
  let at = resolve(dir);
  for (;;) {
    let stats: Stats;
    try {
      stats = statSync(at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: some ancestor is not a directory; walking up finds and names it.
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      if (code === "ENOENT" && lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink())
        throw errnoError("ENOENT", "a symbolic link to a missing path", at);
      const parent = dirname(at);
      if (parent === at) throw error;
      at = parent;
      continue;
    }
    if (!stats.isDirectory()) throw errnoError("ENOTDIR", "not a directory", at);
    accessSync(at, constants.W_OK | constants.X_OK);
    return;
  }
}

/** The state files of one adapter in one directory. Errors of the file system are thrown (the caller reports them). */
export class HookStateStore {
  constructor(
    readonly dir: string,
    readonly adapter: string,
  ) {}

  /** Throws unless the state can be saved (see {@link checkDirectoryWritable}); creates nothing. */
  checkWritable(): void {
    checkDirectoryWritable(this.dir);
  }

  /** Path of a session's file. */
  pathOf(sessionId: string): string {
    return join(this.dir, `${this.adapter}-${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}.json`);
  }

  /**
   * The session's state; a missing file is the empty state, and so is a regular file that does not
   * hold a state or is larger than {@link MAX_STATE_FILE_BYTES} (`corrupt` says so: it is replaced on
   * save). Never blocks and never reads more than the bound plus one byte: the file is opened
   * non-blocking and must be a regular file. @throws an errno-shaped error when the file cannot be
   * opened or read, or is not a regular file (a FIFO, a device such as /dev/zero through a symbolic
   * link, a directory: code EINVAL, `path` the file), so the call fails before any delivery.
   */
  load(sessionId: string): { readonly state: HookSessionState; readonly corrupt: boolean } {
    const path = this.pathOf(sessionId);
    const read = readRegularFile(path, MAX_STATE_FILE_BYTES);
    if (!read.ok) {
      if (read.problem === "too_large") return { state: EMPTY_SESSION_STATE, corrupt: true };
      if (read.problem === "not_regular")
        throw Object.assign(new Error(`EINVAL: not a regular file (${read.kind}), open '${path}'`), {
          code: "EINVAL",
          path,
        });
      if (read.problem === "open" && (read.error as NodeJS.ErrnoException).code === "ENOENT")
        return { state: EMPTY_SESSION_STATE, corrupt: false };
      throw read.error;
    }
    const text = read.bytes.toString("utf8");
    try {
      const value: unknown = JSON.parse(text);
      if (isState(value))
        return { state: { frame_id: value.frame_id, stop_continuations: value.stop_continuations }, corrupt: false };
    } catch {
      // fall through: a file we cannot use is replaced on save
    }
    return { state: EMPTY_SESSION_STATE, corrupt: true };
  }

  /**
   * Write the session's state atomically: every byte into a temporary file, then rename it over the
   * state file. On any failure (a full disk: ENOSPC, or EFBIG past a file-size limit) the temporary
   * file is removed and the old state file stays as it was. @throws the file system's error.
   */
  save(sessionId: string, state: HookSessionState): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = this.pathOf(sessionId);
    const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`;
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      try {
        writeAllSync(fd, Buffer.from(`${JSON.stringify(state)}\n`));
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, path);
    } catch (error) {
      try {
        unlinkSync(tmp);
      } catch {
        // Already gone (renamed, or never written): nothing is left behind either way.
      }
      throw error;
    }
  }
}
