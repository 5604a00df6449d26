import { describe, expect, test } from "bun:test";
import { SecretIdentities } from "../../../src/files/secretIdentities.ts";
import { secretPlaces } from "../../../src/files/secrets.ts";
import { join } from "node:path";
import { findDefinitionTool } from "../../../src/tools/codeIndex/findDefinition.ts";
import { withheldPredicate } from "../../../src/tools/withheldPaths.ts";
import { SearchThreads } from "../../../src/tools/searchWorker.ts";
import { OutlineThread } from "../../../src/tools/codeIndex/outlineThread.ts";
import { ReadTracker } from "../../../src/tools/readTracker.ts";
import { planContext, runTool, session, tempRoot, toolContext, writeFiles } from "../../support/toolFixtures.ts";
import { C_HEADER, C_SOURCE, CPP, GO, PYTHON, RUST, TYPESCRIPT } from "../../fixtures/codeIndexSamples.ts";

function project(root: string): void {
  writeFiles(root, {
    "web/client.ts": TYPESCRIPT,
    "web/use.ts": "import { createClient } from './client';\ncreateClient({ retries: 1, onRetry() {} });\n",
    "py/point.py": PYTHON,
    "go/store.go": GO,
    "rs/cache.rs": RUST,
  });
}

describe("find_definition", () => {
  test("finds definitions across languages, not uses", async () => {
    using root = tempRoot();
    project(root.path);
    const s = session(root.path);
    expect((await s.run("find_definition", { name: "createClient" })).output).toBe(
      "web/client.ts:22  function createClient — export function createClient(options: Options): Client",
    );
    expect((await s.run("find_definition", { name: "Get" })).output).toBe(
      "go/store.go:15  method Store.Get — Get(id int) (*Item, error)\ngo/store.go:27  " +
        "method memory.Get — func (m *memory) Get(id int) (*Item, error)",
    );
    expect((await s.run("find_definition", { name: "norm" })).output).toBe(
      "py/point.py:22  method Point.norm — @property def norm(self) -> float",
    );
  });

  test("C and C++: functions, structs, macros, methods; the definition over its prototype", async () => {
    using root = tempRoot();
    writeFiles(root.path, {
      "include/slab.h": C_HEADER,
      "mm/slab.c": C_SOURCE,
      "net/client.hpp": CPP,
      "net/use.cc": '#include "client.hpp"\nint main() { net::Client c(1); c.send("x"); return KMALLOC_MAX; }\n',
    });
    const s = session(root.path);
    // Declared in slab.h and in slab.c, defined in slab.c: only the definition.
    expect((await s.run("find_definition", { name: "kmalloc" })).output).toBe(
      "mm/slab.c:26  function kmalloc — void *kmalloc(size_t size, gfp_t flags)",
    );
    expect((await s.run("find_definition", { name: "kmem_cache" })).output).toBe(
      "mm/slab.c:6  struct kmem_cache — struct kmem_cache",
    );
    expect((await s.run("find_definition", { name: "KMALLOC_MAX" })).output).toBe(
      "mm/slab.c:3  macro KMALLOC_MAX — #define KMALLOC_MAX 4096",
    );
    expect((await s.run("find_definition", { name: "kmem_cache_init" })).output).toBe(
      "mm/slab.c:37  function kmem_cache_init — int __init kmem_cache_init(void)",
    );
    expect((await s.run("find_definition", { name: "Client::send" })).output).toBe(
      "net/client.hpp:22  method net.Client.send — void net::Client::send(const std::string &body)",
    );
    expect((await s.run("find_definition", { name: "Client.count" })).output).toBe(
      "net/client.hpp:9  method net.Client.count — int count() const { return sent_; }",
    );
    // Only prototypes: shown as such, with why.
    const kfree = await s.run("find_definition", { name: "kfree" });
    expect(kfree.output).toBe(
      "No definition of kfree found in the project, only a declaration (a prototype " +
        "or extern, without the body): the definition may be in a file not searched, a " +
        "library, or made by a macro. Try grep for the text.\ninclude/slab.h:4  " +
        "declaration kfree — void kfree(const void *object);",
    );
  });

  test("C: files that only use a name (calls, comments, strings, struct pointers) are not parsed", async () => {
    using root = tempRoot();
    const uses =
      "/* kmalloc here */\nstatic int f(void)\n{\n\tstruct kmalloc *k = 0;\n\tbuf = " +
      "kmalloc(1, 2);\n\tkmalloc(3, 4);\n\treturn kmalloc(5, 6) != 0;\n}\n";
    writeFiles(root.path, {
      ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`a${i}.c`, uses])),
      "z.c": "void *kmalloc(int size, int flags)\n{\n\treturn 0;\n}\n",
    });
    const tool = findDefinitionTool(
      {
        reads: new ReadTracker(),
        withheld: withheldPredicate({ home: root.path }),
        searches: new SearchThreads(),
        outlines: new OutlineThread(),
        identities: new SecretIdentities(secretPlaces(root.path)),
      },
      // Parsing every file that mentions kmalloc would stop at the cap before z.c.
      { maxParsedFiles: 1 },
    );
    expect((await runTool(tool, { name: "kmalloc" }, toolContext(root.path))).output).toBe(
      "z.c:1  function kmalloc — void *kmalloc(int size, int flags)",
    );
  });

  test("qualified names pick the container", async () => {
    using root = tempRoot();
    project(root.path);
    const s = session(root.path);
    expect((await s.run("find_definition", { name: "Cache.new" })).output).toBe(
      "rs/cache.rs:22  method Cache.new — pub fn new() -> Self",
    );
    expect((await s.run("find_definition", { name: "Circle.area" })).output).toBe(
      "web/client.ts:51  method Shapes.Circle.area — area(radius: number): number",
    );
    const get = (await s.run("find_definition", { name: "Cache.get" })).output;
    expect(get).toBe("rs/cache.rs:32  method Cache.get — fn get(&self, key: &str) -> Option<String>");
  });

  test("respects .gitignore and hidden paths; a path narrows the search", async () => {
    using root = tempRoot();
    writeFiles(root.path, {
      ".gitignore": "vendor/\n",
      "vendor/lib.ts": "export function target() {}\n",
      "secret/impl.py": "def target():\n    pass\n",
      "src/main.go": "package main\n\nfunc target() {}\n",
      "src/other.rs": "fn target() {}\n",
    });
    const s = session(root.path, { withheld: (path) => path.includes("/secret/") });
    expect((await s.run("find_definition", { name: "target" })).output).toBe(
      "src/main.go:3  function target — func target()\nsrc/other.rs:1  function target — fn target()",
    );
    expect((await s.run("find_definition", { name: "target", path: "src/other.rs" })).output).toBe(
      "src/other.rs:1  function target — fn target()",
    );
    // Negative control: without the policy predicate the hidden folder's definition shows.
    expect((await session(root.path).run("find_definition", { name: "target" })).output).toContain(
      "secret/impl.py:1  function target",
    );
  });

  test("stops at 50 definitions with a note", async () => {
    using root = tempRoot();
    writeFiles(
      root.path,
      Object.fromEntries(
        Array.from({ length: 60 }, (_, i) => [`m/f${String(i).padStart(2, "0")}.py`, "def dup():\n    pass\n"]),
      ),
    );
    const result = await session(root.path).run("find_definition", { name: "dup" });
    const lines = result.output.split("\n");
    expect(lines).toHaveLength(51);
    expect(lines[50]).toBe("[Showing 50 of 60 definitions. Qualify the name (Container.dup) or narrow the path.]");
    expect(result.summary).toBe("60 definitions");
  });

  test("stops after the file cap with a note", async () => {
    using root = tempRoot();
    writeFiles(
      root.path,
      Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [
          `f${String(i).padStart(2, "0")}.ts`,
          `export const thing${i} = "needle";\n`,
        ]),
      ),
    );
    writeFiles(root.path, { "z.ts": "export function needle() {}\n" });
    const tool = findDefinitionTool(
      {
        reads: new ReadTracker(),
        withheld: withheldPredicate({ home: root.path }),
        searches: new SearchThreads(),
        outlines: new OutlineThread(),
        identities: new SecretIdentities(secretPlaces(root.path)),
      },
      { maxParsedFiles: 10 },
    );
    const result = await runTool(tool, { name: "needle" }, toolContext(root.path));
    expect(result.output).toBe(
      "No definition of needle found in the project (it reads TypeScript, JavaScript, " +
        "Python, Go, Rust, C and C++ files; .gitignore'd files are skipped). Try grep " +
        "for the text.\n[Stopped after parsing 10 files that mention needle; there may " +
        "be more definitions. Narrow the search with path.]",
    );
  });

  test("errors: not a name; not found", async () => {
    using root = tempRoot();
    project(root.path);
    const s = session(root.path);
    expect((await s.run("find_definition", { name: "foo bar" })).output).toBe(
      '"foo bar" is not a name. Give an identifier such as createClient, or ' +
        "Container.member; use grep to search for other text.",
    );
    expect((await s.run("find_definition", { name: "nothingLikeThis" })).output).toStartWith(
      "No definition of nothingLikeThis found in the project",
    );
  });

  test("describe: Search <name>", () => {
    using root = tempRoot();
    expect(
      session(root.path).tool("find_definition").plan({ name: "Client.send" }, planContext(root.path)).info,
    ).toEqual({ title: "Search Client.send", kind: "search", locations: [{ path: root.path }] });
    expect(join(root.path, ".")).toBe(root.path);
  });
});
