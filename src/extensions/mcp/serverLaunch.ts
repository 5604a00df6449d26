// What a local MCP server really runs, worked out at its start before anyone is asked: the
// program its command resolves to, the script files its arguments name, and which of them are
// the project's code. The project's code is whatever a clone or a sandboxed command can change:
// a file inside the project, a file named by a relative path (the server starts in the project),
// a program found through a PATH folder in the project. Such a server's consent says so and pins
// the files' content, so a changed script asks again (manager.ts).
//
// The launch is also made so the project cannot slip its code in unseen: PATH loses its folders
// in the project (and relative ones, which mean the project), package runners are told to look
// for packages elsewhere (npx `--prefix /`; bunx, uvx, pnpm dlx and yarn dlx start in /), and
// only the program and script files themselves are made readable in the sandbox — never the
// folder around a path under the host's /tmp, where tmux, ssh-agent and X keep their sockets.
import { closeSync, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, relative, resolve } from "node:path";
import { isInside } from "../../files/isInside.ts";
import { sha256Hex } from "../../config/trust.ts";
import type { StdioServerConfig } from "./config.ts";
import { type ProjectFile, projectLookups } from "./projectLookups.ts";

export interface ServerLaunch {
  command: string;
  args: string[];
  cwd: string;
  /** The server's variables, PATH without the project's folders. */
  env: Record<string, string>;
  /** Regular files to make readable in the sandbox (the program, scripts): never a folder. */
  readPaths: string[];
  /** The project's files it runs. Empty: none of its code comes from the project. */
  projectFiles: ProjectFile[];
  /** How the launch was changed so the project's copy is not picked, for the consent. */
  notes: string[];
}

/** Files larger than this are not hashed: the server is then asked about in every session. */
const MAX_PINNED_BYTES = 64 * 1024 * 1024;

