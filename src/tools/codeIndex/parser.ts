// Tree-sitter parsing for the code index, loaded on first use: web-tree-sitter's runtime and
// one grammar per language, embedded in the binary as gzipped wasm (~0.9 MB in all; 8.8 MB
// unzipped, which would push the binary over its size budget) and unzipped in memory.
//
// The one piece of module state: web-tree-sitter keeps its wasm runtime in a process-wide
// variable, and a second Parser.init() replaces it, breaking every grammar loaded before. So the
// runtime and the grammars are loaded once per process, on demand, and kept (they are
// immutable once loaded; a rejected load is dropped so the next call retries).
import type { Language, Node } from "web-tree-sitter";
import cWasm from "./grammars/c.wasm.gz" with { type: "file" };
import cppWasm from "./grammars/cpp.wasm.gz" with { type: "file" };
import goWasm from "./grammars/go.wasm.gz" with { type: "file" };
import pythonWasm from "./grammars/python.wasm.gz" with { type: "file" };
import runtimeWasm from "./grammars/runtime.wasm.gz" with { type: "file" };
import rustWasm from "./grammars/rust.wasm.gz" with { type: "file" };
import tsxWasm from "./grammars/tsx.wasm.gz" with { type: "file" };
import typescriptWasm from "./grammars/typescript.wasm.gz" with { type: "file" };
import { blankAttributes } from "./cAttributes.ts";
import { C_FAMILY_EXTENSIONS } from "./cDefinitionSites.ts";
import { outlineC } from "./outlineC.ts";
import { outlineGo } from "./outlineGo.ts";
import { outlinePython } from "./outlinePython.ts";
import { outlineRust } from "./outlineRust.ts";
import { outlineTypescript } from "./outlineTypescript.ts";
import type { CodeSymbol } from "./symbol.ts";

/** "header" is a `.h` file: C, or C++ when the C grammar cannot parse it (see outline). */
export type LanguageId = "typescript" | "tsx" | "python" | "go" | "rust" | "c" | "cpp" | "header";

type GrammarId = Exclude<LanguageId, "header">;

const GRAMMARS: Readonly<Record<GrammarId, string>> = {
  typescript: typescriptWasm,
  tsx: tsxWasm,
  python: pythonWasm,
  go: goWasm,
  rust: rustWasm,
  c: cWasm,
  cpp: cppWasm,
};

export const LANGUAGE_NAMES: Readonly<Record<LanguageId, string>> = {
  typescript: "TypeScript",
  tsx: "JavaScript/TSX",
  python: "Python",
  go: "Go",
  rust: "Rust",
  c: "C",
  cpp: "C++",
  header: "C/C++ header",
};

/** The languages find_definition and symbols read, for the model: "TypeScript, JavaScript, …". */
export const KNOWN_LANGUAGES = "TypeScript, JavaScript, Python, Go, Rust, C and C++";

const EXTENSIONS: Readonly<Record<string, LanguageId>> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "tsx",
  jsx: "tsx",
  mjs: "tsx",
  cjs: "tsx",
  py: "python",
  pyi: "python",
  go: "go",
  rs: "rust",
  ...C_FAMILY_EXTENSIONS,
};

const OUTLINERS: Readonly<Record<GrammarId, (root: Node, lines: readonly string[]) => CodeSymbol[]>> = {
  typescript: outlineTypescript,
  tsx: outlineTypescript,
  python: outlinePython,
  go: outlineGo,
  rust: outlineRust,
  c: outlineC,
  cpp: outlineC,
};

/** The file name extensions find_definition reads (lower case; languageOf ignores case). */
export const LANGUAGE_EXTENSIONS: readonly string[] = Object.keys(EXTENSIONS);

export function languageOf(path: string): LanguageId | undefined {
  const dot = path.lastIndexOf(".");
  if (dot < 0) return undefined;
  return EXTENSIONS[path.slice(dot + 1).toLowerCase()];
}

type TreeSitter = typeof import("web-tree-sitter");

const loaded: { runtime?: Promise<TreeSitter>; languages: Map<GrammarId, Promise<Language>> } = {
  languages: new Map(),
};

async function unzip(path: string): Promise<Uint8Array> {
  return Bun.gunzipSync(await Bun.file(path).bytes());
}

function runtime(): Promise<TreeSitter> {
  loaded.runtime ??= (async () => {
    const module = await import("web-tree-sitter");
    await module.Parser.init({ wasmBinary: await unzip(runtimeWasm) } as Parameters<typeof module.Parser.init>[0]);
    return module;
  })().catch((error: unknown) => {
    loaded.runtime = undefined;
    throw error;
  });
  return loaded.runtime;
}

function language(id: GrammarId): Promise<Language> {
  let pending = loaded.languages.get(id);
  if (!pending) {
    pending = runtime()
      .then(async (module) => module.Language.load(await unzip(GRAMMARS[id])))
      .catch((error: unknown) => {
        loaded.languages.delete(id);
        throw error;
      });
    loaded.languages.set(id, pending);
  }
  return pending;
}

/** The outline of one file's text. */
export async function outline(text: string, id: LanguageId): Promise<CodeSymbol[]> {
  if (id !== "header") return outlineWith(text, id, false);
  // A .h file is C unless the C grammar fails on it and the C++ grammar does not (C code may
  // use `new` or `class` as names, which C++ cannot parse).
  const asC = await outlineWith(text, "c", true);
  if (asC !== undefined) return asC;
  return (await outlineWith(text, "cpp", true)) ?? (await outlineWith(text, "c", false)) ?? [];
}

/** Undefined when `cleanOnly` and the parse had errors. */
async function outlineWith(text: string, id: GrammarId, cleanOnly: true): Promise<CodeSymbol[] | undefined>;
async function outlineWith(text: string, id: GrammarId, cleanOnly: false): Promise<CodeSymbol[]>;
async function outlineWith(text: string, id: GrammarId, cleanOnly: boolean): Promise<CodeSymbol[] | undefined> {
  const module = await runtime();
  const grammar = await language(id);
  const parser = new module.Parser();
  try {
    parser.setLanguage(grammar);
    const tree = parser.parse(id === "c" || id === "cpp" ? blankAttributes(text) : text);
    if (!tree) return [];
    try {
      if (cleanOnly && tree.rootNode.hasError) return undefined;
      return OUTLINERS[id](tree.rootNode, text.split("\n"));
    } finally {
      tree.delete();
    }
  } finally {
    parser.delete();
  }
}
