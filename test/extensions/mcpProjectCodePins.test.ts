// "Remember" pins the content of the project's code a server runs (issue 31.3(b), third round),
// including what its variables name: a project's own server (.garuda/mcp.json, remembered once)
// whose NODE_OPTIONS or LD_PRELOAD names a file of the project is asked about again when a
// sandboxed command rewrites that file; a folder of the project that a variable loads code from,
// or that npx is given as its --prefix, is the project's code that cannot be pinned; so is a file
// named inside a shell line, as a file: URL or with percent-escapes, or quoted in NODE_OPTIONS.
// BASH_ENV, ENV, SHELLOPTS, BASHOPTS, PS4 and PROMPT_COMMAND never reach a server (the executor
// starts each one with `bash -c`, which would run what they name first). Relative paths name
// nothing of the project: the server starts in /.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StdioServerConfig } from "../../src/extensions/mcp/config.ts";
import { launchHash, planLaunch } from "../../src/extensions/mcp/serverLaunch.ts";
import { fakePackage, stdioServer } from "../support/clonedProject.ts";
import { tempDir } from "../support/tempDir.ts";

const projectServer = (command: string, args: string[], env: Record<string, string> = {}) =>
  stdioServer(command, args, env, "project");

const PATH = "/usr/local/bin:/usr/bin:/bin";

/** Whether a change of `file` (in the project) would make the next session ask again. */
function changeAsksAgain(root: string, config: StdioServerConfig, file: string): boolean {
  const first = planLaunch(config, root, PATH);
  if (first.projectFiles.some((entry) => entry.hash === undefined)) return true; // asked every session
  const before = launchHash(config.hash, first);
  writeFileSync(join(root, file), "// rewritten by a sandboxed command\n");
  return launchHash(config.hash, planLaunch(config, root, PATH)) !== before;
}

/** A project with a preload, a library, a bash startup file and its own copy of `srv`, each leaving `mark` when run. */
function project(base: string) {
  const root = join(base, "project");
  const mark = join(base, "PROJECT_CODE_RAN");
  const leaveMark = `require("node:fs").writeFileSync(${JSON.stringify(mark)}, "ran");\n`;
  mkdirSync(join(root, "node_modules", "srv"), { recursive: true });
  mkdirSync(join(root, "node_modules", ".bin"), { recursive: true });
  mkdirSync(join(root, "lib"), { recursive: true });
  writeFileSync(join(root, "setup.js"), leaveMark);
  writeFileSync(join(root, "hook.so"), "\u007fELF placeholder\n");
  writeFileSync(join(root, "rc.sh"), `echo ran > ${JSON.stringify(mark)}\n`);
  fakePackage(join(root, "node_modules", "srv"), "srv", "srv", mark);
  symlinkSync("../srv/cli.js", join(root, "node_modules", ".bin", "srv"));
  return { root, mark };
}

