import { describe, expect, test } from "bun:test";
import { mayDefineOnLine } from "../../../src/tools/codeIndex/cDefinitionSites.ts";
import { definitionLinePattern } from "../../../src/tools/codeIndex/ripgrepMentions.ts";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { ripgrepHere, secretHardLink, testRipgrep, useRipgrep } from "../../support/ripgrep.ts";
import { session, tempRoot, writeFiles } from "../../support/toolFixtures.ts";

describe.skipIf(!ripgrepHere)("find_definition through ripgrep", () => {
  test("finds what the tools' own search finds", async () => {
    using root = tempRoot();
    writeFiles(root.path, {
      ".gitignore": "*.s\ngen/\n",
      "mm/slab.c": "void *kmalloc(size_t size, gfp_t flags)\n{\n\treturn 0;\n}\n",
      "include/slab.h": "void *kmalloc(size_t size, gfp_t flags);\nstruct kmem_cache {\n\tint size;\n};\n",
      "drivers/use.c": "static int probe(void)\n{\n\tvoid *p = kmalloc(4, 0);\n\treturn p != 0;\n}\n",
      "arch/x86/entry.S": "kmalloc:\n\tret\n",
      "gen/kmalloc.c": "void *kmalloc(size_t size) { return 0; }\n",
      "tools/client.ts":
        "export class Client {\n  send(): void {}\n}\nexport function kmalloc(): number {\n  return 1;\n}\n",
      "py/mod.py": "def kmalloc(size):\n    return size\n",
      "CAPS.C": "int kmalloc_upper(void) { return 0; }\n",
    });
    symlinkSync(join(root.path, "py", "mod.py"), join(root.path, "py", "alias.py"));
    const own = session(root.path);
    const viaRg = session(root.path);
    const counted = useRipgrep(viaRg, testRipgrep(root.path));
    const cases = [
      { name: "kmalloc" },
      { name: "kmem_cache" },
      { name: "Client.send" },
      { name: "kmalloc", path: "mm" },
      { name: "kmalloc_upper" },
      { name: "nothing_here" },
    ];
    for (const input of cases) {
      const expected = await own.run("find_definition", input);
      const got = await viaRg.run("find_definition", input);
      expect({ input, output: got.output }).toEqual({ input, output: expected.output });
    }
    // Two rg runs a call: C and C++ files for lines that may define the name, the other languages for mentions.
    expect(counted.used).toBe(2 * cases.length);
  });

  test("a hard link of a secret is never read, and not named as mentioning the name", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "ok.c": "int other(void) { return 0; }\n" });
    const home = secretHardLink(root.path, "key.c", "int secret_symbol(void) { return 1; }\n");
    const s = session(root.path, { home });
    const counted = useRipgrep(s, testRipgrep(root.path));
    const result = await s.run("find_definition", { name: "secret_symbol" });
    expect(counted.used).toBe(2);
    expect(result.output).toStartWith("No definition of secret_symbol found");
    expect(result.output).not.toContain("key.c");
  });
});

describe.skipIf(!ripgrepHere)("the line pattern rg looks for in C and C++", () => {
  test("matches every line where a mention may be a definition (and skips plain calls)", async () => {
    using root = tempRoot();
    const lines = [
      "void *kmalloc(size_t s)",
      "kmalloc(size_t s)",
      "#define kmalloc(s) foo",
      "struct kmalloc {",
      "} kmalloc;",
      "int /* the allocator */ kmalloc(int size);",
      "\tkmalloc,",
      "\tkmalloc(int r) : x(r) {}",
      'static char *s = "x"kmalloc;',
      "Klass::kmalloc(int n)",
      "Klass::~kmalloc()",
      "int (*kmalloc)(void);",
      "template <class T> kmalloc",
      "int kmalloc\r",
      // rg lets `return kmalloc(…)` (after a word) and `p->kmalloc` (after `>`) through; mayDefineOnLine drops them.
      "\treturn kmalloc(1, 2);",
      "\tp->kmalloc = 1;",
      "\tbuf = kmalloc(sizeof(*buf), GFP_KERNEL);",
      "\tf(kmalloc(1), 2);",
      "int kmalloc_array(int);",
    ];
    writeFiles(root.path, { "a.c": `${lines.join("\n")}\n` });
    const outcome = await testRipgrep(root.path).run({
      cwd: root.path,
      args: ["--no-line-number", "--regexp", definitionLinePattern("kmalloc"), "a.c"],
      signal: new AbortController().signal,
    });
    const matched = new Set(outcome.kind === "done" ? outcome.stdout.toString().split("\n") : []);
    for (const line of lines) {
      const may = mayDefineOnLine("c", line, "kmalloc") || mayDefineOnLine("cpp", line, "kmalloc");
      if (may) expect({ line, matched: matched.has(line) }).toEqual({ line, matched: true });
    }
    // Calls, members and longer names are not even printed.
    for (const line of lines.slice(-3)) expect({ line, matched: matched.has(line) }).toEqual({ line, matched: false });
  });
});
