// Outline of C and C++ (one outliner: the C++ grammar's node types extend the C grammar's).
// Functions, structs, unions, enums (with their constants), typedefs, macros (#define), global
// variables; in C++ also classes, namespaces, methods (in the class or defined out of it as
// `Class::method`, named with the class as container) and `using` aliases.
//
// A function declared without a body (a prototype, or a method declared in its class) is kind
// "declaration", so find_definition can prefer the definition and show a prototype only when no
// definition is found. `extern` variables are declarations too. Declarations inside #if/#ifdef
// blocks, `extern "C"` blocks and templates count as at their level; a parse error around a
// macro the grammar cannot know (`__init`, `__always_inline`) does not hide what follows it.
import type { Node } from "web-tree-sitter";
import { type CodeSymbol, makeSymbol, type SymbolKind } from "./symbol.ts";

interface Scope {
  out: CodeSymbol[];
  /** The enclosing namespaces and classes, joined with ".". */
  container: string | undefined;
  lines: readonly string[];
}

/** Nodes whose children are declarations at the same level as the node itself. */
const TRANSPARENT = new Set([
  "preproc_if",
  "preproc_ifdef",
  "preproc_else",
  "preproc_elif",
  "preproc_elifdef",
  "template_declaration",
  "ERROR",
]);

const joinContainer = (outer: string | undefined, inner: string | undefined): string | undefined =>
  outer && inner ? `${outer}.${inner}` : (outer ?? inner);

/** Declarators that wrap the one that names the thing: `*p`, `&r`, `(x)`, `a[3]`, `x = 1`. */
const WRAPPERS = new Set([
  "pointer_declarator",
  "reference_declarator",
  "parenthesized_declarator",
  "attributed_declarator",
  "array_declarator",
  "init_declarator",
]);

interface Declared {
  /** The name node: an identifier, or `A::b` in C++. */
  name: Node;
  /** Declared as a function (not a pointer to one). */
  isFunction: boolean;
}

/** What a declarator declares: `*(*f)(int)` → f, not a function; `K::m(void)` → K::m, a function. */
function declared(declarator: Node | null): Declared | undefined {
  let node = declarator;
  let isFunction = false;
  while (node) {
    if (node.type === "function_declarator") {
      const inner = node.childForFieldName("declarator");
      // `(*f)(int)` is a pointer to a function: a variable.
      isFunction = inner?.type !== "parenthesized_declarator";
      node = inner;
    } else if (WRAPPERS.has(node.type)) {
      node = node.childForFieldName("declarator") ?? node.firstNamedChild;
    } else {
      return { name: node, isFunction };
    }
  }
  return undefined;
}

/** `ns::Klass<T>::method` → container "ns.Klass", name "method". */
function splitQualified(text: string): { container: string | undefined; name: string } {
  const parts = text
    .replace(/<[^<>]*>/g, "")
    .split("::")
    .map((part) => part.trim())
    .filter(Boolean);
  const name = parts.pop() ?? text;
  return { container: parts.length > 0 ? parts.join(".") : undefined, name };
}

function addDeclarator(
  node: Node,
  declarator: Node | null,
  kind: { function: SymbolKind; other: SymbolKind },
  scope: Scope,
): void {
  const found = declared(declarator);
  if (!found) return;
  const text = found.name.text;
  if (!/^[~\p{L}_$][\p{L}\p{N}_$:<>,~\s*&]*$/u.test(text) && !text.startsWith("operator")) return;
  const { container, name } = splitQualified(text);
  const symbolKind = found.isFunction ? kind.function : kind.other;
  scope.out.push(makeSymbol(node, name, symbolKind, scope.lines, joinContainer(scope.container, container)));
}

function hasStorage(node: Node, storage: string): boolean {
  return node.namedChildren.some((child) => child?.type === "storage_class_specifier" && child.text === storage);
}

/** A struct, union, enum or class with a body (a bare `struct foo;` or `struct foo *p` names one only). */
function typeWithBody(node: Node | null, scope: Scope): void {
  if (!node) return;
  const body = node.childForFieldName("body");
  const nameNode = node.childForFieldName("name");
  if (!body || !nameNode) {
    // An anonymous `enum { A, B };` still defines its constants.
    if (body && node.type === "enum_specifier") enumerators(body, { ...scope });
    return;
  }
  const kinds: Record<string, SymbolKind> = {
    struct_specifier: "struct",
    union_specifier: "struct",
    enum_specifier: "enum",
    class_specifier: "class",
  };
  const kind = kinds[node.type];
  if (!kind) return;
  const { container, name } = splitQualified(nameNode.text);
  const symbol = makeSymbol(node, name, kind, scope.lines, joinContainer(scope.container, container));
  scope.out.push(symbol);
  const inner: Scope = { out: symbol.children, container: joinContainer(symbol.container, name), lines: scope.lines };
  if (kind === "enum") enumerators(body, inner);
  else members(body, inner);
}

