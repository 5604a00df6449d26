import { describe, expect, test } from "bun:test";
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
    expect(counted.used).toBe(cases.length);
  });

  test("a hard link of a secret is never read, and not named as mentioning the name", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "ok.c": "int other(void) { return 0; }\n" });
    const home = secretHardLink(root.path, "key.c", "int secret_symbol(void) { return 1; }\n");
    const s = session(root.path, { home });
    const counted = useRipgrep(s, testRipgrep(root.path));
    const result = await s.run("find_definition", { name: "secret_symbol" });
    expect(counted.used).toBe(1);
    expect(result.output).toStartWith("No definition of secret_symbol found");
    expect(result.output).not.toContain("key.c");
  });
});
