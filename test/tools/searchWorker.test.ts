// Searches in a worker thread: a slow pattern costs its own budget and holds up nothing else
// (the event loop keeps ticking), cancel ends it at once, and a file that could hang a reader (a
// FIFO), a hard-linked file or a path that changed is skipped with a line saying why.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { linkSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { createFileTools } from "../../src/tools/fileTools.ts";
import { grepTool } from "../../src/tools/grep.ts";
import { searchWorkerUrl } from "../../src/tools/searchWorker.ts";
import { runTool, session, tempRoot, toolContext, writeFiles } from "../support/toolFixtures.ts";
import { longestStall } from "../support/eventLoop.ts";

/** One file per crafted line: `(a+)+$` backtracks to the regex engine's limit on each (about a second). */
const crafted = (n: number) =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`c${String(i).padStart(2, "0")}.txt`, `${"a".repeat(40)}!\n`]),
  );

describe("grep's budget and cancel", () => {
  test("a catastrophic pattern stops at the budget with a note, and the event loop is " +
    "never held for long", async () => {
    using root = tempRoot();
    writeFiles(root.path, { ...crafted(16), "z.txt": "aaaa\n" });
    const { deps } = createFileTools({ home: root.path });
    const grep = grepTool(deps, { budget: { cpuMs: 1_500, cpuMsPerMB: 40 } });
    const { result, stallMs, ms } = await longestStall(() =>
      runTool(grep, { pattern: "(a+)+$" }, toolContext(root.path)),
    );
    expect(result.output).toMatch(
      new RegExp(
        String.raw`\n\[The search stopped after 1\.\d s of CPU time, having read \d+ files? \(\d+ bytes\): ` +
          String.raw`more than its budget \(1\.5 s plus 40 ms per MB read\)\. What was found until then is above\. ` +
          String.raw`The pattern is slow on this text: nested quantifiers such as \(a\+\)\+ backtrack without end\. ` +
          String.raw`Simplify the pattern, or narrow path or glob\.\]$`,
      ),
    );
    // CPU time, not wall time: a busy machine takes longer to spend it.
    expect(ms).toBeLessThan(10_000);
    // Each crafted file holds the worker for about a second; the session's own thread, never.
    expect(stallMs).toBeLessThan(300);
  }, 30_000);

  test("negative control: the same pattern over harmless text finishes with its matches and no note", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "z.txt": "aaaa\n", "y.txt": "aab\n" });
    const { deps } = createFileTools({ home: root.path });
    const grep = grepTool(deps, { budget: { cpuMs: 1_500, cpuMsPerMB: 40 } });
    const result = await runTool(grep, { pattern: "(a+)+$" }, toolContext(root.path));
    expect(result.output).toBe("z.txt:1:aaaa");
  });

  test("cancel ends a slow search at once", async () => {
    using root = tempRoot();
    writeFiles(root.path, crafted(20));
    const controller = new AbortController();
    const s = session(root.path);
    const running = runTool(
      s.tool("grep"),
      { pattern: "(a+)+$" },
      toolContext(root.path, undefined, controller.signal),
    );
    await Bun.sleep(300);
    const cancelled = performance.now();
    controller.abort();
    expect(await running).toEqual({ output: "Cancelled.", isError: true });
    expect(performance.now() - cancelled).toBeLessThan(300);
  }, 30_000);

  test(
    "the worker's module is found beside its client from source, and inside the " +
      "binary's own file system when compiled",
    () => {
      expect(searchWorkerUrl("file:///src/garuda/src/tools/searchWorker.ts")).toBe(
        "file:///src/garuda/src/tools/grepWorker.ts",
      );
      expect(searchWorkerUrl("file:///$bunfs/root/chunk-1234.js")).toBe("file:///$bunfs/root/tools/grepWorker.ts");
    },
  );
});

describe("files a search does not read", () => {
  test("a FIFO (no writer) is skipped at once with a note; named, it is refused", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "needle\n" });
    execFileSync("mkfifo", [join(root.path, "notes.txt")]);
    const s = session(root.path);
    const { result, stallMs } = await longestStall(() => s.run("grep", { pattern: "needle" }));
    expect(result.output).toBe(
      "a.txt:1:needle\n[Not searched: 1 path that is not a regular file (a pipe, " +
        "socket or device, which reading could hang on): notes.txt.]",
    );
    expect(stallMs).toBeLessThan(300);
    expect((await s.run("grep", { pattern: "needle", path: "notes.txt" })).output).toBe(
      "notes.txt is not a regular file (a device, socket or pipe); grep searches files and folders only.",
    );
    // A symlink to the FIFO is a special file too.
    symlinkSync(join(root.path, "notes.txt"), join(root.path, "link.txt"));
    expect((await s.run("grep", { pattern: "needle", mode: "files" })).output).toBe(
      "a.txt\n[Not searched: 2 paths that are not a regular file (a pipe, socket or " +
        "device, which reading could hang on): link.txt, notes.txt.]",
    );
    // glob lists files only, as before.
    expect((await s.run("glob", { pattern: "*.txt" })).output).toBe("a.txt");
  });

  test("a hard-linked file is not searched in a folder, and says how to search it", async () => {
    using root = tempRoot();
    using other = tempRoot();
    writeFiles(other.path, { credentials: "needle=secret\n" });
    writeFiles(root.path, { "a.txt": "needle\n" });
    linkSync(join(other.path, "credentials"), join(root.path, "innocent.txt"));
    const s = session(root.path);
    expect((await s.run("grep", { pattern: "needle" })).output).toBe(
      "a.txt:1:needle\n[Not searched: 1 file with more than one name (hard links; " +
        "another name may be a secret file): innocent.txt. Give one as path to search " +
        "it; the user is asked first.]",
    );
    // Negative control: without the second name the file is searched.
    using plain = tempRoot();
    writeFiles(plain.path, { "a.txt": "needle\n", "innocent.txt": "needle=secret\n" });
    expect((await session(plain.path).run("grep", { pattern: "needle", mode: "files" })).output).toBe(
      "a.txt\ninnocent.txt",
    );
  });
});
