// Block Markdown as terminal rows: headings, paragraphs, lists, block quotes, tables, rules and
// fenced code, each row at most `width` columns, wrapped at words (code rows are cut where they
// must be). Colours come from the Style; rows carry their own colours (balanceLines).
import type { Token, Tokens } from "marked";
import { displayWidth, splitWide, wrapWords } from "../../wrap.ts";
import type { Style } from "../style.ts";
import type { CodeRows } from "./code.ts";
import { renderInline } from "./inline.ts";
import { balanceLines } from "./sgr.ts";
import { renderTable } from "./table.ts";

export interface BlockContext {
  style: Style;
  code: CodeRows;
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
      return ctx.code.rows(token as Tokens.Code, w);
    case "blockquote": {
      const inner = renderBlocks((token as Tokens.Blockquote).tokens, w - 2, ctx);
      return inner.map((row) => `${style.dim("│")} ${row}`);
    }
    case "list":
      return renderList(token as Tokens.List, w, ctx);
    case "table":
      return renderTable(token as Tokens.Table, w, style);
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

/** Styled text as rows of at most `width` columns, broken at blanks, each row's colours its own. */
export function wrapStyled(text: string, width: number): string[] {
  return balanceLines(wrapWords(text.replace(/\t/g, "    "), width));
}

/** A row wider than `width` cut into rows that fit (code: no word to break at). */
export function cutRow(row: string, width: number): string[] {
  return displayWidth(row) <= width ? [row] : splitWide(row, width);
}
