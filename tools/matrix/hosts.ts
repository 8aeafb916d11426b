/**
 * The two hosts of the cross-language matrix, behind one interface: each delivers one
 * DispatchEnvelope to one fixture client and reports what came of it as an {@link Observation}.
 *
 * - `ts`: our TypeScript {@link SubprocessInvoker}, with every outcome turned into a receipt by a
 *   {@link ReceiptEmitter} (failure receipts included; none for receipt.emitted).
 * - `ref`: the reference CLI, `lifeloop event invoke --client-cmd ABS [--client-arg A]...
 *   --timeout-ms N [--parent-receipt-id ID]` (the reference named in spec/wire-version.json, installed into .cache/lifeloop-ref by
 *   tools/setup/prepare.sh). On success it prints a LifecycleReceipt (exit 0); when the invocation
 *   fails it prints no receipt and exits 1 with one line on stderr whose text names the reference's
 *   failure variant. That variant's FailureClass is read from our own table
 *   (spec/tables/subprocess-failure-mapping.json, column `reference_variant`).
 */
import { existsSync } from "node:fs";
import { FAILURE_VARIANTS, REFERENCE_IMPLEMENTATION } from "../../generated/ts/spec.js";
import type {
  DispatchEnvelope,
  FailureClass,
  LifecycleReceipt,
  ReceiptStatus,
  RetryClass,
} from "../../generated/ts/types.js";
import { SubprocessInvoker } from "../../runtime/invoker/subprocess.js";
import { ReceiptEmitter } from "../../runtime/receipts/emitter.js";
import { issueText } from "../../runtime/invoker/failure.js";
import { parseWireDocument, validateValue } from "../../runtime/wire/validate.js";
import type { FixtureClient } from "../../test/support/fixture-clients.js";
import { REFERENCE_CLI, REFERENCE_INSTALL_COMMAND } from "../../test/support/reference-cli.js";
import { spawnChild } from "../../test/support/spawn-child.js";

/** The hosts, in the order the table shows them. */
export const HOST_IDS = ["ts", "ref"] as const;
/** One host. */
export type HostId = (typeof HOST_IDS)[number];

/**
 * One delivery: the envelope, the client, its arguments, the round-trip deadline in ms and the
 * parent receipt id the host is given (undefined = none).
 */
export interface Delivery {
  readonly envelope: DispatchEnvelope;
  readonly parentReceiptId?: string;
  readonly client: FixtureClient;
  readonly args: readonly string[];
  readonly timeoutMs: number;
}

/**
 * What a host made of one delivery.
 * - `status`: the receipt's status, or null when no receipt was made;
 * - `failure_class` / `retry_class`: the receipt's, or (no receipt) the failure's class and null;
 * - `variant`: why the invocation failed — a FailureVariant for `ts`, a reference variant name
 *   (e.g. `NonZeroExit`) for `ref` — or null when the client answered;
 * - `receipt`: the receipt, when one was made;
 * - `detail`: the failure detail or the reference's stderr line ("" when none);
 * - `problems`: what is wrong whatever the scenario expects (an invalid receipt, an exit code the
 *   reference documents no meaning for).
 */
export interface Observation {
  readonly status: ReceiptStatus | null;
  readonly failure_class: FailureClass | null;
  readonly retry_class: RetryClass | null;
  readonly variant: string | null;
  readonly receipt: LifecycleReceipt | null;
  readonly detail: string;
  readonly problems: readonly string[];
}

/** A host of the matrix. `unavailable()` says why it cannot run (with the command that fixes it), or null. */
export interface Host {
  readonly id: HostId;
  readonly title: string;
  unavailable(): string | null;
  deliver(delivery: Delivery): Promise<Observation>;
}

let receiptCounter = 0;

/** Our host: SubprocessInvoker + one ReceiptEmitter for the whole matrix run. */
export function typescriptHost(): Host {
  const emitter = new ReceiptEmitter();
  return {
    id: "ts",
    title: "TypeScript SubprocessInvoker",
    unavailable: () => null,
    async deliver({ envelope, client, args, timeoutMs, parentReceiptId }): Promise<Observation> {
      const result = await new SubprocessInvoker({ program: client.program, args, timeoutMs }).invoke(
        envelope,
        parentReceiptId === undefined ? undefined : { parentReceiptId },
      );
      const variant = result.ok ? null : result.failure.variant;
      const detail = result.ok ? "" : result.failure.detail;
      const problems: string[] = [];
      let receipt: LifecycleReceipt | null = null;
      try {
        receipt = emitter.emit(envelope, result, {
          client_id: `matrix-${client.lang}`,
          receipt_id: `rcpt-matrix-${++receiptCounter}`,
          parent_receipt_id: parentReceiptId ?? null,
          at_epoch_s: Math.floor(Date.now() / 1000),
        });
      } catch (error) {
        problems.push(`no receipt: ${(error as Error).message}`);
      }
      if (receipt === null) {
        return {
          status: null,
          failure_class: result.ok ? null : result.failure.failure_class,
          retry_class: null,
          variant,
          receipt,
          detail,
          problems,
        };
      }
      const issues = validateValue("LifecycleReceipt", receipt);
      if (issues.length > 0) problems.push(`invalid receipt: ${issueText(issues[0] as (typeof issues)[number])}`);
      return {
        status: receipt.status,
        failure_class: receipt.failure_class,
        retry_class: receipt.retry_class,
        variant,
        receipt,
        detail,
        problems,
      };
    },
  };
}

