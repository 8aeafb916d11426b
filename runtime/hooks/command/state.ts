/**
 * Per-harness-session state of the `hook` command (spec/hook-command.md, "State"): the frame a
 * UserPromptSubmit opened (so a Claude Code Stop, whose input has no turn id, ends the same frame)
 * and the number of consecutive Stop continuations (the loop bound). One small JSON file per
 * (adapter, session) under the state directory, named by a SHA-256 of the session id, written
 * atomically (temporary file + rename). Mode 0700 directory, 0600 files.
 */
import { createHash, randomUUID } from "node:crypto";
import { accessSync, constants, lstatSync, mkdirSync, readFileSync, renameSync, statSync, type Stats, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

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
  return (v.frame_id === null || typeof v.frame_id === "string") && Number.isSafeInteger(v.stop_continuations) && (v.stop_continuations as number) >= 0;
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
      if (code === "ENOENT" && lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) throw errnoError("ENOENT", "a symbolic link to a missing path", at);
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

  /** The session's state; a missing file is the empty state, and so is an unreadable one (`corrupt` says so). */
  load(sessionId: string): { readonly state: HookSessionState; readonly corrupt: boolean } {
    let text: string;
    try {
      text = readFileSync(this.pathOf(sessionId), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: EMPTY_SESSION_STATE, corrupt: false };
      throw error;
    }
    try {
      const value: unknown = JSON.parse(text);
      if (isState(value)) return { state: { frame_id: value.frame_id, stop_continuations: value.stop_continuations }, corrupt: false };
    } catch {
      // fall through: a file we cannot use is replaced on save
    }
    return { state: EMPTY_SESSION_STATE, corrupt: true };
  }

  /** Write the session's state atomically. */
  save(sessionId: string, state: HookSessionState): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = this.pathOf(sessionId);
    const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
    renameSync(tmp, path);
  }
}
