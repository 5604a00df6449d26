// serverLaunch.ts over real files: which of a local MCP server's files are the project's code
// (inside it, named by a relative path, found through a link or a PATH folder in it), the PATH
// it gets, the package runners kept out of the project, and the files (never folders, links or
// sockets) made readable in the sandbox. And mcp.json: a project's server gets no writable
// folder under the host's /tmp.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { garudaPaths } from "../../src/config/paths.ts";
import { loadMcpConfig, type StdioServerConfig } from "../../src/extensions/mcp/config.ts";
import { projectLookups } from "../../src/extensions/mcp/projectLookups.ts";
import { launchHash, pathOutsideProject, planLaunch } from "../../src/extensions/mcp/serverLaunch.ts";
import { tempDir } from "../support/tempDir.ts";

const stdio = (command: string, args: string[], env: Record<string, string> = {}): StdioServerConfig => ({
  name: "s",
  scope: "user",
  file: "mcp.json",
  timeoutMs: 60_000,
  hash: "0".repeat(64),
  refusedEnv: [],
  transport: "stdio",
  command,
  args,
  env,
  envSources: {},
  argsWritten: args,
  network: false,
  writePaths: [],
});

function layout(base: string) {
  const root = join(base, "project");
  const outside = join(base, "outside");
  mkdirSync(join(root, "bin"), { recursive: true });
  mkdirSync(join(outside, "bin"), { recursive: true });
  writeFileSync(join(root, "server.js"), "console.log('project')\n");
  writeFileSync(join(outside, "server.js"), "console.log('outside')\n");
  for (const dir of [join(root, "bin"), join(outside, "bin")]) {
    writeFileSync(join(dir, "tool"), "#!/bin/sh\n");
    chmodSync(join(dir, "tool"), 0o755);
  }
  // A program outside that is a link into the project: its content is the project's.
  symlinkSync(join(root, "server.js"), join(outside, "bin", "linked"));
  return { root, outside };
}

describe("serverLaunch", () => {
  test("the project's code: a relative or inside path, a link into the project; not a file outside", () => {
    using dir = tempDir("garuda-launch-", { real: true });
    const { root, outside } = layout(dir.path);
    const path = `${join(outside, "bin")}:/usr/bin`;
    expect(planLaunch(stdio("node", ["server.js"]), root, path).projectFiles.map((f) => f.shown)).toEqual([
      "server.js",
    ]);
    expect(
      planLaunch(stdio("node", [`--require=${join(root, "server.js")}`]), root, path).projectFiles.map((f) => f.shown),
    ).toEqual(["server.js"]);
    expect(planLaunch(stdio("./bin/tool", []), root, path).projectFiles.map((f) => f.shown)).toEqual(["bin/tool"]);
    expect(planLaunch(stdio("linked", []), root, path).projectFiles.map((f) => f.shown)).toEqual(["server.js"]);
    const clean = planLaunch(stdio("tool", [join(outside, "server.js"), "--flag", "."]), root, path);
    expect(clean.projectFiles).toEqual([]);
    expect(clean.readPaths).toEqual([join(outside, "bin", "tool"), join(outside, "server.js")]);
    expect(clean.cwd).toBe(root);
  });

  test("the pin follows the content: a changed script changes the hash; a server with no project code keeps its definition's", () => {
    using dir = tempDir("garuda-launch-", { real: true });
    const { root } = layout(dir.path);
    const config = stdio("node", ["server.js"]);
    const before = launchHash(config.hash, planLaunch(config, root, "/usr/bin"));
    expect(launchHash(config.hash, planLaunch(config, root, "/usr/bin"))).toBe(before);
    writeFileSync(join(root, "server.js"), "console.log('changed')\n");
    expect(launchHash(config.hash, planLaunch(config, root, "/usr/bin"))).not.toBe(before);
    expect(launchHash(config.hash, planLaunch(stdio("true", []), root, "/usr/bin"))).toBe(config.hash);
  });

  test("PATH loses the project's folders and relative ones, whether Garuda's or the definition's", () => {
    using dir = tempDir("garuda-launch-", { real: true });
    const { root, outside } = layout(dir.path);
    const given = `${join(root, "bin")}::.:bin:${join(outside, "bin")}:/usr/bin`;
    expect(pathOutsideProject(given, root)).toBe(`${join(outside, "bin")}:/usr/bin`);
    // Found through the project's PATH folder before: now the one outside.
    const launch = planLaunch(stdio("tool", []), root, given);
    expect(launch.projectFiles).toEqual([]);
    expect(launch.env.PATH).toBe(`${join(outside, "bin")}:/usr/bin`);
    expect(launch.notes).toContain("PATH: the project's folders left out");
    expect(planLaunch(stdio("tool", [], { PATH: given }), root, undefined).env.PATH).toBe(
      `${join(outside, "bin")}:/usr/bin`,
    );
  });

  test("package runners: npx and npm exec look for packages from /, the others start in /", () => {
    using dir = tempDir("garuda-launch-", { real: true });
    const { root } = layout(dir.path);
    const npx = planLaunch(stdio("npx", ["-y", "@modelcontextprotocol/server-github"]), root, "/usr/bin");
    expect([npx.args, npx.cwd]).toEqual([["--prefix", "/", "-y", "@modelcontextprotocol/server-github"], root]);
    expect(planLaunch(stdio("npm", ["exec", "pkg"]), root, "/usr/bin").args).toEqual(["exec", "--prefix", "/", "pkg"]);
    for (const [command, args] of [
      ["bunx", ["pkg"]],
      ["uvx", ["mcp-server-git"]],
      ["pnpm", ["dlx", "pkg"]],
      ["yarn", ["dlx", "pkg"]],
      ["bun", ["x", "pkg"]],
      ["uv", ["tool", "run", "pkg"]],
    ] as const) {
      const launch = planLaunch(stdio(command, [...args]), root, "/usr/bin");
      expect([command, launch.cwd, launch.args]).toEqual([command, "/", [...args]]);
    }
    expect(planLaunch(stdio("node", ["x.js"]), root, "/usr/bin").cwd).toBe(root);
    // Told to install a folder of the project, a runner runs the project's own code: asked about, not pinnable.
    expect(planLaunch(stdio("npx", ["--package=.", "x"]), root, "/usr/bin").projectFiles).toEqual([
      { shown: ". (the project's package, which npx installs and runs)", hash: undefined },
    ]);
    expect(planLaunch(stdio("npx", ["-y", "server.js/x", "a.txt"]), root, "/usr/bin").projectFiles).toEqual([]);
    // Started in /, a relative path names no file of the project.
    expect(planLaunch(stdio("bunx", ["server.js"]), root, "/usr/bin").projectFiles).toEqual([]);
  });

  test("only regular files are made readable: a socket, a folder or a link an argument names is not", async () => {
    using dir = tempDir("garuda-launch-", { real: true });
    const { root, outside } = layout(dir.path);
    const socket = join(outside, "s.sock");
    const listener = createServer();
    await new Promise<void>((done) => listener.listen(socket, done));
    try {
      symlinkSync(join(outside, "server.js"), join(outside, "link.js"));
      const program = join(outside, "bin", "tool");
      const launch = planLaunch(stdio(program, [socket, outside, join(outside, "link.js")]), root, "/usr/bin");
      expect(launch.readPaths).toEqual([program]);
    } finally {
      listener.close();
    }
  });
});