/**
 * The reference's failure messages (the Display texts of its subprocess invoker errors, after the
 * CLI's `subprocess callback failed: ` prefix; see /work/notes/reference-cli-facts.md §2.6) and the
 * reference variant each names.
 */
const REFERENCE_FAILURES: readonly (readonly [prefix: string, variant: string])[] = [
  ["subprocess invoker refused receipt.emitted plan", "ReceiptEmittedRejected"],
  ["failed to spawn callback subprocess", "Spawn"],
  ["failed to write request to subprocess stdin", "WriteRequest"],
  ["failed to serialize CallbackRequest", "SerializeRequest"],
  ["failed to read subprocess stdout", "ReadResponse"],
  ["subprocess stdout was not a valid JSON CallbackResponse", "ParseResponse"],
  ["subprocess returned a CallbackResponse that failed validation", "InvalidResponse"],
  ["callback subprocess exited with code", "NonZeroExit"],
  ["callback subprocess terminated by signal", "NonZeroExit"],
  ["callback subprocess exceeded configured timeout", "Timeout"],
];
const FAILED_PREFIX = "subprocess callback failed: ";
/**
 * The name the matrix gives the reference CLI's refusal of a request whose frame→receipt linkage is
 * invalid (a `subcall` frame without a parent receipt, a self-parented receipt). The CLI refuses it
 * before routing (stderr `invalid frame->receipt linkage: …`, exit 1); it is no invoker variant, so it
 * has no row in subprocess-failure-mapping.json and its class is the protocol's for a refused request.
 */
export const REFERENCE_LINKAGE_REFUSAL = "FrameLinkage";
const LINKAGE_PREFIX = "invalid frame->receipt linkage";

/** The FailureClass our table gives a reference variant (its `reference_variant` column), or null. */
export function referenceVariantClass(variant: string): FailureClass | null {
  const row = FAILURE_VARIANTS.find((r) => r.reference_variant === variant);
  return row === undefined ? null : (row.failure_class as FailureClass);
}

interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Grace on top of the client deadline before the reference process itself is killed (ms). */
const REFERENCE_GRACE_MS = 15_000;

function runReference(args: readonly string[], input: string, killAfterMs: number): Promise<Finished> {
  return spawnChild({ command: REFERENCE_CLI, args, input, watchdogMs: killAfterMs }).then((r) => ({
    code: r.code,
    signal: r.signal,
    stdout: r.stdoutBytes,
    stderr: r.stderr,
  }));
}

function referenceFailure(stderr: string): Observation {
  const line = stderr.trim();
  if (line.startsWith(LINKAGE_PREFIX))
    return {
      status: null,
      failure_class: "invalid_request",
      retry_class: null,
      variant: REFERENCE_LINKAGE_REFUSAL,
      receipt: null,
      detail: line,
      problems: [],
    };
  const message = line.startsWith(FAILED_PREFIX) ? line.slice(FAILED_PREFIX.length) : line;
  const match = REFERENCE_FAILURES.find(([prefix]) => message.startsWith(prefix));
  const variant = match?.[1] ?? null;
  const failureClass = variant === null ? null : referenceVariantClass(variant);
  const problems =
    variant === null
      ? [`unrecognised reference error: ${line}`]
      : failureClass === null
        ? [`reference variant ${variant} is not in subprocess-failure-mapping.json`]
        : [];
  return {
    status: null,
    failure_class: failureClass,
    retry_class: null,
    variant,
    receipt: null,
    detail: line,
    problems,
  };
}

/** The reference CLI as a host (client id `matrix-<lang>` in its receipts). */
export function referenceHost(): Host {
  return {
    id: "ref",
    title: `reference lifeloop event invoke (${REFERENCE_IMPLEMENTATION.crate} ${REFERENCE_IMPLEMENTATION.version})`,
    unavailable: () =>
      existsSync(REFERENCE_CLI)
        ? null
        : `the reference CLI is missing at .cache/lifeloop-ref/bin/lifeloop; install it: ${REFERENCE_INSTALL_COMMAND} (or run bash tools/setup/prepare.sh)`,
    async deliver({ envelope, client, args, timeoutMs, parentReceiptId }): Promise<Observation> {
      const parent = parentReceiptId === undefined ? [] : ["--parent-receipt-id", parentReceiptId];
      const argv = [
        "event",
        "invoke",
        "--client-cmd",
        client.program,
        ...args.flatMap((a) => ["--client-arg", a]),
        "--timeout-ms",
        String(timeoutMs),
        "--client-id",
        `matrix-${client.lang}`,
        ...parent,
      ];
      const run = await runReference(argv, JSON.stringify(envelope), timeoutMs + REFERENCE_GRACE_MS);
      if (run.code === 1) return referenceFailure(run.stderr);
      const none = {
        status: null,
        failure_class: null,
        retry_class: null,
        variant: null,
        receipt: null,
        detail: run.stderr.trim(),
      };
      if (run.code !== 0)
        return { ...none, problems: [`reference exited ${String(run.code ?? run.signal)}: ${run.stderr.trim()}`] };
      const parsed = parseWireDocument("LifecycleReceipt", run.stdout);
      if (!parsed.ok)
        return {
          ...none,
          problems: [
            `reference printed an invalid receipt: ${issueText(parsed.issues[0] as (typeof parsed.issues)[number])}`,
          ],
        };
      const receipt = parsed.value;
      return {
        status: receipt.status,
        failure_class: receipt.failure_class,
        retry_class: receipt.retry_class,
        variant: null,
        receipt,
        detail: "",
        problems: [],
      };
    },
  };
}
