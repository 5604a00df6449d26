import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { planContext, session, tempRoot, writeFiles } from "../../support/toolFixtures.ts";
import { GO, PYTHON, RUST, TYPESCRIPT } from "../../fixtures/codeIndexSamples.ts";

describe("symbols", () => {
  test("an indented, numbered outline with signatures", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "src/client.ts": TYPESCRIPT });
    const result = await session(root.path).run("symbols", { path: "src/client.ts" });
    const lines = result.output.split("\n");
    expect(lines[0]).toBe("src/client.ts (TypeScript, 20 symbols):");
    expect(lines).toContain("   29  class Client");
    expect(lines).toContain("   35    method send(body: string): Promise<string>");
    expect(lines).toContain("   17  function loadConfig = async <T>(path: string): Promise<T> =>");
    expect(lines).toContain("   51      method area(radius: number): number");
    expect(result.summary).toBe("20 symbols");
  });

  test("Python decorators, Go receivers and Rust impls read well", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "p.py": PYTHON, "s.go": GO, "c.rs": RUST });
    const s = session(root.path);
    expect((await s.run("symbols", { path: "p.py" })).output).toContain(
      "   22    method norm(self) -> float  [@property]",
    );
    expect((await s.run("symbols", { path: "s.go" })).output).toContain("   27  method Get(id int) (*Item, error)");
    const rust = (await s.run("symbols", { path: "c.rs" })).output;
    expect(rust).toContain(
      "   31  impl Store for Cache<String, String>\n   32    method get(&self, key: &str) -> Option<String>",
    );
  });

  test("errors: unsupported language, missing file, folder", async () => {
    using root = tempRoot();
    writeFiles(root.path, { "README.md": "# hi\n", "src/a.ts": "" });
    const s = session(root.path);
    expect((await s.run("symbols", { path: "README.md" })).output).toBe(
      "symbols reads TypeScript, JavaScript, Python, Go, Rust, C and C++ files; " +
        "README.md is none of these. Use grep to find declarations in it, or read_file.",
    );
    expect((await s.run("symbols", { path: "gone.ts" })).output).toBe(
      "File not found: gone.ts. Use glob to find the file.",
    );
    expect((await s.run("symbols", { path: "src/a.ts" })).output).toBe("src/a.ts (TypeScript): no declarations found.");
  });

  test("describe: a search titled after the file", () => {
    using root = tempRoot();
    expect(session(root.path).tool("symbols").plan({ path: "src/a.ts" }, planContext(root.path)).info).toEqual({
      title: "Search symbols in src/a.ts",
      kind: "search",
      locations: [{ path: join(root.path, "src/a.ts") }],
    });
  });
});
