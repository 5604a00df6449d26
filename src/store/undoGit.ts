// git for the undo store, through the Executor (architecture rule 6) and on the host (the store
// lives in ~/.garuda, which no sandboxed command may write). Every call gets a private git dir
// with the project as its work tree, its own index file, no system or global config, no hooks,
// no fsmonitor, and attributes that switch off every content conversion, so a snapshot holds
// the files byte for byte. stdout goes to a file (parsed exactly, never capped); the executor's
// output is then git's stderr, for error messages.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { messageOf } from "../errors/caught.ts";
import type { Executor } from "../sandbox/types.ts";
import { decodeRaw, encodeRaw, hasRawBytes } from "./rawNames.ts";

/** Quotes one word for bash. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface GitRunResult {
  exitCode: number | null;
  /** What git wrote to stdout (only with `capture`). */
  stdout: Buffer;
  /** stderr (and stdout when not captured), for messages. */
  messages: string;
  timedOut: boolean;
  durationMs: number;
}

export interface GitCall {
  /** A bash script; `g` runs git with the store's settings. */
  script: string;
  /** Names that nulFields() gave keep their bytes (rawNames.ts). */
  stdin?: string;
  timeoutMs?: number;
  /** Pathspecs are literal file names (no globs, no magic). */
  literal?: boolean;
  /** Keep stdout: the script writes it to "$OUT". */
  capture?: boolean;
}

export interface GitStoreDirs {
  root: string;
  gitDir: string;
  indexFile: string;
  /** Where captured stdout files live (inside gitDir). */
  tmpDir: string;
}

/** The `-c` settings of every call. */
function configArgs(root: string): string[] {
  const settings = [
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.quotePath=false",
    "core.symlinks=true",
    "safe.directory=*",
    "advice.addEmbeddedRepo=false",
    "submodule.recurse=false",
    "maintenance.auto=false",
    "init.defaultBranch=main",
  ];
  const projectExclude = join(root, ".git", "info", "exclude");
  if (existsSync(projectExclude)) settings.push(`core.excludesFile=${projectExclude}`);
  return settings.flatMap((setting) => ["-c", setting]);
}

/**
 * The bound of a call that sets none, and what its end by timeout does. git blocks for good on
 * opening a FIFO where it reads a file (.gitignore, .gitattributes: a command can make one), and a
 * call that never returns would hold the store's queue, and with it every later command, forever.
 */
export interface GitTimeout {
  ms: number;
  onTimeout(): void;
}

export class GitRunner {
  readonly #config: string;

  /** `signal`: stops every call, the one running and those to come (the store closing). */
  constructor(
    private readonly executor: Executor,
    readonly dirs: GitStoreDirs,
    private readonly signal?: AbortSignal,
    private readonly timeout?: GitTimeout,
  ) {
    this.#config = configArgs(dirs.root).map(shellQuote).join(" ");
  }

  async run(call: GitCall): Promise<GitRunResult> {
    const out = join(this.dirs.tmpDir, `out-${randomBytes(6).toString("hex")}`);
    const env: Record<string, string> = {
      GIT_DIR: this.dirs.gitDir,
      GIT_WORK_TREE: this.dirs.root,
      GIT_INDEX_FILE: this.dirs.indexFile,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_ATTR_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      GIT_NO_REPLACE_OBJECTS: "1",
      GIT_OPTIONAL_LOCKS: "0",
      LC_ALL: "C",
      OUT: out,
    };
    if (call.literal) env.GIT_LITERAL_PATHSPECS = "1";
    // The executor sends stdin as UTF-8: bytes that are not (a name's, rawNames.ts) go through a file.
    const input = call.stdin !== undefined && hasRawBytes(call.stdin) ? `${out}.in` : undefined;
    if (input !== undefined) writeFileSync(input, encodeRaw(call.stdin as string), { mode: 0o600 });
    const stdin = input === undefined ? call.stdin : undefined;
    const stdinFrom = input === undefined ? "" : `exec <${shellQuote(input)}\n`;
    const script = `g() { git ${this.#config} "$@"; }\n${stdinFrom}${call.script}`;
    const timeoutMs = call.timeoutMs ?? this.timeout?.ms;
    try {
      const result = await this.executor.run({
        command: script,
        cwd: this.dirs.root,
        sandbox: null,
        // Garuda's own git, not the user's command: no keeper process needed (hostNamespace.ts).
        internal: true,
        env,
        ...(stdin !== undefined && { stdin }),
        ...(timeoutMs !== undefined && { timeoutMs }),
        ...(this.signal && { signal: this.signal }),
      });
      // A call with a bound of its own says what its timeout means itself.
      if (result.timedOut && call.timeoutMs === undefined) this.timeout?.onTimeout();
      let stdout = Buffer.alloc(0);
      if (call.capture && existsSync(out)) stdout = readFileSync(out);
      return {
        exitCode: result.exitCode,
        stdout,
        messages: result.output,
        timedOut: result.timedOut,
        durationMs: result.durationMs,
      };
    } catch (error) {
      // The executor refused (it has been shut down): a failed call, not an exception.
      return {
        exitCode: null,
        stdout: Buffer.alloc(0),
        messages: `error: ${messageOf(error)}`,
        timedOut: false,
        durationMs: 0,
      };
    } finally {
      rmSync(out, { force: true });
      if (input !== undefined) rmSync(input, { force: true });
    }
  }
}

/** The first line of git's complaint, for a notice. */
export function gitMessage(result: GitRunResult): string {
  const line =
    result.messages
      .split("\n")
      .map((l) => l.trim())
      .find((l) => /^(fatal|error):/.test(l)) ??
    result.messages.trim().split("\n")[0] ??
    "";
  return line.length > 0 ? line : `git exited with code ${result.exitCode ?? "none"}`;
}

/** NUL-separated fields of git's -z output; a name that is not UTF-8 keeps its bytes (rawNames.ts). */
export function nulFields(stdout: Buffer): string[] {
  const text = decodeRaw(stdout);
  const fields = text.split("\0");
  if (fields[fields.length - 1] === "") fields.pop();
  return fields;
}
