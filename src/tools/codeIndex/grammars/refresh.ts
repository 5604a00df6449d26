// Regenerates the gzipped tree-sitter wasm files beside this script from the pinned npm packages
// (web-tree-sitter in dependencies, the grammars in devDependencies). Run it after changing one
// of those versions:   bun src/tools/codeIndex/grammars/refresh.ts
// test/tools/codeIndex/grammars.test.ts checks that the committed files match the packages.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Each embedded file and the package file it is made from. */
export const GRAMMAR_SOURCES: Readonly<Record<string, string>> = {
  "runtime.wasm.gz": "web-tree-sitter/web-tree-sitter.wasm",
  "typescript.wasm.gz": "tree-sitter-typescript/tree-sitter-typescript.wasm",
  "tsx.wasm.gz": "tree-sitter-typescript/tree-sitter-tsx.wasm",
  "python.wasm.gz": "tree-sitter-python/tree-sitter-python.wasm",
  "go.wasm.gz": "tree-sitter-go/tree-sitter-go.wasm",
  "rust.wasm.gz": "tree-sitter-rust/tree-sitter-rust.wasm",
  "c.wasm.gz": "tree-sitter-c/tree-sitter-c.wasm",
  "cpp.wasm.gz": "tree-sitter-cpp/tree-sitter-cpp.wasm",
};

export function refreshGrammars(nodeModules: string, outDir: string): string[] {
  const written: string[] = [];
  for (const [name, source] of Object.entries(GRAMMAR_SOURCES)) {
    const bytes = readFileSync(join(nodeModules, source));
    writeFileSync(join(outDir, name), Bun.gzipSync(bytes, { level: 9 }));
    written.push(name);
  }
  return written;
}

if (import.meta.main) {
  const written = refreshGrammars(join(import.meta.dir, "../../../../node_modules"), import.meta.dir);
  console.error(`wrote ${written.join(", ")}`);
}
