// The embedded grammars are the pinned npm packages' wasm files, gzipped: no hand-made blobs.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GRAMMAR_SOURCES } from "../../../src/tools/codeIndex/grammars/refresh.ts";

const repo = join(import.meta.dir, "../../..");

test("each embedded .wasm.gz unzips to its package's file (else run src/tools/codeIndex/grammars/refresh.ts)", () => {
  const names = Object.keys(GRAMMAR_SOURCES);
  expect(names.sort()).toEqual([
    "c.wasm.gz",
    "cpp.wasm.gz",
    "go.wasm.gz",
    "python.wasm.gz",
    "runtime.wasm.gz",
    "rust.wasm.gz",
    "tsx.wasm.gz",
    "typescript.wasm.gz",
  ]);
  for (const [name, source] of Object.entries(GRAMMAR_SOURCES)) {
    const embedded = Bun.gunzipSync(readFileSync(join(repo, "src/tools/codeIndex/grammars", name)));
    const original = readFileSync(join(repo, "node_modules", source));
    expect({ name, same: Buffer.from(embedded).equals(original) }).toEqual({ name, same: true });
  }
});
