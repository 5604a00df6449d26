// Projects that ship their own copy of an MCP server, for the tests of what a server runs
// (issue 31.3): an npm package whose bin only leaves a mark, installed in a project's
// node_modules (with the .bin link and a package.json that lists it) or packed outside it, and
// an `npx` of the project's own in its bin/ folder; and a local server's definition as mcp.json
// gives it (config.ts) to plan its launch with.
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerScope, StdioServerConfig } from "../../src/extensions/mcp/config.ts";

/** A local server's definition, as loaded from `scope`'s mcp.json. */
export function stdioServer(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  scope: ServerScope = "user",
): StdioServerConfig {
  return {
    name: "s",
    scope,
    file: scope === "project" ? ".garuda/mcp.json" : "mcp.json",
    timeoutMs: 60_000,
    hash: (scope === "project" ? "1" : "0").repeat(64),
    refusedEnv: [],
    transport: "stdio",
    command,
    args,
    env,
    envSources: {},
    argsWritten: args,
    network: false,
    writePaths: [],
  };
}

/**
 * An npm package in `dir` whose bin writes $MARK (or `mark`) in its working folder, with the folder and $GITHUB_TOKEN's
 * length, and exits.
 */
export function fakePackage(dir: string, name: string, bin: string, mark: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", bin: { [bin]: "cli.js" } }));
  writeFileSync(
    join(dir, "cli.js"),
    `#!/usr/bin/env node\nrequire("node:fs").writeFileSync(process.env.MARK || ` +
      `${JSON.stringify(mark)}, process.cwd() + " token length " + ` +
      `(process.env.GITHUB_TOKEN || "").length + "\\n");\n`,
  );
  chmodSync(join(dir, "cli.js"), 0o755);
}

/**
 * `root` as a cloned project that ships `name` (bin `bin`): in node_modules, linked from
 * node_modules/.bin, listed in package.json; and bin/npx, which writes path-npx-ran.txt.
 */
export function clonedProject(root: string, name: string, bin: string): void {
  fakePackage(join(root, "node_modules", ...name.split("/")), name, bin, "project-copy-ran.txt");
  mkdirSync(join(root, "node_modules", ".bin"), { recursive: true });
  symlinkSync(`../${name}/cli.js`, join(root, "node_modules", ".bin", bin));
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "cloned", dependencies: { [name]: "1.0.0" } }));
  mkdirSync(join(root, "bin"), { recursive: true });
  writeFileSync(join(root, "bin", "npx"), `#!/bin/sh\necho ran > ${JSON.stringify(join(root, "path-npx-ran.txt"))}\n`);
  chmodSync(join(root, "bin", "npx"), 0o755);
}
