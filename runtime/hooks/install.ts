/**
 * `lifeloop-callback hook install|uninstall` (spec/hook-command.md, "Installing the hooks"): merge
 * the hooks block of `hook config` into a harness's settings file (Claude Code's
 * `.claude/settings.json`, Codex's `.codex/hooks.json`: both `{"hooks": {<HookEvent>: [{"matcher"?,
 * "hooks": [{"type": "command", "command", ...}]}]}}`), or take ours out of it.
 *
 * - An entry is ours when its `command` runs `lifeloop-callback hook` ({@link isOurHookCommand}).
 *   Install removes every entry of ours, then adds the block's entries to the group with the same
 *   matcher (a new group at the end of the event's list when there is none); a group or an event
 *   list that only held ours and is empty afterwards is removed. So a re-run replaces our entries,
 *   and a second identical run gives byte-identical text. Everything else is kept as it was (its
 *   order, its values; the text is re-serialized with the file's own indentation).
 * - A file that is not one JSON object, or whose `hooks` is not of the shape above, is refused
 *   ({@link SettingsFileError}, naming the JSON pointer); it is never rewritten.
 * - The file is replaced atomically ({@link replaceFileAtomically}).
 */
import { constants } from "node:fs";
import { chmod, lstat, mkdir, open, readFile, realpath, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { LIMITS } from "../../generated/ts/spec/limits.js";
import { describeIoError } from "../process/io-error.js";
import { issueText } from "../invoker/failure.js";
import { parseStrictJson } from "../wire/json/parse.js";
import { DEFAULT_DOCUMENT_LIMITS } from "../wire/validate.js";

/** A settings file that cannot be merged (malformed, unreadable, unwritable); `pointer` is RFC 6901, "" for the file. */
export class SettingsFileError extends Error {
  constructor(
    readonly file: string,
    readonly pointer: string,
    message: string,
  ) {
    super(`${file}${pointer === "" ? "" : `#${pointer}`}: ${message}`);
    this.name = "SettingsFileError";
  }
}

/** The hooks block `hook config` prints (runtime/hooks/command/config.ts hookConfig). */
export interface HooksBlock {
  readonly hooks: Readonly<Record<string, readonly unknown[]>>;
}

/**
 * Split a command line into words as a POSIX shell would for plain words: blanks separate;
 * single quotes keep everything; double quotes keep everything but `\"`, `\\`, `\$`, `` \` ``;
 * a backslash outside quotes escapes the next character. Operators (`;`, `&&`, `|`) stay words.
 */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (c === " " || c === "\t" || c === "\n") {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      const stop = end === -1 ? command.length : end;
      word = (word ?? "") + command.slice(i + 1, stop);
      i = stop;
    } else if (c === '"') {
      word ??= "";
      for (i++; i < command.length && command[i] !== '"'; i++) {
        if (command[i] === "\\" && i + 1 < command.length && '"\\$`'.includes(command[i + 1] as string)) i++;
        word += command[i];
      }
    } else if (c === "\\" && i + 1 < command.length) {
      word = (word ?? "") + command[++i];
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/**
 * The package's CLI entry points, relative to its root: the launcher (package.json `bin`, what
 * `hook config` writes), the bundle (the `bin` before the launcher) and the tsc output.
 */
const CLI_ENTRY_POINTS = ["dist/cli/launcher.cjs", "dist/cli/main.js", "dist/runtime/cli/main.js"];

/** Words after which the next word is the program a shell or launcher runs. */
const LAUNCHERS = new Set(["&&", "||", ";", "|", "exec", "env", "npx", "node", "nodejs"]);

/**
 * True when word `i` is what runs: the first word, or one after a shell operator, a launcher
 * (`env`, `exec`, `npx`, `node`, by file name), a launcher's flag (`npx --no-install`) or an
 * environment assignment (`VAR=value`). `echo lifeloop-callback hook` only mentions the CLI.
 */
function inCommandPosition(words: readonly string[], i: number): boolean {
  if (i === 0) return true;
  let j = i - 1;
  while (j > 0 && (words[j] as string).startsWith("-")) j--; // a launcher's flags
  const before = words[j] as string;
  return LAUNCHERS.has(basename(before)) || (j === i - 1 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(before));
}

/** The `hook` subcommands that are not a hook call (they never appear in a settings file's command). */
const NOT_A_HOOK_CALL = new Set(["config", "install", "uninstall"]);

/**
 * True when `command` runs `lifeloop-callback hook`: one of its words is the CLI (a file named
 * `lifeloop-callback`, or one of the package's entry points, `.../dist/cli/launcher.cjs` as `hook config`
 * writes it, `.../dist/cli/main.js` or `.../dist/runtime/cli/main.js`) and the next word is `hook`, not followed by `config`, `install` or `uninstall`.
 */
export function isOurHookCommand(command: unknown): boolean {
  if (typeof command !== "string") return false;
  const words = shellWords(command);
  for (let i = 0; i + 1 < words.length; i++) {
    const w = words[i] as string;
    const isCli = basename(w) === "lifeloop-callback" || CLI_ENTRY_POINTS.some((e) => w === e || w.endsWith(`/${e}`));
    if (isCli && inCommandPosition(words, i) && words[i + 1] === "hook" && !NOT_A_HOOK_CALL.has(words[i + 2] ?? ""))
      return true;
  }
  return false;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const pointerToken = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** A parsed settings file: the document and the indentation to write it back with. */
export interface SettingsDocument {
  readonly doc: Json;
  readonly indent: string;
}

/**
 * Parse a settings file's text: one JSON object (strict: no duplicate keys, no comments; an empty
 * or blank file is `{}`) whose `hooks`, when present, maps each event to a list of groups, each an
 * object whose `hooks`, when present, is a list. Throws {@link SettingsFileError} otherwise.
 */
export function parseSettings(file: string, bytes: Uint8Array): SettingsDocument {
  const text = Buffer.from(bytes).toString("utf8");
  if (text.trim() === "") return { doc: {}, indent: "  " };
  const parsed = parseStrictJson(bytes, DEFAULT_DOCUMENT_LIMITS);
  if (!parsed.ok)
    throw new SettingsFileError(
      file,
      parsed.issue.pointer,
      `not one JSON document (${issueText(parsed.issue)}); fix or move the file, it is left as it is`,
    );
  const doc = parsed.value;
  if (!isObject(doc))
    throw new SettingsFileError(file, "", "the settings file must hold one JSON object; it is left as it is");
  const hooks = doc.hooks;
  if (hooks !== undefined) {
    if (!isObject(hooks))
      throw new SettingsFileError(
        file,
        "/hooks",
        "must be an object of hook event names to lists of groups; the file is left as it is",
      );
    for (const [event, groups] of Object.entries(hooks)) {
      const at = `/hooks/${pointerToken(event)}`;
      if (!Array.isArray(groups))
        throw new SettingsFileError(file, at, "must be a list of {matcher, hooks} groups; the file is left as it is");
      groups.forEach((group, i) => {
        if (!isObject(group))
          throw new SettingsFileError(
            file,
            `${at}/${i}`,
            "must be an object {matcher, hooks}; the file is left as it is",
          );
        if (group.hooks !== undefined && !Array.isArray(group.hooks))
          throw new SettingsFileError(
            file,
            `${at}/${i}/hooks`,
            "must be a list of hook entries; the file is left as it is",
          );
      });
    }
  }
  const indent = /^\{[ \t]*\r?\n([ \t]+)\S/.exec(text)?.[1] ?? "  ";
  return { doc, indent };
}

/** The text a settings document is written as: JSON with `indent`, one final newline. */
export function renderSettings(s: SettingsDocument): string {
  return `${JSON.stringify(s.doc, null, s.indent)}\n`;
}

/** What a merge did: the new document, how many of our entries it removed and added. */
export interface MergeOutcome {
  readonly doc: Json;
  readonly removed: number;
  readonly added: number;
}

/**
 * Merge `block` into `doc` (a copy; `doc` is not modified): remove our entries, add the block's
 * (none for uninstall), drop the groups and event lists that held only ours. `doc` must have been
 * accepted by {@link parseSettings}.
 */
export function mergeHooks(doc: Json, block: HooksBlock | null): MergeOutcome {
  const out = structuredClone(doc) as Json;
  const hadHooks = out.hooks !== undefined;
  const hooks = (out.hooks ?? {}) as Record<string, Json[]>;
  const emptied = new Set<Json>();
  const emptiedEvents = new Set<string>();
  let removed = 0;
  for (const groups of Object.values(hooks)) {
    for (const group of groups) {
      if (!Array.isArray(group.hooks)) continue;
      const kept = (group.hooks as unknown[]).filter((h) => !(isObject(h) && isOurHookCommand(h.command)));
      if (kept.length === group.hooks.length) continue;
      removed += group.hooks.length - kept.length;
      group.hooks = kept;
      if (kept.length === 0) emptied.add(group);
    }
  }
  let added = 0;
  for (const [event, newGroups] of Object.entries(block?.hooks ?? {})) {
    if (hooks[event] === undefined) hooks[event] = [];
    const groups = hooks[event] as Json[];
    for (const g of newGroups as Json[]) {
      const matcher = g.matcher ?? null;
      const same = groups.find((x) => (x.matcher ?? null) === matcher && Array.isArray(x.hooks));
      const entries = structuredClone(g.hooks) as unknown[];
      added += entries.length;
      if (same) (same.hooks as unknown[]).push(...entries);
      else groups.push(structuredClone(g) as Json);
    }
  }
  for (const [event, groups] of Object.entries(hooks)) {
    const left = groups.filter((g) => !(emptied.has(g) && (g.hooks as unknown[]).length === 0));
    if (left.length === groups.length) continue;
    if (left.length === 0) {
      delete hooks[event];
      emptiedEvents.add(event);
    } else hooks[event] = left;
  }
  if (Object.keys(hooks).length > 0 || (hadHooks && emptiedEvents.size === 0)) out.hooks = hooks;
  else delete out.hooks;
  return { doc: out, removed, added };
}

/** The settings file's bytes, or null when it does not exist. Throws {@link SettingsFileError}. */
export async function readSettingsFile(file: string): Promise<Uint8Array | null> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new SettingsFileError(file, "", "is not a regular file");
    if (info.size > LIMITS.max_request_bytes)
      throw new SettingsFileError(
        file,
        "",
        `is larger than ${LIMITS.max_request_bytes} bytes (limits.max_request_bytes)`,
      );
    return await readFile(file);
  } catch (error) {
    if (error instanceof SettingsFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    throw new SettingsFileError(file, "", describeIoError("read it", error));
  }
}

/**
 * Replace `file` with `text` atomically: the directory is created when missing; a temp file in the
 * same directory is written, fsynced and renamed over `file`, then the directory is fsynced. A
 * symlink is followed (its target is replaced, the link stays). An existing file's mode is kept
 * (new files: 0644). On any failure the temp file is removed and the old file is left as it was.
 * Throws {@link SettingsFileError} naming the step and the errno.
 */
export async function replaceFileAtomically(file: string, text: string): Promise<void> {
  let target = file;
  let mode = 0o644;
  try {
    target = await realpath(file);
    mode = (await stat(target)).mode & 0o7777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      throw new SettingsFileError(file, "", describeIoError("use it", error));
    // A dangling symlink: write where it points.
    try {
      if ((await lstat(file)).isSymbolicLink())
        throw new SettingsFileError(
          file,
          "",
          "is a symbolic link to a missing file; create the target or remove the link",
        );
    } catch (e) {
      if (e instanceof SettingsFileError) throw e;
    }
  }
  const dir = dirname(target);
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new SettingsFileError(file, "", describeIoError(`create its directory ${dir}`, error));
  }
  const temp = join(dir, `.${basename(target)}.lifeloop-${process.pid}-${Date.now()}.tmp`);
  let handle: FileHandle | undefined;
  let step = "create a temp file";
  // Past a file-size limit (ulimit -f) the kernel sends SIGXFSZ, whose default action kills the
  // process before it can remove the temp file; with a listener the write fails with EFBIG instead.
  const onXfsz = (): void => undefined;
  process.on("SIGXFSZ", onXfsz);
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    step = "write the temp file";
    await handle.writeFile(text, "utf8");
    step = "fsync the temp file";
    await handle.sync();
    await handle.close();
    handle = undefined;
    step = "set the temp file's mode";
    await chmod(temp, mode);
    step = "rename the temp file over it";
    await rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw new SettingsFileError(file, "", `${describeIoError(`${step} ${temp}`, error)}; the file is left as it was`);
  } finally {
    process.off("SIGXFSZ", onXfsz);
  }
  let dirHandle: FileHandle | undefined;
  try {
    dirHandle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    await dirHandle.sync();
  } catch {
    // The rename is done; a directory that cannot be fsynced (some filesystems) loses only durability.
  } finally {
    await dirHandle?.close().catch(() => undefined);
  }
}
