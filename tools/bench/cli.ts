/**
 * Benchmark: the CLI's latency (issue 30). Run with `npm run bench -- cli` (it builds dist/ first).
 *
 * 1. **One-shot commands**: `--version`, `validate`, `invoke` (to the POSIX shell echo client),
 *    `hook` for every served event of both harnesses (same client), `continuation put|get|list`,
 *    each as the median wall time of ROUNDS runs, interleaved with a bare `node -e 0` in the same
 *    rounds (the order rotates each round, so load from other processes hits all alike), printed as
 *    a ratio to it, with the targets `hook` <= 1.3x, `continuation get` <= 1.35x, `--version`
 *    <= 1.1x ("met" / "below target"). The hook floor rows are a bare node start that spawns the
 *    same client once, or twice: a hook marked "(2 events)" delivers two lifecycle events, each to a
 *    client process of its own (spec/tables/harness-hook-inputs.json `delivers`), so its floor is
 *    the second. The reference binary does the same work where it has it
 *    (0.5.0 for `continuation`, which 0.9.0 no longer has; 0.9.0 for `host-hook`, `event invoke`,
 *    `envelope validate`), timed in the same rounds. Every timed run must exit as expected, or the
 *    bench stops with its stderr.
 * 2. **`session` per event**: (T(N) - T(1)) / (N - 1) of `session --transport stream` and
 *    `--transport subprocess` to the Go echo client, and of a fresh in-process StreamInvoker
 *    session in this (warm) process and in a fresh node process (cold, as the CLI starts:
 *    tools/bench/stream-session-inprocess.mjs), in the same rounds; targets: stream >= 30x cheaper
 *    than subprocess per event, and <= 1.5x the in-process cost. N = 3,000 events (subprocess:
 *    300), as the issue measured, over SESSION_ROUNDS = 9 rounds (LIFELOOP_BENCH_SESSION_ROUNDS).
 *    It was N = 1,000 over 5 rounds before: that timed the cold CLI mostly before V8 had optimized
 *    its per-event path (TurboFan is done with it around event 2,000, `node --trace-opt`), and
 *    5 rounds on the shared machine moved the figure by 10-20% from one run to the next.
 * `LIFELOOP_BENCH_CLI_PART=oneshot` runs only part 1, `=session` only part 2 (default: both).
 * Never fails on a number: numbers on a shared machine are noisy.
 * NODE_EXTRA_CA_CERTS: node reads and parses that file at every start, before any script (this
 * machine sets it to the system bundle: a bare start 36 -> 65 ms quiet). It is a constant of every
 * row, so where it is set the table adds the bare start and `hook claude PreCompact` without it
 * (that row's ratio is to the bare start without it).
 *
 * Start-up, what was tried (Node 20.20; CPU time of interleaved runs on a loaded 2-core machine):
 * - Loading only what a command needs (issue 30 item 1): one generated module per spec table,
 *   commands imported on demand, --help from the table. `continuation get` loads 106 KB instead of
 *   302 KB, `--version` 25 KB instead of 234 KB; the `hook` path still needs the validators.
 * - A bundle (kept: packaging/bundle-cli.mjs, the package's bin): ES modules split at each command's
 *   import(); `hook` about 15-20% less CPU than tsc's 61 files, `continuation get` about 10% less,
 *   `--version` alike. One CommonJS file for the whole CLI: the same gain for `hook`, but `--version`
 *   and `continuation get` about 7% slower (the 1 MB file is parsed at every start): not kept.
 * - A CommonJS launcher as the bin (kept: packaging/launcher.cjs): `--version` and the help from
 *   constants recorded at build time, no module graph: `--version` 1.22x -> 1.00x a bare start.
 *   Handing over to the bundle costs under a millisecond (an empty ES module through a CommonJS
 *   import(): 66.0 vs 65.2 ms CPU), the "ES module bundle" rows below.
 * - One CommonJS file per per-event command (kept: packaging/bundle-cli.mjs, `hook`, `continuation`,
 *   `invoke`, `validate`), that command only: against the split ES module bundle, CPU `hook`
 *   136 -> 117 ms, `invoke` 132 -> 115, `continuation get` 85 -> 77 (one ES module file per command
 *   instead: 122, 118, 82); the split bundle's two dozen files and the ES module loader were the
 *   cost. About 1 MB of code shared between commands is repeated in these files.
 * - Validators loaded per type (kept: generated/ts/validators/<Type>.cjs): a `hook` reads 230 KB
 *   of validators instead of the 545 KB module; loading them costs 3.4 ms against 11 ms for the
 *   chunk that held them all (with the wire layer), in-process timings.
 * - `validate` imports ajv's compiler only for `--all` (runtime/cli/commands/validate.ts): CPU
 *   140 -> 78 ms (with its own CommonJS file), a bare start 64 ms.
 * - `session`: sending the next event before the previous one's receipt and output line are made
 *   (overlapping them with the client's turn): no measurable gain (3,000 events to go-echo, median
 *   496 vs 492 ms over 20 alternating runs at load 5): not kept. A CPU profile of such a session puts
 *   about 100 µs per event in the write(2) of each request (waking the client; the in-process
 *   StreamInvoker pays the same) and about 27 µs in what only the CLI does: the strict parse of each
 *   input line 11, the receipt (synthesis and its validation) 6, the output line 8, the receipt id 2.
 * - `session`, per-event work (issue 30 item 4): interleaved A/B runs against the previous tree
 *   (3,000 or 1,000 events to go-echo, medians of 9-41 rounds, wall and the CLI process's own CPU
 *   time, process.cpuUsage() at exit, per event by the same formula). The noise is the finding:
 *   two identical builds differed by up to 12% (19 µs CPU per event) in one 13-round run, so a
 *   change of a few µs per event cannot be seen here. The output lines were already gathered into
 *   64 KB writes (runtime/cli/output.ts).
 *   Kept: the receipt emitter proves a receipt made of its own parts with the generated
 *   LifecycleReceipt accept check against its JSON text instead of running ajv
 *   (runtime/receipts/emitter.ts; the validator judges whatever is not proved). Per event it is
 *   within the noise (21 rounds: CPU 175.7 vs 176.7 µs at N = 3,000, 226.9 vs 233.3 at 1,000;
 *   smaller runs had it 6-18 µs cheaper), but the LifecycleReceipt validator file is no longer
 *   loaded: T(1) 146 -> 136 ms, T(2) 151 -> 142 (41 rounds, load 1.1), for `session` and
 *   `hook --receipts` alike.
 *   Where the CLI's per-event cost goes, by removing parts of the loop in a scratch copy (15
 *   rounds, N = 3,000, load 1.9; an identical copy differed by 1.4 µs CPU): no receipt at all
 *   -22 µs CPU, no output line -11, neither -46, which leaves the CLI's wall per event at the
 *   in-process cold figure (115 vs 118 µs). Measured alone in a fresh process over 3,000 events,
 *   emitting a receipt costs 7.6 µs and writing the output line's JSON 7.7 µs: cold code, a few
 *   times its warm cost.
 *   Not kept (no measurable gain): the output line built around the receipt's JSON text that the
 *   emitter had written, the receipt built without intermediate objects and no closure per event,
 *   together (CPU 160.0 vs 161.6 µs at N = 3,000, 212.2 vs 211.5 at 1,000, 15 rounds each);
 *   parsing the input lines with the DispatchEnvelope accept check in place of the fast path's
 *   generic walk, so that they share the walk invoke() runs (168.5 vs 163.4, 203.3 vs 204.5, 13
 *   rounds). V8 flags set by the session command at its start (v8.setFlagsFromString; on the node
 *   command line they also cost T(1) 15-35 ms): `--always-sparkplug` 203 vs 222 µs wall at N =
 *   1,000 and 180 vs 182 at 3,000 (13 and 9 rounds); `--interrupt-budget=8192
 *   --ticks-before-optimization=1` has TurboFan done by event ~750 instead of ~2,000, but pays for
 *   it up front: 224 -> 288 µs at N = 1,000, 241 -> 213 at 3,000 under load 4 and no difference
 *   under load 1.6; `--interrupt-budget=16384` likewise (224 -> 302, 241 -> 201);
 *   `--max-semi-space-size=16` and `--no-lazy-feedback-allocation` no gain (the CLI does 17
 *   scavenges of under 1 ms in a 3,000-event session).
 *   What remains is mostly the write(2) of each request (a profile under load: 100 µs per event, in
 *   the CLI and in-process alike) and the cold process: the in-process StreamInvoker itself costs
 *   1.5-3.7x as much in a fresh node process as in this warm one (141.6 vs 38.4 µs in one run of
 *   this bench, 130.6 vs 89.0 in another: a warm loop is also quick enough that the vCPUs may not
 *   halt between round trips, which makes its write(2) cheaper, tools/bench/cpu-placement.ts), so
 *   "stream / in-process (warm)" cannot reliably reach 1.5x by cutting the CLI's own work alone;
 *   "(cold)" is 1.0-1.4x.
 * - V8 code caching (kept: packaging/compile-cache.cjs, installed by the launcher for the per-event
 *   commands' files and the validator files they load): Node 20 has no module.enableCompileCache
 *   (22.1+) and no cached data for ES modules, so our CommonJS files compile as vm.Script with the
 *   cached data a first run wrote (per node version and build, in ~/.cache or
 *   $LIFELOOP_CALLBACK_COMPILE_CACHE). Wall time, 15 interleaved rounds at load ~1.7, `hook claude
 *   PreCompact`: 143.9 -> 119.5 ms (bare 69.3: 2.08x -> 1.72x); CPU profile 103 -> 74 ms; in this
 *   bench on a quiet machine 110.9 -> 100.7 ms (bare 63.3: 1.75x -> 1.59x), `continuation get` (a
 *   86 KB file) alike with and without. The cache
 *   made at exit (every function that ran) beat one made right after the module's top level ran
 *   (80 KB, the rest compiled lazily): 1.57x vs 1.70x. v8-compile-cache (the npm package) gave
 *   1.75x -> 1.48x in the same kind of run but loads node:crypto and reads entries without V8's
 *   checksum: a corrupt entry aborts node (measured), so ours turns the checksum on for its calls.
 *   The "no code cache" rows below are the same commands with it off.
 * - Node's startup snapshot (measured, not kept): the `hook` command does run from a user-land
 *   snapshot on Node 20 (its bundle, the validators and ajv's runtime inlined into one script, every
 *   module initialized at build time; 0.3-0.5 s and a 6-8 MB blob to build). Wall, 31 interleaved
 *   rounds at load 1.3-1.5: bare 63.9 ms, the launcher (then without a code cache) 117.6 (1.84x),
 *   from the snapshot 101.5 (1.59x): restoring the bigger heap costs about 10 ms of what it saves;
 *   the code cache got most of the same gain with no change to the command line. And
 *   --snapshot-blob is a node flag, so it must be on the harness's command line, where a missing
 *   blob, another node version or any other V8 flag (NODE_OPTIONS=--max-old-space-size included)
 *   exits 14 before any script runs, a truncated or damaged blob aborts node (133/134/139) or runs
 *   (no checksum), and a blob is tied to one install, one node binary and one flag set; a shell
 *   fallback on exit 14 costs about 60 ms when it falls back, cannot tell a damaged blob's crash
 *   from a failed delivery, and a crypto.randomUUID() run at build time would repeat its ids in
 *   every run.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { HARNESS_HOOK_INPUTS } from "../../generated/ts/spec/harness-hook-inputs.js";
import type { DispatchEnvelope } from "../../generated/ts/types.js";
import { StreamInvoker } from "../../runtime/stream/invoker.js";
import { CLI } from "../../test/support/cli-process.js";
import packageJson from "../../package.json" with { type: "json" };
import { callbackRequest, dispatchEnvelope, frameContext } from "../../test/support/dispatch.js";
import { FIXTURE_CLIENTS_DIR, GO_ECHO_DIR, REPO_ROOT } from "../../test/support/fixture-clients.js";

/** Rounds of the one-shot table (each round runs every command once). */
const ROUNDS = Number(process.env.LIFELOOP_BENCH_CLI_ROUNDS ?? 15);
/** Events of the long session of the per-event figure (the short one has 1); subprocess: a tenth. */
const SESSION_EVENTS = 3_000;
/** Rounds of the per-event figure. */
const SESSION_ROUNDS = Number(process.env.LIFELOOP_BENCH_SESSION_ROUNDS ?? 9);
/** Which parts run: `oneshot`, `session`, or both (unset). */
const PART = process.env.LIFELOOP_BENCH_CLI_PART;
const SHELL_ECHO = join(FIXTURE_CLIENTS_DIR, "shell", "echo.sh");
/** The CLI as installed: package.json `bin` (the launcher of packaging/bundle-cli.mjs). */
const BIN = join(REPO_ROOT, packageJson.bin["lifeloop-callback"]);
/** The ES module bundle the launcher hands the other commands to (packaging/bundle-cli.mjs), run directly. */
const BUNDLE = join(REPO_ROOT, "dist", "cli", "main.js");

