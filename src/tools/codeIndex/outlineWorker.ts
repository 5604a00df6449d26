// The worker thread find_definition and symbols parse in (outlineThread.ts starts it): tree-sitter's
// wasm runtime and grammars live here, not in the session's thread, so they go when the thread
// ends. Each message is one file's text and language; the answer is its outline, or the error.
//
// Its own entry point in the compiled binary (scripts/buildTargets.ts WORKER_ENTRIES).
import { type LanguageId, outline } from "./parser.ts";
import type { CodeSymbol } from "./symbol.ts";

export type ToOutlineWorker = { id: number; text: string; language: LanguageId };
export type FromOutlineWorker = { id: number; symbols: CodeSymbol[] } | { id: number; error: string };

declare const self: Worker;

self.onmessage = async (event: MessageEvent<ToOutlineWorker>) => {
  const { id, text, language } = event.data;
  try {
    self.postMessage({ id, symbols: await outline(text, language) } satisfies FromOutlineWorker);
  } catch (error) {
    self.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies FromOutlineWorker);
  }
};
