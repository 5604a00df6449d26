// Outline of TypeScript and JavaScript (tree-sitter-typescript's typescript and tsx grammars):
// functions, classes and their members, interfaces, types, enums, namespaces, and top-level
// variables (a const holding an arrow function counts as a function). Inside a function only
// nested function and class declarations are listed, not every local.
import type { Node } from "web-tree-sitter";
import { type CodeSymbol, makeSymbol, qualified } from "./symbol.ts";

type Scope = "module" | "function";

const FUNCTION_VALUES = new Set(["arrow_function", "function_expression", "function", "generator_function"]);

function nameText(node: Node, field = "name"): string | undefined {
  return node.childForFieldName(field)?.text;
}

function classMembers(body: Node | null, container: string, out: CodeSymbol[], lines: readonly string[]): void {
  if (!body) return;
  for (const member of body.namedChildren) {
    if (!member) continue;
    switch (member.type) {
      case "method_definition":
      case "method_signature":
      case "abstract_method_signature": {
        const name = nameText(member);
        if (name) out.push(makeSymbol(member, name, "method", lines, container));
        break;
      }
      case "public_field_definition":
      case "field_definition": {
        const name = nameText(member) ?? nameText(member, "property");
        const value = member.childForFieldName("value");
        if (name)
          out.push(
            makeSymbol(
              member,
              name,
              value && FUNCTION_VALUES.has(value.type) ? "method" : "property",
              lines,
              container,
            ),
          );
        break;
      }
      case "property_signature": {
        const name = nameText(member);
        if (name) out.push(makeSymbol(member, name, "property", lines, container));
        break;
      }
    }
  }
}

function declarators(
  node: Node,
  container: string | undefined,
  out: CodeSymbol[],
  lines: readonly string[],
  scope: Scope,
): void {
  const isConst = node.child(0)?.type === "const";
  for (const declarator of node.namedChildren) {
    if (declarator?.type !== "variable_declarator") continue;
    const nameNode = declarator.childForFieldName("name");
    if (nameNode?.type !== "identifier") continue;
    const name = nameNode.text;
    const value = declarator.childForFieldName("value");
    if (value && FUNCTION_VALUES.has(value.type)) {
      const symbol = makeSymbol(declarator, name, "function", lines, container, node);
      out.push(symbol);
      const body = value.childForFieldName("body");
      if (body?.type === "statement_block")
        statements(body, qualified(container, name), symbol.children, lines, "function");
    } else if (value?.type === "class") {
      const symbol = makeSymbol(declarator, name, "class", lines, container, node);
      out.push(symbol);
      classMembers(value.childForFieldName("body"), qualified(container, name), symbol.children, lines);
    } else if (scope === "module") {
      out.push(makeSymbol(declarator, name, isConst ? "constant" : "variable", lines, container, node));
    }
  }
}

function declaration(
  node: Node,
  container: string | undefined,
  out: CodeSymbol[],
  lines: readonly string[],
  scope: Scope,
): void {
  switch (node.type) {
    case "export_statement":
    case "ambient_declaration":
      for (const child of node.namedChildren) if (child) declaration(child, container, out, lines, scope);
      return;
    case "expression_statement":
      for (const child of node.namedChildren)
        if (child?.type === "internal_module") declaration(child, container, out, lines, scope);
      return;
    case "function_declaration":
    case "generator_function_declaration":
    case "function_signature": {
      const name = nameText(node);
      if (!name) return;
      const symbol = makeSymbol(node, name, "function", lines, container);
      out.push(symbol);
      const body = node.childForFieldName("body");
      if (body) statements(body, qualified(container, name), symbol.children, lines, "function");
      return;
    }
    case "class_declaration":
    case "abstract_class_declaration": {
      const name = nameText(node);
      if (!name) return;
      const symbol = makeSymbol(node, name, "class", lines, container);
      out.push(symbol);
      classMembers(node.childForFieldName("body"), qualified(container, name), symbol.children, lines);
      return;
    }
    case "interface_declaration": {
      const name = nameText(node);
      if (!name) return;
      const symbol = makeSymbol(node, name, "interface", lines, container);
      out.push(symbol);
      classMembers(node.childForFieldName("body"), qualified(container, name), symbol.children, lines);
      return;
    }
    case "type_alias_declaration":
    case "enum_declaration": {
      const name = nameText(node);
      if (name) out.push(makeSymbol(node, name, node.type === "enum_declaration" ? "enum" : "type", lines, container));
      return;
    }
    case "internal_module":
    case "module": {
      const name = nameText(node);
      if (!name) return;
      const symbol = makeSymbol(node, name, "namespace", lines, container);
      out.push(symbol);
      const body = node.childForFieldName("body");
      if (body) statements(body, qualified(container, name), symbol.children, lines, "module");
      return;
    }
    case "lexical_declaration":
    case "variable_declaration":
      declarators(node, container, out, lines, scope);
      return;
  }
}

function statements(
  node: Node,
  container: string | undefined,
  out: CodeSymbol[],
  lines: readonly string[],
  scope: Scope,
): void {
  for (const child of node.namedChildren) if (child) declaration(child, container, out, lines, scope);
}

export function outlineTypescript(root: Node, lines: readonly string[]): CodeSymbol[] {
  const out: CodeSymbol[] = [];
  statements(root, undefined, out, lines, "module");
  return out;
}
