// How code index results read for the model.
import type { CodeSymbol } from "./symbol.ts";

/** Kinds whose declaration line says nothing more than "kind name". */
const NO_TAIL = new Set<CodeSymbol["kind"]>([
  "impl",
  "class",
  "struct",
  "interface",
  "enum",
  "trait",
  "module",
  "namespace",
  "macro",
]);

/** What follows the name in its declaration line: the parameters and return type, a type or value. */
function tail(symbol: CodeSymbol): string {
  if (NO_TAIL.has(symbol.kind)) return "";
  const detail = symbol.detail.replace(/;$/, "");
  const at = detail.indexOf(symbol.name);
  const after = at >= 0 ? detail.slice(at + symbol.name.length).trim() : "";
  const cut = after.length > 100 ? `${after.slice(0, 99)}…` : after;
  const sep = cut.startsWith("(") || cut.startsWith("<") || cut.startsWith("[") || cut === "" ? "" : " ";
  return sep + cut;
}

function decorators(symbol: CodeSymbol): string {
  const found = symbol.detail.match(/^(@[^\s]+(?:\s+@[^\s]+)*)\s/);
  return found ? `  [${found[1]}]` : "";
}

function symbolLine(symbol: CodeSymbol, depth: number): string {
  const label = symbol.kind === "impl" ? symbol.name : `${symbol.kind} ${symbol.name}${tail(symbol)}`;
  return `${String(symbol.line).padStart(5)}  ${"  ".repeat(depth)}${label}${decorators(symbol)}`;
}

/** Numbered, indented outline lines, depth first. */
export function outlineLines(symbols: readonly CodeSymbol[], depth = 0, out: string[] = []): string[] {
  for (const symbol of symbols) {
    out.push(symbolLine(symbol, depth));
    outlineLines(symbol.children, depth + 1, out);
  }
  return out;
}

export function definitionLine(path: string, symbol: CodeSymbol): string {
  const name = symbol.container ? `${symbol.container}.${symbol.name}` : symbol.name;
  return `${path}:${symbol.line}  ${symbol.kind} ${name} — ${symbol.detail}`;
}
