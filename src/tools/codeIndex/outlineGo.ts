// Outline of Go: functions, methods (named with their receiver type as container), types
// (struct with fields, interface with methods, other types and aliases), constants, variables.
import type { Node } from "web-tree-sitter";
import { type CodeSymbol, makeSymbol } from "./symbol.ts";

/** The type a receiver or field type names: `*memory` → memory, `List[T]` → List. */
function baseTypeName(node: Node | null): string | undefined {
  if (!node) return undefined;
  if (node.type === "type_identifier") return node.text;
  for (const child of node.namedChildren) {
    const name = child ? baseTypeName(child) : undefined;
    if (name) return name;
  }
  return undefined;
}

function typeSpec(spec: Node, out: CodeSymbol[], lines: readonly string[]): void {
  const name = spec.childForFieldName("name")?.text;
  if (!name) return;
  const type = spec.childForFieldName("type");
  const kind =
    spec.type === "type_alias"
      ? "type"
      : type?.type === "struct_type"
        ? "struct"
        : type?.type === "interface_type"
          ? "interface"
          : "type";
  const symbol = makeSymbol(spec, name, kind, lines, undefined);
  out.push(symbol);
  if (type?.type === "interface_type") {
    for (const member of type.namedChildren) {
      if (member?.type !== "method_elem" && member?.type !== "method_spec") continue;
      const method = member.childForFieldName("name")?.text;
      if (method) symbol.children.push(makeSymbol(member, method, "method", lines, name));
    }
  } else if (type?.type === "struct_type") {
    for (const list of type.namedChildren) {
      if (list?.type !== "field_declaration_list") continue;
      for (const field of list.namedChildren) {
        if (field?.type !== "field_declaration") continue;
        for (const fieldName of field.childrenForFieldName("name"))
          if (fieldName) symbol.children.push(makeSymbol(field, fieldName.text, "field", lines, name));
      }
    }
  }
}

function specs(
  node: Node,
  specType: string,
  kind: "constant" | "variable",
  out: CodeSymbol[],
  lines: readonly string[],
): void {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === specType) {
      for (const name of child.childrenForFieldName("name"))
        if (name) out.push(makeSymbol(child, name.text, kind, lines, undefined));
    } else if (child.type.endsWith("_list")) {
      specs(child, specType, kind, out, lines);
    }
  }
}

export function outlineGo(root: Node, lines: readonly string[]): CodeSymbol[] {
  const out: CodeSymbol[] = [];
  for (const node of root.namedChildren) {
    if (!node) continue;
    switch (node.type) {
      case "function_declaration": {
        const name = node.childForFieldName("name")?.text;
        if (name) out.push(makeSymbol(node, name, "function", lines, undefined));
        break;
      }
      case "method_declaration": {
        const name = node.childForFieldName("name")?.text;
        if (name) out.push(makeSymbol(node, name, "method", lines, baseTypeName(node.childForFieldName("receiver"))));
        break;
      }
      case "type_declaration":
        for (const spec of node.namedChildren)
          if (spec && (spec.type === "type_spec" || spec.type === "type_alias")) typeSpec(spec, out, lines);
        break;
      case "const_declaration":
        specs(node, "const_spec", "constant", out, lines);
        break;
      case "var_declaration":
        specs(node, "var_spec", "variable", out, lines);
        break;
    }
  }
  return out;
}
