// Outline of Rust: functions, structs (with fields), enums, unions, traits and their methods,
// impl blocks (methods get the implementing type as container, so `Cache.new` finds them),
// modules, constants, statics, type aliases and macro_rules! macros.
import type { Node } from "web-tree-sitter";
import { type CodeSymbol, makeSymbol, qualified, type SymbolKind } from "./symbol.ts";

/** `Cache<K, V>` → Cache, `crate::a::Cache` → Cache, `&mut T` → T. */
function baseTypeName(node: Node | null): string | undefined {
  if (!node) return undefined;
  if (node.type === "type_identifier" || node.type === "identifier") return node.text;
  if (node.type === "scoped_type_identifier") return node.childForFieldName("name")?.text;
  if (node.type === "generic_type") return baseTypeName(node.childForFieldName("type"));
  for (const child of node.namedChildren) {
    const name = child ? baseTypeName(child) : undefined;
    if (name) return name;
  }
  return undefined;
}

const SIMPLE: Record<string, SymbolKind> = {
  enum_item: "enum",
  union_item: "struct",
  type_item: "type",
  associated_type: "type",
  const_item: "constant",
  static_item: "variable",
  macro_definition: "macro",
};

function items(
  node: Node,
  container: string | undefined,
  out: CodeSymbol[],
  lines: readonly string[],
  inImpl: boolean,
): void {
  for (const item of node.namedChildren) {
    if (!item) continue;
    const name = item.childForFieldName("name")?.text;
    switch (item.type) {
      case "function_item":
      case "function_signature_item":
        if (name) out.push(makeSymbol(item, name, inImpl ? "method" : "function", lines, container));
        break;
      case "struct_item": {
        if (!name) break;
        const symbol = makeSymbol(item, name, "struct", lines, container);
        out.push(symbol);
        const body = item.childForFieldName("body");
        if (body?.type === "field_declaration_list") {
          for (const field of body.namedChildren) {
            const fieldName = field?.type === "field_declaration" ? field.childForFieldName("name")?.text : undefined;
            if (field && fieldName)
              symbol.children.push(makeSymbol(field, fieldName, "field", lines, qualified(container, name)));
          }
        }
        break;
      }
      case "trait_item":
      case "mod_item": {
        if (!name) break;
        const symbol = makeSymbol(item, name, item.type === "trait_item" ? "trait" : "module", lines, container);
        out.push(symbol);
        const body = item.childForFieldName("body");
        if (body) items(body, qualified(container, name), symbol.children, lines, item.type === "trait_item");
        break;
      }
      case "impl_item": {
        const type = item.childForFieldName("type");
        const trait = item.childForFieldName("trait");
        const typeName = baseTypeName(type);
        if (!type || !typeName) break;
        const label = trait ? `impl ${trait.text} for ${type.text}` : `impl ${type.text}`;
        const symbol = makeSymbol(item, label, "impl", lines, container);
        out.push(symbol);
        const body = item.childForFieldName("body");
        if (body) items(body, qualified(container, typeName), symbol.children, lines, true);
        break;
      }
      default: {
        const kind = SIMPLE[item.type];
        if (kind && name) out.push(makeSymbol(item, name, kind, lines, container));
      }
    }
  }
}

export function outlineRust(root: Node, lines: readonly string[]): CodeSymbol[] {
  const out: CodeSymbol[] = [];
  items(root, undefined, out, lines, false);
  return out;
}