/** Runs `argv` with the launch's folder and variables; true when the project's code ran. */
function runs(argv: string[], cwd: string, env: Record<string, string>, mark: string): boolean {
  rmSync(mark, { force: true });
  Bun.spawnSync(argv, {
    cwd,
    env: { HOME: process.env.HOME ?? "/root", PATH, npm_config_offline: "true", ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
    timeout: 30_000,
  });
  return existsSync(mark);
}

test("NODE_OPTIONS and LD_PRELOAD naming a file of the project: pinned, a rewrite asks again", () => {
  using dir = tempDir("garuda-mcp-pin-", { real: true });
  const { root } = project(dir.path);
  const preload = projectServer("node", ["/usr/lib/x/server.js"], {
    NODE_OPTIONS: `--require=${join(root, "setup.js")}`,
  });
  expect(planLaunch(preload, root, PATH).projectFiles.map((file) => file.shown)).toEqual(["setup.js"]);
  expect(changeAsksAgain(root, preload, "setup.js")).toBe(true);
  const library = projectServer("/bin/cat", [], { LD_PRELOAD: `/usr/lib/libz.so.1 ${join(root, "hook.so")}` });
  expect(changeAsksAgain(root, library, "hook.so")).toBe(true);
  // The control: a server whose variables name nothing of the project keeps its definition's hash.
  const plain = projectServer("node", ["/usr/lib/x/server.js"], { NODE_OPTIONS: "--max-old-space-size=512" });
  expect(planLaunch(plain, root, PATH).projectFiles).toEqual([]);
});

test("a folder of the project that a variable loads code from is the project's code that cannot be pinned", () => {
  using dir = tempDir("garuda-mcp-pin-", { real: true });
  const { root } = project(dir.path);
  const shown = (env: Record<string, string>) =>
    planLaunch(projectServer("node", ["/usr/lib/x/server.js"], env), root, PATH).projectFiles;
  expect(shown({ NODE_PATH: join(root, "node_modules") })).toEqual([
    { shown: "node_modules (a folder of the project that NODE_PATH loads code from)", hash: undefined },
  ]);
  expect(shown({ PYTHONPATH: `/usr/lib/python3:${join(root, "lib")}` })[0]?.hash).toBeUndefined();
  expect(shown({ LD_LIBRARY_PATH: join(root, "lib") })).toHaveLength(1);
  // A folder in a variable that loads nothing (a filesystem server's root) is data, not code.
  expect(shown({ ALLOWED_ROOT: root })).toEqual([]);
});

test(
  "a relative path in a variable names nothing of the project: the server starts " +
    "in /, and the project's file does not run",
  () => {
    using dir = tempDir("garuda-mcp-pin-", { real: true });
    const { root, mark } = project(dir.path);
    writeFileSync(join(dir.path, "server.js"), "process.exit(0);\n");
    const config = projectServer("node", [join(dir.path, "server.js")], { NODE_OPTIONS: "--require=./setup.js" });
    const launch = planLaunch(config, root, PATH);
    expect(launch.cwd).toBe("/");
    expect(runs(["node", ...launch.args], launch.cwd, launch.env, mark)).toBe(false);
    // The attack: in the project folder, the same launch runs the project's setup.js.
    expect(runs(["node", ...launch.args], root, launch.env, mark)).toBe(true);
  },
);

test("BASH_ENV and ENV never reach a server: the executor's `bash -c` would run the project's file first", () => {
  using dir = tempDir("garuda-mcp-pin-", { real: true });
  const { root, mark } = project(dir.path);
  const config = projectServer("/bin/true", [], { BASH_ENV: join(root, "rc.sh"), ENV: join(root, "rc.sh") });
  const launch = planLaunch(config, root, PATH);
  expect(Object.keys(launch.env).sort()).toEqual(["PATH"]);
  expect(launch.notes).toContain("BASH_ENV, ENV: dropped (bash would run the file named first)");
  expect(runs(["bash", "-c", "exec /bin/true"], launch.cwd, launch.env, mark)).toBe(false);
  // The attack: with the definition's variables, bash -c sources rc.sh.
  expect(runs(["bash", "-c", "exec /bin/true"], launch.cwd, config.env, mark)).toBe(true);
});

test(
  "a project file named in a shell line, a file: URL with escapes or a quoted " +
    "NODE_OPTIONS is pinned: a change asks again",
  () => {
    using dir = tempDir("garuda-mcp-pin-", { real: true });
    const { root, mark } = project(dir.path);
    writeFileSync(join(root, "setup.mjs"), "export {};\n");
    const setup = join(root, "setup.js");
    const launches = {
      shellLine: projectServer("sh", ["-c", `node ${setup}`]),
      shellSubstitution: projectServer("bash", ["-lc", `echo "$(node '${setup}')"`]),
      fileUrl: projectServer("node", [`--import=file://${join(root, "setup.%6djs")}`, "/usr/lib/server.js"]),
      quotedNodeOptions: projectServer("node", ["/usr/lib/server.js"], { NODE_OPTIONS: `--require "${setup}"` }),
    };
    const flagged = Object.fromEntries(
      Object.entries(launches).map(([name, config]) => [
        name,
        planLaunch(config, root, PATH).projectFiles.map((file) => file.shown),
      ]),
    );
    expect(flagged).toEqual({
      shellLine: ["setup.js"],
      shellSubstitution: ["setup.js"],
      fileUrl: ["setup.mjs"],
      quotedNodeOptions: ["setup.js"],
    });
    // They run the project's file for real: sh splits the line, node takes NODE_OPTIONS' quotes.
    expect(runs(["sh", ...launches.shellLine.args], "/", {}, mark)).toBe(true);
    expect(runs(["node", "-e", ""], "/", launches.quotedNodeOptions.env, mark)).toBe(true);
    expect(changeAsksAgain(root, launches.shellLine, "setup.js")).toBe(true);
    // Negative control: a shell line naming a file outside the project flags nothing.
    expect(planLaunch(projectServer("sh", ["-c", "node /usr/lib/server.js"]), root, PATH).projectFiles).toEqual([]);
  },
);

test(
  "SHELLOPTS, BASHOPTS, PS4 and PROMPT_COMMAND never reach a server: `bash -c` " +
    "imports them and xtrace expands PS4",
  () => {
    using dir = tempDir("garuda-mcp-pin-", { real: true });
    const { root } = project(dir.path);
    const config = projectServer("npx", ["-y", "@modelcontextprotocol/server-github"], {
      SHELLOPTS: "xtrace",
      BASHOPTS: "extdebug",
      PS4: `$(node "${join(root, "setup.js")}" >&2)`,
      PROMPT_COMMAND: `node ${join(root, "setup.js")}`,
      GITHUB_TOKEN: "t",
    });
    const launch = planLaunch(config, root, PATH);
    expect(Object.keys(launch.env).sort()).toEqual(["GITHUB_TOKEN", "PATH"]);
    expect(launch.notes).toContain(
      "SHELLOPTS, BASHOPTS, PS4, PROMPT_COMMAND: dropped (bash would run the code they hold first)",
    );
  },
);

test(
  "npx given the project as its --prefix (npm takes the last one) runs the " + "project's copy: its code, not pinnable",
  () => {
    using dir = tempDir("garuda-mcp-pin-", { real: true });
    const { root, mark } = project(dir.path);
    const given = projectServer("npx", [`--prefix=${join(root, "node_modules", "..")}`, "-y", "srv"]);
    expect(planLaunch(given, root, PATH).projectFiles).toEqual([
      { shown: ". (a folder of the project, whose code npx runs)", hash: undefined },
    ]);
    expect(changeAsksAgain(root, given, join("node_modules", "srv", "cli.js"))).toBe(true);
    // Relative, it names / (where the server starts): npx finds no copy of the project's.
    const relative = projectServer("npx", ["--prefix=node_modules/..", "-y", "srv"]);
    const launch = planLaunch(relative, root, PATH);
    expect(launch.projectFiles).toEqual([]);
    expect(runs(["npx", ...launch.args], launch.cwd, launch.env, mark)).toBe(false);
    expect(runs(["npx", ...launch.args], root, launch.env, mark)).toBe(true);
  },
);
