/**
 * Plain-text tables and optional colour for terminal reports (the matrix, the demo).
 *
 * Widths are measured in code points of the plain text (every symbol used here — ✓ ✗ — · — is one
 * column wide), and colour is applied after padding, so coloured and plain output line up the same.
 */

/** How a cell is emphasised when colour is on. */
export type Tone = "plain" | "ok" | "bad" | "dim" | "bold";

/** One table cell: its text and tone. A bare string is a plain cell. */
export type Cell = string | { readonly text: string; readonly tone: Tone };

const CODES: { readonly [T in Tone]: readonly [string, string] } = {
  plain: ["", ""],
  ok: ["\u001b[32m", "\u001b[39m"],
  bad: ["\u001b[31m", "\u001b[39m"],
  dim: ["\u001b[2m", "\u001b[22m"],
  bold: ["\u001b[1m", "\u001b[22m"],
};

/** Colour or not: `paint(text, tone)` wraps text in ANSI codes only when enabled. */
export interface Painter {
  readonly enabled: boolean;
  paint(text: string, tone: Tone): string;
}

/**
 * A painter for `stream`: colour only when it is a TTY and the NO_COLOR convention
 * (https://no-color.org) is not in effect.
 */
export function painterFor(stream: NodeJS.WriteStream): Painter {
  const enabled = stream.isTTY === true && (process.env.NO_COLOR ?? "") === "";
  return {
    enabled,
    paint: (text, tone) => (enabled && text !== "" ? `${CODES[tone][0]}${text}${CODES[tone][1]}` : text),
  };
}

function textOf(cell: Cell): string {
  return typeof cell === "string" ? cell : cell.text;
}

function toneOf(cell: Cell): Tone {
  return typeof cell === "string" ? "plain" : cell.tone;
}

function width(text: string): number {
  return [...text].length;
}

/**
 * Render `rows` under `headers` as aligned lines (columns separated by two spaces, a dashed rule
 * under the header, trailing blanks trimmed), each prefixed by `indent`. Returns the lines.
 */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  painter: Painter,
  indent = "",
): string[] {
  const widths = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(textOf(r[i] ?? "")))));
  const line = (cells: readonly Cell[]): string =>
    (
      indent +
      cells
        .map((c, i) => painter.paint(textOf(c), toneOf(c)) + " ".repeat((widths[i] ?? 0) - width(textOf(c))))
        .join("  ")
    ).trimEnd();
  return [
    line(headers.map((h) => ({ text: h, tone: "bold" }))),
    (indent + widths.map((w) => "─".repeat(w)).join("  ")).trimEnd(),
    ...rows.map(line),
  ];
}
