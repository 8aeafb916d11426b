/**
 * A small unified diff of two texts, by lines (what `hook install --dry-run` prints; the `diff`
 * package is only a development dependency). Hunks carry 3 lines of context, as `diff -u`.
 * Bounded: above {@link MAX_DIFF_CELLS} line pairs the whole old text is shown replaced by the new.
 */

/** The largest old-lines x new-lines product diffed line by line (the LCS table's size). */
export const MAX_DIFF_CELLS = 25_000_000;

const CONTEXT = 3;

type Op = { readonly kind: " " | "-" | "+"; readonly line: string };

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The edit script old -> new, by a longest common subsequence of lines. */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  if (a.length * b.length > MAX_DIFF_CELLS)
    return [...a.map((line) => ({ kind: "-" as const, line })), ...b.map((line) => ({ kind: "+" as const, line }))];
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * w + j + 1] as number) + 1
          : Math.max(lcs[(i + 1) * w + j] as number, lcs[i * w + j + 1] as number);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i++] as string });
      j++;
    } else if (i < a.length && (j === b.length || (lcs[(i + 1) * w + j] as number) >= (lcs[i * w + j + 1] as number))) {
      ops.push({ kind: "-", line: a[i++] as string });
    } else {
      ops.push({ kind: "+", line: b[j++] as string });
    }
  }
  return ops;
}

/**
 * The unified diff of `oldText` -> `newText` with `---`/`+++` headers naming `oldName` and
 * `newName`; the empty string when the texts are equal. Texts are compared by lines ending in LF.
 */
export function unifiedDiff(oldText: string, newText: string, oldName: string, newName: string): string {
  if (oldText === newText) return "";
  const ops = editScript(splitLines(oldText), splitLines(newText));
  const out = [`--- ${oldName}`, `+++ ${newName}`];
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && (ops[k] as Op).kind === " ") k++;
    if (k === ops.length) break;
    // A hunk: from CONTEXT lines before this change to CONTEXT lines after the last change that is
    // at most 2*CONTEXT unchanged lines from the next one.
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    let last = k;
    while (end < ops.length) {
      if ((ops[end] as Op).kind !== " ") last = end;
      else if (end - last > 2 * CONTEXT) break;
      end++;
    }
    end = Math.min(ops.length, last + 1 + CONTEXT);
    let oldStart = 1;
    let newStart = 1;
    for (let x = 0; x < start; x++) {
      if ((ops[x] as Op).kind !== "+") oldStart++;
      if ((ops[x] as Op).kind !== "-") newStart++;
    }
    const hunk = ops.slice(start, end);
    const oldCount = hunk.filter((o) => o.kind !== "+").length;
    const newCount = hunk.filter((o) => o.kind !== "-").length;
    out.push(
      `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`,
    );
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    k = end;
  }
  return `${out.join("\n")}\n`;
}
