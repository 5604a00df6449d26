// Where a long unfinished paragraph, list or table can be cut in two while it streams, so that
// its first part is written for good and only the rest is lexed again at the next frame: before a
// line that goes on with the paragraph (it starts with a letter or a figure that opens no list),
// before an item of the same list, before a quote's line that goes on with its paragraph, or before a row of the table
// (the rest gets the table's header
// rows again, and may size its columns anew). The first part has no inline span left open (an even count of
// backticks and of "**"), so both parts look as they would have together. A paragraph of one
// long line is cut at a blank between words; its first part then ends with a shorter row.
import type { Token, Tokens } from "marked";

/** A paragraph line the rest can start with: no block of its own (list, heading, quote, fence, underline …). */
const PARAGRAPH_LINE = /\n(?=[\p{L}\p{N}(“"'])(?!\d{1,9}[.)](?:[ \t]|$))/gu;

/**
 * A cut: the first part is the source before `at`; the rest starts with `header` (a table's), then the source from
 * `at`.
 */
export interface Cut {
  at: number;
  header?: string;
}

/** A quote's line that goes on with a paragraph in it (not a list, heading, fence or blank line of its own). */
const QUOTE_LINE = /\n(?= {0,3}> ?[\p{L}\p{N}(“"'])(?! {0,3}> ?\d{1,9}[.)](?:[ \t]|$))/gu;

/** Where the unfinished block `token` can be cut; undefined when nowhere. */
export function cutPoint(token: Token): Cut | undefined {
  const raw = token.raw.replace(/\n+$/, "");
  if (token.type === "paragraph" || token.type === "text") {
    const at = lastBalanced(raw, PARAGRAPH_LINE, 1) ?? atBlank(raw);
    return at === undefined ? undefined : { at };
  }
  if (token.type === "blockquote") {
    const at = lastBalanced(raw, QUOTE_LINE, 1);
    return at === undefined ? undefined : { at };
  }
  if (token.type === "table") {
    const lines = raw.split("\n");
    if (lines.length < 4) return undefined;
    const header = `${lines[0]}\n${lines[1]}\n`;
    // Before the last row: it may still be growing.
    const at = raw.length - (lines.at(-1) as string).length;
    return at > header.length ? { at, header } : undefined;
  }
  if (token.type === "list") {
    const list = token as Tokens.List;
    const first = /^( {0,3})([-+*]|\d{1,9}([.)]))[ \t]/.exec(raw);
    if (!first) return undefined;
    const indent = first[1] as string;
    const marker = list.ordered ? `\\d{1,9}\\${first[3]}` : `\\${first[2]}`;
    const item = new RegExp(`\\n(?=${indent}${marker}[ \\t])`, "g");
    // Before an item; else before a line of the last item's paragraph (given no indent, it is
    // then a paragraph after the list: text a model meant as the item's, or after it).
    const at = lastBalanced(raw, item, 1) ?? lastBalanced(raw, PARAGRAPH_LINE, 1);
    return at === undefined ? undefined : { at };
  }
  return undefined;
}

/** The last match of `at` in `raw` after which no inline span is open; the cut is `skip` past its start. */
function lastBalanced(raw: string, at: RegExp, skip: number): number | undefined {
  const offsets = [...raw.matchAll(at)].map((match) => match.index + skip);
  for (let i = offsets.length - 1; i >= 0; i--) {
    const offset = offsets[i] as number;
    if (offset > 0 && balanced(raw.slice(0, offset))) return offset;
  }
  return undefined;
}

/** A single long line: at the last blank between words, a line's length before its end. */
function atBlank(raw: string): number | undefined {
  if (raw.includes("\n")) return undefined;
  return lastBalanced(raw.slice(0, Math.max(0, raw.length - 80)), / (?=[\p{L}\p{N}])/gu, 1);
}

function balanced(text: string): boolean {
  return (text.split("`").length - 1) % 2 === 0 && (text.split("**").length - 1) % 2 === 0;
}
