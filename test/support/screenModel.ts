// A small model of what a terminal shows: the bytes a program wrote replayed on a grid (text,
// carriage return, line feed, cursor up/down/right, erase line and erase below, auto-wrap at the
// right margin), with unlimited scrollback, and a resize that reflows rows as most terminals do
// (each row cut to the new width). Enough to check what stays on screen after a live region was
// drawn and redrawn in place, which a plain strip of escape codes cannot tell.
export interface Resize {
  /** Where in `raw` the window changed size. */
  at: number;
  cols: number;
}

export function renderScreen(raw: string, startCols: number, rows: number, resizes: readonly Resize[] = []): string[] {
  let lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  let cols = startCols;
  let offset = 0;
  const pending = [...resizes];
  const reflow = (next: number) => {
    const out: string[][] = [];
    lines.forEach((chars, i) => {
      const pieces =
        chars.length === 0
          ? [[]]
          : Array.from({ length: Math.ceil(chars.length / next) }, (_, k) => chars.slice(k * next, (k + 1) * next));
      if (i === row) {
        row = out.length + Math.min(pieces.length - 1, Math.floor(col / next));
        col = col % next;
      }
      out.push(...pieces);
    });
    lines = out;
    cols = next;
  };
  const top = () => Math.max(0, lines.length - rows);
  const line = () => {
    while (lines.length <= row) lines.push([]);
    return lines[row] as string[];
  };
  const tokens = raw.match(/\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]|\x1b\][^\x07]*\x07|[^]/gu) ?? [];
  for (const token of tokens) {
    while (pending.length > 0 && (pending[0] as Resize).at <= offset) reflow((pending.shift() as Resize).cols);
    offset += token.length;
    if (token.startsWith("\x1b[")) {
      const final = token.at(-1);
      const n = Number(token.slice(2, -1)) || 1;
      if (final === "A") row = Math.max(top(), row - n);
      else if (final === "B") row += n;
      else if (final === "C") col = Math.min(cols - 1, col + n);
      else if (final === "K") line().splice(col);
      else if (final === "J" && token !== "\x1b[2J") {
        line().splice(col);
        lines.splice(row + 1);
      }
      continue;
    }
    if (token.startsWith("\x1b")) continue;
    if (token === "\r") col = 0;
    else if (token === "\n") {
      row++;
      line();
    } else if (token >= " ") {
      if (col >= cols) {
        row++;
        col = 0;
      }
      const current = line();
      while (current.length < col) current.push(" ");
      current[col] = token;
      col += Bun.stringWidth(token) || 1;
    }
  }
  return lines.map((chars) => chars.join("").trimEnd());
}
