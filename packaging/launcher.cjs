#!/usr/bin/env node
/**
 * The package's `bin` (`lifeloop-callback`), written to dist/cli/launcher.cjs by
 * packaging/bundle-cli.mjs, which fills in BUILD below. Start-up is a user's latency (issue 30):
 * an ES module entry point makes Node start its module loader and read the module graph even to
 * print a version. This CommonJS file answers the argument lists whose answer depends only on the
 * build (runtime/cli/main.ts, staticAnswerArgvs: `--version` and its aliases, the top-level help)
 * with the exact bytes and exit code the CLI gave for them at build time. A command on a user's
 * per-event path (`hook`, `continuation`, ...: BUILD.commands) runs from its own CommonJS file, one
 * file for the whole command, compiled from V8's code cache after its first run (./compile-cache.cjs);
 * every other argument list goes to the ES module bundle
 * (dist/cli/main.js): one dynamic import, within the noise of a start (under a millisecond).
 * Either way the CLI's `main()` (runtime/cli/main.ts) runs it.
 * Output errors as the CLI has them (runtime/cli/main.ts, exitOnOutputError): a reader that went
 * away (EPIPE) exits 0 silently; any other write error prints one line on stderr and exits with the
 * `input` code.
 */
"use strict";

const { writeSync } = require("node:fs");

/**
 * Filled in at build time: `answers` maps JSON.stringify(argv) to what the CLI printed on standard
 * output and its exit code; `commands` maps a command name to its CommonJS file (relative to this
 * one); `exit` is spec/tables/cli-exit-codes.json; `buildId` names this build's files in the
 * compile cache (./compile-cache.cjs).
 * @type {{ answers: Record<string, { stdout: string; code: number }>; commands: Record<string, string>; exit: Record<string, number>; buildId: string }}
 */
const BUILD = /* @build */ { answers: {}, commands: {}, exit: { validation: 1, input: 3 }, buildId: "unbuilt" };

/** A CLI file that cannot be loaded is a broken installation: exit 1, as the CLI reports one. */
function cannotLoad(error) {
  process.stderr.write(`lifeloop-callback: internal error: cannot load the CLI: ${error?.stack ?? String(error)}\n`);
  process.exitCode = BUILD.exit.validation;
}

/** Hand the run to the command's own file, or else to the ES module bundle. */
function handOver(command) {
  const file = Object.hasOwn(BUILD.commands, command) ? BUILD.commands[command] : undefined;
  if (file === undefined) {
    import("./main.js").then((cli) => cli.main(), cannotLoad);
    return;
  }
  let cli;
  try {
    // The command's file and the validators it loads compile from V8's code cache after a first run.
    require("./compile-cache.cjs").installCompileCache({ root: __dirname, buildId: BUILD.buildId });
    cli = require(file);
  } catch (error) {
    return cannotLoad(error);
  }
  cli.main();
}

/** A write error on standard output: EPIPE ends quietly with 0, anything else says so on stderr and exits `input`. */
function outputError(error) {
  if (error.code === "EPIPE") {
    process.exitCode = 0;
    return;
  }
  try {
    writeSync(2, `lifeloop-callback: cannot write the output: ${error.code ?? error.message}\n`);
  } catch {
    // stderr is gone too; the exit code still tells.
  }
  process.exitCode = BUILD.exit.input;
}

/** Write `stdout` to fd 1 synchronously (no stream: creating process.stdout costs milliseconds) and set `code`. */
function answer({ stdout, code }) {
  const bytes = Buffer.from(stdout, "utf8");
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (error) {
    if (error.code !== "EAGAIN") return outputError(error);
    // A non-blocking standard output that is full: the stream waits for it to drain.
    process.stdout.on("error", outputError);
    process.stdout.write(bytes.subarray(written));
  }
  process.exitCode = code;
}

const argv = process.argv.slice(2);
const known = BUILD.answers[JSON.stringify(argv)];
if (known === undefined) handOver(argv[0]);
else answer(known);
