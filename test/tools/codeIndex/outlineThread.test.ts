// The outline thread (src/tools/codeIndex/outlineThread.ts, issue 35.4): find_definition and
// symbols parse in a worker thread that ends when unused, so tree-sitter's wasm memory and
// compiled grammars are not the session thread's for the rest of the process.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { OutlineThread, outlineWorkerUrl } from "../../../src/tools/codeIndex/outlineThread.ts";
import { outline } from "../../../src/tools/codeIndex/parser.ts";
import { C_SOURCE, TYPESCRIPT } from "../../fixtures/codeIndexSamples.ts";
import { eventually } from "../../support/sandboxSupport.ts";

test("outlines parsed in the thread are the parser's own, and the thread ends when unused", async () => {
  const thread = new OutlineThread(300);
  expect(thread.running).toBe(false);
  const [ts, c] = await Promise.all([thread.outline(TYPESCRIPT, "typescript"), thread.outline(C_SOURCE, "c")]);
  // Looked at first: the parses on this thread below may take longer than the idle time when loaded.
  expect(thread.running).toBe(true);
  expect(ts).toEqual(await outline(TYPESCRIPT, "typescript"));
  expect(c).toEqual(await outline(C_SOURCE, "c"));
  expect(ts.length).toBeGreaterThan(0);
  await eventually(() => !thread.running);
  // A later parse starts a fresh thread.
  expect(await thread.outline(C_SOURCE, "c")).toEqual(c);
  thread.close();
  expect(thread.running).toBe(false);
});

test("a parse still waiting when the thread is closed fails instead of hanging", async () => {
  const thread = new OutlineThread();
  const pending = thread.outline(TYPESCRIPT, "typescript");
  thread.close();
  await expect(pending).rejects.toThrow("closed");
});

/** In a fresh process: the engine's external memory after one C outline, parsed as `how` says. */
async function externalAfterParse(how: "thread" | "here"): Promise<number> {
  const src = join(import.meta.dir, "../../../src/tools/codeIndex");
  const script = `
    import { heapStats } from "bun:jsc";
    import { OutlineThread } from ${JSON.stringify(join(src, "outlineThread.ts"))};
    import { outline } from ${JSON.stringify(join(src, "parser.ts"))};
    const text = "int f(void)\\n{\\n\\treturn 0;\\n}\\n";
    const thread = new OutlineThread();
    const symbols = ${JSON.stringify(how)} === "thread" ? await thread.outline(text, "c") : await outline(text, "c");
    if (symbols.length !== 1) throw new Error("no outline");
    thread.close();
    Bun.gc(true);
    console.log(heapStats().extraMemorySize);
  `;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(child.stdout).text();
  expect(await child.exited).toBe(0);
  return Number(out.trim());
}

test("tree-sitter's wasm memory is not the calling thread's", async () => {
  const MiB = 2 ** 20;
  // Parsed in the calling thread (the control): its 32 MiB wasm memory and more count against
  // that thread's heap, and stay.
  expect(await externalAfterParse("here")).toBeGreaterThan(32 * MiB);
  expect(await externalAfterParse("thread")).toBeLessThan(8 * MiB);
}, 30_000);

test(
  "the worker's module is found beside its client from source, and inside the " +
    "binary's own file system when compiled",
  () => {
    expect(outlineWorkerUrl("file:///src/garuda/src/tools/codeIndex/outlineThread.ts")).toBe(
      "file:///src/garuda/src/tools/codeIndex/outlineWorker.ts",
    );
    expect(outlineWorkerUrl("file:///$bunfs/root/chunk-1234.js")).toBe(
      "file:///$bunfs/root/tools/codeIndex/outlineWorker.ts",
    );
  },
);
