// Finding old_string in a file for edit_file: exact matches (with a CRLF retry), and when there
// is none, what the model most likely meant, so the error can show it.
import { lineAt } from "./textFile.ts";

export interface Replacement {
  /** The strings as applied (CRLF line ends when the file uses them and the model sent LF). */
  oldString: string;
  newString: string;
  /** Start offsets of every match. */
  starts: number[];
}

function occurrences(text: string, needle: string): number[] {
  const starts: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) starts.push(i);
  return starts;
}

const toCrlf = (text: string) => text.replace(/\r\n/g, "\n").replace(/\n/g, "\r\n");

/** Exact matches; for a file with CRLF line ends, the model's LF text is tried with CRLF too. */
export function findReplacement(text: string, oldString: string, newString: string): Replacement {
  const exact = occurrences(text, oldString);
  if (exact.length > 0 || !text.includes("\r\n") || !oldString.includes("\n"))
    return { oldString, newString, starts: exact };
  const crlfOld = toCrlf(oldString);
  return { oldString: crlfOld, newString: toCrlf(newString), starts: occurrences(text, crlfOld) };
}

/** Applies the replacement at every start (replace_all) or at the single one. */
export function applyReplacement(text: string, replacement: Replacement): string {
  let out = "";
  let from = 0;
  for (const start of replacement.starts) {
    out += text.slice(from, start) + replacement.newString;
    from = start + replacement.oldString.length;
  }
  return out + text.slice(from);
}

export function matchLines(text: string, starts: number[]): number[] {
  return starts.map((start) => lineAt(text, start));
}

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i++) {
    const gram = text.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

/** Dice coefficient of character bigrams, 0–1. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const ga = bigrams(a);
  const gb = bigrams(b);
  let common = 0;
  for (const [gram, count] of ga) common += Math.min(count, gb.get(gram) ?? 0);
  return (2 * common) / (a.length - 1 + (b.length - 1));
}

const squash = (line: string) => line.trim().replace(/\s+/g, " ");

function numbered(lines: string[], from: number, count: number): string {
  return lines
    .slice(from, from + count)
    .map((line, i) => `${String(from + i + 1).padStart(6)}\t${line.replace(/\r$/, "")}`)
    .join("\n");
}

/** The error text when old_string is not in the file: the likeliest intended lines, numbered. */
export function notFoundMessage(display: string, text: string, oldString: string): string {
  const lines = text.split("\n");
  const wanted = oldString.replace(/\r\n/g, "\n").split("\n");
  const head = `old_string was not found in ${display}.`;
  const copy =
    "Copy the exact text from the file, including whitespace and indentation " +
    "(read_file shows it after the line number and tab), or read the file again if " +
    "it may have changed.";
  if (wanted.every((line) => /^\s*\d+\t/.test(line) || line.trim() === "")) {
    return (
      `${head} It seems to include read_file's line numbers: leave out the number and ` +
      `the tab before each line. ${copy}`
    );
  }
  const span = Math.min(Math.max(wanted.length, 1), 8);
  // The same lines with other whitespace?
  const squashed = wanted.map(squash).filter((line) => line !== "");
  if (squashed.length > 0) {
    for (let i = 0; i < lines.length; i++) {
      if (squash(lines[i] as string) !== squashed[0]) continue;
      let j = i;
      let k = 0;
      while (j < lines.length && k < squashed.length) {
        const line = squash(lines[j] as string);
        if (line === "") {
          j++;
          continue;
        }
        if (line !== squashed[k]) break;
        j++;
        k++;
      }
      if (k === squashed.length) {
        return (
          `${head} The same text is at line ${i + 1} with different whitespace or ` +
          `indentation:\n${numbered(lines, i, j - i)}\n${copy}`
        );
      }
    }
  }
  const probe = squash(wanted.find((line) => line.trim() !== "") ?? "");
  const scored = lines
    .map((line, index) => ({ index, score: similarity(squash(line), probe) }))
    .filter((entry) => entry.score >= 0.5)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, 3)
    .sort((a, b) => a.index - b.index);
  if (scored.length === 0) return `${head} No similar lines either. ${copy}`;
  const shown = scored.map((entry) => numbered(lines, entry.index, span)).join("\n--\n");
  return `${head} The closest lines are:\n${shown}\n${copy}`;
}