function enumerators(body: Node, scope: Scope): void {
  for (const child of body.namedChildren) {
    if (child?.type !== "enumerator") continue;
    const name = child.childForFieldName("name")?.text;
    if (name) scope.out.push(makeSymbol(child, name, "constant", scope.lines, scope.container));
  }
}

/** A struct's or class's body: fields, methods (declared or defined), nested types. */
function members(body: Node, scope: Scope): void {
  for (const child of body.namedChildren) {
    if (!child) continue;
    switch (child.type) {
      case "field_declaration":
        typeWithBody(child.childForFieldName("type"), scope);
        for (const declarator of child.childrenForFieldName("declarator"))
          addDeclarator(child, declarator, { function: "declaration", other: "field" }, scope);
        break;
      case "function_definition":
        addDeclarator(child, child.childForFieldName("declarator"), { function: "method", other: "method" }, scope);
        break;
      case "declaration":
        addDeclarator(child, child.childForFieldName("declarator"), { function: "declaration", other: "field" }, scope);
        break;
      case "template_declaration":
      case "preproc_if":
      case "preproc_ifdef":
      case "preproc_else":
      case "preproc_elif":
        members(child, scope);
        break;
      default:
        typeWithBody(child, scope);
    }
  }
}

function declarations(parent: Node, scope: Scope): void {
  for (const node of parent.namedChildren) {
    if (!node) continue;
    if (TRANSPARENT.has(node.type)) {
      declarations(node, scope);
      continue;
    }
    switch (node.type) {
      case "function_definition": {
        // `Klass::method(…) { … }`, defined outside its class.
        const qualified = declared(node.childForFieldName("declarator"))?.name.type === "qualified_identifier";
        const kind = qualified ? "method" : "function";
        addDeclarator(node, node.childForFieldName("declarator"), { function: kind, other: kind }, scope);
        break;
      }
      case "declaration": {
        typeWithBody(node.childForFieldName("type"), scope);
        const variable: SymbolKind = hasStorage(node, "extern") ? "declaration" : "variable";
        for (const declarator of node.childrenForFieldName("declarator"))
          addDeclarator(node, declarator, { function: "declaration", other: variable }, scope);
        break;
      }
      case "type_definition": {
        typeWithBody(node.childForFieldName("type"), scope);
        for (const declarator of node.childrenForFieldName("declarator"))
          addDeclarator(node, declarator, { function: "type", other: "type" }, scope);
        break;
      }
      case "alias_declaration": {
        const name = node.childForFieldName("name")?.text;
        if (name) scope.out.push(makeSymbol(node, name, "type", scope.lines, scope.container));
        break;
      }
      case "preproc_def":
      case "preproc_function_def": {
        const name = node.childForFieldName("name")?.text;
        if (name) scope.out.push(makeSymbol(node, name, "macro", scope.lines, scope.container));
        break;
      }
      case "namespace_definition": {
        const name = node.childForFieldName("name")?.text;
        const body = node.childForFieldName("body");
        if (!name) {
          if (body) declarations(body, scope);
          break;
        }
        const { container, name: last } = splitQualified(name);
        const symbol = makeSymbol(node, last, "namespace", scope.lines, joinContainer(scope.container, container));
        scope.out.push(symbol);
        if (body)
          declarations(body, {
            out: symbol.children,
            container: joinContainer(scope.container, name.replaceAll("::", ".")),
            lines: scope.lines,
          });
        break;
      }
      case "linkage_specification": {
        const body = node.childForFieldName("body");
        if (body?.type === "declaration_list") declarations(body, scope);
        else if (body) declarations(node, scope);
        break;
      }
      default:
        typeWithBody(node, scope);
    }
  }
}

export function outlineC(root: Node, lines: readonly string[]): CodeSymbol[] {
  const out: CodeSymbol[] = [];
  declarations(root, { out, container: undefined, lines });
  return out;
}
