// The session tools' factory: the tools and their shared state, a registry that accepts them
// (names, JSON schemas), and the same code working inside a `bun build --compile` binary
// (descriptions imported as text, node-html-markdown and node-html-parser bundled).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ProcessTable } from "../../src/tools/processTable.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { createSessionTools } from "../../src/tools/sessionTools.ts";
import { PlanState } from "../../src/tools/todo.ts";
import { tempDir } from "../support/tempDir.ts";

describe("createSessionTools", () => {
  test("bash, process_manager, web_fetch and todo, with the session's plan and processes", () => {
    const plan = new PlanState();
    const processes = new ProcessTable();
    const made = createSessionTools({ plan, processes });
    expect(made.tools.map((t) => t.name)).toEqual(["bash", "process_manager", "web_fetch", "todo"]);
    expect(made.plan).toBe(plan);
    expect(made.processes).toBe(processes);
    const registry = new ToolRegistry(made.tools);
    const specs = registry.specs();
    expect(specs.map((s) => s.name)).toEqual(["bash", "process_manager", "todo", "web_fetch"]);
    for (const spec of specs) {
      expect(spec.description.length).toBeGreaterThan(200);
      expect(spec.inputSchema.type).toBe("object");
    }
    expect(Object.keys((specs.find((s) => s.name === "bash")?.inputSchema.properties ?? {}) as object)).toEqual([
      "command",
      "timeout_ms",
      "description",
      "outside_sandbox",
    ]);
  });

  test("web_fetch and todo can be left out; each call makes fresh state", () => {
    expect(createSessionTools({ webFetch: false, todo: false }).tools.map((t) => t.name)).toEqual([
      "bash",
      "process_manager",
    ]);
    const a = createSessionTools();
    const b = createSessionTools();
    expect(a.plan).not.toBe(b.plan);
    expect(a.processes).not.toBe(b.processes);
  });
});

describe("in a compiled binary", () => {
  test("descriptions and the HTML converter work after `bun build --compile`", async () => {
    using dir = tempDir("garuda-compiled-tools-");
    const src = join(import.meta.dir, "../../src/tools");
    const entry = join(dir.path, "entry.ts");
    await Bun.write(
      entry,
      [
        `import { createSessionTools } from ${JSON.stringify(join(src, "sessionTools.ts"))};`,
        `import { htmlToMarkdown } from ${JSON.stringify(join(src, "htmlMarkdown.ts"))};`,
        `import { addressProblem } from ${JSON.stringify(join(src, "webAddress.ts"))};`,
        "const tools = createSessionTools().tools.map((t) => [t.name, t.description.slice(0, 40)]);",
        'const page = htmlToMarkdown("<html><head><title>T</title></head><body><nav>menu</nav><h2>Hi</h2><p><a ' +
          'href=\\"/a\\">link</a></p></body></html>", new URL("https://x.example/dir/"));',
        'process.stdout.write(JSON.stringify({ tools, page, private: addressProblem("10.0.0.1", false) }));',
      ].join("\n"),
    );
    const binary = join(dir.path, "tools-bin");
    const bun = process.execPath;
    const build = Bun.spawnSync([bun, "build", "--compile", entry, "--outfile", binary], {
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(build.stderr.toString()).not.toContain("error");
    expect(build.exitCode).toBe(0);
    const run = Bun.spawnSync([binary], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
    expect(run.exitCode).toBe(0);
    const out = JSON.parse(run.stdout.toString());
    expect(out.tools).toEqual([
      ["bash", "Runs a shell command (bash) in the proje"],
      ["process_manager", "Starts and manages long-running processe"],
      ["web_fetch", "Fetches a web page and returns its text:"],
      ["todo", "Writes your plan for the task as a check"],
    ]);
    expect(out.page).toEqual({ title: "T", markdown: "## Hi\n\n[link](https://x.example/a)" });
    expect(out.private).toBe("10.0.0.1 is a private address, not a public one");
  }, 60_000);
});