/** Package runners that prefer a package installed in the working folder, and how each is kept out of it. */
const NPM_EXEC = new Set(["exec", "x"]);
const RUNS_FROM_CWD = new Set(["bunx", "uvx", "pnpx"]);
const RUNS_FROM_CWD_SUB: Record<string, ReadonlySet<string>> = {
  bun: new Set(["x"]),
  pnpm: new Set(["dlx", "exec"]),
  yarn: new Set(["dlx"]),
  uv: new Set(["tool"]),
};

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The path's stat, links followed; undefined when there is nothing there (or it cannot be looked at). */
function statOf(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
const isFile = (path: string) => statOf(path)?.isFile() ?? false;
const isDir = (path: string) => statOf(path)?.isDirectory() ?? false;
/** A regular file itself, not a link to one. */
function isRegular(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** SHA-256 of the file's bytes, or undefined when it cannot be read or is too large to pin. */
function fileHash(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const size = fstatSync(fd).size;
    if (size > MAX_PINNED_BYTES) return undefined;
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return sha256Hex(bytes.subarray(0, read));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The PATH without folders in the project, and without relative ones (they name the working folder: the project). */
export function pathOutsideProject(path: string, root: string): string {
  return path
    .split(delimiter)
    .filter((dir) => dir !== "" && isAbsolute(dir) && !isInside(realOrSelf(dir), root) && !isInside(dir, root))
    .join(delimiter);
}

/** Where the shell finds `command` with this PATH (undefined: not found). */
function onPath(command: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    const candidate = resolve(dir, command);
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}

/** The arguments that may name a file: each argument, and the value of `--name=value`. */
function pathCandidates(args: readonly string[]): string[] {
  return args.flatMap((arg) => {
    const eq = arg.startsWith("-") ? arg.indexOf("=") : -1;
    return eq > 0 ? [arg.slice(eq + 1)] : [arg];
  });
}

/** A package runner's launch that cannot pick the project's copy, with a note for the consent. */
function outsideTheProject(
  command: string,
  args: string[],
  root: string,
): { args: string[]; cwd: string; note?: string } {
  const name = basename(command).replace(/\.exe$/i, "");
  // npm finds local packages from its prefix (the working folder's package by default) and walks up
  // from there for node_modules/.bin; a prefix of / leaves the project out, and its .npmrc too,
  // while the package still runs in the project folder.
  if (name === "npx") return { args: ["--prefix", "/", ...args], cwd: root, note: "npx: --prefix /" };
  if (name === "npm" && NPM_EXEC.has(args[0] ?? ""))
    return { args: [args[0] ?? "exec", "--prefix", "/", ...args.slice(1)], cwd: root, note: "npm exec: --prefix /" };
  // These find local packages and their configuration from the working folder, with no flag to say otherwise.
  if (RUNS_FROM_CWD.has(name) || RUNS_FROM_CWD_SUB[name]?.has(args[0] ?? ""))
    return { args, cwd: "/", note: `${name}: starts in / (relative paths in its arguments do not name the project)` };
  return { args, cwd: root };
}

/**
 * The launch of a local server and the project's files it runs. `garudaPath`: Garuda's own PATH,
 * which the server gets unless its definition sets one.
 */
export function planLaunch(config: StdioServerConfig, root: string, garudaPath: string | undefined): ServerLaunch {
  const env = { ...config.env };
  const givenPath = env.PATH ?? garudaPath;
  const notes: string[] = [];
  if (givenPath !== undefined) {
    env.PATH = pathOutsideProject(givenPath, root);
    if (env.PATH !== givenPath) notes.push("PATH: the project's folders left out");
  }
  const launch = outsideTheProject(config.command, config.args, root);
  if (launch.note) notes.push(launch.note);
  const runner = launch.note !== undefined;
  const projectFiles = new Map<string, ProjectFile>();
  const readPaths: string[] = [];
  const note = (path: string, named: string) => {
    const real = realOrSelf(path);
    // Inside the project (whatever the path said), or relative to it: the project decides its content.
    if (isInside(real, root) || isInside(path, root) || (!isAbsolute(named) && launch.cwd === root)) {
      const shown = isInside(real, root) ? relative(root, real) || "." : named;
      projectFiles.set(shown, { shown, hash: fileHash(real) });
    }
    // Only a regular file named as such is made readable in the sandbox: not a link, socket or folder.
    if (isAbsolute(path) && isRegular(path)) readPaths.push(path);
  };

  const command = config.command;
  const program = command.includes("/")
    ? resolve(launch.cwd, command)
    : env.PATH !== undefined
      ? onPath(command, env.PATH)
      : undefined;
  if (program !== undefined && isFile(program)) note(program, command.includes("/") ? command : program);

  for (const candidate of pathCandidates(config.args)) {
    if (candidate === "") continue;
    const path = resolve(launch.cwd, candidate);
    if (isFile(path)) note(path, candidate);
    // A package runner given a folder of the project (`npx --package=.`) installs and runs the project itself.
    else if (runner && /^(\.{1,2}(\/|$)|\/)/.test(candidate) && isDir(path) && isInside(realOrSelf(path), root)) {
      const shown = `${relative(root, realOrSelf(path)) || "."} (the project's package, which ${basename(command)} installs and runs)`;
      projectFiles.set(shown, { shown, hash: undefined });
    }
  }

  // Started in the project, the program may find more of it there than its arguments name.
  if (launch.cwd === root) {
    const lookups = projectLookups(command, config.args, root, env);
    Object.assign(env, lookups.env);
    notes.push(...lookups.notes);
    for (const file of lookups.files) projectFiles.set(file.shown, file);
  }
  return {
    command,
    args: launch.args,
    cwd: launch.cwd,
    env,
    readPaths,
    projectFiles: [...projectFiles.values()],
    notes,
  };
}

/** What a consent pins for the server: its definition, plus the content of the project's files it runs. */
export function launchHash(definitionHash: string, launch: ServerLaunch): string {
  if (launch.projectFiles.length === 0) return definitionHash;
  return sha256Hex(
    JSON.stringify({ definition: definitionHash, files: launch.projectFiles.map((file) => [file.shown, file.hash]) }),
  );
}
