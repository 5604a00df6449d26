// Block Markdown as terminal rows: headings, paragraphs, lists, block quotes, tables, rules and
// fenced code. Output as written: the answer's line breaks are kept, text is wrapped at words to
// `width` columns, but a word wider than that (a URL) and a line of code stay whole on a row of
// their own (the terminal wraps them, and copying gives them back unbroken). A table ends at the
// first line with no "|" (GFM would take any line up to a blank one as another row). Colours come
// from the Style; rows carry their own colours (balanceLines).
import type { Token, Tokens } from "marked";
import { displayWidth, wrapWords } from "../../wrap.ts";
import type { Style } from "../style.ts";
import type { CodeRows } from "./code.ts";
import { renderInline } from "./inline.ts";
import { balanceLines } from "./sgr.ts";
import { renderTable } from "./table.ts";

export interface BlockContext {
  style: Style;
  code: CodeRows;
  /** Markdown's block lexer: what follows a table's last row is lexed again as blocks of its own. */
  lex?: (markdown: string) => Token[];
}

/** The rows of `tokens` (a document's or a container's blocks) at `width`. */
export function renderBlocks(tokens: readonly Token[], width: number, ctx: BlockContext): string[] {
  const rows: string[] = [];
  for (const token of tokens) {
    if (token.type === "space") {
      if (rows.length > 0 && rows.at(-1) !== "") rows.push("");
      continue;
    }
    rows.push(...renderBlock(token, width, ctx));
  }
  while (rows.at(-1) === "") rows.pop();
  return rows;
}

/** One block's rows; a block of no rows (a link definition) gives none. */
export function renderBlock(token: Token, width: number, ctx: BlockContext): string[] {
  const { style } = ctx;
  const w = Math.max(8, width);
  switch (token.type) {
    case "space":
      return [""];
    case "heading": {
      const heading = token as Tokens.Heading;
      const paint =
        heading.depth === 1
          ? (text: string) => style.bold(style.underline(text))
          : heading.depth === 2
            ? style.bold
            : (text: string) => style.bold(style.dim(text));
      return wrapStyled(paint(renderInline(heading.tokens, style)), w);
    }
    case "paragraph":
      return wrapStyled(renderInline((token as Tokens.Paragraph).tokens, style), w);
    case "text": {
      const text = token as Tokens.Text;
      return wrapStyled(text.tokens ? renderInline(text.tokens, style) : text.text, w);
    }
    case "code":
      return ctx.code.rows(token as Tokens.Code);
    case "blockquote": {
      const inner = renderBlocks((token as Tokens.Blockquote).tokens, w - 2, ctx);
      return inner.map((row) => `${style.dim("│")} ${row}`);
    }
    case "list":
      return renderList(token as Tokens.List, w, ctx);
    case "table":
      return renderTableBlock(token as Tokens.Table, w, ctx);
    case "hr":
      return [style.dim("─".repeat(Math.min(w, 60)))];
    case "html":
      return wrapStyled(style.dim((token as Tokens.HTML).text.replace(/\n+$/, "")), w);
    case "def":
      return [];
    default:
      return "raw" in token && typeof token.raw === "string" ? wrapStyled(token.raw.replace(/\n+$/, ""), w) : [];
  }
}

function renderList(list: Tokens.List, width: number, ctx: BlockContext): string[] {
  const { style } = ctx;
  const start = typeof list.start === "number" ? list.start : 1;
  const markers = list.items.map((item, i) => {
    const bullet = list.ordered ? `${start + i}.` : "•";
    return item.task ? `${bullet} ${item.checked ? "☑" : "☐"}` : bullet;
  });
  const indent = Math.max(...markers.map((marker) => displayWidth(marker))) + 1;
  const rows: string[] = [];
  list.items.forEach((item, i) => {
    const content = renderBlocks(
      item.tokens.filter((child) => child.type !== "checkbox"),
      width - indent,
      ctx,
    );
    if (list.loose && i > 0) rows.push("");
    const marker = markers[i] as string;
    const first = `${list.ordered ? marker : style.cyan(marker)}${" ".repeat(indent - displayWidth(marker))}`;
    (content.length > 0 ? content : [""]).forEach((row, k) => {
      rows.push(row === "" ? (k === 0 ? first.trimEnd() : "") : `${k === 0 ? first : " ".repeat(indent)}${row}`);
    });
  });
  return rows;
}

/**
 * The table up to its last row with a "|", then what the lexer took in after it (lines with no
 * "|" up to a blank line: text the model wrote under the table) as blocks of their own.
 */
function renderTableBlock(table: Tokens.Table, width: number, ctx: BlockContext): string[] {
  // The raw lines: the header, the delimiter row, then one per body row.
  const lines = table.raw.replace(/\n+$/, "").split("\n");
  const end = lines.findIndex((line, i) => i >= 2 && !line.includes("|"));
  if (end < 0 || !ctx.lex) return renderTable(table, width, ctx.style);
  const rows = renderTable({ ...table, rows: table.rows.slice(0, end - 2) }, width, ctx.style);
  return [...rows, ...renderBlocks(ctx.lex(lines.slice(end).join("\n")), width, ctx)];
}

/**
 * Styled text as rows of at most `width` columns, broken at blanks (a wider word on a row of its own), each row's
 * colours its own.
 */
export function wrapStyled(text: string, width: number): string[] {
  return balanceLines(wrapWords(text.replace(/\t/g, "    "), width, true));
}
