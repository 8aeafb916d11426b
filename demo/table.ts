/**
 * The demo's tables: one per session run (#, event, payloads, outcome, failure class, receipt id,
 * sequence, elapsed ms) and one for the misbehaving cases. Rows with a problem are marked ✗ and
 * their problems listed under the table.
 */
import { renderTable, type Cell, type Painter } from "../test/support/text-table.js";
import type { FailureRow } from "./failures.js";
import type { SessionRow } from "./session.js";

const NONE = "—";

function outcome(status: string | null, problems: readonly string[], fallback: string): Cell {
  const text = status ?? fallback;
  if (problems.length > 0) return { text: `✗ ${text}`, tone: "bad" };
  return { text, tone: status === "failed" || status === null ? "bad" : "ok" };
}

function problemLines(labels: readonly string[], problems: readonly (readonly string[])[]): string[] {
  return problems.flatMap((list, i) => list.map((p) => `  ✗ ${labels[i] ?? ""}: ${p}`));
}

/** The table of one session run. */
export function sessionTable(rows: readonly SessionRow[], painter: Painter): string[] {
  const cells = rows.map(
    (r) =>
      [
        String(r.n),
        r.event,
        r.payloads.length === 0 ? { text: NONE, tone: "dim" } : r.payloads.join(", "),
        outcome(r.status, r.problems, "no receipt"),
        r.failure_class ?? { text: NONE, tone: "dim" },
        r.receipt_id ?? NONE,
        r.sequence === null ? NONE : String(r.sequence),
        String(Math.round(r.elapsedMs)),
      ] satisfies Cell[],
  );
  return [
    ...renderTable(
      ["#", "event", "payloads", "outcome", "failure class", "receipt id", "seq", "ms"],
      cells,
      painter,
      "  ",
    ),
    ...problemLines(
      rows.map((r) => `${r.n} ${r.event}`),
      rows.map((r) => r.problems),
    ),
  ];
}

/** The table of the misbehaving cases. */
export function failureTable(rows: readonly FailureRow[], painter: Painter): string[] {
  const cells = rows.map(
    (r) =>
      [
        r.failureCase.title,
        r.failureCase.lang,
        r.failureCase.event,
        outcome(r.status, r.problems, "refused"),
        r.failure_class ?? NONE,
        r.variant ?? NONE,
        r.receipt_id ?? { text: "— (none made)", tone: "dim" },
        r.spawned ? "yes" : "no",
        String(Math.round(r.elapsedMs)),
      ] satisfies Cell[],
  );
  return [
    ...renderTable(
      ["case", "client", "event", "outcome", "failure class", "variant", "receipt id", "spawned", "ms"],
      cells,
      painter,
      "  ",
    ),
    ...problemLines(
      rows.map((r) => r.failureCase.title),
      rows.map((r) => r.problems),
    ),
  ];
}
