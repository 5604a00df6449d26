import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RipgrepRunner } from "../../src/sandbox/ripgrep/runner.ts";
import { ripgrepHere, secretHardLink, testRipgrep, useRipgrep } from "../support/ripgrep.ts";
import { session, tempRoot, writeFiles } from "../support/toolFixtures.ts";
import { makeTempDir } from "../support/tempDir.ts";

/**
 * A tree with what the walk treats specially: ignore rules (`*.s` and a `foo.S`), links, a pipe, a big file, order
 * traps.
 */
function fixture(root: string): void {
  writeFiles(root, {
    ".gitignore": "*.s\nbuild/\n*.log\n",
    "a/b.c": "int needle = 1;\nstatic int __init setup(void)\n",
    "a.c": "// needle here\nNEEDLE upper\n",
    "a/deep/x.ts": "const needle = 'x';\nconst other = 2;\nneedle();\n",
    "arch/entry.S": "needle in assembler\n",
    "arch/gen.s": "needle in generated assembler\n",
    "build/out.c": "needle in build output\n",
    "debug.log": "needle in a log\n",
    "node_modules/pkg/index.js": "needle in a dependency\n",
    ".hidden/conf.ts": "needle in a hidden folder\n",
    ".git/config": "needle in git\n",
    "crlf.txt": "needle\r\nsecond needle$\r\n",
    "unicode.txt": "naïve needle café\nKelvin \u212a needle\nwörd\n",
    "sub/.gitignore": "!keep.log\n",
    "sub/keep.log": "needle kept\n",
  });
  symlinkSync(join(root, "a.c"), join(root, "link-in.c"));
  mkdirSync(join(root, "linked-folder-target"));
  writeFileSync(join(root, "linked-folder-target", "t.c"), "needle behind a linked folder\n");
  symlinkSync(join(root, "linked-folder-target"), join(root, "z-linked-folder"));
}

const CASES: Array<Record<string, unknown>> = [
  { pattern: "needle" },
  { pattern: "needle", mode: "count" },
  { pattern: "needle", mode: "files" },
  { pattern: "needle", context: 1 },
  { pattern: "NEEDLE", ignoreCase: true },
  { pattern: "k", ignoreCase: true, mode: "count" },
  { pattern: "needle$" },
  { pattern: "\\bneedle\\b", mode: "count" },
  { pattern: "w\\w+d" },
  { pattern: "caf.", mode: "count" },
  { pattern: "static int __init \\w+\\(" },
  { pattern: "needle", glob: "*.ts" },
  { pattern: "needle", path: "a" },
  { pattern: "needle", maxResults: 2 },
  { pattern: "n(?=eedle)" },
  { pattern: "a{", mode: "count" },
  { pattern: "needle", glob: "node_modules/**" },
  // Counts taken from rg as they are: the line ends, classes and case must be JavaScript's.
  { pattern: "needle\\s*$", mode: "count" },
  { pattern: "[^x]$", mode: "count" },
  { pattern: "\\S$", mode: "count" },
  { pattern: "e.$", mode: "count" },
  { pattern: "[n]EEDLE", ignoreCase: true, mode: "count" },
  { pattern: "\\x6eEEDLE", ignoreCase: true, mode: "files" },
  { pattern: "\\r", mode: "count" },
  { pattern: "CAF", ignoreCase: true, mode: "files" },
];

