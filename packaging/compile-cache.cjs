"use strict";
/**
 * A V8 code cache for the CLI's own CommonJS files (issue 30: `hook` runs on every harness event, and
 * compiling its 400 KB file plus the validators it loads is about a fifth of a run). Copied to
 * dist/cli/compile-cache.cjs by packaging/bundle-cli.mjs; the launcher (packaging/launcher.cjs)
 * installs it before it loads a per-event command's file. Node 22.1+ has `module.enableCompileCache`,
 * used when present (same directory, same checks of it); Node 20, which this package supports, does
 * not, so this does the same for our files only.
 *
 * What it does: every CommonJS file under `root` is compiled as a `vm.Script` with the cached data
 * of an earlier run (V8's bytecode for the functions that run used, so neither the parse nor their
 * lazy compilation is repeated). When there was none, or V8 rejected it, the script's cache is
 * made at process exit, after the command ran, and written atomically (a temporary file renamed
 * over the entry), so an entry is whole or absent. Files outside `root` (packages, Node's own) load
 * as usual.
 *
 * Where: `$LIFELOOP_CALLBACK_COMPILE_CACHE` (a directory; relative to the working directory), else
 * `$XDG_CACHE_HOME/lifeloop-callback/compile-cache`, else `~/.cache/lifeloop-callback/compile-cache`;
 * one subdirectory per node version, architecture and build (`v<node>-<arch>-<buildId>`); an
 * entry's name holds the file's path under `root`, a hash of `root` (the installation), the file's
 * size, inode and change time (ctime: set by the kernel on any write, which `touch -r` or `cp -p`
 * cannot restore), so a changed file never meets an old entry. Off when that variable is `0`, `off` or `false`, when
 * `NODE_DISABLE_COMPILE_CACHE` is set (Node's own switch), or when no directory can be named.
 *
 * Safety: an entry is code this process runs (V8 takes cached data for any source of the same
 * length), so the build directory must be this user's alone: it is made (mode 0700) before any
 * entry is read, and the cache is off unless it and every directory above it is owned by this user
 * or root, and no directory on that path can be written by group or others without the sticky bit
 * (so nobody else can put, swap or link anything there). Entries are read only as regular files of
 * at most MAX_ENTRY_BYTES, never through a symbolic link. V8 checks an entry's version, flags and
 * source length, but by default not the checksum of its payload, and a corrupt payload aborts the
 * process (measured: a flipped byte is a V8 fatal error). So entries are made and read with V8's
 * `--verify-snapshot-checksum` on, for that call only (the flag is part of V8's flag hash; leaving
 * it on would make Node's built-in modules miss their own code cache); a corrupt, truncated or
 * foreign entry is then rejected, the file compiles from source and the entry is rewritten. An
 * entry is written only when its file still has the text that was compiled under the size, inode
 * and ctime its name gives (else a file changed during the run would run its old code). A cache
 * that cannot be read or written (no permission, a full disk) is skipped silently and leaves no
 * temporary file: the cache only saves time, and a command must never fail or print because of it.
 * When the user already passes that flag to node, the cache is off (this module could not restore
 * it). Writing an entry removes the same file's entries under older keys; a new build's directory
 * removes, in other builds' directories not written for STALE_BUILD_MS (reading does not count: a
 * build still in use then costs one cold run), the entries this module wrote, and then the
 * directory if it is empty: nothing else is ever deleted.
 */
const {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} = require("node:fs");
const Module = require("node:module");
const { dirname, isAbsolute, join, parse, relative, resolve, sep } = require("node:path");
const { setFlagsFromString } = require("node:v8");
const vm = require("node:vm");

