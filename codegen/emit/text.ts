/**
 * Small text helpers shared by the code generators.
 */

/**
 * Word-wrap `text` into lines of at most `width` characters; a word longer than `width` gets a line
 * of its own (words are never split). Each `\n`-separated paragraph starts a new line; with
 * `keepBlankLines`, a blank paragraph yields an empty line, otherwise blank paragraphs vanish.
 */
export function wrapWords(text: string, width: number, keepBlankLines: boolean): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(keepBlankLines ? "\n" : /\n+/)) {
    let line = "";
    for (const word of paragraph.split(/\s+/).filter((w) => w.length > 0)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    if (line || keepBlankLines) lines.push(line);
  }
  return lines;
}
