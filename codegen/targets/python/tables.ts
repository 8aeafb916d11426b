/** Spec table rows for spec.py, as plain values (the template writes the Python expressions). */
import type { Model } from "../../model/model.js";
import type { PythonSdkViewModel } from "../../../generated/codegen/python/view-model.js";

/** The view of one spec/tables/event-vocabulary.json row (an `EventRow(...)` in spec.py). */
export function eventRowView(
  row: Model["tables"]["eventVocabulary"]["events"][number],
): PythonSdkViewModel["events"][number] {
  return {
    event: row.event,
    summary: row.summary,
    requiresFrameContext: row.requires_frame_context,
    notificationOnly: row.notification_only,
    dispatchable: row.dispatchable,
    streamV2: row.stream_v2,
  };
}