/** The environment variable naming the cache directory, or turning the cache off. */
const ENV = "LIFELOOP_CALLBACK_COMPILE_CACHE";
/** Node's CommonJS module wrapper (its loader's, and `require("node:module").wrap`'s). */
const WRAPPER = ["(function (exports, require, module, __filename, __dirname) { ", "\n});"];
/** Values of {@link ENV} that turn the cache off. */
const OFF = new Set(["0", "off", "false"]);
/** Another build's directory unused for this long (ms) is emptied of our entries when a new build makes its own. */
const STALE_BUILD_MS = 30 * 24 * 60 * 60 * 1000;
/** A temporary file older than this (ms) is one a killed process left: removed when entries are written. */
const STALE_TEMP_MS = 10 * 60 * 1000;
/** The largest entry read, in bytes (the `hook` command's file makes about 300 KB). */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;
/** A build directory's name: node version, architecture, build id (bundle-cli.mjs: 16 hex digits). */
const BUILD_DIRECTORY = /^v\d+\.\d+\.\d+-[a-z0-9]+-[0-9a-f]{16}$/;
/** The files this module writes in a build directory: entries and their temporary files. */
const OUR_FILE = /\.v8(\.\d+\.tmp)?$/;
/** Of those, the temporary files (`<entry>.<pid>.tmp`). */
const TEMP_FILE = /\.v8\.\d+\.tmp$/;

/**
 * The cache directory of this node and build, or undefined when the cache is off.
 * @param {NodeJS.ProcessEnv} env
 * @param {string} buildId the build's id (packaging/bundle-cli.mjs: a hash of dist/cli's files)
 * @returns {string | undefined}
 */
function cacheDirectory(env, buildId) {
  const setting = env[ENV];
  let base;
  if (env.NODE_DISABLE_COMPILE_CACHE !== undefined && env.NODE_DISABLE_COMPILE_CACHE !== "") {
    return undefined;
  } else if (setting !== undefined && setting !== "") {
    if (OFF.has(setting.toLowerCase())) return undefined;
    base = resolve(setting);
  } else if (env.XDG_CACHE_HOME !== undefined && isAbsolute(env.XDG_CACHE_HOME)) {
    base = join(env.XDG_CACHE_HOME, "lifeloop-callback", "compile-cache");
  } else if (env.HOME !== undefined && isAbsolute(env.HOME)) {
    base = join(env.HOME, ".cache", "lifeloop-callback", "compile-cache");
  } else {
    return undefined;
  }
  return join(base, `${process.version}-${process.arch}-${buildId}`);
}

/** Whether node was started with V8's checksum flag (then toggling it here would change the user's setting). */
function checksumFlagPreset() {
  const given = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
  return /verify[-_]snapshot[-_]checksum/.test(given);
}

/**
 * Run `fn` with V8's snapshot checksum on: entries are made with a checksum and checked against it.
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
function withChecksum(fn) {
  setFlagsFromString("--verify-snapshot-checksum");
  try {
    return fn();
  } finally {
    setFlagsFromString("--no-verify-snapshot-checksum");
  }
}

/**
 * Make `dir` and the directories above it that are missing, each mode 0700, one at a time (a
 * recursive mkdirSync loops forever under /proc/self). Throws the error of the first that fails.
 * @param {string} dir an absolute path
 */
function makeDirectory(dir) {
  const missing = [];
  let path = dir;
  for (;;) {
    try {
      statSync(path);
      break;
    } catch (error) {
      if (error?.code !== "ENOENT" || dirname(path) === path) throw error;
      missing.push(path);
      path = dirname(path);
    }
  }
  for (const component of missing.reverse()) {
    try {
      mkdirSync(component, 0o700);
    } catch (error) {
      if (error?.code !== "EEXIST") throw error; // another run made it meanwhile: checked below
    }
  }
}

/**
 * Whether the directory at the real path `real` (no link in it: the caller resolved it, and uses it
 * for everything after) is this user's alone: it and every directory above it are owned by this
 * user or root, and none can be written by group or others unless it has the sticky bit (like
 * /tmp: nobody can rename or remove another's entry there); `real` itself is this user's, writable
 * by nobody else. Where there are no POSIX owners (Windows), true.
 * @param {string} real
 * @returns {boolean}
 */
function ownDirectory(real) {
  if (typeof process.getuid !== "function") return true;
  const uid = process.getuid();
  const own = lstatSync(real);
  if (!own.isDirectory() || own.uid !== uid || (own.mode & 0o022) !== 0) return false;
  const { root } = parse(real);
  for (let path = dirname(real); ; path = dirname(path)) {
    const stats = statSync(path);
    if (stats.uid !== uid && stats.uid !== 0) return false;
    if ((stats.mode & 0o022) !== 0 && (stats.mode & 0o1000) === 0) return false;
    if (path === root) return true;
  }
}

