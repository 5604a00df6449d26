// What a local MCP server really runs, worked out at its start before anyone is asked: the
// program its command resolves to, the files its arguments and variables name, and which of them
// are the project's code. The project's code is whatever a clone or a sandboxed command can change:
// a file inside the project, a program found through a PATH folder in it, a folder of it that a
// variable loads code from (NODE_PATH, PYTHONPATH, LD_LIBRARY_PATH …) or that a package runner or
// build tool is given. Such a server's consent says so and pins the files' content, so a changed
// script asks again (manager.ts).
//
// What a program finds through the folder it starts in cannot be listed (npm's node_modules/.bin
// and scripts, `-r module`, bunfig.toml, Python's imports, a shell line's `npx` …), so a server
// starts in / unless its definition asks for a folder of the project (`cwd`, config.ts); one that
// does is the project's code that cannot be pinned, asked about in every session. PATH loses its
// folders in the project (and relative ones), BASH_ENV and ENV are dropped, and so are SHELLOPTS,
// BASHOPTS, PS4 and PROMPT_COMMAND (the executor runs each command line with `bash -c`, which
// imports them: xtrace expands PS4's `$(…)`). A path is looked for in the words of a shell line
// (`sh -c "node x.js"`) and of a quoted value (NODE_OPTIONS), and as a file: URL or with its
// percent-escapes decoded (node resolves `--import` specifiers as URLs). And only the program and script files
// themselves are made readable
// in the sandbox — never the folder around a path under the host's /tmp, where tmux, ssh-agent and
// X keep their sockets.
import { closeSync, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isInside } from "../../files/isInside.ts";
import { sha256Hex } from "../../config/trust.ts";
import { parseShell, roughParts } from "../../permission/shellParse.ts";
import type { StdioServerConfig } from "./config.ts";

/**
 * A file of the project's that a server runs, and its content's hash (undefined: cannot be pinned — a folder, or too
 * large).
 */
export interface ProjectFile {
  /** As the consent shows it: relative to the project root. */
  shown: string;
  hash: string | undefined;
}