describe.skipIf(!ripgrepHere)("grep through ripgrep", () => {
  test("gives what the tools' own search gives, case by case", async () => {
    using root = tempRoot();
    fixture(root.path);
    // Older than a second: rg's own answers are compared, not the re-reads of changed folders.
    await Bun.sleep(1100);
    const own = session(root.path);
    const viaRg = session(root.path);
    const counted = useRipgrep(viaRg, testRipgrep(root.path));
    for (const input of CASES) {
      const expected = await own.run("grep", input);
      const got = await viaRg.run("grep", input);
      expect({ input, output: got.output, summary: got.summary }).toEqual({
        input,
        output: expected.output,
        summary: expected.summary,
      });
    }
    // rg answered all but the lookahead, which only JavaScript can read.
    expect(counted.used).toBe(CASES.length - 1);
  });

  test(
    "rg's answer stands unless a folder on the way changed since it started; then " + "the file is read again",
    async () => {
      using root = tempRoot();
      writeFiles(root.path, { "dir/x.txt": "needle\n" });
      // Folders changed within a second of the start count as changed (file times use a coarse clock).
      await Bun.sleep(1100);
      const runner = testRipgrep(root.path);
      // A runner whose answer differs from the files (7 instead of 1), to see whose answer is shown;
      // `before` runs as its output is handed on (after rg read the file, before grep checks it).
      const seven = (text: string) => text.replace(/\u00001(\r?\n)/, "\u00007$1");
      const tampered = (before: () => void): RipgrepRunner => ({
        run(request) {
          const onStdout = request.onStdout;
          return runner.run({
            ...request,
            ...(onStdout && {
              onStdout: (chunk: Uint8Array) => {
                before();
                onStdout(Buffer.from(seven(Buffer.from(chunk).toString())));
              },
            }),
          });
        },
      });
      const s = session(root.path);
      s.ctx.executor = { ...s.ctx.executor, ripgrep: tampered(() => {}) };
      let swapped = false;
      expect((await s.run("grep", { pattern: "needle", mode: "count" })).output).toBe("dir/x.txt:7");
      // The name given another file while rg ran (renamed away, a new one in its place): read again.
      s.ctx.executor = {
        ...s.ctx.executor,
        ripgrep: tampered(() => {
          if (swapped) return;
          swapped = true;
          renameSync(join(root.path, "dir", "x.txt"), join(root.path, "dir", "x.old"));
          writeFileSync(join(root.path, "dir", "x.txt"), "needle\nneedle\n");
        }),
      };
      expect((await s.run("grep", { pattern: "needle", mode: "count" })).output).toBe("dir/x.txt:2");
    },
  );

  test("a pipe and a file over 1 MB are skipped, without the note the tools' own search adds", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "big.txt": `${"x".repeat(1_100_000)}\nneedle\n`, "ok.txt": "needle\n" });
    execFileSync("mkfifo", [join(root.path, "pipe.c")]);
    const s = session(root.path);
    const counted = useRipgrep(s, testRipgrep(root.path));
    const result = await s.run("grep", { pattern: "needle" });
    expect(counted.used).toBe(1);
    expect(result.output).toBe("ok.txt:1:needle");
    const own = await session(root.path).run("grep", { pattern: "needle" });
    expect(own.output).toStartWith("ok.txt:1:needle\n[Not searched: 1 file over 1.0 MB (big.txt).");
  });

  test("the kernel's *.s rule leaves foo.S visible (git's case, not the ignore package's default)", async () => {
    using root = tempRoot();
    fixture(root.path);
    const s = session(root.path);
    useRipgrep(s, testRipgrep(root.path));
    const result = await s.run("grep", { pattern: "assembler", mode: "files" });
    expect(result.output.split("\n")[0]).toBe("arch/entry.S");
    expect(result.output).not.toContain("gen.s");
  });

  test("a secret file, an ignored file and a link out of the project are not shown (negative controls)", async () => {
    using root = tempRoot();
    const outside = makeTempDir("garuda-outside-");
    writeFileSync(join(outside, "secret.txt"), "needle outside the project\n");
    writeFiles(root.path, {
      ".gitignore": "ignored.txt\n",
      ".env": "TOKEN=needle-in-env\n",
      "ignored.txt": "needle ignored\n",
      "ok.txt": "needle ok\n",
    });
    symlinkSync(join(outside, "secret.txt"), join(root.path, "out-link.txt"));
    mkdirSync(join(root.path, "dir"));
    symlinkSync(outside, join(root.path, "dir", "out-folder"));
    const s = session(root.path);
    const counted = useRipgrep(s, testRipgrep(root.path));
    const result = await s.run("grep", { pattern: "needle" });
    expect(counted.used).toBe(1);
    expect(result.output).toBe("ok.txt:1:needle ok");
  });

  test("a hard link of a secret on the list is left out, whatever it holds", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "ok.txt": "needle ok\n" });
    const home = secretHardLink(root.path, "key-copy.txt", "needle private key\n");
    const s = session(root.path, { home });
    const counted = useRipgrep(s, testRipgrep(root.path));
    const result = await s.run("grep", { pattern: "needle" });
    expect(counted.used).toBe(1);
    expect(result.output).not.toContain("private key");
    expect(result.output.split("\n")[0]).toBe("ok.txt:1:needle ok");
  });

  test("what commands may not read inside the project is hidden from rg too", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "hidden/a.txt": "needle hidden\n", "ok.txt": "needle ok\n" });
    const s = session(root.path);
    const runner = testRipgrep(root.path, [join(root.path, "hidden")]);
    const outcome = await runner.run({
      cwd: root.path,
      args: ["-l", "needle", "."],
      signal: new AbortController().signal,
    });
    expect(outcome.kind === "done" && outcome.stdout.toString()).toBe("./ok.txt\n");
    // Negative control: the same search without the hiding finds both.
    const open = await testRipgrep(root.path).run({
      cwd: root.path,
      args: ["-l", "--sort", "path", "needle", "."],
      signal: new AbortController().signal,
    });
    expect(open.kind === "done" && open.stdout.toString()).toBe("./hidden/a.txt\n./ok.txt\n");
    expect(s.ctx.root).toBe(root.path);
  });

  test("rg sees nothing outside the project", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "ok.txt": "x\n" });
    const runner = testRipgrep(root.path);
    const outcome = await runner.run({
      cwd: root.path,
      args: ["-l", "root", "/etc/passwd"],
      signal: new AbortController().signal,
    });
    expect(outcome.kind === "done" && outcome.stdout.toString()).toBe("");
  });
});

