// A long paste in the prompt is shown as one short mark ("[Pasted 3,000 lines]") and sent whole:
// the editor keeps the pasted text beside the mark and puts it back in when the prompt is sent.
// A mark the user edited away sends nothing of that paste; one typed by hand is plain text.
import { groupedCount } from "../../text/count.ts";

/** A paste of more lines, or more characters, than these is collapsed. */
const COLLAPSE_LINES = 10;
const COLLAPSE_CHARS = 1_000;

export function isLongPaste(text: string): boolean {
  return text.length > COLLAPSE_CHARS || text.split("\n").length > COLLAPSE_LINES;
}

const count = (n: number) => groupedCount(n);

/** The mark of a paste; `taken` are the marks already in the prompt (a second paste of the same size gets "#2"). */
export function pasteMark(text: string, taken: ReadonlySet<string>): string {
  const lines = text.split("\n").length;
  const size = lines > 1 ? `${count(lines)} lines` : `${count([...text].length)} characters`;
  let mark = `[Pasted ${size}]`;
  for (let n = 2; taken.has(mark); n++) mark = `[Pasted ${size} #${n}]`;
  return mark;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The prompt as sent: each mark still in it replaced by its paste, once (the first occurrence), in
 * one pass over the typed text, so a pasted text that itself reads "[Pasted 3 lines]" stays as it is.
 */
export function expandPastes(text: string, pastes: ReadonlyMap<string, string>): string {
  if (pastes.size === 0) return text;
  const used = new Set<string>();
  const marks = new RegExp([...pastes.keys()].map(escape).join("|"), "g");
  return text.replace(marks, (mark) => {
    if (used.has(mark)) return mark;
    used.add(mark);
    return pastes.get(mark) ?? mark;
  });
}
