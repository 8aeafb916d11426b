/**
 * Helpers of the host-runtime suites: fixture clients, envelopes, and process inspection through
 * /proc (Linux) so tests can prove that every process they started is gone.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { WIRE_VERSION } from "../../generated/ts/spec.js";
import type { CallbackRequest, DispatchEnvelope } from "../../generated/ts/types.js";

const HERE = dirname(fileURLToPath(import.meta.url));
/** Repository root. */
export const ROOT = resolve(HERE, "..", "..");
/** The language-neutral fixture clients. */
export const FIXTURES = join(ROOT, "test", "fixtures", "client-lang-neutral");
/** The built CLI (npm run build). */
export const CLI = join(ROOT, "dist", "runtime", "cli", "main.js");

/** Program and args of a shell misbehaviour (`misbehave.sh BEHAVIOUR WIRE_VERSION [FILE]`). */
export function shellClient(behaviour: string, file?: string): { program: string; args: string[] } {
  return {
    program: join(FIXTURES, "shell", "misbehave.sh"),
    args: file === undefined ? [behaviour, WIRE_VERSION] : [behaviour, WIRE_VERSION, file],
  };
}

/** Program and args of a Node misbehaviour (`misbehave.mjs BEHAVIOUR WIRE_VERSION`). */
export function nodeClient(behaviour: string): { program: string; args: string[] } {
  return { program: join(FIXTURES, "node", "misbehave.mjs"), args: [behaviour, WIRE_VERSION] };
}

/** A valid CallbackRequest (session.started) with overrides. */
export function request(overrides: Partial<CallbackRequest> = {}): CallbackRequest {
  return {
    schema_version: WIRE_VERSION,
    event: "session.started",
    event_id: "evt-1",
    adapter_id: "adapter-test",
    adapter_version: "1.0.0",
    integration_mode: "native_hook",
    invocation_id: "inv-1",
    ...overrides,
  };
}

/** A valid DispatchEnvelope around {@link request}. */
export function envelope(
  overrides: Partial<CallbackRequest> = {},
  payloads?: DispatchEnvelope["payloads"],
): DispatchEnvelope {
  const env: DispatchEnvelope = { schema_version: WIRE_VERSION, request: request(overrides) };
  if (payloads !== undefined) env.payloads = payloads;
  return env;
}

/** An envelope whose one inline payload body has `bodyBytes` ASCII bytes (for requests larger than a pipe buffer). */
export function bigEnvelope(bodyBytes: number): DispatchEnvelope {
  const body = "x".repeat(bodyBytes);
  return envelope({}, [
    {
      schema_version: WIRE_VERSION,
      payload_id: "pay-big",
      client_id: "client-test",
      payload_kind: "test.blob",
      format: "text",
      content_encoding: "utf8",
      body,
      byte_size: bodyBytes,
      acceptable_placements: [{ placement: "side_channel_context", requirement: "optional" }],
    },
  ]);
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The pids a fixture appended to `file` (one per line); [] when the file does not exist. */
export function readPids(file: string): number[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => /^[0-9]+$/.test(line))
    .map(Number);
}

interface ProcStat {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
}

function stat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, state: fields[0] as string, ppid: Number(fields[1]), pgrp: Number(fields[2]) };
  } catch {
    return null;
  }
}

function allStats(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s !== null) out.push(s);
  }
  return out;
}

/** True while `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  const s = stat(pid);
  return s !== null && s.state !== "Z";
}

/** Live (non-zombie) processes of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  return allStats()
    .filter((s) => s.pgrp === pgid && s.state !== "Z")
    .map((s) => s.pid);
}

/** Zombie children of this process (children it failed to reap). */
export function zombieChildren(): number[] {
  return allStats()
    .filter((s) => s.ppid === process.pid && s.state === "Z")
    .map((s) => s.pid);
}

/** Live children of this process. */
export function liveChildren(): number[] {
  return allStats()
    .filter((s) => s.ppid === process.pid && s.state !== "Z")
    .map((s) => s.pid);
}

/** Number of open file descriptors of this process. */
export function openFdCount(): number {
  return readdirSync("/proc/self/fd").length;
}

/**
 * Poll `check` until it returns true or `boundMs` has passed since `since` (performance.now()).
 * Used only with bounds the spec documents (e.g. deadline + limits.settle_margin_ms).
 */
export async function eventually(check: () => boolean, since: number, boundMs: number): Promise<boolean> {
  for (;;) {
    if (check()) return true;
    if (performance.now() - since > boundMs) return check();
    await new Promise((r) => setTimeout(r, 10));
  }
}

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * Bytes the host retains (V8 heap + Buffer memory) after closed handles released their buffers and
 * a full collection ran.
 */
export async function retainedBytes(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 20));
    gc();
  }
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}
