import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ripgrepHere, secretHardLink, testRipgrep, useRipgrep } from "../support/ripgrep.ts";
import { session, tempRoot, writeFiles } from "../support/toolFixtures.ts";
import { makeTempDir } from "../support/tempDir.ts";

describe.skipIf(!ripgrepHere)("glob through ripgrep", () => {
  test("lists what the tools' own walk lists, in the same order", async () => {
    using root = tempRoot();
    writeFiles(root.path, {
      ".gitignore": "*.s\nbuild/\n*.log\n",
      "a/b.c": "x",
      "a.c": "x",
      "arch/entry.S": "x",
      "arch/gen.s": "x",
      "build/out.c": "x",
      "build/x.log": "x",
      "node_modules/p/i.c": "x",
      ".hidden/h.c": "x",
      ".env": "x",
      "src/lib/deep/one.ts": "x",
      "src/two.ts": "x",
      "sub/.gitignore": "!keep.log\n",
      "sub/keep.log": "x",
    });
    symlinkSync(join(root.path, "a.c"), join(root.path, "link.c"));
    // A link to a file outside the project is listed (its name only); a linked folder is not entered.
    const outside = makeTempDir("garuda-outside-");
    writeFileSync(join(outside, "far.c"), "x");
    symlinkSync(join(outside, "far.c"), join(root.path, "out-link.c"));
    symlinkSync(join(root.path, "a"), join(root.path, "z-linked-folder"));
    // Distinct mtimes: glob lists newest first.
    let second = 1_700_000_000;
    for (const file of ["a/b.c", "a.c", "arch/entry.S", "src/two.ts", "src/lib/deep/one.ts", ".hidden/h.c"])
      utimesSync(join(root.path, file), second, second++);
    const own = session(root.path);
    const viaRg = session(root.path);
    const counted = useRipgrep(viaRg, testRipgrep(root.path));
    const cases = [
      { pattern: "**/*.c" },
      { pattern: "*.S" },
      { pattern: "*.s" },
      { pattern: "**/*.{c,ts}" },
      { pattern: "src/**/*.ts" },
      { pattern: "*" },
      { pattern: "*.log" },
      { pattern: "**/*.c", path: "build" },
      { pattern: "node_modules/**/*.c" },
    ];
    for (const input of cases) {
      const expected = await own.run("glob", input);
      const got = await viaRg.run("glob", input);
      expect({ input, output: got.output }).toEqual({ input, output: expected.output });
    }
    expect(counted.used).toBe(cases.length);
  });

  test(
    "a hard link of a secret is left out and counted, as the walk does (negative " +
      "control: listed without the secret)",
    async () => {
      using root = tempRoot();
      writeFiles(root.path, { "ok.txt": "x" });
      const home = secretHardLink(root.path, "key.txt", "key\n");
      const s = session(root.path, { home });
      const counted = useRipgrep(s, testRipgrep(root.path));
      const result = await s.run("glob", { pattern: "*.txt" });
      expect(counted.used).toBe(1);
      expect(result.output).toStartWith("ok.txt\n[Not listed: 1 matching file that is a secret file");
      const elsewhere = session(root.path, { home: makeTempDir("garuda-home-") });
      useRipgrep(elsewhere, testRipgrep(root.path));
      expect((await elsewhere.run("glob", { pattern: "*.txt" })).output).toContain("key.txt");
    },
  );
});

describe.skipIf(!ripgrepHere)("glob through ripgrep: names with a line end", () => {
  test("a link named to look like rg's error lines does not list an ignored file (negative control)", async () => {
    using root = tempRoot();
    writeFiles(root.path, { ".gitignore": "ignored.txt\n", "ignored.txt": "x", "ok.txt": "x" });
    // rg cannot open a link out of the project and names it among its errors: this name makes two such lines.
    const outside = makeTempDir("garuda-outside-");
    const folder = join(root.path, "a.txt: No such file or directory (os error 2)\nrg: .");
    mkdirSync(folder);
    symlinkSync(join(outside, "gone"), join(folder, "ignored.txt"));
    const s = session(root.path);
    const counted = useRipgrep(s, testRipgrep(root.path));
    const result = await s.run("glob", { pattern: "*.txt" });
    expect(result.output).not.toContain("ignored.txt");
    expect(result.output).toContain("ok.txt");
    expect(counted.used).toBe(1);
  });
});

describe.skipIf(!ripgrepHere)("glob and grep through ripgrep: .gitignore rules rg reads otherwise", () => {
  test(
    "a nested repository, a byte-order mark and a .rgignore do not show ignored " + "files (negative control)",
    async () => {
      using root = tempRoot();
      writeFiles(root.path, {
        // rg applies no .gitignore above a nested repository to its files, reads no first rule after
        // a BOM, and takes a .rgignore's rules over .gitignore's (even with --no-ignore-dot).
        ".gitignore": "\uFEFFtop.txt\n*.sec\nrg.txt\n",
        ".rgignore": "!rg.txt\n",
        "rg.txt": "x",
        "top.txt": "x",
        "inner/.git/HEAD": "ref: refs/heads/main\n",
        "inner/a.sec": "x",
        "inner/ok.txt": "x",
      });
      const own = session(root.path);
      const s = session(root.path);
      const counted = useRipgrep(s, testRipgrep(root.path));
      for (const [tool, input] of [
        ["glob", { pattern: "**/*" }],
        ["grep", { pattern: "x", mode: "files" }],
      ] as const) {
        const result = await s.run(tool, input);
        expect(result.output).not.toContain(".sec");
        expect(result.output).not.toContain("top.txt");
        expect(result.output).not.toContain("rg.txt");
        expect(result.output).toBe((await own.run(tool, input)).output);
      }
      expect(counted.used).toBe(2);
    },
  );
});
