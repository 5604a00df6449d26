// serverLaunch.ts over real files: which of a local MCP server's files are the project's code
// (inside it, found through a link or a PATH folder in it, or the folder it is asked to start
// in), the PATH it gets, the folder it starts in (/ unless its definition says), and the files
// (never folders, links or sockets) made readable in the sandbox. And mcp.json: a project's
// server gets no writable folder under the host's /tmp, and `cwd` only names a project folder.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { garudaPaths } from "../../src/config/paths.ts";
import { sha256Hex } from "../../src/config/trust.ts";
import { loadMcpConfig, type StdioServerConfig } from "../../src/extensions/mcp/config.ts";
import { launchHash, pathOutsideProject, planLaunch } from "../../src/extensions/mcp/serverLaunch.ts";
import { stdioServer as stdio } from "../support/clonedProject.ts";
import { tempDir } from "../support/tempDir.ts";

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
  test(
    "the project's code: an inside path, a link into the project; not a file " +
      "outside, nor a relative path (it starts in /)",
    () => {
      using dir = tempDir("garuda-launch-", { real: true });
      const { root, outside } = layout(dir.path);
      const path = `${join(outside, "bin")}:/usr/bin`;
      const shown = (config: StdioServerConfig) => planLaunch(config, root, path).projectFiles.map((f) => f.shown);
      expect(shown(stdio("node", [join(root, "server.js")]))).toEqual(["server.js"]);
      expect(shown(stdio("node", [`--require=${join(root, "server.js")}`]))).toEqual(["server.js"]);
      expect(shown(stdio(join(root, "bin", "tool"), []))).toEqual(["bin/tool"]);
      expect(shown(stdio("linked", []))).toEqual(["server.js"]);
      // Started in /, a relative path names /server.js, not the project's.
      expect(shown(stdio("node", ["server.js"]))).toEqual([]);
      const clean = planLaunch(stdio("tool", [join(outside, "server.js"), "--flag", "."]), root, path);
      expect(clean.projectFiles).toEqual([]);
      expect(clean.readPaths).toEqual([join(outside, "bin", "tool"), join(outside, "server.js")]);
      expect(clean.cwd).toBe("/");
    },
  );

  test(
    "a definition that asks for a folder of the project starts there, and is the " +
      "project's code that cannot be pinned",
    () => {
      using dir = tempDir("garuda-launch-", { real: true });
      const { root } = layout(dir.path);
      const launch = planLaunch({ ...stdio("node", ["server.js"]), cwd: root }, root, "/usr/bin");
      expect(launch.cwd).toBe(root);
      expect(launch.projectFiles.map((f) => [f.shown, f.hash === undefined])).toEqual([
        [". (the folder it starts in: what it finds there is the project's, and cannot be pinned)", true],
        ["server.js", false],
      ]);
      const inBin = planLaunch({ ...stdio("tool", []), cwd: join(root, "bin") }, root, "/usr/bin");
      expect(inBin.projectFiles[0]?.shown).toStartWith("bin (the folder it starts in");
    },
  );

  test(
    "the pin follows the content: a changed script changes the hash; a server with " +
      "no project code keeps its definition's",
    () => {
      using dir = tempDir("garuda-launch-", { real: true });
      const { root } = layout(dir.path);
      const config = stdio("node", [join(root, "server.js")]);
      const before = launchHash(config.hash, planLaunch(config, root, "/usr/bin"));
      expect(launchHash(config.hash, planLaunch(config, root, "/usr/bin"))).toBe(before);
      writeFileSync(join(root, "server.js"), "console.log('changed')\n");
      expect(launchHash(config.hash, planLaunch(config, root, "/usr/bin"))).not.toBe(before);
      expect(launchHash(config.hash, planLaunch(stdio("true", []), root, "/usr/bin"))).toBe(config.hash);
    },
  );

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

  test(
    "package runners and build tools: started in /, their arguments as written; " +
      "given a folder of the project, its code",
    () => {
      using dir = tempDir("garuda-launch-", { real: true });
      const { root } = layout(dir.path);
      for (const [command, args] of [
        ["npx", ["-y", "@modelcontextprotocol/server-github"]],
        ["npm", ["exec", "pkg"]],
        ["bunx", ["pkg"]],
        ["uvx", ["mcp-server-git"]],
        ["pnpm", ["dlx", "pkg"]],
        ["node", ["x.js"]],
      ] as const) {
        const launch = planLaunch(stdio(command, [...args]), root, "/usr/bin");
        expect([command, launch.cwd, launch.args, launch.projectFiles]).toEqual([command, "/", [...args], []]);
      }
      // Told to install or work from a folder of the project, a runner runs the project's own code: asked about, not
      // pinnable.
      const folder = (command: string, args: string[]) =>
        planLaunch(stdio(command, args), root, "/usr/bin").projectFiles;
      expect(folder("npx", [`--package=${root}`, "x"])).toEqual([
        { shown: ". (a folder of the project, whose code npx runs)", hash: undefined },
      ]);
      expect(folder("npx", [`--prefix=${join(root, "bin", "..")}`, "-y", "srv"])).toHaveLength(1);
      expect(folder("make", ["-C", join(root, "bin")])[0]?.shown).toStartWith("bin (a folder of the project");
      // Not a runner: a folder argument is data (a filesystem server's root), not code.
      expect(folder("node", ["/srv/fs.js", root])).toEqual([]);
      expect(folder("npx", ["-y", "server.js/x", "a.txt"])).toEqual([]);
    },
  );

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