export interface ServerLaunch {
  command: string;
  args: string[];
  /** "/" unless the definition asked for a folder of the project. */
  cwd: string;
  /** The server's variables: PATH without the project's folders, none of SHELL_STARTUP and SHELL_HOOKS. */
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

/** Where a server starts unless its definition asks for a folder of the project. */
const OUTSIDE = "/";

/** Variables that make bash run a file before the command line (the executor starts every server with `bash -c`). */
const SHELL_STARTUP = ["BASH_ENV", "ENV"];
/** Variables that make bash run code they hold before the command line: xtrace in SHELLOPTS expands PS4. */
const SHELL_HOOKS = ["SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND"];

/**
 * Variables whose value makes a program load code (preloads, library and module paths, git's
 * programs, package managers' configuration): a folder of the project named in one is the
 * project's code. A file of the project named in any variable is, as in an argument.
 */
const LOADS_CODE = new RegExp(
  String.raw`^(NODE_OPTIONS|NODE_PATH|LD_\w+|DYLD_\w+|PYTHON(PATH|STARTUP|HOME|USERBASE)|PERL5?(LIB|OPT)` +
    String.raw`|RUBY(LIB|OPT)|GEM_(HOME|PATH)|BUNDLE_\w+|CLASSPATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS` +
    String.raw`|GIT_\w+|NPM_CONFIG_\w+|BUN_\w+|DENO_\w+|UV_\w+|PIP_\w+|CARGO_\w+|RUSTC_WRAPPER|GOPATH|GOFLAGS` +
    "|MAKEFLAGS|XDG_CONFIG_HOME|XDG_DATA_HOME)$",
  "i",
);

/**
 * Package runners and build tools: given a folder of the project (`--prefix`, `-C`, `--directory`, a path), they run
 * what it defines.
 */
const RUNS_A_FOLDER = new Set([
  "npx",
  "npm",
  "pnpm",
  "pnpx",
  "yarn",
  "bun",
  "bunx",
  "uv",
  "uvx",
  "poetry",
  "pipenv",
  "cargo",
  "go",
  "make",
  "just",
  "deno",
]);

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

/** The PATH without folders in the project, and without relative ones (they name the working folder). */
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

/**
 * The words of a text that a shell or a program would split it into: a `sh -c` line (with the
 * commands in its `$(…)`), NODE_OPTIONS' quoted paths. Parsed as bash does, and over-split too
 * (roughParts): a word too many only means one more file checked.
 */
function shellWords(text: string): string[] {
  if (!/[\s"'\\;&|<>()`$]/.test(text)) return [];
  return [...parseShell(text).commands.flatMap((command) => command.words), ...roughParts(text).flat()];
}

/**
 * What else a word may name a file as: `--name=value`'s value, a file: URL's path, the word with its percent-escapes
 * decoded.
 */
function decodedForms(word: string): string[] {
  const eq = word.startsWith("-") ? word.indexOf("=") : -1;
  const forms = eq > 0 ? [word, word.slice(eq + 1)] : [word];
  for (const form of [...forms]) {
    try {
      if (/^file:/i.test(form)) forms.push(fileURLToPath(form));
      if (form.includes("%")) forms.push(decodeURIComponent(form));
    } catch {
      // Not a URL or no valid escapes: the word as written is checked.
    }
  }
  return forms;
}

/** The other forms of the arguments a program may read a path from (shell words, decoded URLs and escapes). */
function hiddenCandidates(args: readonly string[]): string[] {
  const plain = new Set(pathCandidates(args));
  const all = args.flatMap((arg) => [arg, ...shellWords(arg)]).flatMap(decodedForms);
  return [...new Set(all)].filter((word) => word !== "" && !plain.has(word));
}

/**
 * The parts of a variable's value that may name a path: the value, its words (quotes removed) and list entries,
 * `--x=path`'s path, decoded.
 */
function valueCandidates(value: string): string[] {
  const words = [...value.split(/[\s:;,]+/), ...shellWords(value)].flatMap((word) => {
    const eq = word.indexOf("=");
    return eq >= 0 ? [word, word.slice(eq + 1)] : [word];
  });
  return [...new Set([value, ...words].flatMap(decodedForms))].filter((word) => word !== "");
}

/**
 * The launch of a local server and the project's files it runs. `garudaPath`: Garuda's own PATH,
 * which the server gets unless its definition sets one.
 */
export function planLaunch(config: StdioServerConfig, root: string, garudaPath: string | undefined): ServerLaunch {
  const env = { ...config.env };
  const notes: string[] = [];
  const dropped = SHELL_STARTUP.filter((name) => name in env);
  const hooks = SHELL_HOOKS.filter((name) => name in env);
  for (const name of [...dropped, ...hooks]) delete env[name];
  if (dropped.length > 0) notes.push(`${dropped.join(", ")}: dropped (bash would run the file named first)`);
  if (hooks.length > 0) notes.push(`${hooks.join(", ")}: dropped (bash would run the code they hold first)`);
  const givenPath = env.PATH ?? garudaPath;
  if (givenPath !== undefined) {
    env.PATH = pathOutsideProject(givenPath, root);
    if (env.PATH !== givenPath) notes.push("PATH: the project's folders left out");
  }
  const cwd = config.cwd ?? OUTSIDE;
  if (cwd === OUTSIDE) notes.push("starts in / (nothing is found through the project folder)");
  const projectFiles = new Map<string, ProjectFile>();
  const readPaths: string[] = [];
  const inProject = (path: string) => isInside(realOrSelf(path), root) || isInside(path, root);
  const shownOf = (path: string) => {
    const real = realOrSelf(path);
    return (isInside(real, root) ? relative(root, real) : relative(root, path)) || ".";
  };
  const unpinnable = (shown: string) => projectFiles.set(shown, { shown, hash: undefined });
  /**
   * A file the server runs: the project's (pinned by content) when inside it; made readable in the sandbox when asked.
   */
  const file = (path: string, readable: boolean) => {
    if (inProject(path)) {
      const shown = shownOf(path);
      projectFiles.set(shown, { shown, hash: fileHash(realOrSelf(path)) });
    }
    // Only a regular file named as such is made readable in the sandbox: not a link, socket or folder.
    if (readable && isAbsolute(path) && isRegular(path)) readPaths.push(path);
  };

  if (inProject(cwd))
    unpinnable(`${shownOf(cwd)} (the folder it starts in: what it finds there is the project's, and cannot be pinned)`);
  const command = config.command;
  const name = basename(command).replace(/\.exe$/i, "");
  const program = command.includes("/")
    ? resolve(cwd, command)
    : env.PATH !== undefined
      ? onPath(command, env.PATH)
      : undefined;
  if (program !== undefined && isFile(program)) file(program, true);

  for (const candidate of pathCandidates(config.args)) {
    if (candidate === "") continue;
    const path = resolve(cwd, candidate);
    if (isFile(path)) file(path, true);
    // A package runner given a folder of the project (`npx --prefix=…`, `make -C …`) runs what the project defines
    // there.
    else if (RUNS_A_FOLDER.has(name) && isDir(path) && inProject(path))
      unpinnable(`${shownOf(path)} (a folder of the project, whose code ${name} runs)`);
  }
  // A project file named inside a shell line or encoded (`sh -c "node x.js"`, `--import=file://…`): pinned, not made
  // readable.
  for (const candidate of hiddenCandidates(config.args)) {
    const path = resolve(cwd, candidate);
    if (isFile(path)) file(path, false);
  }

  // A variable's value is checked as an argument is: `NODE_OPTIONS=--require=…`, `LD_PRELOAD=…`.
  for (const [variable, value] of Object.entries(env)) {
    if (variable === "PATH") continue;
    for (const candidate of valueCandidates(value)) {
      const path = resolve(cwd, candidate);
      if (isFile(path)) file(path, false);
      else if (LOADS_CODE.test(variable) && isDir(path) && inProject(path))
        unpinnable(`${shownOf(path)} (a folder of the project that ${variable} loads code from)`);
    }
  }
  return {
    command,
    args: [...config.args],
    cwd,
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