/** Targets of issue 30, as a ratio to the bare node start. */
const TARGETS: Readonly<Record<string, number>> = { "--version": 1.1, "continuation get": 1.35, hook: 1.3 };

/**
 * The reference binary of `version`, where the tree keeps it (tools/setup/prepare.sh installs both):
 * .cache/lifeloop-ref-0.5.0 (the last with `continuation`) and .cache/lifeloop-ref (0.9.0), or
 * `LIFELOOP_REF_<major>_<minor>` (e.g. LIFELOOP_REF_0_9=/path/to/lifeloop) first. Returns the path
 * whose `--version` prints `version`, or null after saying what to run.
 */
export function referenceBinary(version: "0.5.0" | "0.9.0"): string | null {
  const env = process.env[`LIFELOOP_REF_${version.split(".").slice(0, 2).join("_")}`];
  const root = version === "0.5.0" ? ".cache/lifeloop-ref-0.5.0" : ".cache/lifeloop-ref";
  const candidates = [...(env ? [env] : []), join(REPO_ROOT, root, "bin", "lifeloop")];
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    const r = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 10_000 });
    if (r.status === 0 && r.stdout.includes(version)) return path;
  }
  process.stdout.write(
    `  reference ${version} not found (tried ${candidates.join(", ")}): run \`cargo install lifeloop-cli --version ${version} --locked --root ${root}\` (or bash tools/setup/prepare.sh)\n`,
  );
  return null;
}

