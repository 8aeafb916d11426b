/** Spec table rows as Python expressions (spec.py). */
import type { Model } from "../../model/model.js";
import { pyStr } from "./naming.js";

/** An `EventRow(...)` expression of one spec/tables/event-vocabulary.json row. */
export function eventRowExpr(row: Model["tables"]["eventVocabulary"]["events"][number]): string {
  const b = (v: boolean): string => (v ? "True" : "False");
  return [
    `event=${pyStr(row.event)}`,
    `summary=${pyStr(row.summary)}`,
    `requires_frame_context=${b(row.requires_frame_context)}`,
    `notification_only=${b(row.notification_only)}`,
    `dispatchable=${b(row.dispatchable)}`,
    `stream_v2=${pyStr(row.stream_v2)}`,
  ].join(", ");
}
