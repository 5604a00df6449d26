// Text from the model on a terminal. Titles, previews and questions go through visible() and
// oneLine(); the streamed answer keeps its layout (indentation, blank runs) but can never carry
// a control sequence or a reordering character to the terminal.

/** C0 and C1 controls (newline and tab excepted), bidi embeddings, overrides and isolates. */
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Streamed answer or thinking text, safe to print: each unsafe character shown as ⟨U+XXXX⟩. */
export function safeText(text: string): string {
  return text.replace(UNSAFE, (char) => `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}⟩`);
}

/** The last non-empty line of a text (progress of a command shows its latest output). */
export function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  return lines.at(-1) ?? "";
}

/** The first non-empty line, cut to `max` characters. */
export function firstLine(text: string, max = 160): string {
  const line = text.split(/\r?\n/).find((candidate) => candidate.trim() !== "") ?? "";
  const chars = [...line.trim()];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : chars.join("");
}

/** "1 file" / "3 files". */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/** 12,345 or 45K. */
export function tokens(count: number): string {
  return count >= 10_000 ? `${Math.round(count / 1000)}K` : count.toLocaleString("en-US");
}
