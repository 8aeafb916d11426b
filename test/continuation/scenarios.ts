/**
 * Command sequences run against both CLIs (ours and the reference `lifeloop`) on fresh stores by the
 * differential suite: every command, every error code, the usage errors, root resolution, limits,
 * TTL, identifiers, and planted (corrupt, foreign, leftover) files. A step marked `difference` names
 * a row of spec/continuation-store.md §"Differences from the reference" and says what each side does.
 */
import { frameEntry } from "./support.js";

/** One step: a CLI command, or a file planted identically in both stores (path relative to the root). */
export type Step =
  | {
      readonly args: readonly string[];
      readonly input?: string | Uint8Array;
      /** Extra environment of this step (on top of the scenario's). */
      readonly env?: Readonly<Record<string, string>>;
      /** A documented difference: the expected exit code of each side, instead of equality. */
      readonly difference?: { readonly id: string; readonly ours: number; readonly reference: number };
    }
  | { readonly plant: string; readonly bytes: Uint8Array }
  | { readonly mkdir: string };

/** A scenario: its steps and how the store is found (default: LIFELOOP_CONTINUATION_ROOT=<scratch>/store). */
export interface Scenario {
  readonly name: string;
  readonly steps: readonly Step[];
  /** The environment for a scratch dir; planted paths are relative to `rootOf(scratch)`. */
  readonly env?: (scratch: string) => Record<string, string>;
  readonly rootOf?: (scratch: string) => string;
  /** The stores may differ afterwards (a documented difference changed the files). */
  readonly treesMayDiffer?: string;
}

const put = (thread: string, key: string, input: string | Uint8Array, ...more: string[]): Step => ({
  args: ["put", "--thread", thread, "--key", key, ...more],
  input,
});
const get = (thread: string, key: string, ...more: string[]): Step => ({
  args: ["get", "--thread", thread, "--key", key, ...more],
});
const drop = (thread: string, key: string, ...more: string[]): Step => ({
  args: ["drop", "--thread", thread, "--key", key, ...more],
});
const list = (thread: string, ...more: string[]): Step => ({ args: ["list", "--thread", thread, ...more] });
const dropThread = (thread: string): Step => ({ args: ["drop-thread", "--thread", thread] });

const BINARY = Buffer.from([0x61, 0x00, 0x62, 0xff, 0x0a, 0xc3, 0x28, 0xed, 0xa0, 0x80]);
const META = (client: string, extra = ""): string =>
  `{"schema_version":"lifeloop.continuation.v0.1","client_id":${JSON.stringify(client)},"written_at_epoch_s":1700000000,"ttl_s":null${extra}}`;
const MIB16 = 16 * 1024 * 1024;

