// What a local MCP server finds through the folder it starts in (issue 31.3, third round): a
// user's own server (~/.garuda/mcp.json, asked about only when planLaunch finds project code) in
// a cloned project whose code leaves a mark when it runs. Each way below runs the project's code
// when started in the project folder — `--require=`/`--import=`, NODE_OPTIONS, a flag before
// npm's subcommand, npx behind `sh -c` or `env` — with no path of the project on the command line.
// The launch Garuda plans starts the server in / (so none of these finds the project: no mark),
// and a definition that asks for the project folder (`cwd`) is the project's code, asked about.
// Each case also runs in the project folder, as before this fix, to show that it is an attack.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StdioServerConfig } from "../../src/extensions/mcp/config.ts";
import { planLaunch, type ServerLaunch } from "../../src/extensions/mcp/serverLaunch.ts";
import { fakePackage, stdioServer as userServer } from "../support/clonedProject.ts";
import { tempDir } from "../support/tempDir.ts";

/** A cloned project whose code leaves `mark` when it runs, and the user's server file outside it. */
function clonedProject(base: string) {
  const root = join(base, "project");
  const outside = join(base, "outside");
  const mark = join(base, "PROJECT_CODE_RAN");
  mkdirSync(join(root, "node_modules", "dotenv"), { recursive: true });
  mkdirSync(join(root, "node_modules", "srv"), { recursive: true });
  mkdirSync(join(root, "node_modules", ".bin"), { recursive: true });
  mkdirSync(outside, { recursive: true });
  const leaveMark = `require("node:fs").writeFileSync(${JSON.stringify(mark)}, "ran");\n`;
  // A preload the project ships (what `-r dotenv/config` finds from the working folder).
  writeFileSync(join(root, "node_modules", "dotenv", "package.json"), '{"name":"dotenv","version":"1.0.0"}');
  writeFileSync(join(root, "node_modules", "dotenv", "config.js"), leaveMark);
  // The project's own copy of a package runner's package.
  fakePackage(join(root, "node_modules", "srv"), "srv", "srv", mark);
  symlinkSync("../srv/cli.js", join(root, "node_modules", ".bin", "srv"));
  // The project's scripts.
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "cloned", scripts: { start: `node -e '${leaveMark.trim()}'` } }),
  );
  // The user's own server, outside the project: it runs nothing of the project's by itself.
  writeFileSync(join(outside, "server.js"), "process.exit(0);\n");
  return { root, outside, mark };
}

/** Runs a launch for real (no sandbox: what the program loads is the point); true when the project's code ran. */
function runs(launch: Pick<ServerLaunch, "command" | "args" | "cwd" | "env">, mark: string): boolean {
  rmSync(mark, { force: true });
  Bun.spawnSync([launch.command, ...launch.args], {
    cwd: launch.cwd,
    // Offline: npx must not fetch a package of the same name instead (and must fail at once).
    env: { HOME: process.env.HOME ?? "/root", npm_config_offline: "true", ...launch.env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
    timeout: 30_000,
  });
  return existsSync(mark);
}

const cases: Array<[string, (outsideServer: string) => StdioServerConfig]> = [
  ["`node --require=dotenv/config` (the = form)", (server) => userServer("node", ["--require=dotenv/config", server])],
  ["`node --import=dotenv/config.js`", (server) => userServer("node", ["--import=dotenv/config.js", server])],
  [
    "NODE_OPTIONS='--require dotenv/config' in the server's variables",
    (server) => userServer("node", [server], { NODE_OPTIONS: "--require dotenv/config" }),
  ],
  ["`npm --silent start` (a flag before the subcommand)", () => userServer("npm", ["--silent", "start"])],
  ["`npm -s run start`", () => userServer("npm", ["-s", "run", "start"])],
  ["`npm --yes exec srv`", () => userServer("npm", ["--yes", "exec", "srv"])],
  ["`sh -c 'npx -y srv'` (a shell line that fills a token)", () => userServer("sh", ["-c", "npx -y srv"])],
  ["`env npx -y srv`", () => userServer("env", ["npx", "-y", "srv"])],
];

for (const [how, server] of cases) {
  test(
    `${how}: started in /, it runs none of the project's code; asked to start in ` + `the project, it is asked about`,
    () => {
      using dir = tempDir("garuda-mcp-launch-", { real: true });
      const project = clonedProject(dir.path);
      const config = server(join(project.outside, "server.js"));
      const launch = planLaunch(config, project.root, process.env.PATH);
      // The hole was both at once: the project's code ran, and the launch said none of it was the project's.
      expect({ ranUnseen: runs(launch, project.mark) && launch.projectFiles.length === 0 }).toEqual({
        ranUnseen: false,
      });
      expect({ cwd: launch.cwd, projectFiles: launch.projectFiles }).toEqual({ cwd: "/", projectFiles: [] });
      // The attack: the same launch in the project folder runs the project's code.
      expect(runs({ ...launch, cwd: project.root }, project.mark)).toBe(true);
      // A definition that asks for the project folder gets it, as the project's code that cannot be pinned.
      const inProject = planLaunch({ ...config, cwd: project.root }, project.root, process.env.PATH);
      expect(inProject.cwd).toBe(project.root);
      expect(inProject.projectFiles.some((file) => file.shown.startsWith(". (the folder it starts in"))).toBe(true);
      expect(inProject.projectFiles.every((file) => file.hash === undefined)).toBe(true);
    },
  );
}