test("projectLookups: what a program finds through the project folder, only when the project has what it reads", () => {
  using dir = tempDir("garuda-lookups-", { real: true });
  const root = dir.path;
  const shown = (command: string, args: string[]) => projectLookups(command, args, root, {}).files.map((f) => f.shown);
  // Nothing in the project yet: nothing found through it.
  expect(shown("npm", ["start"])).toEqual([]);
  expect(shown("uv", ["run", "server.py"])).toEqual([]);
  expect(shown("make", ["serve"])).toEqual([]);
  writeFileSync(join(root, "package.json"), JSON.stringify({ scripts: { mcp: "node x.js" } }));
  writeFileSync(join(root, "pyproject.toml"), "[project]\nname = 'x'\n");
  writeFileSync(join(root, "Makefile"), "serve:\n\ttrue\n");
  mkdirSync(join(root, "node_modules"));
  expect(shown("npm", ["start"])).toEqual(["package.json (npm start runs what the project defines)"]);
  expect(shown("yarn", ["mcp"])).toEqual(["package.json (yarn mcp runs what the project defines)"]);
  expect(shown("yarn", ["dlx", "pkg"])).toEqual([]);
  expect(shown("bun.exe", ["run", "mcp"])).toEqual(["package.json (bun run runs what the project defines)"]);
  expect(shown("bun", ["run", "/srv/server.ts"])).toEqual([]);
  expect(shown("uv", ["run", "server.py"])).toEqual(["pyproject.toml (uv run runs what the project defines)"]);
  expect(shown("make", ["serve"])).toEqual(["Makefile (make serve runs what the project defines)"]);
  expect(shown("node", ["-r", "dotenv/config", "/srv/server.js"])).toEqual([
    "node_modules (node loads dotenv/config from the project folder)",
  ]);
  expect(shown("node", ["-r", "./local.js", "/srv/server.js"])).toEqual([]);
  writeFileSync(join(root, "bunfig.toml"), "preload = []\n");
  expect(shown("/usr/local/bin/bun", ["/srv/server.ts"])).toEqual([
    "bunfig.toml (Bun reads it, and runs what it preloads, from the project folder)",
  ]);
  // Python: switched off instead (a definition that sets PYTHONSAFEPATH keeps its own).
  expect(projectLookups("python3.12", ["-m", "mcp_server_git"], root, {}).env).toEqual({ PYTHONSAFEPATH: "1" });
  expect(projectLookups("python3", ["/srv/server.py"], root, {}).env).toEqual({});
  expect(projectLookups("python", ["-m", "x"], root, { PYTHONSAFEPATH: "" }).env).toEqual({});
});

test("mcp.json: a project's server gets no writable folder under the host's /tmp; the user's may", () => {
  using dir = tempDir();
  const home = join(dir.path, "home");
  const root = join(dir.path, "root");
  mkdirSync(join(home, ".garuda"), { recursive: true });
  mkdirSync(join(root, ".garuda"), { recursive: true });
  const userFile = garudaPaths(home).mcp;
  writeFileSync(userFile, JSON.stringify({ servers: { mine: { command: "x", writePaths: ["/tmp/mine"] } } }));
  writeFileSync(
    join(root, ".garuda", "mcp.json"),
    JSON.stringify({ servers: { theirs: { command: "x", writePaths: ["/tmp/tmux-0", "out"] } } }),
  );
  const notices: string[] = [];
  const { servers } = loadMcpConfig({ userFile, root, home, env: {} }, notices);
  const writable = servers.map((server) => (server.transport === "stdio" ? server.writePaths : []));
  expect(writable).toEqual([["/tmp/mine"], [join(root, "out")]]);
  expect(notices.join("\n")).toContain("asks to write /tmp/tmux-0, under the host's /tmp");
});