export const SCENARIOS: readonly Scenario[] = [
  {
    name: "round trip of a binary blob with client and TTL, then drop",
    steps: [
      put("thr-1", "renewal-state", BINARY, "--client-id", "ccd", "--ttl-s", "600"),
      get("thr-1", "renewal-state"),
      list("thr-1"),
      drop("thr-1", "renewal-state"),
      get("thr-1", "renewal-state"),
      list("thr-1"),
    ],
  },
  {
    name: "defaults, empty blob, overwrite, case-sensitive keys",
    steps: [
      put("t", "k", ""),
      get("t", "k"),
      put("t", "k", "one"),
      put("t", "k", "two", "--client-id", "b"),
      put("t", "k", "three", "--client-id", "c", "--ttl-s", "9000"),
      get("t", "k"),
      put("t", "K", "upper"),
      get("t", "K"),
      list("t"),
    ],
  },
  {
    name: "absent things: drop, list, drop-thread, get",
    steps: [
      drop("none", "k"),
      list("none"),
      dropThread("none"),
      get("none", "k"),
      get("none", "k", "--require-client-id", "x"),
      put("t", "a", "1"),
      drop("t", "b"),
      get("t", "b"),
    ],
  },
  {
    name: "drop-thread counts entries, list is then empty",
    steps: [
      put("t", "a", "1"),
      put("t", "b", "2"),
      put("t", "c", "3"),
      put("u", "a", "other thread"),
      dropThread("t"),
      list("t"),
      get("u", "a"),
      dropThread("t"),
    ],
  },
  {
    name: "identifiers: rejected and accepted",
    steps: [
      put("foo/bar", "k", "x"),
      put("t", ".hidden", "x"),
      put("../escape", "k", "x"),
      put("has space", "k", "x"),
      put("naïve", "k", "x"),
      put("t", "a<b", "x"),
      put("", "k", "x"),
      put("t", "", "x"),
      put("t", "k", "x", "--client-id", "c".repeat(200)),
      put("t", "k", "x", "--client-id", "a/b"),
      put("t", "k", "x", "--client-id", ""),
      get("t", "k", "--require-client-id", "r".repeat(129)),
      drop("t", "k", "--require-client-id", "bad id"),
      list("a:b"),
      dropThread(".."),
      put("abc_DEF-123.tag", "key.name_v2-final", "ok"),
      get("abc_DEF-123.tag", "key.name_v2-final"),
      put("t".repeat(128), "k".repeat(128), "max", "--client-id", "c".repeat(128)),
      get("t".repeat(128), "k".repeat(128)),
      put("t".repeat(129), "k", "x"),
      put("t", "k.", "trailing dot"),
      put("t", "a..b", "inner dots"),
      put("-h", "--help", "dash names"),
      get("-h", "--help"),
      put("é".repeat(65), "k", "multibyte over the byte limit"),
      list("t"),
    ],
  },
  {
    name: "size limit: the max-bytes variable",
    steps: [
      {
        args: ["put", "--thread", "t", "--key", "at", "--client-id", "c"],
        input: "x".repeat(100),
        env: { LIFELOOP_CONTINUATION_MAX_BYTES: "100" },
      },
      {
        args: ["put", "--thread", "t", "--key", "over"],
        input: "x".repeat(101),
        env: { LIFELOOP_CONTINUATION_MAX_BYTES: "100" },
      },
      { args: ["put", "--thread", "t", "--key", "zero"], input: "", env: { LIFELOOP_CONTINUATION_MAX_BYTES: "0" } },
      { args: ["put", "--thread", "t", "--key", "zero1"], input: "x", env: { LIFELOOP_CONTINUATION_MAX_BYTES: "0" } },
      { args: ["put", "--thread", "t", "--key", "e"], input: "x", env: { LIFELOOP_CONTINUATION_MAX_BYTES: "" } },
      { args: ["put", "--thread", "t", "--key", "bad"], input: "x", env: { LIFELOOP_CONTINUATION_MAX_BYTES: "abc" } },
      { args: ["put", "--thread", "t", "--key", "neg"], input: "x", env: { LIFELOOP_CONTINUATION_MAX_BYTES: "-1" } },
      { args: ["put", "--thread", "t", "--key", "plus"], input: "x", env: { LIFELOOP_CONTINUATION_MAX_BYTES: "+5" } },
      {
        args: ["put", "--thread", "bad/id", "--key", "k"],
        input: "x",
        env: { LIFELOOP_CONTINUATION_MAX_BYTES: "abc" },
      },
      { args: ["get", "--thread", "t", "--key", "at"], env: { LIFELOOP_CONTINUATION_MAX_BYTES: "abc" } },
      { args: ["drop", "--thread", "t", "--key", "nothing"], env: { LIFELOOP_CONTINUATION_MAX_BYTES: "abc" } },
      { args: ["drop-thread", "--thread", "nothing"], env: { LIFELOOP_CONTINUATION_MAX_BYTES: "abc" } },
      put("t", "big", "y".repeat(5000)),
      { args: ["get", "--thread", "t", "--key", "big"], env: { LIFELOOP_CONTINUATION_MAX_BYTES: "10" } },
      { args: ["list", "--thread", "t"], env: { LIFELOOP_CONTINUATION_MAX_BYTES: "10" } },
      {
        args: ["drop", "--thread", "t", "--key", "big", "--require-client-id", "unknown"],
        env: { LIFELOOP_CONTINUATION_MAX_BYTES: "10" },
      },
      list("t"),
    ],
  },
  {
    name: "size limit: 16 MiB exactly and one byte over",
    steps: [
      put("t", "big", Buffer.alloc(MIB16, 0x41)),
      put("t", "big2", Buffer.alloc(MIB16 + 1, 0x42)),
      { args: ["get", "--thread", "t", "--key", "big"] },
      list("t"),
    ],
  },
  {
    name: "TTL: zero, u64 overflow, large, guarded drop of an expired foreign entry",
    steps: [
      put("t", "zero", "z", "--ttl-s", "0"),
      get("t", "zero"),
      put("t", "max", "m", "--ttl-s", "18446744073709551615"),
      get("t", "max"),
      put("t", "big", "b", "--ttl-s", "1152921504606846976"),
      put("t", "plus", "p", "--ttl-s", "+500"),
      put("t", "over", "o", "--ttl-s", "18446744073709551616"),
      put("t", "neg", "n", "--ttl-s", "-5"),
      put("t", "word", "w", "--ttl-s", "soon"),
      put("t", "empty", "e", "--ttl-s", ""),
      list("t"),
      put("t", "foreign", "f", "--client-id", "other", "--ttl-s", "0"),
      drop("t", "foreign", "--require-client-id", "me"),
      get("t", "foreign", "--require-client-id", "me"),
      list("t"),
    ],
  },
  {
    name: "client-id guards on get and drop",
    steps: [
      put("t", "k", "mine", "--client-id", "alice"),
      get("t", "k", "--require-client-id", "bob"),
      get("t", "k", "--require-client-id", "alice"),
      drop("t", "k", "--require-client-id", "bob"),
      get("t", "k"),
      drop("t", "k", "--require-client-id", "alice"),
      get("t", "k"),
      drop("t", "k", "--require-client-id", "alice"),
    ],
  },
  {
    name: "usage errors and argument parsing",
    steps: [
      { args: [] },
      { args: ["frobnicate"] },
      { args: ["put", "--key", "k"], input: "x" },
      { args: ["put", "--thread", "t"], input: "x" },
      { args: ["put", "--thread"], input: "x" },
      { args: ["put", "--thread", "t", "--key", "k", "--bogus", "1"], input: "x" },
      { args: ["put", "--thread", "t", "--key", "k", "extra"], input: "x" },
      { args: ["put", "--thread", "t", "--key", "k", "--client-id"], input: "x" },
      { args: ["put", "--thread", "t", "--key", "k", "--ttl-s"], input: "x" },
      { args: ["get", "--thread", "t", "--key", "k", "--client-id", "c"] },
      { args: ["list", "--thread", "t", "--key", "k"] },
      { args: ["list"] },
      { args: ["list", "--bogus"] },
      { args: ["drop-thread", "--thread", "t", "x"] },
      { args: ["drop-thread"] },
      { args: ["put", "--thread", "--key", "k"], input: "x" },
      {
        args: ["put", "--thread", "t1", "--thread", "t2", "--key", "k", "--client-id", "a", "--client-id", "b"],
        input: "last wins",
      },
      list("t1"),
      list("t2"),
      { args: ["list", "--thread", "t1", "--thread", "t2"] },
      { args: ["put", "--client-id", "--thread", "--thread", "t3", "--key", "k"], input: "two-phase" },
      list("t3"),
      list("--thread"),
      { args: ["put", "--thread", "t", "--key", "k", "--output", "x"], input: "x" },
      { args: ["get", "--thread", "--output=json", "--key", "k"] },
      { args: ["get", "--key", "k", "--thread", "t", "--require-client-id"] },
      { args: ["put", "--thread", "t", "--key", "k", "--ttl-s", "5000", "--ttl-s", "7000"], input: "x" },
      list("t"),
    ],
  },
  {
    name: "documented supersets: --help and --flag=value",
    steps: [
      { args: ["--help"], difference: { id: "continuation-help", ours: 0, reference: 2 } },
      { args: ["put", "--help"], difference: { id: "continuation-help", ours: 0, reference: 2 } },
      {
        args: ["put", "--thread=t", "--key=k", "--client-id=c"],
        input: "eq",
        difference: { id: "continuation-flag-equals", ours: 0, reference: 2 },
      },
      { args: ["list", "--thread=t"], difference: { id: "continuation-flag-equals", ours: 0, reference: 2 } },
      {
        args: ["list", "--thread", "t", "--long"],
        difference: { id: "continuation-opt-in-flags", ours: 0, reference: 2 },
      },
    ],
    treesMayDiffer: "only our side stored the --flag=value put",
  },
  {
    name: "corrupt and foreign files planted in the store",
    steps: [
      { plant: "t/short", bytes: Buffer.from([0, 0]) },
      { plant: "t/pastend", bytes: Buffer.from([0, 0, 3, 232, 0x7b, 0x7d]) },
      { plant: "t/badjson", bytes: frameEntry("{not json", Buffer.from("b")) },
      { plant: "t/notobject", bytes: frameEntry("[1,2]", Buffer.from("b")) },
      {
        plant: "t/float",
        bytes: frameEntry(
          `{"schema_version":"x","client_id":"c","written_at_epoch_s":1.5,"ttl_s":null}`,
          Buffer.from("b"),
        ),
      },
      {
        plant: "t/nottl",
        bytes: frameEntry(
          `{"schema_version":"lifeloop.continuation.v0.1","client_id":"c","written_at_epoch_s":1700000000}`,
          Buffer.from("no ttl member"),
        ),
      },
      {
        plant: "t/weird",
        bytes: frameEntry(
          META("bad/../id with space", `,"extra":[1,{"a":null}]`).replace(
            "lifeloop.continuation.v0.1",
            "something.else.v9",
          ),
          Buffer.from("served"),
        ),
      },
      {
        plant: "t/bigttl",
        bytes: frameEntry(
          `{"schema_version":"x","client_id":"c","written_at_epoch_s":1700000000,"ttl_s":9007199254740993000}`,
          Buffer.from("big"),
        ),
      },
      { plant: "t/.DS_Store", bytes: Buffer.from("finder") },
      { plant: "t/.k.tmp.99999-0-0", bytes: Buffer.from("leftover temp") },
      { plant: "t/.k.delete-claim.99999-1-0", bytes: Buffer.from("leftover claim") },
      { plant: "t/.k.tmp.swp", bytes: Buffer.from("vim") },
      get("t", "short"),
      get("t", "pastend"),
      get("t", "badjson"),
      get("t", "notobject"),
      get("t", "float"),
      get("t", "nottl"),
      get("t", "weird"),
      get("t", "weird", "--require-client-id", "bad"),
      get("t", "bigttl"),
      list("t"),
      drop("t", "short", "--require-client-id", "c"),
      drop("t", "short"),
      get("t", "short"),
      dropThread("t"),
      list("t"),
    ],
  },
  {
    name: "an entry that is a directory",
    steps: [
      { mkdir: "t/sub" },
      put("t", "a", "1"),
      get("t", "sub"),
      list("t"),
      drop("t", "sub", "--require-client-id", "x"),
    ],
  },
  {
    name: "drop-thread of a thread holding a directory",
    steps: [{ mkdir: "t/sub" }, put("t", "a", "1"), put("t", "b", "2"), dropThread("t")],
    treesMayDiffer: "continuation-atomic-drop-thread: the reference removed part of the thread, ours nothing",
  },
  {
    name: "root from XDG_STATE_HOME",
    env: (s) => ({ XDG_STATE_HOME: `${s}/xdg`, HOME: `${s}/home` }),
    rootOf: (s) => `${s}/xdg/lifeloop/continuation`,
    steps: [put("t", "k", "xdg"), get("t", "k"), list("t")],
  },
  {
    name: "root from HOME when the others are empty",
    env: (s) => ({ LIFELOOP_CONTINUATION_ROOT: "", XDG_STATE_HOME: "", HOME: `${s}/home` }),
    rootOf: (s) => `${s}/home/.local/state/lifeloop/continuation`,
    steps: [put("t", "k", "home"), get("t", "k"), dropThread("t")],
  },
  {
    name: "no root at all",
    env: () => ({}),
    rootOf: (s) => s,
    steps: [
      put("t", "k", "x"),
      put("bad/t", "k", "x"),
      get("t", "k"),
      drop("t", "k"),
      list("t"),
      dropThread("t"),
      {
        args: ["put", "--thread", "t", "--key", "k"],
        input: "x".repeat(10),
        env: { LIFELOOP_CONTINUATION_MAX_BYTES: "5" },
      },
    ],
  },
  {
    name: "a store root that is a regular file",
    env: (s) => ({ LIFELOOP_CONTINUATION_ROOT: `${s}/rootfile` }),
    rootOf: (s) => s,
    steps: [
      { plant: "rootfile", bytes: Buffer.from("x") },
      put("t", "k", "x"),
      get("t", "k"),
      drop("t", "k"),
      drop("t", "k", "--require-client-id", "c"),
      list("t"),
      dropThread("t"),
    ],
  },
  {
    name: "a store root whose path runs through a regular file (ENOTDIR)",
    env: (s) => ({ LIFELOOP_CONTINUATION_ROOT: `${s}/rootfile/store` }),
    rootOf: (s) => s,
    steps: [
      { plant: "rootfile", bytes: Buffer.from("x") },
      put("t", "k", "x"),
      get("t", "k"),
      drop("t", "k"),
      drop("t", "k", "--require-client-id", "c"),
      list("t"),
      dropThread("t"),
    ],
  },
  {
    name: "a thread directory that is a regular file",
    steps: [
      put("other", "k", "x"),
      { plant: "t", bytes: Buffer.from("x") },
      put("t", "k", "x"),
      get("t", "k"),
      drop("t", "k"),
      drop("t", "k", "--require-client-id", "c"),
      list("t"),
      dropThread("t"),
    ],
  },
  {
    name: "metadata the reference's reader refuses or skips",
    steps: [
      {
        plant: "m/strnum",
        bytes: frameEntry(
          '{"schema_version":"v","client_id":"a","written_at_epoch_s":"\\u0000num:100"}',
          Buffer.from("b"),
        ),
      },
      {
        plant: "m/strttl",
        bytes: frameEntry(
          '{"schema_version":"v","client_id":"a","written_at_epoch_s":100,"ttl_s":"\\u0000num:5"}',
          Buffer.from("b"),
        ),
      },
      {
        plant: "m/dupclient",
        bytes: frameEntry(
          '{"schema_version":"v","client_id":"a","written_at_epoch_s":100,"client_id":"b"}',
          Buffer.from("b"),
        ),
      },
      {
        plant: "m/dupttl",
        bytes: frameEntry(
          '{"schema_version":"v","client_id":"a","written_at_epoch_s":100,"ttl_s":null,"ttl_s":5}',
          Buffer.from("b"),
        ),
      },
      {
        plant: "m/dupunknown",
        bytes: frameEntry(
          '{"schema_version":"v","client_id":"a","written_at_epoch_s":100,"x":1,"x":[2]}',
          Buffer.from("b"),
        ),
      },
      {
        plant: "m/bom",
        bytes: frameEntry('\ufeff{"schema_version":"v","client_id":"a","written_at_epoch_s":100}', Buffer.from("b")),
      },
      {
        plant: "m/negzero",
        bytes: frameEntry('{"schema_version":"v","client_id":"a","written_at_epoch_s":-0}', Buffer.from("b")),
      },
      {
        plant: "m/ws",
        bytes: frameEntry(
          ' \n{"schema_version":"v","client_id":"a","written_at_epoch_s":100,"x":"\\ud800"}\n',
          Buffer.from("b"),
        ),
      },
      get("m", "strnum"),
      get("m", "strttl"),
      get("m", "dupclient"),
      get("m", "dupttl"),
      get("m", "dupunknown"),
      get("m", "bom"),
      get("m", "negzero"),
      get("m", "ws"),
      list("m"),
    ],
  },
  {
    name: "a relative root",
    env: () => ({ LIFELOOP_CONTINUATION_ROOT: "rel/store" }),
    rootOf: (s) => `${s}/rel/store`,
    steps: [put("t", "k", "relative"), get("t", "k"), list("t")],
  },
];