/** One timed command: argv, standard input, the exit code it must end with. */
interface Job {
  readonly name: string;
  readonly argv: readonly string[];
  readonly input?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Variables of this process's environment the run goes without. */
  readonly unset?: readonly string[];
  readonly exit?: number;
  /** Runs before each timed run, untimed (e.g. a put before a get). */
  readonly before?: () => void;
}

function runOnce(job: Job): number {
  job.before?.();
  const env = { ...process.env, ...job.env };
  for (const name of job.unset ?? []) delete env[name];
  const t0 = performance.now();
  const r = spawnSync(job.argv[0] as string, job.argv.slice(1), {
    input: job.input ?? "",
    env,
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  if (r.error !== undefined || r.status !== (job.exit ?? 0)) {
    throw new Error(
      `bench cli: ${job.name} exited ${String(r.status)} (signal ${String(r.signal)}, expected ${job.exit ?? 0}): ${r.error?.message ?? ""}${r.stderr.slice(0, 2000)}`,
    );
  }
  return ms;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Median ms of every job over `rounds` interleaved rounds (the order rotates each round). */
function measure(jobs: readonly Job[], rounds: number): Map<string, number> {
  const samples = new Map(jobs.map((j) => [j.name, [] as number[]]));
  for (const job of jobs) runOnce(job); // warm the page cache, untimed
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < jobs.length; k++) {
      const job = jobs[(i + k) % jobs.length] as Job;
      (samples.get(job.name) as number[]).push(runOnce(job));
    }
  }
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

/** A served hook event (spec/tables/harness-hook-inputs.json) and a valid input of it: every required member of its schema, filled in. */
interface HookCase {
  readonly adapter: string;
  readonly hookEvent: string;
  readonly input: string;
  /** How many lifecycle events (client processes) the hook delivers (the table's `delivers`). */
  readonly events: number;
}

function hookCases(dir: string): HookCase[] {
  const table = HARNESS_HOOK_INPUTS as unknown as {
    adapters: Array<{
      adapter: string;
      hook_events: Array<{ hook_event: string; input_schema: string; delivers: readonly string[] }>;
    }>;
  };
  return table.adapters.flatMap((a) =>
    a.hook_events.map((e) => {
      const schema = JSON.parse(
        readFileSync(join(REPO_ROOT, "schemas", "hooks", `${e.input_schema}.schema.json`), "utf8"),
      ) as {
        required: string[];
        properties: Record<string, { type?: string; const?: unknown; enum?: unknown[] }>;
      };
      const input: Record<string, unknown> = {};
      for (const name of schema.required) {
        const p = schema.properties[name] ?? {};
        input[name] =
          p.const ??
          p.enum?.[0] ??
          (p.type === "boolean"
            ? false
            : name === "cwd"
              ? dir
              : name === "transcript_path"
                ? join(dir, "t.jsonl")
                : `bench-${name}`);
      }
      return { adapter: a.adapter, hookEvent: e.hook_event, input: JSON.stringify(input), events: e.delivers.length };
    }),
  );
}

function verdict(name: string, ratio: number): string {
  if (name.includes(", no ")) return ""; // a comparison row, not what a user runs
  const key = name.startsWith("hook ") ? "hook" : name;
  const target = TARGETS[key];
  if (target === undefined) return "";
  return `  target <= ${target}x: ${ratio <= target ? "met" : "below target"}`;
}

async function oneShots(dir: string): Promise<void> {
  const node = process.execPath;
  const cli = (args: readonly string[]): string[] => [node, BIN, ...args];
  const store = join(dir, "store");
  const refStore = join(dir, "ref-store");
  const envelope = readFileSync(join(REPO_ROOT, "examples", "dispatch-envelope.json"), "utf8");
  const request = JSON.stringify((JSON.parse(envelope) as DispatchEnvelope).request);
  const blob = "x".repeat(512);
  const hookArgv = (adapter: string, hookEvent: string): string[] => [
    "hook",
    "--adapter",
    adapter,
    "--event",
    hookEvent,
    "--program",
    SHELL_ECHO,
    "--timeout-ms",
    "30000",
    "--state-dir",
    join(dir, "state"),
  ];
  const hookInput = (adapter: string, hookEvent: string): string =>
    hookCases(dir).find((h) => h.adapter === adapter && h.hookEvent === hookEvent)?.input ?? "";
  const ours: Job[] = [
    { name: "node -e 0 (bare)", argv: [node, "-e", "0"] },
    // The floor of a hook that delivers: a bare node start that spawns the same client once (twice
    // for a hook that delivers two events, each to a client process of its own).
    ...[1, 2].map((spawns) => ({
      name: `node -e spawn(client) x${spawns} (hook floor)`,
      argv: [
        node,
        "-e",
        `const input = require("node:fs").readFileSync(0); for (let i = 0; i < ${spawns}; i++) { const r = require("node:child_process").spawnSync(${JSON.stringify(SHELL_ECHO)}, { input }); if (r.status !== 0) process.exit(1); }`,
      ],
      input: envelope,
    })),
    { name: "--version", argv: cli(["--version"]) },
    { name: "validate", argv: cli(["validate", "callback-request", "-"]), input: request },
    { name: "invoke", argv: cli(["invoke", "--program", SHELL_ECHO, "--timeout-ms", "30000", "-"]), input: envelope },
    ...hookCases(dir).map(({ adapter, hookEvent, input, events }) => ({
      name: `hook ${adapter} ${hookEvent}${events > 1 ? ` (${events} events)` : ""}`,
      argv: cli(hookArgv(adapter, hookEvent)),
      input,
    })),
    {
      name: "continuation put",
      argv: cli(["continuation", "put", "--thread", "t", "--key", "k", "--client-id", "c"]),
      input: blob,
      env: { LIFELOOP_CONTINUATION_ROOT: store },
    },
    {
      name: "continuation get",
      argv: cli(["continuation", "get", "--thread", "t", "--key", "k"]),
      env: { LIFELOOP_CONTINUATION_ROOT: store },
    },
    {
      name: "continuation list",
      argv: cli(["continuation", "list", "--thread", "t"]),
      env: { LIFELOOP_CONTINUATION_ROOT: store },
    },
    // A machine whose environment names extra CA certificates makes every node start read and parse
    // them before any script runs (about 30 ms here): the same for every row, so the ratios above
    // are smaller than on a machine without it. The same pair without the variable shows by how much.
    ...(process.env.NODE_EXTRA_CA_CERTS === undefined
      ? []
      : [
          { name: "node -e 0, no NODE_EXTRA_CA_CERTS", argv: [node, "-e", "0"], unset: ["NODE_EXTRA_CA_CERTS"] },
          {
            name: "hook claude PreCompact, no NODE_EXTRA_CA_CERTS",
            argv: cli(hookArgv("claude", "PreCompact")),
            input: hookInput("claude", "PreCompact"),
            unset: ["NODE_EXTRA_CA_CERTS"],
          },
        ]),
    // The launcher without its V8 code cache (packaging/compile-cache.cjs; every other row runs with a
    // cache of its own, filled by the untimed first round, as a user's is after the first run).
    {
      name: "hook claude PreCompact, no code cache",
      argv: cli(hookArgv("claude", "PreCompact")),
      input: hookInput("claude", "PreCompact"),
      env: { LIFELOOP_CALLBACK_COMPILE_CACHE: "off" },
    },
    {
      name: "continuation get, no code cache",
      argv: cli(["continuation", "get", "--thread", "t", "--key", "k"]),
      env: { LIFELOOP_CONTINUATION_ROOT: store, LIFELOOP_CALLBACK_COMPILE_CACHE: "off" },
    },
    // The ES module bundle run directly (what the launcher hands every other command to): what the
    // launcher's answers and the per-command CommonJS files save.
    { name: "ES module bundle --version", argv: [node, BUNDLE, "--version"] },
    {
      name: "ES module bundle continuation get",
      argv: [node, BUNDLE, "continuation", "get", "--thread", "t", "--key", "k"],
      env: { LIFELOOP_CONTINUATION_ROOT: store },
    },
    {
      name: "ES module bundle hook claude PreCompact",
      argv: [node, BUNDLE, ...hookArgv("claude", "PreCompact")],
      input: hookInput("claude", "PreCompact"),
    },
    // The same, unbundled (tsc's dist/runtime/cli/main.js, what the test suites run): the bundle's share.
    { name: "unbundled --version", argv: [node, CLI, "--version"] },
    {
      name: "unbundled continuation get",
      argv: [node, CLI, "continuation", "get", "--thread", "t", "--key", "k"],
      env: { LIFELOOP_CONTINUATION_ROOT: store },
    },
    {
      name: "unbundled hook claude PreCompact",
      argv: [node, CLI, ...hookArgv("claude", "PreCompact")],
      input: hookInput("claude", "PreCompact"),
    },
  ];
  // The reference doing the same work (its own names); keyed by our job's name.
  const refs = new Map<string, Job>();
  const ref05 = referenceBinary("0.5.0");
  if (ref05) {
    const env = { LIFELOOP_CONTINUATION_ROOT: refStore };
    refs.set("continuation put", {
      name: "ref 0.5.0 continuation put",
      argv: [ref05, "continuation", "put", "--thread", "t", "--key", "k", "--client-id", "c"],
      input: blob,
      env,
    });
    refs.set("continuation get", {
      name: "ref 0.5.0 continuation get",
      argv: [ref05, "continuation", "get", "--thread", "t", "--key", "k"],
      env,
    });
    refs.set("continuation list", {
      name: "ref 0.5.0 continuation list",
      argv: [ref05, "continuation", "list", "--thread", "t"],
      env,
    });
  }
  const ref09 = referenceBinary("0.9.0");
  if (ref09) {
    // The shipped example envelope is at this tree's wire version with an adapter version the
    // reference routes (codex 0.1.0), so the reference does the same work on the same bytes.
    const v04 = envelope;
    refs.set("--version", { name: "ref 0.9.0 --version", argv: [ref09, "--version"] });
    refs.set("validate", {
      name: "ref 0.9.0 envelope validate",
      argv: [ref09, "envelope", "validate", "request"],
      input: JSON.stringify((JSON.parse(v04) as DispatchEnvelope).request),
    });
    refs.set("invoke", {
      name: "ref 0.9.0 event invoke",
      argv: [ref09, "event", "invoke", "--client-cmd", SHELL_ECHO, "--timeout-ms", "30000"],
      input: v04,
    });
    for (const job of ours.filter((j) => j.name.startsWith("hook "))) {
      const [, adapter, hookEvent] = job.name.split(" ") as [string, string, string];
      refs.set(job.name, {
        name: `ref 0.9.0 host-hook ${adapter} ${hookEvent}`,
        argv: [
          ref09,
          "--output",
          "hook-protocol",
          "host-hook",
          "--host",
          adapter,
          "--hook",
          hookEvent,
          "--client-cmd",
          SHELL_ECHO,
        ],
        input: job.input ?? "",
      });
    }
  }
  // A reference run that does not work here is left out with its reason, not timed.
  for (const [key, job] of refs) {
    try {
      runOnce(job);
    } catch (error) {
      process.stdout.write(`  (${job.name} left out: ${(error as Error).message.split("\n")[0]?.slice(0, 200)})\n`);
      refs.delete(key);
    }
  }
  const medians = measure([...ours, ...refs.values()], ROUNDS);
  const bare = medians.get("node -e 0 (bare)") as number;
  process.stdout.write(
    `  one-shot commands (${BIN.slice(REPO_ROOT.length + 1)}): median wall ms of ${ROUNDS} interleaved rounds (node ${process.version})\n`,
  );
  process.stdout.write(
    `    ${"command".padEnd(48)} ${"ours".padStart(8)} ${"x bare".padStart(7)} ${"reference".padStart(10)}  ${"ours/ref".padStart(8)}\n`,
  );
  const bareNoCa = medians.get("node -e 0, no NODE_EXTRA_CA_CERTS");
  for (const job of ours) {
    const ms = medians.get(job.name) as number;
    // A run without the extra CA certificates is set against the bare start without them.
    const ratio = ms / (job.unset?.includes("NODE_EXTRA_CA_CERTS") && bareNoCa !== undefined ? bareNoCa : bare);
    const ref = refs.get(job.name);
    const refMs = ref ? medians.get(ref.name) : undefined;
    const refText = refMs === undefined ? "".padStart(10) : refMs.toFixed(1).padStart(10);
    const versus = refMs === undefined ? "".padStart(8) : `${(ms / refMs).toFixed(1)}x`.padStart(8);
    process.stdout.write(
      `    ${job.name.padEnd(48)} ${ms.toFixed(1).padStart(8)} ${`${ratio.toFixed(2)}x`.padStart(7)} ${refText}  ${versus}${job.name.includes("bare") ? "" : verdict(job.name, ratio)}\n`,
    );
  }
}

/** The JSON Lines session of `count` envelopes (frame.opening, no payloads). */
function sessionFile(dir: string, count: number): string {
  const path = join(dir, `session-${count}.jsonl`);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const env = dispatchEnvelope(
      callbackRequest("frame.opening", {
        event_id: `evt-${i}`,
        invocation_id: `inv-${i}`,
        harness_session_id: "sess-bench",
        frame_context: frameContext(`frame-${i}`),
      }),
    );
    lines.push(JSON.stringify(env));
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

async function inProcessSession(goEcho: string, count: number): Promise<number> {
  const invoker = new StreamInvoker({ program: goEcho, timeoutMs: 30_000 });
  const t0 = performance.now();
  try {
    for (let i = 0; i < count; i++) {
      const env = dispatchEnvelope(
        callbackRequest("frame.opening", {
          event_id: `evt-${i}`,
          invocation_id: `inv-${i}`,
          harness_session_id: "sess-bench",
          frame_context: frameContext(`frame-${i}`),
        }),
      );
      const r = await invoker.invoke(env);
      if (!r.ok) throw new Error(`bench cli: in-process event ${i} failed: ${r.failure.variant}: ${r.failure.detail}`);
    }
  } finally {
    await invoker.close();
  }
  return performance.now() - t0;
}

async function perEvent(dir: string): Promise<void> {
  const goEcho = join(dir, "go-echo");
  const built = spawnSync("go", ["build", "-o", goEcho, "."], { cwd: GO_ECHO_DIR, encoding: "utf8", timeout: 300_000 });
  if (built.error !== undefined || built.status !== 0) {
    process.stdout.write(
      `  session per event: skipped, go build failed: ${built.error?.message ?? built.stderr.slice(0, 500)}\n`,
    );
    return;
  }
  const one = sessionFile(dir, 1);
  const many = sessionFile(dir, SESSION_EVENTS);
  const manySub = sessionFile(dir, SESSION_EVENTS / 10); // subprocess: one spawn per event, fewer events
  const session = (transport: string, file: string): Job => ({
    name: `${transport} ${file}`,
    argv: [
      process.execPath,
      BIN,
      "session",
      "--transport",
      transport,
      "--program",
      goEcho,
      "--timeout-ms",
      "30000",
      file,
    ],
    env: { LIFELOOP_CONTINUATION_ROOT: join(dir, "session-store") },
  });
  const inProcessJob = (file: string): Job => ({
    name: `in-process ${file}`,
    argv: [process.execPath, join(REPO_ROOT, "tools", "bench", "stream-session-inprocess.mjs"), goEcho, file],
  });
  const jobs = [
    session("stream", one),
    session("stream", many),
    session("subprocess", one),
    session("subprocess", manySub),
    inProcessJob(one),
    inProcessJob(many),
  ];
  const inProcess = { one: [] as number[], many: [] as number[] };
  const times = new Map(jobs.map((j) => [j.name, [] as number[]]));
  for (let round = 0; round < SESSION_ROUNDS; round++) {
    for (const job of jobs) (times.get(job.name) as number[]).push(runOnce(job));
    inProcess.one.push(await inProcessSession(goEcho, 1));
    inProcess.many.push(await inProcessSession(goEcho, SESSION_EVENTS));
  }
  const m = (job: Job): number => median(times.get(job.name) as number[]);
  const usPerEvent = (tn: number, t1: number, n: number): number => ((tn - t1) / (n - 1)) * 1000;
  const stream = usPerEvent(m(jobs[1] as Job), m(jobs[0] as Job), SESSION_EVENTS);
  const sub = usPerEvent(m(jobs[3] as Job), m(jobs[2] as Job), SESSION_EVENTS / 10);
  const inproc = usPerEvent(median(inProcess.many), median(inProcess.one), SESSION_EVENTS);
  const inprocCold = usPerEvent(m(jobs[5] as Job), m(jobs[4] as Job), SESSION_EVENTS);
  process.stdout.write(
    `  session per event, (T(N) - T(1)) / (N - 1), Go echo client, medians of ${SESSION_ROUNDS} rounds\n`,
  );
  process.stdout.write(
    `    session --transport subprocess  ${sub.toFixed(1).padStart(8)} µs/event (N = ${SESSION_EVENTS / 10})\n`,
  );
  process.stdout.write(
    `    session --transport stream      ${stream.toFixed(1).padStart(8)} µs/event (N = ${SESSION_EVENTS})\n`,
  );
  process.stdout.write(
    `    in-process StreamInvoker, warm  ${inproc.toFixed(1).padStart(8)} µs/event (N = ${SESSION_EVENTS}, a fresh invoker per session in this process)\n`,
  );
  process.stdout.write(
    `    in-process StreamInvoker, cold  ${inprocCold.toFixed(1).padStart(8)} µs/event (N = ${SESSION_EVENTS}, a node process of its own, as the CLI)\n`,
  );
  process.stdout.write(
    `    subprocess / stream ${(sub / stream).toFixed(1)}x  target >= 30x: ${sub / stream >= 30 ? "met" : "below target"}\n`,
  );
  process.stdout.write(
    `    stream / in-process (warm) ${(stream / inproc).toFixed(2)}x  target <= 1.5x: ${stream / inproc <= 1.5 ? "met" : "below target"}\n`,
  );
  process.stdout.write(
    `    stream / in-process (cold) ${(stream / inprocCold).toFixed(2)}x  target <= 1.5x: ${stream / inprocCold <= 1.5 ? "met" : "below target"}\n`,
  );
}

/** Run the benchmark and print the tables. */
export async function run(): Promise<void> {
  process.stdout.write("bench cli: start-up of one-shot commands, and session per event (issue 30)\n");
  const dir = mkdtempSync(join(tmpdir(), "bench-cli-"));
  try {
    mkdirSync(join(dir, "state"));
    // The launcher's code cache (packaging/compile-cache.cjs) of every timed run: the bench's own,
    // not the user's ~/.cache; warm after each job's untimed first run.
    process.env.LIFELOOP_CALLBACK_COMPILE_CACHE = join(dir, "compile-cache");
    if (PART !== undefined && PART !== "oneshot" && PART !== "session")
      throw new Error(`bench cli: LIFELOOP_BENCH_CLI_PART is oneshot or session (got ${JSON.stringify(PART)})`);
    if (PART !== "session") await oneShots(dir);
    if (PART !== "oneshot") await perEvent(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