describe.skipIf(!ripgrepHere)("grep through ripgrep: names with a line end", () => {
  test("context lines in groups (rg's `--` between them) are still rg's answer", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "a.txt": "needle 1\nx\nx\nx\nx\nneedle 2\n" });
    await Bun.sleep(1100);
    const runner = testRipgrep(root.path);
    const s = session(root.path);
    // rg's lines marked, to see whose answer is shown.
    s.ctx.executor = {
      ...s.ctx.executor,
      ripgrep: {
        run: (request) =>
          runner.run({
            ...request,
            onStdout: (chunk) =>
              request.onStdout?.(Buffer.from(Buffer.from(chunk).toString().replaceAll("needle", "needle-rg"))),
          }),
      },
    };
    const result = await s.run("grep", { pattern: "needle", context: 1 });
    expect(result.output).toContain("needle-rg 2");
  });

  test(
    "a link named `x\\nREADME.md` to .env does not show .env's lines as README.md's " + "(negative control)",
    async () => {
      using root = tempRoot();
      writeFiles(root.path, { ".env": "TOKEN=needle-in-env\n", "README.md": "hello\n", "ok.txt": "needle ok\n" });
      symlinkSync(".env", join(root.path, "x\nREADME.md"));
      // A cloned project is older than a second: rg's answer is taken as it is.
      await Bun.sleep(1100);
      const s = session(root.path);
      useRipgrep(s, testRipgrep(root.path));
      for (const input of [{ pattern: "needle" }, { pattern: "needle", context: 1 }]) {
        const result = await s.run("grep", input);
        expect(result.output).not.toContain("needle-in-env");
        expect(result.output).toContain("ok.txt:1:needle ok");
      }
    },
  );
});

describe.skipIf(!ripgrepHere)("grep through ripgrep: memory", () => {
  test("a big file of matching lines does not blow up the agent's memory (negative control)", async () => {
    using root = tempRoot();
    // 6 million matching lines: rg prints ~110 MB, all of a file the search then leaves out (over 1 MB).
    writeFiles(root.path, { "big.txt": "a\n".repeat(6_000_000), "ok.txt": "a\n" });
    const s = session(root.path);
    const counted = useRipgrep(s, testRipgrep(root.path));
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    const result = await s.run("grep", { pattern: "a" });
    const grownMb = (process.memoryUsage().rss - before) / 2 ** 20;
    expect(counted.used).toBe(1);
    expect(result.output).toBe("ok.txt:1:a");
    // Each printed line's text kept was over a gigabyte here; what is kept now is per file and bounded.
    expect(grownMb).toBeLessThan(400);
  }, 60_000);
});

describe.skipIf(!ripgrepHere)("grep through ripgrep: a folder above the one searched swapped while rg runs", () => {
  test(
    "a/ swapped for a link to a folder with a link to .env, and back, shows no line " + "of .env (negative control)",
    async () => {
      using root = tempRoot();
      writeFiles(root.path, { ".env": "TOKEN=needle-in-env\n", "a/b/x.txt": "hello\n", "evil/b/keep.txt": "x\n" });
      symlinkSync("../../.env", join(root.path, "evil", "b", "x.txt"));
      // Older than a second: only a folder the swap changes can tell rg's read was of another file.
      await Bun.sleep(1100);
      const runner = testRipgrep(root.path);
      const a = join(root.path, "a");
      // A command's swap, just after grep checked a/b and just before rg starts, and back once rg
      // has printed (before grep looks at what it printed).
      let swapped = false;
      const swapBack = () => {
        if (!swapped) return;
        swapped = false;
        rmSync(a);
        renameSync(`${a}.real`, a);
      };
      const swapping: RipgrepRunner = {
        async run(request) {
          renameSync(a, `${a}.real`);
          symlinkSync("evil", a);
          swapped = true;
          const onStdout = request.onStdout;
          try {
            return await runner.run({
              ...request,
              onStdout: (chunk) => {
                swapBack();
                onStdout?.(chunk);
              },
            });
          } finally {
            swapBack();
          }
        },
      };
      const s = session(root.path);
      const counted = useRipgrep(s, swapping);
      const result = await s.run("grep", { pattern: "needle", path: "a/b" });
      expect(counted.used).toBe(1);
      expect(result.output).not.toContain("needle-in-env");
    },
  );
});
