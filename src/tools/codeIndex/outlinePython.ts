// Outline of Python: classes, functions and methods (decorated ones too, with their decorators
// in the detail), nested defs and classes, module constants and variables, class attributes.
import type { Node } from "web-tree-sitter";
import { type CodeSymbol, makeSymbol, qualified } from "./symbol.ts";

type Scope = "module" | "class" | "function";

const CONSTANT = /^[A-Z][A-Z0-9_]*$/;

function definition(
  node: Node,
  decorators: string[],
  container: string | undefined,
  out: CodeSymbol[],
  lines: readonly string[],
  scope: Scope,
  outer: Node,
): void {
  const name = node.childForFieldName("name")?.text;
  if (!name) return;
  const isClass = node.type === "class_definition";
  const kind = isClass ? "class" : scope === "class" ? "method" : "function";
  const symbol = makeSymbol(outer, name, kind, lines, container, node);
  if (decorators.length > 0) symbol.detail = `${decorators.join(" ")} ${symbol.detail}`;
  out.push(symbol);
  const body = node.childForFieldName("body");
  if (body) block(body, qualified(container, name), symbol.children, lines, isClass ? "class" : "function");
}

function assignment(
  node: Node,
  container: string | undefined,
  out: CodeSymbol[],
  lines: readonly string[],
  scope: Scope,
): void {
  for (const child of node.namedChildren) {
    if (child?.type !== "assignment") continue;
    const left = child.childForFieldName("left");
    if (left?.type !== "identifier") continue;
    const name = left.text;
    const kind = scope === "class" ? "property" : CONSTANT.test(name) ? "constant" : "variable";
    out.push(makeSymbol(child, name, kind, lines, container));
  }
}

function block(
  node: Node,
  container: string | undefined,
  out: CodeSymbol[],
  lines: readonly string[],
  scope: Scope,
): void {
  for (const child of node.namedChildren) {
    if (!child) continue;
    switch (child.type) {
      case "function_definition":
      case "class_definition":
        definition(child, [], container, out, lines, scope, child);
        break;
      case "decorated_definition": {
        const inner = child.childForFieldName("definition");
        const decorators = child.namedChildren.filter((c): c is Node => c?.type === "decorator").map((c) => c.text);
        if (inner) definition(inner, decorators, container, out, lines, scope, child);
        break;
      }
      case "expression_statement":
        if (scope !== "function") assignment(child, container, out, lines, scope);
        break;
      case "type_alias_statement": {
        const name = child.namedChildren[0]?.text;
        if (name && scope !== "function")
          out.push(makeSymbol(child, name.replace(/\[.*$/, ""), "type", lines, container));
        break;
      }
    }
  }
}

export function outlinePython(root: Node, lines: readonly string[]): CodeSymbol[] {
  const out: CodeSymbol[] = [];
  block(root, undefined, out, lines, "module");
  return out;
}
