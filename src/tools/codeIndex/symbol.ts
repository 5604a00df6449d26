// A symbol of a code outline, language-neutral: what `symbols` prints and `find_definition`
// searches.
import type { Node } from "web-tree-sitter";

export type SymbolKind =
  | "function"
  | "method"
  | "class"
  | "interface"
  | "type"
  | "enum"
  | "struct"
  | "trait"
  | "impl"
  | "module"
  | "namespace"
  | "constant"
  | "variable"
  | "property"
  | "field"
  | "macro"
  /** A C or C++ function declared without its body (a prototype), or an `extern` variable. */
  | "declaration";

export interface CodeSymbol {
  name: string;
  kind: SymbolKind;
  /** 1-based lines. */
  line: number;
  endLine: number;
  /** The enclosing symbols' names joined with ".", e.g. "Shapes.Circle" for a method of Circle. */
  container?: string;
  /** The declaration's first line, trimmed (a signature, mostly). */
  detail: string;
  children: CodeSymbol[];
}

const MAX_DETAIL = 160;

export function qualified(container: string | undefined, name: string): string {
  return container ? `${container}.${name}` : name;
}

/** The source line a node starts on, trimmed of a trailing `{` or `:`, cut to a sensible length. */
function detailOf(lines: readonly string[], row: number): string {
  const line = (lines[row] ?? "").trim().replace(/\s*(\{\s*\}?|:)\s*$/, "");
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL - 1)}…` : line;
}

export function makeSymbol(
  node: Node,
  name: string,
  kind: SymbolKind,
  lines: readonly string[],
  container: string | undefined,
  lineNode: Node = node,
): CodeSymbol {
  const symbol: CodeSymbol = {
    name,
    kind,
    line: lineNode.startPosition.row + 1,
    endLine: node.endPosition.row + 1,
    detail: detailOf(lines, lineNode.startPosition.row),
    children: [],
  };
  if (container) symbol.container = container;
  return symbol;
}

/** Every symbol of a tree, depth first. */
export function flatten(symbols: readonly CodeSymbol[]): CodeSymbol[] {
  const out: CodeSymbol[] = [];
  const walk = (list: readonly CodeSymbol[]) => {
    for (const symbol of list) {
      out.push(symbol);
      walk(symbol.children);
    }
  };
  walk(symbols);
  return out;
}
