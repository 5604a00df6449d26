// Word wrapping for Garuda's own lines (help, notices, Markdown paragraphs): breaks at blanks,
// never inside a word unless the word alone is wider than the line. Widths count characters as
// the terminal shows them (Bun.stringWidth: wide CJK and emoji count two, ANSI escapes none).

/** How many columns `text` takes on a terminal. */
export function displayWidth(text: string): number {
  return Bun.stringWidth(text);
}

/** A colour or cursor sequence, or one character: the units a word may be cut between. */
const UNIT = /\x1b\[[0-9;?]*[A-Za-z]|[^]/gu;

/** Splits a word wider than `width` into pieces that fit; an escape sequence is never cut. */
export function splitWide(word: string, width: number): string[] {
  const pieces: string[] = [];
  let piece = "";
  let pieceWidth = 0;
  for (const unit of word.match(UNIT) ?? []) {
    const unitWidth = unit.length > 2 && unit.startsWith("\x1b[") ? 0 : displayWidth(unit);
    if (pieceWidth + unitWidth > width && pieceWidth > 0) {
      pieces.push(piece);
      piece = "";
      pieceWidth = 0;
    }
    piece += unit;
    pieceWidth += unitWidth;
  }
  if (piece !== "") pieces.push(piece);
  return pieces;
}

/**
 * `text` as lines of at most `width` columns, broken at blanks (runs of blanks between words
 * become one). Explicit newlines are kept. A word wider than the line is cut where it must be,
 * or with `keepWide` left whole on a line of its own (a URL: the terminal wraps it, and copying
 * it gives it back unbroken).
 */
export function wrapWords(text: string, width: number, keepWide = false): string[] {
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
      if (wordWidth <= width || keepWide) {
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

/**
 * One line of the chat's own output fitted to `width`: unchanged when it fits (tables and lists
 * keep their spacing), else broken at words with its continuation lines indented two columns
 * past the line's own indentation.
 */
export function wrapLine(line: string, width: number): string {
  if (displayWidth(line) <= width) return line;
  // A line coloured as a whole ("\x1b[2m  (note …)") keeps its indent: the colour goes on its first word.
  const [, colour = "", indent = ""] = /^((?:\x1b\[[0-9;]*m)*)( *)/.exec(line) ?? [];
  return hangingWrap(colour + line.slice(colour.length + indent.length), width, indent, `${indent}  `);
}
