// Word wrapping for Garuda's own lines (help, notices, Markdown paragraphs): breaks at blanks,
// never inside a word unless the word alone is wider than the line. Widths count characters as
// the terminal shows them (Bun.stringWidth: wide CJK and emoji count two, ANSI escapes none).

/** How many columns `text` takes on a terminal. */
function displayWidth(text: string): number {
  return Bun.stringWidth(text);
}

/** Splits a word wider than `width` into pieces that fit. */
function splitWide(word: string, width: number): string[] {
  const pieces: string[] = [];
  let piece = "";
  for (const char of word) {
    if (displayWidth(piece + char) > width && piece !== "") {
      pieces.push(piece);
      piece = "";
    }
    piece += char;
  }
  if (piece !== "") pieces.push(piece);
  return pieces;
}

/**
 * `text` as lines of at most `width` columns, broken at blanks (runs of blanks between words
 * become one). Explicit newlines are kept. A word wider than the line is cut where it must be.
 */
export function wrapWords(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split("\n")) {
    const words = paragraph.split(/ +/).filter((word) => word !== "");
    if (words.length === 0) {
      out.push("");
      continue;
    }
    let line = "";
    let lineWidth = 0;
    for (const word of words) {
      const wordWidth = displayWidth(word);
      if (line !== "" && lineWidth + 1 + wordWidth <= width) {
        line += ` ${word}`;
        lineWidth += 1 + wordWidth;
        continue;
      }
      if (line !== "") out.push(line);
      if (wordWidth <= width) {
        line = word;
        lineWidth = wordWidth;
        continue;
      }
      const pieces = splitWide(word, width);
      out.push(...pieces.slice(0, -1));
      line = pieces.at(-1) ?? "";
      lineWidth = displayWidth(line);
    }
    out.push(line);
  }
  return out;
}

/** `text` wrapped to `width` with `first` before its first line and `rest` before the others. */
export function hangingWrap(text: string, width: number, first: string, rest: string): string {
  const lines = wrapWords(text, Math.max(10, width - displayWidth(rest)));
  return lines.map((line, i) => `${i === 0 ? first : rest}${line}`).join("\n");
}
