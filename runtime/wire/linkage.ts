/**
 * The frame → receipt linkage (spec/host-runtime.md §"Receipts": "Linkage"), checked before an
 * envelope is delivered, so a call the receipt tree cannot hold is refused with nothing spawned,
 * and again when its receipt is made:
 * - a `parent_receipt_id`, when given, is not empty and is not the receipt's own id (a receipt
 *   that is its own parent traps every reader that walks parent links);
 * - a `subcall` frame (nested by definition) needs a parent receipt: a root receipt for it would
 *   show a nested call as the root of a tree.
 * A `top_level` frame and an event without a frame may carry a parent or not (the link is then
 * causal, e.g. `frame.opened` chained to `frame.opening`). The reference (lifeloop-cli 0.9.0)
 * checks the same three things before dispatch.
 */
import type { ValidationIssue } from "./issues.js";

/** Rule id of the subcall check (an invocation rule, not a document rule: the document alone is valid). */
export const SUBCALL_REQUIRES_PARENT_RECEIPT = "subcall-requires-parent-receipt";
/** Rule id of the self-parent check; the same id the LifecycleReceipt rule of spec/tables/rules.json uses. */
export const RECEIPT_NOT_OWN_PARENT = "receipt-not-own-parent";
/** Rule id of an empty parent receipt id (as for every identifier of the wire). */
const NON_EMPTY_IDENTIFIER = "non-empty-identifier";

/** The `frame_class` of an envelope-shaped value's request, or undefined. Never throws. */
function frameClassOf(envelope: unknown): unknown {
  try {
    const request = (envelope as { request?: { frame_context?: { frame_class?: unknown } | null } } | null)?.request;
    return request?.frame_context?.frame_class;
  } catch {
    return undefined;
  }
}

/**
 * The linkage problem of delivering `envelope` under a receipt whose parent is `parentReceiptId`
 * (null: a root receipt) and whose own id is `receiptId` (undefined when not known yet: the
 * self-parent check is then left to the receipt), or null when the linkage is sound. Pointers are
 * those of the receipt (`/parent_receipt_id`). Never throws.
 */
export function linkageIssue(
  envelope: unknown,
  parentReceiptId: string | null,
  receiptId?: string,
): ValidationIssue | null {
  if (parentReceiptId !== null) {
    if (parentReceiptId === "")
      return {
        rule: NON_EMPTY_IDENTIFIER,
        pointer: "/parent_receipt_id",
        message: "the parent receipt id is empty: give a receipt id, or none for a root receipt",
      };
    if (receiptId !== undefined && parentReceiptId === receiptId) {
      return {
        rule: RECEIPT_NOT_OWN_PARENT,
        pointer: "/parent_receipt_id",
        message: `parent_receipt_id equals receipt_id ${JSON.stringify(receiptId)}: a receipt is not its own parent`,
      };
    }
    return null;
  }
  if (frameClassOf(envelope) === "subcall") {
    return {
      rule: SUBCALL_REQUIRES_PARENT_RECEIPT,
      pointer: "/parent_receipt_id",
      message:
        "frame_class=subcall requires a parent receipt (invoke option parentReceiptId, CLI --parent-receipt-id): a root receipt for a nested frame would misrepresent the receipt tree",
    };
  }
  return null;
}
