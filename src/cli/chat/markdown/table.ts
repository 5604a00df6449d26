// A GFM table as rows: columns as wide as their widest cell, shrunk (widest first) to fit the
// window, a cell's text wrapped within its column, the header bold over a rule, columns aligned
// as the table says.
import type { Tokens } from "marked";
import { displayWidth, wrapWords } from "../../wrap.ts";
import type { Style } from "../style.ts";
import { renderInline } from "./inline.ts";
import { balanceLines } from "./sgr.ts";

const GAP = " │ ";
const MIN_COLUMN = 3;

export function renderTable(table: Tokens.Table, width: number, style: Style): string[] {
  const header = table.header.map((cell) => style.bold(renderInline(cell.tokens, style)));
  const body = table.rows.map((row) => row.map((cell) => renderInline(cell.tokens, style)));
  const count = Math.max(header.length, ...body.map((row) => row.length));
  if (count === 0) return [];
  const widths = columnWidths([header, ...body], count, width - displayWidth(GAP) * (count - 1));
  const rows: string[] = [];
  const line = (cells: readonly string[]) => {
    const wrapped = widths.map((w, i) => balanceLines(wrapWords(cells[i] ?? "", w)));
    const height = Math.max(...wrapped.map((cell) => cell.length));
    for (let r = 0; r < height; r++) {
      const parts = widths.map((w, i) => pad(wrapped[i]?.[r] ?? "", w, table.align[i] ?? null));
      rows.push(parts.join(style.dim(GAP)).trimEnd());
    }
  };
  line(header);
  rows.push(style.dim(widths.map((w) => "─".repeat(w)).join("─┼─")));
  for (const row of body) line(row);
  return rows;
}

/** Each column's width: its widest cell, the widest columns shrunk until the table fits `room`. */
function columnWidths(rows: readonly (readonly string[])[], count: number, room: number): number[] {
  const widths = Array.from({ length: count }, (_, i) =>
    Math.max(MIN_COLUMN, ...rows.map((row) => displayWidth(row[i] ?? ""))),
  );
  const target = Math.max(room, count * MIN_COLUMN);
  while (widths.reduce((sum, w) => sum + w, 0) > target) {
    const widest = widths.indexOf(Math.max(...widths));
    if ((widths[widest] as number) <= MIN_COLUMN) break;
    widths[widest] = (widths[widest] as number) - 1;
  }
  return widths;
}

function pad(text: string, width: number, align: "left" | "center" | "right" | null): string {
  const room = Math.max(0, width - displayWidth(text));
  if (align === "right") return `${" ".repeat(room)}${text}`;
  if (align === "center") return `${" ".repeat(Math.floor(room / 2))}${text}${" ".repeat(Math.ceil(room / 2))}`;
  return `${text}${" ".repeat(room)}`;
}
