// The file tools inside a `bun build --compile` binary: descriptions (.txt) and the tree-sitter
// wasm files must be embedded, not read from the source tree at run time.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tempDir.ts";
import { writeFiles } from "./fixtures.ts";

test("fileTools works in a compiled binary run from a folder with no sources", () => {
  using dir = tempDir("garuda-tools-compile-");
  const entry = join(dir.path, "entry.ts");
  const tools = join(import.meta.dir, "../../src/tools/fileTools.ts");
  Bun.write(
    entry,
    `import { fileTools } from ${JSON.stringify(tools)};
const root = process.argv[2];
const ctx = { root, home: root, callId: "c", mode: "build", signal: new AbortController().signal, executor: {}, sandbox: null,
  authorize: async () => ({ outcome: "allow", by: "rule" }), progress() {}, beforeWrite: async () => {} };
const byName = Object.fromEntries(fileTools({ home: root }).map((t) => [t.name, t]));
const out = {
  descriptions: Object.values(byName).every((t) => t.description.length > 100),
  go: (await byName.symbols.run({ path: "s.go" }, ctx)).output,
  rust: (await byName.find_definition.run({ name: "Cache.new" }, ctx)).output,
  python: (await byName.find_definition.run({ name: "wrapper" }, ctx)).output,
  ts: (await byName.find_definition.run({ name: "Widget.spin" }, ctx)).output,
};
console.log(JSON.stringify(out));
`,
  );
  const binary = join(dir.path, "probe");
  const build = Bun.spawnSync([process.execPath, "build", "--compile", entry, "--outfile", binary], { stdout: "pipe", stderr: "pipe" });
  expect(build.stderr.toString()).not.toContain("error");
  expect(build.exitCode).toBe(0);
  const project = join(dir.path, "project");
  writeFiles(project, {
    "s.go": "package s\n\ntype T struct{}\n\nfunc (t *T) Run() {}\n",
    "c.rs": "struct Cache;\nimpl Cache {\n    fn new() -> Self { Cache }\n}\n",
    "p.py": "def outer():\n    def wrapper():\n        pass\n",
    "w.tsx": "export class Widget {\n  spin = () => <b/>;\n}\n",
  });
  const run = Bun.spawnSync([binary, project], { cwd: dir.path, stdout: "pipe", stderr: "pipe" });
  expect(run.stderr.toString()).toBe("");
  expect(JSON.parse(run.stdout.toString())).toEqual({
    descriptions: true,
    go: "s.go (Go, 2 symbols):\n    3  struct T\n    5  method Run()",
    rust: "c.rs:3  method Cache.new — fn new() -> Self { Cache }",
    python: "p.py:2  function outer.wrapper — def wrapper()",
    ts: "w.tsx:2  method Widget.spin — spin = () => <b/>;",
  });
}, 120_000);