/** The servers of a user's and a project's mcp.json (`{servers: …}` each), and the notices. */
function loadServers(base: string, user: Record<string, unknown>, project: Record<string, unknown> = {}) {
  const home = join(base, "home");
  const root = join(base, "root");
  mkdirSync(join(home, ".garuda"), { recursive: true });
  mkdirSync(join(root, ".garuda"), { recursive: true });
  const userFile = garudaPaths(home).mcp;
  writeFileSync(userFile, JSON.stringify({ servers: user }));
  writeFileSync(join(root, ".garuda", "mcp.json"), JSON.stringify({ servers: project }));
  const notices: string[] = [];
  const { servers } = loadMcpConfig({ userFile, root, home, env: {} }, notices);
  return { home, root, servers, notices };
}

test("mcp.json: a project's server gets no writable folder under the host's /tmp; the user's may", () => {
  using dir = tempDir();
  const { root, servers, notices } = loadServers(
    dir.path,
    { mine: { command: "x", writePaths: ["/tmp/mine"] } },
    { theirs: { command: "x", writePaths: ["/tmp/tmux-0", "out"] } },
  );
  const writable = servers.map((server) => (server.transport === "stdio" ? server.writePaths : []));
  expect(writable).toEqual([["/tmp/mine"], [join(root, "out")]]);
  expect(notices.join("\n")).toContain("asks to write /tmp/tmux-0, under the host's /tmp");
});

test(
  "mcp.json: `cwd` names the project folder or one in it (the server starts " +
    "there); elsewhere the server is skipped",
  () => {
    using dir = tempDir();
    const { root, servers, notices } = loadServers(dir.path, {
      plain: { command: "x" },
      here: { command: "x", cwd: "." },
      tools: { command: "x", cwd: "tools" },
      away: { command: "x", cwd: ".." },
      home: { command: "x", cwd: "/root" },
    });
    const cwd = servers.map((server) => [server.name, server.transport === "stdio" ? server.cwd : "remote"]);
    expect(cwd).toEqual([
      ["plain", undefined],
      ["here", root],
      ["tools", join(root, "tools")],
    ]);
    expect(notices.join("\n")).toContain('The MCP server "away" in ');
    expect(notices.join("\n")).toContain("which is not the project folder or a folder in it");
    // The hash of a definition without cwd is what it was before the field existed (its consents hold).
    const plain = servers[0];
    expect(plain?.hash).toBe(
      sha256Hex(JSON.stringify({ command: "x", args: [], env: [], network: false, writePaths: [] })),
    );
    expect(servers[1]?.hash).not.toBe(plain?.hash);
  },
);
