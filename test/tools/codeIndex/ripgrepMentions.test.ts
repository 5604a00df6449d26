import { describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RipgrepRunner } from "../../../src/sandbox/ripgrep/runner.ts";
import { ripgrepHere, testRipgrep } from "../../support/ripgrep.ts";
import { session, tempRoot, writeFiles } from "../../support/toolFixtures.ts";
import { makeTempDir } from "../../support/tempDir.ts";

function withRipgrep(s: ReturnType<typeof session>, runner: RipgrepRunner): { used: number } {
  const counted = { used: 0 };
  s.ctx.executor = {
    ...s.ctx.executor,
    ripgrep: {
      run: async (request) => {
        const outcome = await runner.run(request);
        if (outcome.kind === "done") counted.used++;
        return outcome;
      },
    },
  };
  return counted;
}

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
    const counted = withRipgrep(viaRg, testRipgrep(root.path));
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
    const home = makeTempDir("garuda-home-");
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_ed25519"), "int secret_symbol(void) { return 1; }\n");
    writeFiles(root.path, { "ok.c": "int other(void) { return 0; }\n" });
    linkSync(join(home, ".ssh", "id_ed25519"), join(root.path, "key.c"));
    const s = session(root.path, { home });
    const counted = withRipgrep(s, testRipgrep(root.path));
    const result = await s.run("find_definition", { name: "secret_symbol" });
    expect(counted.used).toBe(1);
    expect(result.output).toStartWith("No definition of secret_symbol found");
    expect(result.output).not.toContain("key.c");
  });
});
