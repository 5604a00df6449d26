// Text from the model on a terminal. Titles, previews and questions go through visible() and
// oneLine(); the streamed answer goes through safeText() (src/text/visible.ts): it keeps its
// layout but can never carry a control sequence or a reordering character to the terminal.
import { visible } from "../../text/visible.ts";
import { groupedCount } from "../../text/count.ts";

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

/**
 * What a command printed, from the bash tool's result: its lines without the "Exit code: N" line
 * the model reads first, the "(no output)" stand-in, the "[Garuda: …]" hints written for the model,
 * and blank lines. None when the result is not a command's (it did not run).
 */
export function commandOutputLines(result: string): string[] {
  const lines = result.split(/\r?\n/);
  if (!/^Exit code: /.test(lines[0] ?? "")) return [];
  const output = lines.slice(1);
  while (output.length > 0 && /^\[Garuda: .*\]$/.test(output.at(-1) as string)) output.pop();
  if (output.length === 1 && output[0] === "(no output)") return [];
  return output.filter((line) => line.trim() !== "");
}

/** A line within `width` columns: tabs as spaces, hidden characters visible, a longer one cut with "…". */
export function fitLine(line: string, width: number): string {
  const chars = [...visible(line.replace(/\t/g, "  "))];
  return chars.length > width ? `${chars.slice(0, Math.max(1, width - 1)).join("")}…` : chars.join("");
}

/** "1 file" / "3 files". */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/** 12,345 or 45K. */
export function tokens(count: number): string {
  return count >= 10_000 ? `${Math.round(count / 1000)}K` : groupedCount(count);
}