/**
 * FNV-1a (32 bits) of `text` as 8 hex digits: names an installation's entries (not a security
 * property: the directory's ownership is).
 * @param {string} text
 * @returns {string}
 */
function pathHash(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * The part of an entry's name that names the file's version: size, inode, change time (µs).
 * @param {import("node:fs").Stats} stats
 * @returns {string}
 */
function fileKey(stats) {
  return `${stats.size}-${stats.ino}-${Math.trunc(stats.ctimeMs * 1000)}`;
}

/** Open flags of an entry read: never through a symbolic link, and a FIFO must not block the open. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The entry's bytes: a regular file of at most MAX_ENTRY_BYTES; else (or when absent, unreadable) undefined. */
function readEntry(path) {
  let fd;
  try {
    fd = openSync(path, READ_FLAGS);
    const stats = fstatSync(fd);
    const size = stats.size;
    if (!stats.isFile() || size > MAX_ENTRY_BYTES) return undefined;
    const bytes = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return read === size ? bytes : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Write `bytes` to `path` atomically: a new temporary file in the same directory (O_EXCL: never an
 * existing file or link), renamed over it; on any error the temporary file is removed and the
 * error thrown.
 */
function writeAtomically(path, bytes) {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    try {
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Gone already: nothing is left behind either way.
    }
    throw error;
  }
}

/**
 * Remove the files in `dir` named like `which` (a subset of OUR_FILE) that `keep` rejects; only
 * those names are looked at (a warm run's sweep stats its temporary files, not every entry). Best
 * effort.
 * @param {string} dir
 * @param {RegExp} which
 * @param {(name: string, stats: import("node:fs").Stats) => boolean} keep
 */
function removeOurFiles(dir, which, keep) {
  for (const name of readdirSync(dir)) {
    if (!which.test(name)) continue;
    const path = join(dir, name);
    try {
      const stats = lstatSync(path);
      if (stats.isFile() && !keep(name, stats)) unlinkSync(path);
    } catch {
      // Another run removed or replaced it: leave it.
    }
  }
}

/**
 * In the sibling build directories of `dir` unused for STALE_BUILD_MS: remove our entries, then
 * the directory when it is empty. Only directories named like ours, owned by this user; best effort.
 */
function pruneStaleBuilds(dir) {
  const parent = dirname(dir);
  const now = Date.now();
  for (const name of readdirSync(parent)) {
    const path = join(parent, name);
    if (path === dir || !BUILD_DIRECTORY.test(name)) continue;
    try {
      const stats = lstatSync(path);
      if (!stats.isDirectory() || (process.getuid !== undefined && stats.uid !== process.getuid())) continue;
      if (now - stats.mtimeMs <= STALE_BUILD_MS) continue;
      removeOurFiles(path, OUR_FILE, () => false);
      rmdirSync(path); // only when nothing else is in it
    } catch {
      // Not empty, or another run pruned it: leave it.
    }
  }
}

/**
 * Install the code cache for the CommonJS files under `root`: patches `Module.prototype._compile`
 * for those files (the way Node's own loader compiles them, with cached data added) and registers
 * the exit step that writes new entries. Does nothing when the cache is off or its directory is
 * not this user's alone (see the file's comment). Never throws.
 * @param {{ root: string; buildId: string; env?: NodeJS.ProcessEnv }} options `root`: the
 *   directory whose files are cached (dist/cli); `buildId`: the build's id; `env`: default
 *   process.env
 * @returns {string | undefined} the cache directory in use, or undefined when off
 */
function installCompileCache({ root, buildId, env = process.env }) {
  let dir;
  let made = false;
  try {
    // resolve() of a relative setting reads the working directory, which may be gone.
    dir = cacheDirectory(env, buildId);
    if (dir === undefined || checksumFlagPreset()) return undefined;
    try {
      statSync(dir);
    } catch {
      makeDirectory(dir);
      made = true;
    }
    // From here on the real path only: a link on the way (anyone's) cannot be swapped after the check.
    dir = realpathSync.native(dir);
    if (!ownDirectory(dir)) return undefined;
    if (typeof Module.enableCompileCache === "function") {
      // Node 22.1+ has its own (checksummed, per node version): use it, in the same directory.
      const { status } = Module.enableCompileCache(dir);
      return status === Module.constants?.compileCacheStatus?.FAILED ? undefined : dir;
    }
    // A node whose V8 refuses flags after start (none known): no cache rather than a failed command.
    withChecksum(() => undefined);
  } catch {
    return undefined;
  }
  const prefix = root.endsWith(sep) ? root : root + sep;
  // Installations of the same build (two clones, a clone and a global install) share the build
  // directory; each keeps its own entries, and a rebuild replaces only its own.
  const installation = pathHash(root);
  /** @type {Array<{ script: vm.Script; path: string; name: string; filename: string; content: string }>} */
  const pending = [];
  const compile = Module.prototype._compile;
  const options = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  Module.prototype._compile = function compileWithCache(content, filename) {
    if (typeof filename !== "string" || !filename.startsWith(prefix)) return compile.call(this, content, filename);
    let entry;
    let name;
    try {
      name = `${relative(root, filename).replaceAll(sep, "~")}-${installation}`;
      entry = join(dir, `${name}-${fileKey(statSync(filename))}.v8`);
    } catch {
      return compile.call(this, content, filename);
    }
    const cachedData = readEntry(entry);
    // The wrapper Node puts around a CommonJS file, on the file's first line so line numbers hold;
    // a leading #! is a comment there (V8 reads it only at the start of a script).
    const source = `${WRAPPER[0]}${content.startsWith("#!") ? `//${content.slice(2)}` : content}${WRAPPER[1]}`;
    const script = withChecksum(
      () =>
        new vm.Script(source, {
          filename,
          cachedData,
          ...(options === undefined ? {} : { importModuleDynamically: options }),
        }),
    );
    if (cachedData === undefined || script.cachedDataRejected === true)
      pending.push({ script, path: entry, name, filename, content });
    const wrapper = script.runInThisContext({ displayErrors: true });
    const require = Module.createRequire(filename);
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname(filename));
  };
  process.once("exit", () => {
    try {
      const now = Date.now();
      /** A temporary file younger than STALE_TEMP_MS may be another run's, still writing. */
      const fresh = (stats) => now - stats.mtimeMs <= STALE_TEMP_MS;
      if (pending.length === 0) {
        // Only the temporary files a killed run left (a warm cache writes nothing else).
        removeOurFiles(dir, TEMP_FILE, (_, stats) => fresh(stats));
        return;
      }
      // The entries this run replaces: the same file's under an older key (a rebuilt clone keeps
      // its build id when nothing changed, but every file gets a new inode), and stale temporary files.
      const replaced = new Set(pending.map((p) => p.name));
      const entryNames = new Set(pending.map((p) => relative(dir, p.path)));
      removeOurFiles(dir, OUR_FILE, (file, stats) => {
        if (TEMP_FILE.test(file)) return fresh(stats);
        const key = /^(.*-[0-9a-f]{8})-\d+-\d+-\d+\.v8$/.exec(file);
        return key === null || !replaced.has(key[1]) || entryNames.has(file);
      });
      for (const { script, path, filename, content } of pending) {
        try {
          // The file must still be what was compiled, under the key the entry is named by: an
          // entry whose code is not its file's would run in place of the file's from then on.
          if (!path.endsWith(`-${fileKey(statSync(filename))}.v8`)) continue;
          if (readFileSync(filename, "utf8") !== content) continue;
          writeAtomically(
            path,
            withChecksum(() => script.createCachedData()),
          );
        } catch {
          // This entry only (e.g. a directory in its place): the others are still written.
        }
      }
      if (made) pruneStaleBuilds(dir);
    } catch {
      // The cache only saves time: a directory or disk that refuses it changes nothing else.
    }
  });
  return dir;
}

module.exports = { installCompileCache, cacheDirectory, ENV };
