// Wrapped lines of styled text, each carrying its own colours: a bold or coloured span that a wrap
// cut in two is closed at the end of its first line and opened again at the start of the next,
// so a line redrawn, cut or followed by the status line never leaks a colour.

const SGR = /\x1b\[([0-9;]*)m/g;

/** What a reset code ends: the attribute it is the "off" of. */
const OFF: Readonly<Record<string, readonly string[]>> = {
  "0": ["*"],
  "22": ["1", "2"],
  "23": ["3"],
  "24": ["4"],
  "29": ["9"],
  "39": ["fg"],
};

/** The attribute an "on" code sets (colours share one slot: the latest wins). */
function slotOf(code: string): string {
  return /^(3[0-7]|9[0-7]|38;)/.test(code) ? "fg" : code;
}

/** The open codes at the end of `line`, given those open at its start (slot → code). */
function track(line: string, open: Map<string, string>): void {
  for (const match of line.matchAll(SGR)) {
    const code = match[1] === "" ? "0" : (match[1] as string);
    const off = OFF[code];
    if (off?.includes("*")) open.clear();
    else if (off) for (const slot of off) open.delete(slot);
    else open.set(slotOf(code), code);
  }
}

/** Each line closed with a reset when colours are still open, and the next opened with them again. */
export function balanceLines(lines: readonly string[]): string[] {
  const open = new Map<string, string>();
  return lines.map((line) => {
    const prefix = [...open.values()].map((code) => `\x1b[${code}m`).join("");
    track(line, open);
    return `${prefix}${line}${open.size > 0 ? "\x1b[0m" : ""}`;
  });
}
