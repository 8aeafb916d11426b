"use strict";
/**
 * A V8 code cache for the CLI's own CommonJS files (issue 30: `hook` runs on every harness event, and
 * compiling its 400 KB file plus the validators it loads is about a fifth of a run). Copied to
 * dist/cli/compile-cache.cjs by packaging/bundle-cli.mjs; the launcher (packaging/launcher.cjs)
 * installs it before it loads a per-event command's file. Node 22.1+ has `module.enableCompileCache`,
 * used when present (same directory); Node 20, which this package supports, does not, so this does
 * the same for our files only.
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
 * one subdirectory per node version, architecture and build (`<version>-<arch>-<buildId>`); an
 * entry's name holds the file's path under `root`, its size and its mtime, so a changed file never
 * meets an old entry. Off when that variable is `0`, `off` or `false`, when
 * `NODE_DISABLE_COMPILE_CACHE` is set (Node's own switch), or when no directory can be named.
 *
 * Safety: V8 checks an entry's version, flags and source length, but by default not the checksum
 * of its payload, and a corrupt payload aborts the process (measured: a flipped byte is a V8 fatal
 * error). So entries are made and read with V8's `--verify-snapshot-checksum` on, for that call
 * only (the flag is part of V8's flag hash; leaving it on would make Node's built-in modules miss
 * their own code cache); a corrupt, truncated or foreign entry is then rejected, the file compiles
 * from source and the entry is rewritten. A cache that cannot be read or written (no directory,
 * no permission, a full disk) is skipped silently: the cache only saves time, and a command must
 * never fail or print because of it. When the user already passes that flag to node, the cache is
 * off (this module could not restore it). An entry is code this process runs: a build directory
 * that another user owns or that group or others can write is neither read nor written.
 */
const {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} = require("node:fs");
const Module = require("node:module");
const { dirname, isAbsolute, join, relative, resolve, sep } = require("node:path");
const { setFlagsFromString } = require("node:v8");
const vm = require("node:vm");

/** The environment variable naming the cache directory, or turning the cache off. */
const ENV = "LIFELOOP_CALLBACK_COMPILE_CACHE";
/** Node's CommonJS module wrapper (its loader's, and `require("node:module").wrap`'s). */
const WRAPPER = ["(function (exports, require, module, __filename, __dirname) { ", "\n});"];
/** Values of {@link ENV} that turn the cache off. */
const OFF = new Set(["0", "off", "false"]);
/** A build's subdirectory unused for this long (ms) is removed when a new build makes its own. */
const STALE_BUILD_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The cache directory of this node and build, or undefined when the cache is off.
 * @param {NodeJS.ProcessEnv} env
 * @param {string} buildId the build's id (packaging/bundle-cli.mjs: a hash of dist/cli's files)
 * @returns {string | undefined}
 */
function cacheDirectory(env, buildId) {
  const setting = env[ENV];
  let base;
  if (setting !== undefined && setting !== "") {
    if (OFF.has(setting.toLowerCase())) return undefined;
    base = resolve(setting);
  } else if (env.NODE_DISABLE_COMPILE_CACHE !== undefined && env.NODE_DISABLE_COMPILE_CACHE !== "") {
    return undefined;
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
 * Whether `dir` is absent or a directory only this user can write: an entry is code this process
 * runs, so a directory another user made or can write to (e.g. a cache path under a shared /tmp,
 * made first by someone else) is not read and not written. Where there are no POSIX owners
 * (Windows), any directory is.
 * @param {string} dir
 * @returns {boolean}
 */
function ownDirectory(dir) {
  let stats;
  try {
    stats = statSync(dir);
  } catch (error) {
    return error?.code === "ENOENT";
  }
  if (!stats.isDirectory()) return false;
  if (typeof process.getuid !== "function") return true;
  return stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}

/** The entry's bytes, or undefined when there is none or it cannot be read. */
function readEntry(path) {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Write `bytes` to `path` atomically (a temporary file in the same directory, renamed over it); errors are thrown. */
function writeAtomically(path, bytes) {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, "w", 0o600);
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
  } finally {
    closeSync(fd);
  }
  try {
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

/** Remove the sibling build directories of `dir` unused for {@link STALE_BUILD_MS}; best effort. */
function pruneStaleBuilds(dir) {
  const parent = dirname(dir);
  const now = Date.now();
  for (const name of readdirSync(parent)) {
    const path = join(parent, name);
    if (path === dir) continue;
    try {
      if (now - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another process pruned it, or it is not ours to read: leave it.
    }
  }
}

/**
 * Install the code cache for the CommonJS files under `root`: patches `Module.prototype._compile`
 * for those files (the way Node's own loader compiles them, with cached data added) and registers
 * the exit step that writes new entries. Does nothing when the cache is off (see the file's
 * comment). Never throws.
 * @param {{ root: string; buildId: string; env?: NodeJS.ProcessEnv }} options `root`: the
 *   directory whose files are cached (dist/cli); `buildId`: the build's id; `env`: default
 *   process.env
 * @returns {string | undefined} the cache directory in use, or undefined when off
 */
function installCompileCache({ root, buildId, env = process.env }) {
  let dir;
  try {
    // resolve() of a relative setting reads the working directory, which may be gone.
    dir = cacheDirectory(env, buildId);
    if (dir === undefined || checksumFlagPreset()) return undefined;
    if (typeof Module.enableCompileCache === "function") {
      // Node 22.1+ has its own (checksummed, per node version): use it, in the same directory.
      const { status } = Module.enableCompileCache(dir);
      return status === Module.constants?.compileCacheStatus?.FAILED ? undefined : dir;
    }
    // A node whose V8 refuses flags after start (none known): no cache rather than a failed command.
    withChecksum(() => undefined);
    if (!ownDirectory(dir)) return undefined;
  } catch {
    return undefined;
  }
  const prefix = root.endsWith(sep) ? root : root + sep;
  /** @type {Array<{ script: vm.Script; path: string }>} */
  const pending = [];
  const compile = Module.prototype._compile;
  const options = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  Module.prototype._compile = function compileWithCache(content, filename) {
    if (typeof filename !== "string" || !filename.startsWith(prefix)) return compile.call(this, content, filename);
    let entry;
    try {
      const { size, mtimeMs } = statSync(filename);
      entry = join(dir, `${relative(root, filename).replaceAll(sep, "~")}-${size}-${Math.trunc(mtimeMs)}.v8`);
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
    if (cachedData === undefined || script.cachedDataRejected === true) pending.push({ script, path: entry });
    const wrapper = script.runInThisContext({ displayErrors: true });
    const require = Module.createRequire(filename);
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname(filename));
  };
  process.once("exit", () => {
    if (pending.length === 0) return;
    try {
      let made = false;
      try {
        statSync(dir);
      } catch {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        made = true;
      }
      for (const { script, path } of pending)
        writeAtomically(
          path,
          withChecksum(() => script.createCachedData()),
        );
      if (made) pruneStaleBuilds(dir);
    } catch {
      // The cache only saves time: a directory or disk that refuses it changes nothing else.
    }
  });
  return dir;
}

module.exports = { installCompileCache, cacheDirectory, ENV };
