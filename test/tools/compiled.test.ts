// The file tools inside a `bun build --compile` binary, built with the shipped flags: descriptions
// (.txt), the tree-sitter wasm files, the search worker, the outline worker and (linux x64) ripgrep
// must be embedded, not read from the source tree (or, worse, the working directory) at run time.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { buildBinary, hostTarget } from "../../scripts/buildTargets.ts";
import { ripgrepFor, ripgrepTargets } from "../../scripts/ripgrepBuild.ts";
import { tempDir } from "../support/tempDir.ts";
import { writeFiles } from "../support/toolFixtures.ts";

test("fileTools works in a compiled binary run from a folder with no sources", async () => {
  using dir = tempDir("garuda-tools-compile-");
  const entry = join(dir.path, "entry.ts");
  const tools = join(import.meta.dir, "../../src/tools/fileTools.ts");
  Bun.write(
    entry,
    `import { fileTools } from ${JSON.stringify(tools)};
const root = ` +
      `process.argv[2];
const ctx = { root, home: root, callId: "c", mode: "build", ` +
      `signal: new AbortController().signal, executor: {}, sandbox: null,
  ` +
      `authorize: async () => ({ outcome: "allow", by: "rule" }), progress() {}, ` +
      `beforeWrite: async () => {} };
const byName = Object.fromEntries(fileTools({ ` +
      `home: root }).map((t) => [t.name, t]));
const run = (name, input) => ` +
      `byName[name].run(byName[name].plan(input, ctx), ctx);
const out = {
  ` +
      `descriptions: Object.values(byName).every((t) => t.description.length > 100),
 ` +
      ` go: (await run("symbols", { path: "s.go" })).output,
  rust: (await ` +
      `run("find_definition", { name: "Cache.new" })).output,
  python: (await ` +
      `run("find_definition", { name: "wrapper" })).output,
  ts: (await ` +
      `run("find_definition", { name: "Widget.spin" })).output,
  grep: (await ` +
      `run("grep", { pattern: "fn new|def wrapper", mode: "files" ` +
      `})).output,
};
console.log(JSON.stringify(out));
`,
  );
  const binary = (await buildBinary({ entry, outfile: join(dir.path, "probe") })).outfile;
  const project = join(dir.path, "project");
  // A worker module planted where a relative worker path would be looked for (the working
  // directory): it must not run.
  writeFiles(dir.path, {
    "tools/grepWorker.ts": 'console.error("PLANTED WORKER RAN"); process.exit(3);\n',
    "tools/grepWorker.js": 'console.error("PLANTED WORKER RAN"); process.exit(3);\n',
    "tools/codeIndex/outlineWorker.ts": 'console.error("PLANTED WORKER RAN"); process.exit(3);\n',
    "tools/codeIndex/outlineWorker.js": 'console.error("PLANTED WORKER RAN"); process.exit(3);\n',
  });
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
    grep: "c.rs\np.py",
  });
}, 120_000);

// The ripgrep a Linux build embeds (scripts/ripgrepBuild.ts), found inside the binary and run
// in its sandbox: grep through it answers as the tools' own search does.
const host = hostTarget();
const embedded =
  host && ripgrepTargets(host) && Bun.which("bwrap") ? await ripgrepFor(host, { log: () => {} }) : undefined;
test.skipIf(embedded === undefined)(
  "the embedded ripgrep is found in the binary and answers as the own search",
  async () => {
    using dir = tempDir("garuda-rg-compile-");
    const entry = join(dir.path, "entry.ts");
    const src = join(import.meta.dir, "../../src");
    Bun.write(
      entry,
      `import { fileTools } from ` +
        `${JSON.stringify(join(src, "tools/fileTools.ts"))};
import { embeddedRipgrep } ` +
        `from ${JSON.stringify(join(src, "sandbox/ripgrep/program.ts"))};
import { ` +
        `createRipgrepRunner } from ` +
        `${JSON.stringify(join(src, "sandbox/ripgrep/runner.ts"))};
const root = ` +
        `process.argv[2];
const program = embeddedRipgrep();
let answered = 0;
const ` +
        `runner = createRipgrepRunner({ program, bwrap: Bun.which("bwrap"), ` +
        `disableUserns: true, root, denyRead: () => [] });
const counted = { run: async ` +
        `(r) => { const o = await runner.run(r); if (o.kind === "done") answered++; ` +
        `return o; } };
const grep = async (executor) => {
  const ctx = { root, home: ` +
        `root, callId: "c", mode: "build", signal: new AbortController().signal, ` +
        `executor, sandbox: null,
    authorize: async () => ({ outcome: "allow", by: ` +
        `"rule" }), progress() {}, beforeWrite: async () => {} };
  const tool = ` +
        `fileTools({ home: root }).find((t) => t.name === "grep");
  return (await ` +
        `tool.run(tool.plan({ pattern: "needle", mode: "count" }, ctx), ` +
        `ctx)).output;
};
console.log(JSON.stringify({ name: program?.name, own: await ` +
        `grep({}), rg: await grep({ ripgrep: counted }), answered }));
`,
    );
    const binary = (await buildBinary({ entry, outfile: join(dir.path, "probe"), assets: [embedded as string] }))
      .outfile;
    const project = join(dir.path, "project");
    writeFiles(project, { ".gitignore": "*.s\n", "a.S": "needle\n", "b.s": "needle\n", "c/d.c": "needle\nneedle\n" });
    // Older than a second: rg's own answer, not a re-read of a folder that just changed.
    await Bun.sleep(1100);
    const run = Bun.spawnSync([binary, project], { cwd: dir.path, stdout: "pipe", stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    const out = JSON.parse(run.stdout.toString());
    expect(out.name).toMatch(/^rg-linux-(x64|arm64)-[a-z0-9]+\.gz$/);
    expect(out).toEqual({ name: out.name, own: "a.S:1\nc/d.c:2", rg: "a.S:1\nc/d.c:2", answered: 1 });
  },
  120_000,
);
