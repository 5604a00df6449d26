import { describe, expect, test } from "bun:test";
import { languageOf, outline } from "../../../src/tools/codeIndex/parser.ts";
import { type CodeSymbol, flatten } from "../../../src/tools/codeIndex/symbol.ts";
import { C_HEADER, C_SOURCE, CPP, GO, JAVASCRIPT, PYTHON, RUST, TYPESCRIPT } from "../../fixtures/codeIndexSamples.ts";

/** "line kind Container.name" for every symbol, depth first. */
async function rows(text: string, language: Parameters<typeof outline>[1]): Promise<string[]> {
  const symbols = await outline(text, language);
  return flatten(symbols).map(
    (s: CodeSymbol) => `${s.line} ${s.kind} ${s.container ? `${s.container}.` : ""}${s.name}`,
  );
}

describe("code outlines (tree-sitter)", () => {
  test("languages by extension", () => {
    expect(
      ["a.ts", "a.mts", "a.tsx", "a.js", "a.jsx", "a.mjs", "a.py", "a.pyi", "a.go", "a.rs", "a.md", "Makefile"].map(
        languageOf,
      ),
    ).toEqual([
      "typescript",
      "typescript",
      "tsx",
      "tsx",
      "tsx",
      "tsx",
      "python",
      "python",
      "go",
      "rust",
      undefined,
      undefined,
    ]);
  });

  test(
    "TypeScript: interfaces, types, enums, exported arrow functions, nested " + "functions, class members, namespaces",
    async () => {
      expect(await rows(TYPESCRIPT, "typescript")).toEqual([
        "3 interface Options",
        "4 property Options.retries",
        "5 method Options.onRetry",
        "8 type Handler",
        "10 enum Level",
        "15 constant DEFAULT_RETRIES",
        "17 function loadConfig",
        "22 function createClient",
        "23 function createClient.backoff",
        "29 class Client",
        "30 property Client.count",
        "31 method Client.onError",
        "33 method Client.constructor",
        "35 method Client.send",
        "40 method Client.create",
        "44 method Client.sent",
        "49 namespace Shapes",
        "50 class Shapes.Circle",
        "51 method Shapes.Circle.area",
        "57 function main",
      ]);
    },
  );

  test("JavaScript with JSX", async () => {
    expect(await rows(JAVASCRIPT, "tsx")).toEqual([
      "1 constant express",
      "3 function handler",
      "7 class Router",
      "8 property Router.#routes",
      "9 method Router.add",
      "14 function render",
    ]);
  });

  test("Python: decorators, nested defs, nested classes, class attributes", async () => {
    expect(await rows(PYTHON, "python")).toEqual([
      "4 constant MAX_SIZE",
      "7 function retry",
      "8 function retry.decorator",
      "10 function retry.decorator.wrapper",
      "17 class Point",
      "18 property Point.x",
      "19 property Point.y",
      "22 method Point.norm",
      "26 method Point.origin",
      "29 class Point.Meta",
      "30 property Point.Meta.ordering",
      "32 method Point.Meta.describe",
      "36 function fetch",
    ]);
    const norm = flatten(await outline(PYTHON, "python")).find((s) => s.name === "norm");
    expect(norm?.detail).toBe("@property def norm(self) -> float");
  });

  test("Go: methods carry their receiver type; structs, interfaces, aliases, consts, vars", async () => {
    expect(await rows(GO, "go")).toEqual([
      "5 constant MaxItems",
      "7 variable ErrMissing",
      "9 struct Item",
      "10 field Item.ID",
      "11 field Item.Name",
      "14 interface Store",
      "15 method Store.Get",
      "16 method Store.Put",
      "19 struct memory",
      "20 field memory.items",
      "23 function NewMemory",
      "27 method memory.Get",
      "35 method memory.Len",
      "39 type ID",
    ]);
  });

  test("Rust: impl blocks give methods their type, traits, modules, macros", async () => {
    expect(await rows(RUST, "rust")).toEqual([
      "3 constant LIMIT",
      "5 struct Cache",
      "6 field Cache.map",
      "9 enum Event",
      "14 trait Store",
      "15 method Store.get",
      "16 method Store.put",
      "21 impl impl Cache<K, V>",
      "22 method Cache.new",
      "26 method Cache.len",
      "31 impl impl Store for Cache<String, String>",
      "32 method Cache.get",
      "37 module util",
      "38 function util.helper",
      "43 macro square",
      "49 type Map",
    ]);
  });

  test("C and C++ by extension; a .h file is a header (C, or C++ when C cannot parse it)", () => {
    expect(["a.c", "a.h", "a.cc", "a.cpp", "a.cxx", "a.hpp", "a.hh", "a.hxx", "a.S"].map(languageOf)).toEqual([
      "c",
      "header",
      "cpp",
      "cpp",
      "cpp",
      "cpp",
      "cpp",
      "cpp",
      undefined,
    ]);
  });

  test(
    "C: macros, structs, unions, enums and their constants, typedefs, globals, " + "prototypes vs definitions",
    async () => {
      expect(await rows(C_SOURCE, "c")).toEqual([
        "3 macro KMALLOC_MAX",
        "4 macro kmalloc_array",
        "6 struct kmem_cache",
        "7 field kmem_cache.size",
        "8 field kmem_cache.name",
        "11 struct word",
        "12 field word.i",
        "13 field word.f",
        "16 enum gfp_zone",
        "16 constant gfp_zone.ZONE_DMA",
        "16 constant gfp_zone.ZONE_NORMAL",
        "18 type kmem_cache_t",
        "19 type ctor_fn",
        "21 variable cache_count",
        "22 declaration slab_nomerge",
        "24 declaration __kmalloc",
        "26 function kmalloc",
        // Behind the kernel's attribute macros (blanked before parsing) and inside #ifdef.
        "31 function kzalloc",
        "37 function kmem_cache_init",
      ]);
      expect(await rows(C_HEADER, "header")).toEqual([
        "2 macro _SLAB_H",
        "3 declaration kmalloc",
        "4 declaration kfree",
      ]);
    },
  );

  test("C++: namespaces, classes, methods in and out of the class, templates, using", async () => {
    const expected = [
      "3 namespace net",
      "5 class net.Client",
      "7 declaration net.Client.Client",
      "8 declaration net.Client.send",
      "9 method net.Client.count",
      "12 field net.Client.sent_",
      "16 function net.clamp",
      "22 method net.Client.send",
      "26 type Bytes",
    ];
    expect(await rows(CPP, "cpp")).toEqual(expected);
    expect(await rows(CPP, "header")).toEqual(expected);
  });

  test("broken code still gives an outline of what parses", async () => {
    const broken = "export function ok(): number {\n  return 1;\n}\n\nexport class Half {\n  m( {\n";
    const names = flatten(await outline(broken, "typescript")).map((s) => s.name);
    expect(names).toContain("ok");
  });
});
